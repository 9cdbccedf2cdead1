"""The Unix-socket server: Herdr's wire protocol over a :class:`Simulator`, with faults and a call log.

One newline-terminated JSON request per connection (at most 1 MiB, within 5 s), one JSON line back,
then the connection closes (``docs/herdr.md`` §11).
"""

import json
import os
import socket
import socketserver
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from ._cli_channel import CliChannel
from ._methods import Simulator
from ._model import HerdrError
from ._releases import Release

__all__ = ["CallLog", "Fault", "SimulatorServer"]

MAX_REQUEST_BYTES: Final = 1 << 20
REQUEST_DEADLINE: Final = 5.0


@dataclass(frozen=True)
class Fault:
    """Something to go wrong, once or ``times`` times (``None``: every time until cleared).

    For a CLI command: ``delay`` (then run normally), ``hang``, ``error`` (print this structured
    error, exit 1, touch nothing), ``invalid_json`` (exit 0 with non-JSON stdout), ``empty`` (exit
    0 with no output) or ``exit`` (exit ``exit_code`` with ``stderr`` and no JSON).

    For a socket method: ``delay`` (then run it: after a caller's timeout, a late completion),
    ``hang``, ``error`` (reply with this error), ``invalid_json`` (reply with a non-JSON line),
    ``empty`` (close without replying), ``empty_result`` (run it, then reply with an empty
    ``result``: done, but without the ids) or ``protocol_mismatch`` (``ping`` only: report protocol
    ``protocol``).
    """

    action: Literal["delay", "hang", "error", "invalid_json", "empty", "empty_result", "exit", "protocol_mismatch"]
    seconds: float = 0.0
    code: str = "internal_error"
    message: str = "simulated failure"
    exit_code: int = 1
    stderr: str = "herdr: simulated crash\n"
    protocol: int = 19
    times: int | None = 1


@dataclass
class CallLog:
    """Every CLI invocation (argv without the program) and every socket request, in arrival order."""

    cli: list[tuple[str, ...]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def methods(self) -> list[str]:
        """The socket methods requested, pings included."""
        with self.lock:
            return [r["method"] for r in self.requests]

    def commands(self) -> list[tuple[str, ...]]:
        """A snapshot of the CLI argv log."""
        with self.lock:
            return list(self.cli)

    def clear(self) -> None:
        with self.lock:
            self.cli.clear()
            self.requests.clear()


class _Faults:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cli: list[tuple[tuple[str, ...], list[Fault]]] = []
        self.methods: dict[str, list[Fault]] = {}

    @staticmethod
    def _take(queue: list[Fault]) -> Fault | None:
        if not queue:
            return None
        fault = queue[0]
        if fault.times is not None:
            remaining = fault.times - 1
            if remaining <= 0:
                queue.pop(0)
            else:
                queue[0] = replace(fault, times=remaining)
        return fault

    def for_cli(self, argv: Sequence[str]) -> Fault | None:
        with self.lock:
            for prefix, queue in self.cli:
                if tuple(argv[: len(prefix)]) == prefix and queue:
                    return self._take(queue)
        return None

    def for_method(self, method: str) -> Fault | None:
        with self.lock:
            return self._take(self.methods.get(method, []))


def _answers(socket_path: str) -> bool:
    """Whether a server listens on the Unix socket at ``socket_path`` (a connection is accepted)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(2)
        try:
            probe.connect(socket_path)
        except OSError:
            return False
    return True


class SimulatorServer:
    """Serves a :class:`Simulator` on a Unix socket in background threads."""

    def __init__(self, simulator: Simulator, socket_path: str) -> None:
        self.simulator = simulator
        self.socket_path = socket_path
        self.log = CallLog()
        self.faults = _Faults()
        self._stopping = threading.Event()
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        self._thread: threading.Thread | None = None
        self._channel = CliChannel(self)

    # ---- lifecycle -----------------------------------------------------------------------------

    def start(self) -> None:
        """Listen (mode 0600, like Herdr) and serve in a daemon thread; take ``herdr`` launches too."""
        handler = _handler_for(self)
        if os.path.exists(self.socket_path):
            if _answers(self.socket_path):
                raise OSError(  # no errno: the message is the whole story
                    f"{self.socket_path} is in use by a running Herdr or herdr-sim: stop it first, or choose "
                    "another socket; nothing was started"
                )
            os.unlink(self.socket_path)  # left by a server that is gone
        server = socketserver.ThreadingUnixStreamServer(self.socket_path, handler)
        server.daemon_threads = True
        os.chmod(self.socket_path, 0o600)
        self._server = server
        self._stopping.clear()
        # A short poll interval keeps stop() (and so every test teardown) quick.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="herdr-sim", daemon=True
        )
        self._thread.start()
        self._channel.start()

    def stop(self) -> None:
        """Stop serving and remove the socket file; later CLI calls see ``server_not_running``."""
        self._stopping.set()
        self._channel.stop()
        server = self._server
        if server is not None:
            server.shutdown()
            server.server_close()
            self._server = None
        if os.path.exists(self.socket_path):
            os.unlink(self.socket_path)
        with self.simulator.lock:
            self.simulator.changed.notify_all()

    @property
    def running(self) -> bool:
        """Whether the socket takes requests (between :meth:`start` and :meth:`stop`)."""
        return self._server is not None

    @property
    def release(self) -> str:
        """The simulated Herdr release, which the simulated CLI reports as its own."""
        return self.simulator.release

    @property
    def release_row(self) -> Release:
        """What the simulated release does where the modelled releases differ (its row of the release table)."""
        return self.simulator.release_row

    # ---- faults --------------------------------------------------------------------------------

    def fault_cli(self, command: Sequence[str], fault: Fault) -> None:
        """Plan ``fault`` for the next CLI invocation whose argv starts with ``command``."""
        with self.faults.lock:
            for prefix, queue in self.faults.cli:
                if prefix == tuple(command):
                    queue.append(fault)
                    return
            self.faults.cli.append((tuple(command), [fault]))

    def fault_method(self, method: str, fault: Fault) -> None:
        """Plan ``fault`` for the next socket request of ``method``."""
        with self.faults.lock:
            self.faults.methods.setdefault(method, []).append(fault)

    def clear_faults(self) -> None:
        with self.faults.lock:
            self.faults.cli.clear()
            self.faults.methods.clear()

    # ---- one request ---------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> bytes | None:
        """Answer one request line; ``None`` means close without replying."""
        try:
            request = json.loads(line)
            if not isinstance(request, dict) or not isinstance(request.get("id"), str):
                raise ValueError("invalid type: expected a request object with a string id")
            method, params = request["method"], request["params"]
            if not isinstance(method, str) or not isinstance(params, dict):
                raise ValueError("invalid type: method must be a string and params an object")
        except (ValueError, KeyError) as error:
            detail = f"missing field `{error.args[0]}`" if isinstance(error, KeyError) else str(error)
            return _encode({"id": "", "error": {"code": "invalid_request", "message": f"invalid request: {detail}"}})
        request_id = request["id"]
        if method == "testkit.cli":
            argv = tuple(str(a) for a in params.get("argv", []))
            with self.log.lock:
                self.log.cli.append(argv)
            fault = self.faults.for_cli(argv)
            plan = {**fault.__dict__, "request_id": _request_id_for(argv)} if fault else None
            return _encode({"id": request_id, "result": {"type": "testkit_cli", "fault": plan}})
        with self.log.lock:
            self.log.requests.append({"id": request_id, "method": method, "params": params})
        fault = self.faults.for_method(method)
        if fault is not None:
            if fault.action == "delay":
                time.sleep(fault.seconds)
            elif fault.action == "hang":
                self._stopping.wait()
                return None
            elif fault.action == "empty":
                return None
            elif fault.action == "invalid_json":
                return b"{not json\n"
            elif fault.action == "error":
                return _encode({"id": request_id, "error": {"code": fault.code, "message": fault.message}})
            elif fault.action == "protocol_mismatch" and method == "ping":
                pong = self.simulator.method_ping({})
                return _encode({"id": request_id, "result": {**pong, "protocol": fault.protocol}})
        try:
            result = self.simulator.dispatch(method, params)
            if fault is not None and fault.action == "empty_result":
                result = {}
        except HerdrError as error:
            return _encode({"id": request_id, "error": {"code": error.code, "message": error.message}})
        except (KeyError, TypeError, AttributeError) as error:
            message = f"invalid request: {error}"
            return _encode({"id": request_id, "error": {"code": "invalid_request", "message": message}})
        return _encode({"id": request_id, "result": result})


def _encode(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def _request_id_for(argv: Sequence[str]) -> str:
    words = [a for a in argv if not a.startswith("-")][:2]
    if words == ["pane", "report-agent"]:
        return "cli:request"
    return "cli:" + ":".join(words) if words else "cli"


def _handler_for(server: SimulatorServer) -> type[socketserver.BaseRequestHandler]:
    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            connection: socket.socket = self.request
            deadline = time.monotonic() + REQUEST_DEADLINE
            data = b""
            while b"\n" not in data and len(data) <= MAX_REQUEST_BYTES:
                connection.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    chunk = connection.recv(65536)
                except (TimeoutError, OSError):
                    return
                if not chunk:
                    break
                data += chunk
            line = data.split(b"\n", 1)[0]
            if not line.strip() or len(line) > MAX_REQUEST_BYTES:
                return
            reply = server.handle_line(line)
            if reply is not None:
                try:
                    connection.sendall(reply)
                except OSError:
                    return

    return Handler
