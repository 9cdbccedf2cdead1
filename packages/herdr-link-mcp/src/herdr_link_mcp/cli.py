"""``herdr-link-mcp``: serve Herdr Link over stdio (the default), or help wire it into a host.

herdr-link-mcp [serve] [--namespace NS]
herdr-link-mcp hint --host claude|codex|agy|gemini
herdr-link-mcp wiring --host claude|codex|agy|gemini|pi [--json]
herdr-link-mcp probe [--json] [-- COMMAND...]
"""

import argparse
import logging
import os
import signal
import sys
from collections.abc import Sequence

from ._hosts import DEFAULT_NAMESPACE

__all__ = ["main"]


def _serve(namespace: str) -> int:
    import anyio
    from mcp.server.stdio import stdio_server

    from herdr_link_control import Link

    from ._server import create_server, initialization_options

    # The operator log: stderr, which hosts keep in their MCP logs. WARNING by default, so a failed
    # call's Herdr code and message are there and success stays quiet; HERDR_LINK_LOG_LEVEL=INFO or
    # DEBUG turns it up (DEBUG also names the arguments a host added that were ignored).
    level = os.environ.get("HERDR_LINK_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=level if level in logging.getLevelNamesMapping() else logging.WARNING,
        format="herdr-link-mcp: %(levelname)s %(message)s",
    )
    # Hosts stop stdio servers with SIGINT (Claude Code: SIGINT, then SIGTERM 100 ms later). The SDK
    # reads stdin in a worker thread that cancellation cannot interrupt, so a KeyboardInterrupt would
    # never finish unwinding: end at once, as SIGTERM does. Nothing is persisted, nothing is lost.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    server = create_server(Link(), namespace=namespace)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, initialization_options(server))

    anyio.run(run)
    return 0


def _probe(command: list[str], as_json: bool) -> int:
    import json

    import anyio

    from ._probe import probe, render_probe
    from ._wiring import server_command

    reports = anyio.run(probe, command or server_command(), dict(os.environ))
    sys.stdout.write(json.dumps(reports, indent=2) + "\n" if as_json else render_probe(reports))
    return 1 if any("error" in report for report in reports) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``herdr-link-mcp``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="herdr-link-mcp", description="Herdr Link as a stdio MCP server.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--namespace", default=DEFAULT_NAMESPACE, help="the name the host registered this server under")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("serve", help="serve MCP on stdin/stdout (the default)")
    hint = commands.add_parser("hint", help="print the Tier 0 hint in the form a host's hook or launcher expects")
    hint.add_argument("--host", required=True, choices=["claude", "codex", "agy", "gemini"])
    wiring = commands.add_parser("wiring", help="print ready-to-paste registration for a host")
    wiring.add_argument("--host", required=True, choices=["claude", "codex", "agy", "gemini", "pi"])
    wiring.add_argument("--json", action="store_true", help="machine-readable output")
    probe = commands.add_parser("probe", help="start the server as a host would and report what the host sees")
    probe.add_argument("--json", action="store_true", help="machine-readable output")
    probe.add_argument("server", nargs=argparse.REMAINDER, help="the server command (default: this one)")
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"herdr-link-mcp {version('herdr-link-mcp')}")  # noqa: T201
        return 0
    try:
        if args.command == "hint":
            from ._wiring import hint_output

            output = hint_output(args.host, os.environ)
            sys.stdout.write(output + ("\n" if output and args.host == "claude" else ""))
            return 0
        if args.command == "wiring":
            from ._wiring import wiring as build

            result = build(args.host)
            sys.stdout.write(result.to_json() + "\n" if args.json else result.render())
            return 0
        if args.command == "probe":
            return _probe([a for a in args.server if a != "--"], args.json)
        return _serve(args.namespace)
    except KeyboardInterrupt:
        return 130
