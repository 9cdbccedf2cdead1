"""A program on a pseudo-terminal of its own, typed into as Herdr types into a pane: the tests' one
terminal driver (``tests/test_shell_inert.py``, ``tests/test_command_boundary.py``)."""

import fcntl
import os
import pty
import select
import subprocess
import termios
import time
from collections.abc import Mapping
from pathlib import Path

PASTE_START, PASTE_END, ENTER = b"\x1b[200~", b"\x1b[201~", b"\r"
SUBMIT_DELAY = 0.3
"""Herdr sends the Enter 300 ms after the text (``docs/herdr.md`` §8.3)."""


def _own_terminal() -> None:
    """In the child: a session of its own, whose controlling terminal is the pane (as in a real pane)."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def home_environment(home: Path, path: str = "/usr/bin:/bin") -> dict[str, str]:
    """A user's plain environment with ``home`` as HOME and its XDG folders under it."""
    return {
        "HOME": str(home),
        "PATH": path,
        "TERM": "xterm-256color",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "LANG": "C.UTF-8",
    }


class Session:
    """One program on a pseudo-terminal: what it printed (``seen``), and input typed into it."""

    def __init__(self, argv: list[str], home: Path, environment: Mapping[str, str] | None = None) -> None:
        self.main, child = pty.openpty()
        self.process = subprocess.Popen(
            argv,
            stdin=child,
            stdout=child,
            stderr=child,
            env=dict(environment or home_environment(home)),
            cwd=home,
            preexec_fn=_own_terminal,
        )
        os.close(child)
        self.seen = b""

    def read_until(self, marker: bytes, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while marker not in self.seen:
            assert time.monotonic() < deadline, f"waited for {marker!r}; the screen ends: {self.seen[-600:]!r}"
            ready, _, _ = select.select([self.main], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.main, 65536)
                except OSError:
                    break

    def drain(self) -> None:
        """Read what the program printed so far (so that its output never blocks it)."""
        while select.select([self.main], [], [], 0.05)[0]:
            try:
                chunk = os.read(self.main, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.seen += chunk

    def type(self, data: bytes) -> None:
        for start in range(0, len(data), 1024):  # a terminal's input queue is small; Herdr writes in parts too
            os.write(self.main, data[start : start + 1024])
            self.drain()

    def deliver(self, text: str, *, bracketed: bool) -> None:
        """``text`` as Herdr's ``agent prompt`` types it: in bracketed paste or not, then Enter."""
        body = text.encode()
        self.type(PASTE_START + body + PASTE_END if bracketed else body)
        time.sleep(SUBMIT_DELAY)
        self.type(ENTER)

    def finish(self, timeout: float = 60) -> int:
        """Wait for the program to exit; its exit status (everything it printed is in ``seen``)."""
        code = self.process.wait(timeout=timeout)
        self.drain()
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        os.close(self.main)
