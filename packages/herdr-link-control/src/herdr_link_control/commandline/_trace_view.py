"""``trace``: read the user's trace back, for a person (``herdr-link trace``, ``herdr-link-mcp trace``).

It shows what Link did: a message's path by its id on the sender's side (the call, the Herdr commands
under it, Herdr's answers), one agent's calls, a time window, or the file live. ``sent`` is Herdr's
acceptance of the text, not the receiver reading it: the receiver's next Link calls are shown only as
an inference, by name and time (a reply carries no id, spec §2.2, and nothing is added to correlate).
"""

import argparse
import json
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final, TextIO

from herdr_link_protocol import escape_unsafe

from .._settings import LinkSettings

__all__ = ["TraceQuery", "read_trace", "run_trace"]

ACCEPTED: Final = (
    "`sent` means Herdr accepted the text for the agent's pane; it does not show that the receiver read it."
)
INFERRED: Final = "the receiver's next Link calls (inferred by name and time: a reply carries no message id)"


def _parsed(text: str) -> Iterator[dict[str, Any]]:
    """The events in ``text``: one JSON object per line, lines ending at ``\n`` only (an event may hold a
    U+2028 or U+0085, which ``str.splitlines`` would cut at); a line cut short by a full disk is skipped."""
    for line in text.split("\n"):
        try:
            event = json.loads(line)  # the user's own file
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("t"), str):
            yield event


def _events(path: Path) -> Iterator[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    yield from _parsed(text)


def read_trace(path: Path) -> list[dict[str, Any]]:
    """Every event of the trace, the rotated file's first, in time order."""
    events = [*_events(path.with_name(path.name + ".1")), *_events(path)]
    return sorted(events, key=lambda event: str(event["t"]))


def _when(event: Mapping[str, Any]) -> datetime:
    return datetime.fromisoformat(str(event["t"]).replace("Z", "+00:00"))


@dataclass(frozen=True)
class TraceQuery:
    """Which events to show."""

    message_id: str | None = None
    agent: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def keeps(self, event: Mapping[str, Any]) -> bool:
        moment = _when(event)
        if (self.since and moment < self.since) or (self.until and moment > self.until):
            return False
        if self.agent and self.agent not in (event.get("caller"), event.get("target"), event.get("name")):
            return False
        return True

    def path(self, events: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
        """A message's path on the sender's side (its call and everything under it), and the receiver's
        next calls (inferred)."""
        sent = [e for e in events if e.get("event") == "call" and e.get("id") == self.message_id]
        if not sent:
            return [], []
        call = sent[0]
        under = [e for e in events if e.get("call") and e.get("call") == call.get("call")]
        receiver, after = call.get("target"), _when(call)
        later = [
            e for e in events
            if e.get("event") == "call" and receiver and e.get("caller") == receiver and _when(e) >= after
        ][:5]  # fmt: skip
        return under, later


def _row(event: Mapping[str, Any]) -> str:
    kind = str(event.get("event"))
    if kind == "herdr":
        what = " ".join(str(a) for a in event.get("argv", []))
        outcome = "timed out" if event.get("timeout") else f"exit {event.get('exit')}"
        if event.get("herdr_error"):
            outcome += f" ({event['herdr_error']})"
        return f"  herdr {what}  → {outcome}, {event.get('ms')} ms"
    if kind == "call":
        who = f"{event.get('caller') or '?'} → {event.get('target')}" if event.get("target") else event.get("caller")
        message = event.get("message") or {}
        size = f" [{message.get('length')} chars {message.get('hash')}]" if message else ""
        ident = f" {event['id']}" if event.get("id") else ""
        reason = event.get("reason") or event.get("code")
        return f"{event.get('action') or event.get('tool')} {who or ''}{ident}{size}: {reason} ({event.get('ms')} ms)"
    details = {k: v for k, v in event.items() if k not in ("t", "pid", "event", "call")}
    return f"{kind} " + " ".join(f"{k}={v}" for k, v in details.items() if v not in (None, ""))


def _print(events: Sequence[Mapping[str, Any]], as_json: bool, out: TextIO) -> None:
    """Each event on one line; anything in it that a terminal would act on (a label, a tool name, a text
    someone else wrote) is shown escaped."""
    for event in events:
        line = (
            json.dumps(event, ensure_ascii=False) if as_json else f"{event['t']}  pid {event.get('pid')}  {_row(event)}"
        )
        out.write(escape_unsafe(line) + "\n")


def _say(text: str, out: TextIO) -> None:
    out.write(text + "\n")


def run_trace(args: argparse.Namespace, environ: Mapping[str, str], out: TextIO = sys.stdout) -> int:
    """Show the trace as asked: 0 when something was shown (or followed), 1 when nothing was (the trace is
    off, not written yet, or nothing matched; stderr says which).
    """
    path = args.file or LinkSettings.load(environ).trace_file
    if path is None:
        _say("no trace: it is off (set [trace] file in the settings file, or HERDR_LINK_TRACE)", sys.stderr)
        return 1
    query = TraceQuery(args.message_id, args.agent, args.since, args.until)
    events = read_trace(path)
    if not events and not path.exists() and not args.follow:  # following waits for the first line
        _say(f"no trace at {path}: nothing was traced yet (is the trace on? herdr-link doctor says)", sys.stderr)
        return 1
    if args.message_id:
        under, later = query.path(events)
        if not under:
            _say(f"no message {args.message_id} in {path}", sys.stderr)
            return 1
        if not args.json:
            _say(f"message {args.message_id}, on the sender's side:", out)
        _print(under, args.json, out)
        if not args.json:
            _say(ACCEPTED, out)
            _say(f"{INFERRED}:" if later else f"{INFERRED}: none traced", out)
        _print(later, args.json, out)
        return 0
    shown = [event for event in events if query.keeps(event)]
    _print(shown, args.json, out)
    if args.follow:
        _say(f"following {path} (Ctrl-C stops)", sys.stderr)
        sys.stderr.flush()
        return _follow(path, query, args.json, out)
    return 0 if shown else 1


def _follow(path: Path, query: TraceQuery, as_json: bool, out: TextIO) -> int:
    """Show the lines appended from now on (a rotated file is followed into its new one)."""
    try:
        where = path.stat()
        identity, offset = (where.st_dev, where.st_ino), where.st_size
    except FileNotFoundError:
        identity, offset = None, 0
    try:
        while True:
            time.sleep(0.5)
            try:
                where = path.stat()
            except FileNotFoundError:
                continue
            if (where.st_dev, where.st_ino) != identity:
                identity, offset = (where.st_dev, where.st_ino), 0  # rotated: the new file from its start
            if where.st_size < offset:
                offset = 0  # emptied in place (truncated): its new lines from its start
            if where.st_size <= offset:
                continue
            with path.open("rb") as file:
                file.seek(offset)
                chunk = file.read(where.st_size - offset)
            complete = chunk[: chunk.rfind(b"\n") + 1]
            offset += len(complete)
            for event in _parsed(complete.decode("utf-8", "replace")):
                if query.keeps(event):
                    _print([event], as_json, out)
                    out.flush()
    except KeyboardInterrupt:
        return 0
