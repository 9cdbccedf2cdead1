"""The ``trace`` command's options, shared by ``herdr-link`` and ``herdr-link-mcp`` (standard library only:
building a command's parser must not load the trace reader)."""

import argparse
from pathlib import Path

__all__ = ["add_trace_arguments"]


def add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``trace`` command's options (shared by every command that offers it)."""
    parser.add_argument(
        "--file", type=Path, help="the trace file (default: HERDR_LINK_TRACE, else the settings file's)"
    )
    parser.add_argument("--id", dest="message_id", metavar="hl_…", help="one message's path, by the id send answered")
    parser.add_argument("--agent", metavar="NAME", help="only the calls by or to this Agent Name")
    parser.add_argument("--since", metavar="WHEN", help="only after WHEN: 10m, 2h, 1d or an ISO time")
    parser.add_argument("--until", metavar="WHEN", help="only before WHEN")
    parser.add_argument("--json", action="store_true", help="one JSON event per line, for tools")
    parser.add_argument("--follow", "-f", action="store_true", help="keep showing new events until interrupted")
