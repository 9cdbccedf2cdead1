"""``herdr-link-mcp``: serve Herdr Link over stdio (the default command)."""

import argparse
import logging
import sys
from collections.abc import Sequence

__all__ = ["main"]


def _serve(namespace: str) -> int:
    import anyio
    from mcp.server.stdio import stdio_server

    from herdr_link_control import Link

    from ._server import create_server, initialization_options

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="herdr-link-mcp: %(message)s")
    server = create_server(Link(), namespace=namespace)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, initialization_options(server))

    anyio.run(run)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``herdr-link-mcp``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="herdr-link-mcp", description="Herdr Link as a stdio MCP server.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "--namespace",
        default="herdr_link",
        help="the name the host registered this server under (default: herdr_link)",
    )
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"herdr-link-mcp {version('herdr-link-mcp')}")  # noqa: T201
        return 0
    try:
        return _serve(args.namespace)
    except KeyboardInterrupt:
        return 130
