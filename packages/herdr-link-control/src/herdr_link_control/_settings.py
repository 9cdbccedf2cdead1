"""The user's own Herdr Link settings: one TOML file at user scope that every adapter reads.

Hosts start our processes with an environment the user does not control (a Codex server sees only
the variables its entry forwards), so what a user sets for Herdr Link lives in a file:
``$XDG_CONFIG_HOME/herdr-link/config.toml`` (``~/.config/herdr-link/config.toml`` without it), or the
file ``HERDR_LINK_CONFIG`` names. Read once per process; a missing file is the defaults, and an
unreadable or invalid one is the defaults plus one operator-log warning: a setting never fails a call.

    [loop_guard]
    messages = 50   # at most this many messages from one session to the same agent …
    seconds = 600   # … within this many seconds; messages = 0 turns the guard off

    [trace]
    file = "~/.local/state/herdr-link/trace.jsonl"   # switches the trace on (off without it)
    content = false                                   # true: messages' text too
    max_bytes = 20000000                              # rotated past this size
"""

import logging
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = [
    "DEFAULT_LOOP_MESSAGES",
    "DEFAULT_LOOP_SECONDS",
    "DEFAULT_TRACE_BYTES",
    "LinkSettings",
    "expand_home",
    "settings_path",
]

log: Final = logging.getLogger("herdr_link")

DEFAULT_TRACE_BYTES: Final = 20_000_000
"""The size at which the trace is rotated (one older file is kept): about 60,000 calls."""
DEFAULT_LOOP_MESSAGES: Final = 50
"""The loop guard's default limit: messages from one session to the same agent within the window."""
DEFAULT_LOOP_SECONDS: Final = 600.0
"""Fifty messages to one agent in ten minutes: one every twelve seconds, sustained. An agent whose turns do
real work sends less; two agents acknowledging each other (a few seconds a turn) pass it within minutes.
A burst of fifty at once still passes (a lead handing out work), and so do the parallel and load tests
(12 at once to one agent; 16 agents × 50 messages to random peers, at most 9 to one peer)."""


def expand_home(path: str, environ: Mapping[str, str]) -> Path:
    """``path`` with a leading ``~`` read as ``environ``'s ``HOME`` (the user the adapter serves)."""
    home = environ.get("HOME") or environ.get("USERPROFILE")
    if home and (path == "~" or path.startswith(("~/", "~\\"))):
        return Path(home) / path[2:]
    return Path(path).expanduser()


def settings_path(environ: Mapping[str, str]) -> Path | None:
    """Where the user's settings file is, or ``None`` when neither a ``HOME`` nor a location is known."""
    if environ.get("HERDR_LINK_CONFIG"):
        return expand_home(environ["HERDR_LINK_CONFIG"], environ)
    base = environ.get("XDG_CONFIG_HOME") or (
        str(Path(environ["HOME"]) / ".config") if environ.get("HOME") else environ.get("APPDATA")
    )
    return Path(base) / "herdr-link" / "config.toml" if base else None


def _number(
    table: Mapping[str, Any], key: str, default: float, path: Path | None, problems: list[str],
    section: str = "loop_guard",
) -> float:  # fmt: skip
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        problems.append(f"{path}: {section}.{key} must be a number of at least 0, not {value!r}: {default:g} is used")
        return default
    return float(value)


@dataclass(frozen=True, slots=True)
class LinkSettings:
    """What the user set (or the defaults)."""

    loop_messages: int = DEFAULT_LOOP_MESSAGES
    """At most this many messages from one session to the same agent within ``loop_seconds`` (0: no guard)."""
    loop_seconds: float = DEFAULT_LOOP_SECONDS
    path: Path | None = None
    """The file read, for the doctor and the operator log (``None``: no location known)."""
    problems: tuple[str, ...] = ()
    """What was wrong with the file (each also logged once): the defaults were used there."""
    trace_file: Path | None = None
    """Where the trace goes: ``HERDR_LINK_TRACE``'s file, else ``[trace] file`` (``None``: off)."""
    trace_by_variable: bool = False
    """Whether ``HERDR_LINK_TRACE`` chose ``trace_file`` (for this process only)."""
    trace_content: bool = False
    trace_bytes: int = DEFAULT_TRACE_BYTES

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> "LinkSettings":
        """The settings in the user's file, or the defaults where it is missing or wrong (logged)."""
        path = settings_path(environ)
        problems: list[str] = []
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8")) if path is not None else {}
        except FileNotFoundError:
            data = {}
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            problems.append(f"{path} could not be read ({error}): Herdr Link's defaults are used")
            data = {}
        guard = data.get("loop_guard", {})
        if not isinstance(guard, dict):
            problems.append(f"{path}: [loop_guard] is not a table: the defaults are used")
            guard = {}
        messages = _number(guard, "messages", DEFAULT_LOOP_MESSAGES, path, problems)
        seconds = _number(guard, "seconds", DEFAULT_LOOP_SECONDS, path, problems)
        trace = data.get("trace", {})
        if not isinstance(trace, dict):
            problems.append(f"{path}: [trace] is not a table: the trace is off")
            trace = {}
        file = trace.get("file")
        if file is not None and (not isinstance(file, str) or not file):
            problems.append(f"{path}: trace.file must be a path, not {file!r}: the trace is off")
            file = None
        content = trace.get("content", False)
        if not isinstance(content, bool):
            problems.append(f"{path}: trace.content must be true or false, not {content!r}: false is used")
            content = False
        size = int(_number(trace, "max_bytes", DEFAULT_TRACE_BYTES, path, problems, "trace"))
        for problem in problems:
            log.warning("%s", problem)
        override = environ.get("HERDR_LINK_TRACE")
        chosen = override or file
        trace_file = expand_home(chosen, environ) if chosen else None
        return cls(
            int(messages), seconds, path, tuple(problems), trace_file, bool(override), content,
            size or DEFAULT_TRACE_BYTES,
        )  # fmt: skip

    def describe_trace(self) -> str:
        """Whether the trace is on and where it goes (the doctor's line)."""
        if self.trace_by_variable:
            return f"trace on for processes with HERDR_LINK_TRACE: {self.trace_file}"
        if self.trace_file is not None:
            text = ", with messages' text" if self.trace_content else ""
            return f"trace on{text}: {self.trace_file} (set in {self.path})"
        where = f'[trace] file = "…" in {self.path}' if self.path else "HERDR_LINK_TRACE"
        return f"trace off (switch it on with {where})"

    def describe(self) -> str:
        """The loop guard in the user's words, and where it is set (the doctor's line)."""
        where = f"[loop_guard] messages and seconds in {self.path}" if self.path else "no settings file location"
        if self.loop_messages <= 0:
            return f"loop guard off (messages = 0; {where})"
        return (
            f"loop guard: at most {self.loop_messages} messages from one session to the same agent within "
            f"{self.loop_seconds:g} s ({where})"
        )
