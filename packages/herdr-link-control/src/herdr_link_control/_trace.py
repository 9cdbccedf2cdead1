"""The opt-in trace: one JSON line per tool call, Herdr command and decision, in one file per user.

Off by default. The user switches it on in their settings file (``[trace] file = "…"``) or, for one
process, with ``HERDR_LINK_TRACE=<file>``. The trace is for the operator: raw ids are in it, a
message's text only with ``content = true`` (otherwise its length and a short hash), and what Herdr
is given to type (the wrapper, ``agent start``'s arguments) is replaced by its length and hash.
Nothing reads it back (it is not a queue, a receipt or state: spec §9), and writing it never fails a
call: an unwritable file or a full disk is one operator-log warning, then this process stops tracing.

Every process appends to the same file, one ``write`` per line (``O_APPEND``), so the adapters of
every workspace interleave whole lines. Past ``max_bytes`` the file is renamed to ``<file>.1`` (the
one before is dropped) and a new one begun; a process whose file was renamed under it reopens the
path at its next line. Created readable by its owner only, in a folder only its owner may enter.
"""

import hashlib
import itertools
import json
import logging
import os
import stat
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ._settings import DEFAULT_TRACE_BYTES

__all__ = ["Tracer", "elapsed_ms", "fingerprint", "redact_argv"]

log: Final = logging.getLogger("herdr_link")

_FLAGS: Final = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
_CALL: ContextVar[str | None] = ContextVar("herdr_link_trace_call", default=None)
"""The tool call the current task works for: every event under it carries its ``call`` number."""
_NUMBERS: Final = itertools.count(1)


def fingerprint(text: str) -> str:
    """A short hash of ``text``, to tell messages apart without keeping them."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def redact_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with what Herdr is given to type replaced by its length and hash: ``agent prompt``'s text
    and every argument of ``agent start`` after ``--``."""
    shown = list(argv)
    if shown[:2] == ["agent", "prompt"] and len(shown) >= 4:
        shown[3] = _hidden(shown[3])
    if shown[:2] == ["agent", "start"] and "--" in shown:
        cut = shown.index("--") + 1
        shown[cut:] = [_hidden(arg) for arg in shown[cut:]]
    return shown


def _hidden(text: str) -> str:
    return f"<{len(text)} chars, {fingerprint(text)}>"


class Tracer:
    """Appends events to the trace file; does nothing (and costs one attribute test) when off."""

    def __init__(
        self, path: Path | None = None, *, content: bool = False, max_bytes: int = DEFAULT_TRACE_BYTES
    ) -> None:
        self.path = path
        self.content = content
        """Whether a message's text is written (the user's explicit ``content = true``)."""
        self.max_bytes = max_bytes
        self.enabled = path is not None
        self._fd: int | None = None

    def __repr__(self) -> str:
        return f"Tracer({str(self.path) if self.enabled else 'off'})"

    def event(self, event: str, **fields: Any) -> None:
        """Write one event (``fields`` must be JSON values). Never raises."""
        if not self.enabled:
            return
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        record = {"t": now, "pid": os.getpid(), "event": event, "call": _CALL.get(), **fields}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        self._write(line.encode("utf-8", "surrogatepass"))

    @contextmanager
    def call(self) -> Iterator[None]:
        """Number one tool call: the Herdr commands and decisions made under it name it (``call``)."""
        token = _CALL.set(f"{os.getpid()}-{next(_NUMBERS)}")
        try:
            yield
        finally:
            _CALL.reset(token)

    def message(self, text: str) -> dict[str, Any]:
        """How a message appears in an event: its length and hash, and its text only if the user asked."""
        shown: dict[str, Any] = {"length": len(text), "hash": fingerprint(text)}
        if self.content:
            shown["text"] = text
        return shown

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)
            except OSError:
                pass

    def _write(self, line: bytes) -> None:
        assert self.path is not None
        try:
            size = self._open_size()
            if size + len(line) > self.max_bytes:
                self._rotate()
            assert self._fd is not None
            os.write(self._fd, line)
        except OSError as error:
            log.warning("the trace %s cannot be written (%s): this process stops tracing", self.path, error)
            self.enabled = False
            self.close()

    def _open_size(self) -> int:
        """The size of the file the path names, opened (again) if another process rotated or removed it."""
        assert self.path is not None
        if self._fd is not None:
            open_file = os.fstat(self._fd)
            try:
                here = os.stat(self.path)
            except FileNotFoundError:
                here = None
            if here is not None and (here.st_dev, here.st_ino) == (open_file.st_dev, open_file.st_ino):
                return open_file.st_size
        self._open()
        assert self._fd is not None
        return os.fstat(self._fd).st_size

    def _open(self) -> None:
        assert self.path is not None
        self.close()
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._fd = os.open(self.path, _FLAGS, 0o600)
        if hasattr(os, "fchmod") and stat.S_ISREG(os.fstat(self._fd).st_mode):
            os.fchmod(self._fd, 0o600)  # a file the user created by hand is made private too (not a device)

    def _rotate(self) -> None:
        assert self.path is not None
        os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        self._open()


def elapsed_ms(started: float) -> float:
    """Milliseconds since ``started`` (``time.perf_counter()``), to a tenth."""
    return round((time.perf_counter() - started) * 1000, 1)
