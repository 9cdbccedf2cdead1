"""A real pane: a pseudo-terminal running a shell, with a terminal emulator keeping its screen.

Linux only (the foreground job is read from ``/proc``, as Herdr does on Linux). The shell is
started as Herdr starts it there (``src/pane.rs``: the server's ``$SHELL``, else ``/bin/sh``,
*not* as a login shell, in the pane's cwd, in a new session whose controlling terminal is the
pane). Everything written into the pane is kept byte for byte (:attr:`PaneTerminal.received`), so
a test can see exactly what Herdr typed. The emulator is ``pyte`` (the ``real-panes`` extra).
"""

import errno
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["ForegroundProcess", "PaneTerminal", "process_table", "require_linux", "session_processes"]

ROWS: Final = 24
COLUMNS: Final = 120
HISTORY: Final = 2000
BRACKETED_PASTE_MODE: Final = 2004


@dataclass(frozen=True)
class ForegroundProcess:
    """One process of a pane's foreground process group, as ``/proc`` shows it."""

    pid: int
    name: str
    """The kernel's name for it (``comm``: at most 15 bytes of the executable's name)."""
    argv: tuple[str, ...]
    agent_hint: str | None
    """``HERDR_AGENT`` from its environment, if set (the hint for wrappers, ``docs/herdr.md`` §7)."""


def _stat_fields(pid: int) -> tuple[str, list[str]] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes().decode("utf-8", "replace")
    except OSError:
        return None
    # "pid (comm) state ppid pgrp session ...": comm may itself hold spaces and parentheses.
    open_at, close_at = raw.find("("), raw.rfind(")")
    return raw[open_at + 1 : close_at], raw[close_at + 2 :].split()


def process_table() -> list[tuple[int, str, int, int]]:
    """Every live process: ``(pid, comm, process group, session)``."""
    rows = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        if fields is None or len(fields[1]) < 4 or fields[1][0] == "Z":
            continue
        name, rest = fields
        rows.append((int(entry), name, int(rest[2]), int(rest[3])))
    return rows


def session_processes(session: int) -> list[int]:
    """The live (not zombie) processes of a session."""
    return [pid for pid, _, _, sid in process_table() if sid == session]


def _describe(pid: int, name: str) -> ForegroundProcess:
    try:
        argv = tuple(a.decode("utf-8", "replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1])
    except OSError:
        argv = ()
    hint = None
    try:
        for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
            if item.startswith(b"HERDR_AGENT="):
                hint = item[len(b"HERDR_AGENT=") :].decode("utf-8", "replace")
    except OSError:
        pass
    return ForegroundProcess(pid, name, argv, hint)


def require_linux() -> None:
    """Real panes read the foreground job from ``/proc`` and start the shell with ``setsid -c``.

    Raises:
        RuntimeError: not on Linux.
    """
    if not os.path.isdir("/proc/self") or not sys.platform.startswith("linux"):
        raise RuntimeError("real panes need Linux (/proc and setsid); use the modelled panes elsewhere")
    _screen_class()


def _screen_class() -> Any:
    try:
        import pyte
    except ImportError as error:  # pragma: no cover - the extra is missing
        raise RuntimeError(
            "real panes need a terminal emulator: pip install 'herdr-link-testkit[real-panes]'"
        ) from error

    class Screen(pyte.HistoryScreen):
        """pyte's screen with scrollback; its answers to the program's queries go back into the pane."""

        def __init__(self, answer: Any) -> None:
            super().__init__(COLUMNS, ROWS, history=HISTORY, ratio=0.5)
            self._answer = answer

        def write_process_input(self, data: str) -> None:
            self._answer(data.encode())

        def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
            # "CSI > 4;2 m" (xterm's modifyOtherKeys, sent by Gemini CLI) is no colour change;
            # pyte would pass it on as one and fail.
            if not private:
                super().select_graphic_rendition(*attrs)

    return Screen, pyte.ByteStream


class PaneTerminal:
    """A shell in a pseudo-terminal, its screen, and everything typed into it."""

    def __init__(self, cwd: str, env: Mapping[str, str]) -> None:
        screen_class, stream_class = _screen_class()
        self._lock = threading.Lock()
        self.received = bytearray()
        """Every byte written into the pane (what the program read), in order."""
        self._screen = screen_class(self._answer)
        self._stream_class = stream_class
        self._stream = stream_class(self._screen)
        self.emulator_errors = 0
        """How many times the emulator's parser failed on the program's output and was restarted."""
        self.master, slave = os.openpty()
        _set_size(slave)
        shell = env.get("SHELL") or "/bin/sh"
        try:
            # setsid -c: a new session with the pane as its controlling terminal, then exec the shell
            # (no fork: the shell keeps the pid), as portable-pty's pre_exec does for Herdr.
            self.process = subprocess.Popen(
                ["setsid", "-c", shell],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=cwd,
                env=dict(env),
                close_fds=True,
            )
        finally:
            os.close(slave)
        self.closed = threading.Event()
        """Set once the pane is closed: nothing more is read or written."""
        self._fd_lock = threading.Lock()  # the master descriptor is closed only under it
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, name=f"pane-reader-{self.process.pid}", daemon=True)
        self._reader.start()

    # ---- output --------------------------------------------------------------------------------

    def _read(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError as error:  # EIO: every process holding the pane has gone
                if error.errno != errno.EIO:
                    raise
                break
            if not data:
                break
            with self._lock:
                try:
                    self._stream.feed(data)
                except Exception:  # a sequence the emulator cannot take: start its parser afresh
                    self.emulator_errors += 1
                    self._stream = self._stream_class(self._screen)

    def _answer(self, data: bytes) -> None:
        """The emulator's reply to a query (cursor position, device attributes) goes to the program."""
        self._write(data, record=False)

    # ---- input ---------------------------------------------------------------------------------

    def _write(self, data: bytes, *, record: bool = True) -> None:
        with self._fd_lock:
            if self.closed.is_set():
                raise OSError(errno.EIO, "the pane is closed")
            view = memoryview(data)
            while view:
                written = os.write(self.master, view)
                view = view[written:]
            if record:
                with self._lock:
                    self.received.extend(data)

    def write(self, data: bytes) -> None:
        """Type ``data`` into the pane.

        Raises:
            OSError: the pane is gone.
        """
        self._write(data)

    def write_after(self, data: bytes, delay: float) -> None:
        """Type ``data`` after ``delay`` seconds (Herdr's Enter after a prompt), unless the pane closes
        meanwhile; waits for it."""
        if not self.closed.wait(delay):
            try:
                self._write(data)
            except OSError:
                pass  # closed between the wait and the write: nothing to submit

    def write_later(self, data: bytes, delay: float) -> None:
        """:meth:`write_after` in the background: returns at once."""
        threading.Thread(target=self.write_after, args=(data, delay), name="pane-delayed-input", daemon=True).start()

    @property
    def bracketed_paste(self) -> bool:
        """Whether the program in the pane has switched bracketed paste on (``ESC [?2004h``)."""
        with self._lock:
            return (BRACKETED_PASTE_MODE << 5) in self._screen.mode

    # ---- the screen ----------------------------------------------------------------------------

    @property
    def title(self) -> str:
        """The window title the program set (OSC 0 or 2)."""
        with self._lock:
            return str(self._screen.title)

    def _row(self, line: Any) -> str:
        columns = self._screen.columns
        return "".join(line[x].data for x in range(columns)).rstrip()

    def visible_lines(self) -> list[str]:
        """The screen's rows, each without trailing blanks, and without the blank rows at the bottom."""
        with self._lock:
            rows = [line.rstrip() for line in self._screen.display]
        return _trim_bottom(rows)

    def recent_lines(self) -> list[str]:
        """Scrollback and screen, oldest first, without the blank rows at the bottom."""
        with self._lock:
            history = [self._row(line) for line in self._screen.history.top]
            rows = [line.rstrip() for line in self._screen.display]
        return _trim_bottom(history + rows)

    # ---- processes -----------------------------------------------------------------------------

    def foreground_job(self) -> tuple[int, list[ForegroundProcess]] | None:
        """The pane's foreground process group and its processes (``None`` once the pane is gone)."""
        with self._fd_lock:
            if self.closed.is_set():
                return None
            try:
                group = os.tcgetpgrp(self.master)
            except OSError:
                return None
        members = [_describe(pid, name) for pid, name, pgrp, _ in process_table() if pgrp == group]
        return group, members

    def at_shell_prompt(self) -> bool:
        """Herdr's "idle shell prompt": the foreground group is the shell alone (``docs/herdr.md`` §8.4)."""
        from ._kinds import SHELL_NAMES

        job = self.foreground_job()
        if job is None:
            return False
        group, members = job
        return (
            group == self.process.pid
            and [m.pid for m in members] == [self.process.pid]
            and members[0].name.lstrip("-") in SHELL_NAMES
        )

    def close(self, grace: float = 1.0) -> None:
        """End every process of the pane's session (hang-up, then a kill after ``grace``) and the terminal."""
        if self.closed.is_set():
            return
        session = self.process.pid
        for pid in session_processes(session):
            _signal(pid, signal.SIGHUP)
            _signal(pid, signal.SIGCONT)
        deadline = time.monotonic() + grace
        while session_processes(session) and time.monotonic() < deadline:
            time.sleep(0.02)
        for pid in session_processes(session):
            _signal(pid, signal.SIGKILL)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a kill that did not take
            pass
        self._stop.set()
        self._reader.join(timeout=5)
        with self._fd_lock:
            self.closed.set()
            os.close(self.master)


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


def _set_size(fd: int) -> None:
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))


def _trim_bottom(rows: list[str]) -> list[str]:
    while rows and not rows[-1].strip():
        rows.pop()
    return rows
