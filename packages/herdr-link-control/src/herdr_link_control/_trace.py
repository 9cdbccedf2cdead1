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
path at its next line. Created readable by its owner only, in a folder only its owner may enter; a
folder it did not make must be the user's and not writable by others, and the file is opened without
following a link at its name and must be a regular file of the user's (anything else: one warning, and
this process stops tracing). Hashes are keyed by the trace's own random key (``<file>.key``, 0600).
"""

import hashlib
import hmac
import itertools
import json
import logging
import os
import secrets
import stat
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ._settings import DEFAULT_TRACE_BYTES

__all__ = ["Tracer", "UnsafeTrace", "elapsed_ms", "fingerprint", "redact_argv", "trace_key"]

log: Final = logging.getLogger("herdr_link")

_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)
_FLAGS: Final = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0) | _NOFOLLOW | _NONBLOCK
"""Never through a link at the file's own name; never waiting on a FIFO (checked, then refused)."""
_CALL: ContextVar[str | None] = ContextVar("herdr_link_trace_call", default=None)
"""The tool call the current task works for: every event under it carries its ``call`` number."""
_NUMBERS: Final = itertools.count(1)


def fingerprint(text: str, key: bytes = b"") -> str:
    """A short keyed hash of ``text`` (HMAC-SHA-256 under the trace's own key), to tell messages apart in
    one trace without keeping them: without the key, a short text cannot be found by guessing."""
    return hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:12]


def redact_argv(argv: Sequence[str], key: bytes = b"") -> list[str]:
    """``argv`` with what Herdr is given to type replaced by its length and keyed hash: ``agent prompt``'s
    text and every argument of ``agent start`` after ``--``."""
    shown = list(argv)
    if shown[:2] == ["agent", "prompt"] and len(shown) >= 4:
        shown[3] = _hidden(shown[3], key)
    if shown[:2] == ["agent", "start"] and "--" in shown:
        cut = shown.index("--") + 1
        shown[cut:] = [_hidden(arg, key) for arg in shown[cut:]]
    return shown


def _hidden(text: str, key: bytes) -> str:
    return f"<{len(text)} chars, {fingerprint(text, key)}>"


class UnsafeTrace(OSError):
    """The trace's place is not the user's own: another user could read, replace or redirect it."""


def _own_folder(folder: Path) -> None:
    """``folder`` (made 0700 when missing) is a directory of this user that no one else may write to.

    Raises:
        UnsafeTrace: another owner, writable by group or others, or not a directory.
    """
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    found = os.stat(folder)  # a link to a folder is judged by the folder
    if not stat.S_ISDIR(found.st_mode):
        raise UnsafeTrace(f"{folder} is not a folder")
    if hasattr(os, "geteuid") and found.st_uid != os.geteuid():
        raise UnsafeTrace(f"{folder} belongs to another user (uid {found.st_uid})")
    if found.st_mode & 0o022:
        raise UnsafeTrace(f"{folder} may be written by others (mode {stat.S_IMODE(found.st_mode):o})")


def _own_file(fd: int, path: Path) -> None:
    """The opened trace is a regular file of this user (not a FIFO, a device or another user's file)."""
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):
        raise UnsafeTrace(f"{path} is not a regular file")
    if hasattr(os, "geteuid") and found.st_uid != os.geteuid():
        raise UnsafeTrace(f"{path} belongs to another user (uid {found.st_uid})")


KEY_BYTES: Final = 32


@contextmanager
def _locked(fd: int) -> Iterator[None]:
    """An exclusive lock on the open key file, held while it is read and, when short, written; the
    system drops it when its holder dies, so a killed process never leaves it held."""
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_LOCK, KEY_BYTES)
        try:
            yield
        finally:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, KEY_BYTES)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    found = b""
    while chunk := os.read(fd, 64):
        found += chunk
    return found


def trace_key(path: Path) -> bytes:
    """The trace's own random key, kept beside it (``<file>.key``, 0600, made once): the hashes of one
    trace can be compared, and none can be computed without it.

    The key is read and, when missing or short, written under a lock on the file itself: a file shorter
    than a key is what a writer killed before it wrote leaves, and the first process to hold the lock
    after it fills it for everyone (never waiting on a writer that is gone).

    Raises:
        OSError: it cannot be made or read; UnsafeTrace: it is not a private regular file of this user.
    """
    _own_folder(path.parent)
    where = path.with_name(path.name + ".key")
    fd = os.open(where, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0) | _NOFOLLOW | _NONBLOCK, 0o600)
    try:
        _own_file(fd, where)
        if os.fstat(fd).st_mode & 0o077:
            raise UnsafeTrace(f"{where} may be read by others")
        with _locked(fd):
            key = _read_all(fd)
            if len(key) >= KEY_BYTES:
                return key[:64]
            key = secrets.token_bytes(KEY_BYTES)  # a new file, or what a killed writer left: filled
            os.lseek(fd, 0, os.SEEK_SET)
            if os.write(fd, key) != KEY_BYTES:
                raise UnsafeTrace(f"{where} could not be written whole")
            os.fsync(fd)
            return key
    finally:
        os.close(fd)


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
        self._key: bytes | None = None

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

    @property
    def key(self) -> bytes:
        """The trace's hash key (:func:`trace_key`), read once; a trace whose key cannot be had stops."""
        if self._key is None:
            assert self.path is not None
            try:
                self._key = trace_key(self.path)
            except OSError as error:
                self._stop(error)
                self._key = secrets.token_bytes(32)  # this process's own: nothing is written with it
        return self._key

    def message(self, text: str) -> dict[str, Any]:
        """How a message appears in an event: its length and keyed hash, its text only if the user asked."""
        shown: dict[str, Any] = {"length": len(text), "hash": fingerprint(text, self.key)}
        if self.content:
            shown["text"] = text
        return shown

    def redact(self, argv: Sequence[str]) -> list[str]:
        """:func:`redact_argv` under this trace's key."""
        return redact_argv(argv, self.key)

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
            self._stop(error)

    def _stop(self, error: OSError) -> None:
        """One warning, then this process stops tracing (the call still answers)."""
        if self.enabled:
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
        """Open the trace: in a folder of this user's that no one else may write to, the file itself (never
        a link at its name), a regular file of this user's, made private.

        Raises:
            OSError: it cannot be opened (``ELOOP``: a link; ``ENXIO``: a FIFO nobody reads); UnsafeTrace.
        """
        assert self.path is not None
        self.close()
        _own_folder(self.path.parent)
        fd = os.open(self.path, _FLAGS, 0o600)
        try:
            _own_file(fd, self.path)
            if _NONBLOCK and hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)  # a file the user created by hand is made private too
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def _rotate(self) -> None:
        """Rename the full file to ``<file>.1`` and begin a new one; another process may have done it
        first (its rename won: this one just opens the new file)."""
        assert self.path is not None
        try:
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        except FileNotFoundError:
            pass
        self._open()


def elapsed_ms(started: float) -> float:
    """Milliseconds since ``started`` (``time.perf_counter()``), to a tenth."""
    return round((time.perf_counter() - started) * 1000, 1)
