"""The chain that places a call of Codex's shared daemon by its own thread (PROTOCOL.md §6.1, issue 70), run
against real processes standing in for Codex's: a daemon (an executable named ``codex`` whose first argument
is ``app-server``) serving its control socket as a WebSocket over a Unix socket, a TUI (``codex``) listening
on a loopback port in a real pseudo-terminal session of a pane, and our server as the daemon's child. Every
step is shown refusing on the input that breaks it; the real Codex 0.171.0 runs in ``tests/real_hosts``."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from herdr_link_control._thread_owner import call_thread
from herdr_link_control.hosts import find_host

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the chain reads /proc (Linux)")

CODEX = find_host("codex")
assert CODEX is not None and CODEX.shared is not None and CODEX.shared.thread_owner is not None
OWNER = CODEX.shared.thread_owner
THREAD = "01a249e3-7843-7481-bc55-77c7eaf8b788"
HERDR_BIN = "/mock/herdr"

DAEMON = r"""
import json, os, subprocess, sys, tempfile, threading
from websockets.sync.server import unix_serve

home, answer_file, out_file = os.environ["FAKE_CODEX_HOME"], os.environ["FAKE_ANSWER"], os.environ["FAKE_OUT"]
folder = os.path.join(home, "app-server-control")
os.makedirs(folder, mode=0o700, exist_ok=True)
os.chmod(folder, int(os.environ.get("FAKE_FOLDER_MODE", "700"), 8))
path = os.path.join(folder, "app-server-control.sock")

def serve(connection):
    for raw in connection:
        message = json.loads(raw)
        if message.get("method") == "initialize":
            connection.send(json.dumps({"id": message["id"], "result": {"codexHome": home}}))
        elif message.get("method") == "mcpServerStatus/list":
            assert message["params"]["threadId"] == os.environ["FAKE_THREAD"]
            connection.send(json.dumps({"method": "configWarning", "params": {}}))  # a notification first
            connection.send(json.dumps({"id": message["id"], "result": json.load(open(answer_file))}))

short = os.path.join(tempfile.mkdtemp(), "s")  # as Codex does: the long name links to a short socket path
if os.path.lexists(path):  # the daemon of an earlier question
    os.unlink(path)
with unix_serve(serve, short) as server:
    os.symlink(short, path)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    child = subprocess.run([sys.executable, "-c", os.environ["FAKE_SERVER"]], capture_output=True, text=True)
    open(out_file, "w").write(child.stdout or child.stderr)
    server.shutdown()
"""
"""The daemon: serves its control socket and runs our server as its child (which asks it about the thread)."""

SERVER = r"""
import json, os
from herdr_link_control._thread_owner import OwnerNotShown, thread_pane
from herdr_link_control.hosts import find_host
owner = find_host("codex").shared.thread_owner
try:
    env = os.environ
    found = thread_pane(owner, env["FAKE_THREAD"], env["HERDR_SOCKET_PATH"], env["HERDR_BIN_PATH"])
    print(json.dumps({"pane": found.pane}))
except OwnerNotShown as error:
    print(json.dumps({"step": error.step, "detail": error.detail}))
"""

TUI = r"""
import socket, sys, time
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
open(sys.argv[1], "w").write(str(listener.getsockname()[1]))
time.sleep(600)
"""
"""The TUI: listens on a loopback port (its ``codex_tui`` endpoint) until killed."""


class World:
    """The Herdr server (this test process: it listens on the socket and holds the panes' terminals), a
    TUI in pane w1:p2, and what the daemon answers."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.bin = tmp / "bin"
        self.bin.mkdir()
        (self.bin / "codex").symlink_to(sys.executable)  # its processes' name is "codex"
        (self.bin / "python3").symlink_to(sys.executable)
        self.herdr_socket = str(tmp / "herdr.sock")
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.herdr_socket)
        self.listener.listen()
        self.home = tmp / "home"
        (self.home / ".codex").mkdir(parents=True)
        self.processes: list[subprocess.Popen[bytes]] = []
        self.masters: list[int] = []

    def pane_env(self, pane: str, **extra: str) -> dict[str, str]:
        return {**os.environ, "HERDR_ENV": "1", "HERDR_BIN_PATH": HERDR_BIN, "HERDR_SOCKET_PATH": self.herdr_socket,
                "HERDR_PANE_ID": pane, "HOME": str(self.home), **extra,
                "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # fmt: skip  # `codex`: this Python

    def tui(self, program: str = "codex", *, held_here: bool = True, **env: str) -> int:
        """A TUI started as its pane's session leader; returns the port it listens on."""
        (self.tmp / "tui.py").write_text(TUI)
        port_file = self.tmp / f"port-{len(self.processes)}"
        master, slave = os.openpty()
        command = [str(self.bin / program), str(self.tmp / "tui.py"), str(port_file)]
        if not held_here:  # a multiplexer's window: another process holds the terminal
            holder = "import os, subprocess, sys; m, s = os.openpty(); subprocess.run(sys.argv[1:], stdin=s)"
            command = [sys.executable, "-c", holder, "setsid", "-c", *command]
        else:
            command = ["setsid", "-c", *command]
        self.processes.append(subprocess.Popen(command, stdin=slave, env=self.pane_env("w1:p2", **env)))
        os.close(slave)
        self.masters.append(master)
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.02)
        return int(port_file.read_text())

    def ask(self, answer: dict[str, Any], *, folder_mode: str = "700", thread: str = THREAD) -> dict[str, Any]:
        """Our server as the daemon's child, asking about ``thread``; what the chain made of it."""
        (self.tmp / "answer.json").write_text(json.dumps(answer))
        (self.tmp / "app-server").write_text(DAEMON)  # the daemon's argv: codex app-server
        out = self.tmp / "out.json"
        env = self.pane_env("w1:p1", FAKE_CODEX_HOME=str(self.home / ".codex"), FAKE_OUT=str(out),
                            FAKE_ANSWER=str(self.tmp / "answer.json"), FAKE_THREAD=thread, FAKE_SERVER=SERVER,
                            FAKE_FOLDER_MODE=folder_mode)  # fmt: skip
        subprocess.run([str(self.bin / "codex"), "app-server"], cwd=self.tmp, env=env, timeout=120, check=True,
                       start_new_session=True)  # fmt: skip
        result: dict[str, Any] = json.loads(out.read_text())
        return result

    def close(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait()
        for master in self.masters:
            os.close(master)
        self.listener.close()


@pytest.fixture
def world(tmp_path):
    made = World(tmp_path)
    yield made
    made.close()


def endpoint(port: int, **changes: Any) -> dict[str, Any]:
    entry = {"name": "codex_tui", "runtimeStatus": "connected", "httpOrigin": f"http://127.0.0.1:{port}",
             "tools": {"create_thread": {"name": "create_thread"}}, "authStatus": "bearerToken"}  # fmt: skip
    return {"data": [{**entry, **changes}], "nextCursor": None}


def test_the_thread_of_a_tui_in_a_pane_is_that_pane(world):
    assert world.ask(endpoint(world.tui())) == {"pane": "w1:p2"}


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"runtimeStatus": "failed"}, "a thread another client pointed at a TUI's port without its token"),
        ({"tools": {}}, "an endpoint that lists no tools"),
        ({"name": "other"}, "another server's status"),
        ({"httpOrigin": "http://10.0.0.1:{port}"}, "an endpoint off loopback"),
        ({"httpOrigin": None}, "a stdio server (no origin)"),
    ],
)
def test_an_endpoint_that_is_not_the_threads_connected_tui_is_refused(world, changes, why):
    port = world.tui()
    changes = {key: value.format(port=port) if isinstance(value, str) else value for key, value in changes.items()}
    assert world.ask(endpoint(port, **changes))["step"] == "endpoint", why


def test_a_thread_without_a_tui_endpoint_or_with_two_is_refused(world):
    port = world.tui()
    assert world.ask({"data": [], "nextCursor": None})["step"] == "endpoint"
    twice = endpoint(port)
    twice["data"] *= 2
    assert world.ask(twice)["step"] == "endpoint"


def test_a_port_nobody_or_a_process_other_than_a_tui_listens_on_is_refused(world):
    port = world.tui("python3")  # the same listener, but not Codex
    assert world.ask(endpoint(port))["step"] == "listener"
    with socket.socket() as probe:  # a port nothing listens on any more (its TUI quit)
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    assert world.ask(endpoint(free))["step"] == "listener"


def test_a_tui_whose_terminal_is_no_pane_of_this_herdr_or_whose_pane_has_another_herdr_is_refused(world):
    assert world.ask(endpoint(world.tui(held_here=False)))["step"] == "pane"  # a tmux window's TUI
    assert world.ask(endpoint(world.tui(HERDR_BIN_PATH="/another/herdr")))["step"] == "pane"


def test_a_control_socket_others_may_reach_is_not_asked(world):
    assert world.ask(endpoint(world.tui()), folder_mode="755")["step"] == "control socket"


def test_a_server_that_is_not_the_daemons_child_is_refused(world):
    env = {**world.pane_env("w1:p1"), "FAKE_THREAD": THREAD}
    done = subprocess.run([sys.executable, "-c", SERVER], env=env, capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout)["step"] == "daemon"


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {},
        {"threadId": THREAD},  # no turn metadata to agree with
        {"threadId": THREAD, "x-codex-turn-metadata": {"thread_id": "another"}},
        {"threadId": THREAD, "x-codex-turn-metadata": json.dumps({"thread_id": THREAD})},  # text, not an object
        {"threadId": "../" + THREAD, "x-codex-turn-metadata": {"thread_id": "../" + THREAD}},
        {"threadId": 5, "x-codex-turn-metadata": {"thread_id": 5}},
    ],
)
def test_a_call_names_its_thread_only_where_both_places_agree(meta):
    assert call_thread(OWNER, meta) is None


def test_a_call_of_codex_names_its_thread():
    meta = {"threadId": THREAD, "x-codex-turn-metadata": {"thread_id": THREAD, "turn_id": "t"}, "progress_token": 1}
    assert call_thread(OWNER, meta) == THREAD
