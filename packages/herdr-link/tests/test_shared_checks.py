"""The doctor's line for Codex's shared app-server daemon, from its pid file and /proc: real processes."""

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr_link import diagnose
from herdr_link_control.hosts import find_host

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the daemon is read from /proc")
CODEX = find_host("codex")


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[object]:
    """Start a stand-in daemon: a process whose argv[0] is .../codex and that has ``app-server`` in its
    argv, with the environment given; its pid is recorded as Codex records its daemon's."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(home: Path, env: dict[str, str], program: str = "codex") -> int:
        code = "import time; time.sleep(120)"
        argv = ["bash", "-c", f'exec -a "$0" {sys.executable} -c "{code}" app-server --managed-daemon',
                str(tmp_path / program)]  # fmt: skip
        process = subprocess.Popen(argv, env={"PATH": os.environ["PATH"], **env})
        processes.append(process)
        cmdline = Path(f"/proc/{process.pid}/cmdline")
        deadline = time.monotonic() + 30  # until bash has exec'd it under the name given
        while not cmdline.read_bytes().split(b"\0")[0].endswith(f"/{program}".encode()):
            assert time.monotonic() < deadline, cmdline.read_bytes()
            time.sleep(0.01)
        record = home / ".codex" / "app-server-daemon" / "daemon.pid"
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps({"pid": process.pid, "processStartTime": "-"}))
        return process.pid

    yield start
    for process in processes:
        process.kill()
        process.wait()


def line(home: Path, cwd: Path) -> tuple[str, str, str]:
    [found] = [c for c in diagnose({"HOME": str(home)}, cwd, home) if c.name == "Codex shared process"]
    return found.status, found.detail, found.fix


def test_none_running_is_skipped(tmp_path: Path):
    assert line(tmp_path, tmp_path)[0] == "SKIP"


def test_a_daemon_started_from_a_pane_is_named_with_the_set_up_that_works(daemon, tmp_path: Path):
    pid = daemon(tmp_path, {"HERDR_ENV": "1", "HERDR_PANE_ID": "w1:p7"})
    status, detail, fix = line(tmp_path, tmp_path)
    assert status == "WARN" and f"(pid {pid}) was started from Herdr pane w1:p7" in detail
    assert CODEX is not None and CODEX.shared is not None and fix == CODEX.shared.setup
    assert "codex --no-daemon" in fix


def test_a_daemon_started_outside_herdr_is_named(daemon, tmp_path: Path):
    daemon(tmp_path, {})
    status, detail, _ = line(tmp_path, tmp_path)
    assert status == "WARN" and "was started outside Herdr" in detail


def test_a_recorded_pid_that_is_no_codex_daemon_any_more_is_skipped(daemon, tmp_path: Path):
    daemon(tmp_path, {"HERDR_PANE_ID": "w1:p7"}, program="something-else")  # the pid was reused
    assert line(tmp_path, tmp_path)[0] == "SKIP"
    record = tmp_path / ".codex" / "app-server-daemon" / "daemon.pid"
    record.write_text(json.dumps({"pid": 2**22 + 1}))  # no such process
    assert line(tmp_path, tmp_path)[0] == "SKIP"
    record.write_text("not json")
    assert line(tmp_path, tmp_path)[0] == "SKIP"


def test_a_daemon_from_a_pane_whose_control_socket_answers_can_serve_every_plain_codex(daemon, tmp_path: Path):
    """Issue 70: the doctor says Herdr Link places each plain ``codex`` call by its thread once the daemon's
    control socket answers (a WebSocket over a Unix socket, as Codex's daemon serves it), and which step
    fails when it does not."""
    import tempfile
    import threading

    from websockets.sync.server import unix_serve

    def serve(connection):  # Codex's initialize answer
        for raw in connection:
            message = json.loads(raw)
            if "id" in message:
                connection.send(json.dumps({"id": message["id"], "result": {"codexHome": str(tmp_path / ".codex")}}))

    folder = tmp_path / ".codex" / "app-server-control"
    folder.mkdir(parents=True, mode=0o700)
    short = Path(tempfile.mkdtemp()) / "s"  # as Codex links it: the long name to a short socket path
    pid = daemon(tmp_path, {"HERDR_ENV": "1", "HERDR_PANE_ID": "w1:p7", "HOME": str(tmp_path)})
    status, detail, _ = line(tmp_path, tmp_path)
    assert status == "WARN" and "(control socket:" in detail and "refuses the calls of a plain `codex`" in detail
    with unix_serve(serve, str(short)) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        (folder / "app-server-control.sock").symlink_to(short)
        status, detail, fix = line(tmp_path, tmp_path)
        server.shutdown()
    assert (status, fix) == ("PASS", "") and f"(pid {pid}) was started from Herdr pane w1:p7" in detail
    assert "places each call of a plain `codex` by its own thread" in detail
    folder.chmod(0o755)  # a folder others may enter: not asked
    assert line(tmp_path, tmp_path)[0] == "WARN"
