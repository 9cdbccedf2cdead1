"""The simulator's end of the launcher channel (:mod:`._cli_wire`): a request pipe, one thread per
invocation, replies through each launcher's own pipe."""

import contextlib
import os
import stat
import threading
from typing import Final

from ._cli_invocation import run_invocation
from ._cli_wire import REQUESTS, channel_dir, decode_request, encode_reply
from ._endpoint import Endpoint

__all__ = ["CliChannel"]

_STOP: Final = b"\n"
"""An empty line: wakes the reader so that it sees it should stop."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class CliChannel:
    """Takes ``herdr`` invocations for ``server`` at ``<socket path>.cli`` (mode 0700, like the socket's 0600)."""

    def __init__(self, server: Endpoint) -> None:
        self.server = server
        self.directory = channel_dir(server.socket_path)
        self.requests = os.path.join(self.directory, REQUESTS)
        self._fd: int | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        if os.path.exists(self.requests) and not stat.S_ISFIFO(os.stat(self.requests).st_mode):
            os.unlink(self.requests)
        if not os.path.exists(self.requests):
            os.mkfifo(self.requests, 0o600)
        # Read and write: the pipe never reports end-of-file while the simulator holds it.
        self._fd = os.open(self.requests, os.O_RDWR)
        self._thread = threading.Thread(target=self._read, name="herdr-sim-cli", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop taking invocations; a launcher started later finds no reader and reports
        ``server_not_running``. Invocations already running finish on their own threads."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.unlink(self.requests)
        except FileNotFoundError:
            pass
        os.write(fd, _STOP)
        if self._thread is not None:
            self._thread.join(timeout=5)
        os.close(fd)

    def _read(self) -> None:
        fd = self._fd
        assert fd is not None
        pending = b""
        while self._fd is not None:
            chunk = os.read(fd, 1 << 16)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line and self._fd is not None:
                    threading.Thread(target=self._serve, args=(line.decode(),), daemon=True).start()

    def _serve(self, stem: str) -> None:
        request, reply = stem + ".req", stem + ".rep"
        try:
            with open(request, "rb") as file:
                pid, argv, env = decode_request(file.read())
            os.unlink(request)
        except (OSError, ValueError, IndexError):
            return
        try:
            try:
                code, stdout, stderr = run_invocation(self.server, argv, env, lambda: _alive(pid))
            except Exception as error:  # a simulator bug: answer it, never leave the launcher waiting
                code, stdout, stderr = 1, "", f"herdr-sim: internal error: {type(error).__name__}: {error}\n"
            out = os.open(reply, os.O_WRONLY | os.O_NONBLOCK)  # fails when no reader: the launcher is gone
        except OSError:
            return
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(reply)  # the open descriptor stays: nothing is left once the launcher has its reply
        try:
            os.set_blocking(out, True)
            _write_all(out, encode_reply(code, stdout, stderr))
        except OSError:
            pass
        finally:
            os.close(out)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
