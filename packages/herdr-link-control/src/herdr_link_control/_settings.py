"""The user's own Herdr Link settings: one TOML file at user scope that every adapter reads.

Hosts start our processes with an environment the user does not control (a Codex server sees only
the variables its entry forwards), so what a user sets for Herdr Link lives in a file:
``$XDG_CONFIG_HOME/herdr-link/config.toml`` (``~/.config/herdr-link/config.toml`` without it), or the
file ``HERDR_LINK_CONFIG`` names. Read once per process; a missing file is the defaults, and an
unreadable or invalid one is the defaults plus one operator-log warning: a setting never fails a call.

    [loop_guard]
    messages = 50   # at most this many messages from one session to the same agent …
    seconds = 600   # … within this many seconds; messages = 0 turns the guard off

Every number must be finite and in its range (``messages`` at least 1, or 0 for off; ``seconds`` above 0;
``max_bytes`` at least 4096), and ``file`` absolute or ``~/…``: anything else is the default and one
warning (the doctor shows it).

    [trace]
    file = "~/.local/state/herdr-link/trace.jsonl"   # switches the trace on (off without it)
    content = false                                   # true: messages' text too
    max_bytes = 20000000                              # rotated past this size
"""

import logging
import math
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

MOST: Final = 1e12
"""No setting is larger (a limit past it is a typo, and keeps every computation finite)."""
SMALLEST_TRACE_BYTES: Final = 4096
"""A rotation size below this would rotate at every line."""
DEFAULT_TRACE_BYTES: Final = 20_000_000
"""The size at which the trace is rotated (one older file is kept): about 60,000 calls."""
DEFAULT_LOOP_MESSAGES: Final = 50
"""The loop guard's default limit: messages from one session to the same agent within the window."""
DEFAULT_LOOP_SECONDS: Final = 600.0
"""Fifty messages to one agent in ten minutes: one every twelve seconds, sustained. An agent whose turns do
real work sends less; two agents acknowledging each other (a few seconds a turn) pass it within minutes.
A burst of fifty at once still passes (a lead handing out work), and so do the parallel and load tests
(12 at once to one agent; 16 agents × 50 messages to random peers, at most 9 to one peer)."""


def _under_home(path: str) -> bool:
    """Whether ``path`` is written from the home folder: ``~``, ``~/…`` (or ``~\\…``)."""
    return path == "~" or path.startswith(("~/", "~\\"))


def expand_home(path: str, environ: Mapping[str, str]) -> Path:
    """``path`` with a leading ``~`` read as ``environ``'s ``HOME`` (the user the adapter serves)."""
    home = environ.get("HOME") or environ.get("USERPROFILE")
    if home and _under_home(path):
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
    section: str = "loop_guard", *, least: float = 0, zero: bool = False, most: float = MOST,
) -> float:  # fmt: skip
    """``key``'s value where it is a finite number in ``[least, most]`` (or exactly 0 where ``zero`` says
    0 is a documented setting: "off"); anything else, ``inf`` and ``nan`` included, is the default, logged."""
    value = table.get(key, default)
    number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if number and (least <= value <= most or (zero and value == 0)):
        return float(value)
    span = f"from {least:g} to {most:g}" + (" (or 0: off)" if zero else "")
    problems.append(f"{path}: {section}.{key} must be a number {span}, not {value!r}: {default:g} is used")
    return default


def _trace_path(file: str, path: Path | None, problems: list[str]) -> str | None:
    """``[trace] file`` where it can name one file for every process: absolute (or ``~/…``), no NUL."""
    if "\0" in file:
        problems.append(f"{path}: trace.file holds a NUL character: the trace is off")
        return None
    if not (_under_home(file) or Path(file).is_absolute()):
        problems.append(
            f"{path}: trace.file must be an absolute path or start with ~/, not {file!r} (a relative one would "
            "put the trace in every folder an adapter runs in): the trace is off"
        )
        return None
    return file


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
    trace_problems: tuple[str, ...] = ()
    """The problems of :attr:`problems` that concern the trace (the doctor fails its trace line on them)."""

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
        messages = _number(guard, "messages", DEFAULT_LOOP_MESSAGES, path, problems, least=1, zero=True)
        seconds = _number(guard, "seconds", DEFAULT_LOOP_SECONDS, path, problems, least=0.001)
        before_trace = len(problems)
        trace = data.get("trace", {})
        if not isinstance(trace, dict):
            problems.append(f"{path}: [trace] is not a table: the trace is off")
            trace = {}
        file = trace.get("file")
        if file is not None and (not isinstance(file, str) or not file):
            problems.append(f"{path}: trace.file must be a path, not {file!r}: the trace is off")
            file = None
        if file is not None:
            file = _trace_path(file, path, problems)
        content = trace.get("content", False)
        if not isinstance(content, bool):
            problems.append(f"{path}: trace.content must be true or false, not {content!r}: false is used")
            content = False
        size = int(
            _number(trace, "max_bytes", DEFAULT_TRACE_BYTES, path, problems, "trace", least=SMALLEST_TRACE_BYTES)
        )
        override = environ.get("HERDR_LINK_TRACE") or None
        if override is not None:
            override = _trace_path(override, Path("HERDR_LINK_TRACE"), problems)
        for problem in problems:
            log.warning("%s", problem)
        chosen = override or file
        trace_file = expand_home(chosen, environ) if chosen else None
        trace_problems = tuple(problems[before_trace:])
        return cls(
            int(messages), seconds, path, tuple(problems), trace_file, bool(override), content, size, trace_problems
        )

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
