"""The ``trace`` command's options, shared by ``herdr-link`` and ``herdr-link-mcp`` (standard library only:
building a command's parser must not load the trace reader)."""

import argparse
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

__all__ = ["add_trace_arguments"]

_SPAN = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")


def _moment(value: str) -> datetime:
    """``--since``/``--until``: ``10m``, ``2h``, ``1d``, ``30s`` ago, or an ISO time (UTC unless it says)."""
    span = _SPAN.match(value)
    if span:
        amount, unit = float(span.group(1)), span.group(2)
        return datetime.now(UTC) - timedelta(seconds=amount * {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit])
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is neither 10m, 2h, 1d nor an ISO time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``trace`` command's options (shared by every command that offers it)."""
    parser.add_argument(
        "--file", type=Path, help="the trace file (default: HERDR_LINK_TRACE, else the settings file's)"
    )
    parser.add_argument("--id", dest="message_id", metavar="hl_…", help="one message's path, by the id send answered")
    parser.add_argument("--agent", metavar="NAME", help="only the calls by or to this Agent Name")
    parser.add_argument("--since", metavar="WHEN", type=_moment, help="only after WHEN: 10m, 2h, 1d or an ISO time")
    parser.add_argument("--until", metavar="WHEN", type=_moment, help="only before WHEN")
    parser.add_argument("--json", action="store_true", help="one JSON event per line, for tools")
    parser.add_argument("--follow", "-f", action="store_true", help="keep showing new events until interrupted")
