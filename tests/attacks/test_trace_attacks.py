"""The trace against an attacker and an unlucky user (issue 61): a folder it did not make, links, FIFOs,
devices, concurrent rotation, truncation, hostile text on the operator's terminal, guessable hashes.

Each case runs the real writer (``Tracer``, a real ``Link`` call, real processes); none may stop a call,
write through a link, or leave the trace readable by another user.
"""

import json
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import pytest
from scripted_herdr import agent, got, link, ok, scripted

from herdr_link_control import Tracer, fingerprint

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX file modes, FIFOs, /proc")
OTHER_UID = 65534
"""``nobody``: the other local user."""
TABLE = {
    ("agent", "get", "w1:p1"): got(agent("brain")),
    ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2")),
    ("agent", "prompt"): ok({"result": {}}),
}
as_root = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="acting as another user needs root and setpriv (CI has both)",
)


def _send(path: Path) -> object:
    """One real send through a Link whose trace is ``path``; the call must answer whatever the trace is."""
    subject = link(scripted(TABLE), HERDR_LINK_TRACE=str(path))
    receipt = anyio.run(subject.send, "reviewer", "the launch codes are 0000 $(touch /tmp/pwned)")
    assert receipt.to == "reviewer"
    return subject


@as_root
def test_a_folder_another_user_made_first_is_never_written_into(request, caplog):
    caplog.set_level(logging.WARNING, "herdr_link")
    public = Path(tempfile.mkdtemp(prefix="hl-attack-", dir="/tmp"))  # a /tmp of its own, reachable by all
    request.addfinalizer(lambda: shutil.rmtree(public, ignore_errors=True))
    public.chmod(0o1777)
    shared = public / "herdr-link"  # /tmp/herdr-link, made first by the other user, open to everyone
    as_other = ["setpriv", f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups"]
    subprocess.run([*as_other, "mkdir", "-m", "777", str(shared)], check=True, timeout=30)
    assert shared.stat().st_uid == OTHER_UID
    subject = _send(shared / "trace.jsonl")
    assert list(shared.iterdir()) == [] and "belongs to another user" in caplog.text
    assert not subject.tracer.enabled  # type: ignore[attr-defined]


def test_a_folder_others_may_write_to_is_refused_even_when_it_is_the_users(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "herdr_link")
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)  # anyone may swap the file for a link in here
    _send(open_folder / "trace.jsonl")
    assert list(open_folder.iterdir()) == [] and "may be written by others" in caplog.text


@pytest.mark.parametrize("target", ["bashrc", "fifo", "nothing", "device"])
def test_a_link_at_the_traces_name_is_never_followed(tmp_path, caplog, target):
    caplog.set_level(logging.WARNING, "herdr_link")
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    bashrc = tmp_path / ".bashrc"
    bashrc.write_text("# the user's\n")
    bashrc.chmod(0o644)
    fifo = tmp_path / "theirs.fifo"
    os.mkfifo(fifo)
    device = tmp_path / "null-device"
    if target == "device":
        if os.geteuid() == 0:  # a device of the test's own: code that follows links never touches /dev/null
            os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        else:
            device = Path("/dev/null")
    to = {"bashrc": bashrc, "fifo": fifo, "nothing": tmp_path / "nowhere", "device": device}[target]
    (folder / "trace.jsonl").symlink_to(to)
    _send(folder / "trace.jsonl")  # answers: no hang on the FIFO, nothing appended anywhere
    assert bashrc.read_text() == "# the user's\n" and stat.S_IMODE(bashrc.stat().st_mode) == 0o644
    assert not (tmp_path / "nowhere").exists() and "cannot be written" in caplog.text


def test_a_fifo_or_a_device_at_the_traces_name_is_refused_without_a_wait(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "herdr_link")
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    os.mkfifo(folder / "trace.jsonl")
    got: list[bytes] = []

    def cat() -> None:  # the other user's `cat` of it
        with (folder / "trace.jsonl").open("rb") as fifo:
            got.append(fifo.read())

    reader = threading.Thread(target=cat, daemon=True)
    reader.start()
    time.sleep(0.1)
    subject = _send(folder / "trace.jsonl")
    assert not subject.tracer.enabled and "not a regular file" in caplog.text  # type: ignore[attr-defined]
    reader.join(timeout=30)
    assert got == [b""]  # the reader saw the file closed with nothing in it


def test_several_processes_rotating_at_once_never_stop_tracing(tmp_path):
    path = tmp_path / "trace.jsonl"
    code = (
        "import sys; from pathlib import Path; from herdr_link_control import Tracer\n"
        "t = Tracer(Path(sys.argv[1]), max_bytes=4096)\n"
        "for i in range(1500): t.event('tight', i=i, pad='x' * 60)\n"
        "print(t.enabled)\n"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(6)
    ]
    results = [writer.communicate(timeout=120) for writer in writers]
    assert [out.decode().strip() for out, _ in results] == ["True"] * 6, [err.decode()[-300:] for _, err in results]
    for name in ("trace.jsonl", "trace.jsonl.1"):  # whole lines only, in both files
        for line in (tmp_path / name).read_text().splitlines():
            assert json.loads(line)["event"] == "tight"


def test_the_hash_is_keyed_per_trace_so_a_short_text_cannot_be_guessed(tmp_path):
    first, second = Tracer(tmp_path / "a" / "t.jsonl"), Tracer(tmp_path / "b" / "t.jsonl")
    mine, theirs = first.message("approved")["hash"], second.message("approved")["hash"]
    assert mine != theirs and fingerprint("approved") not in (mine, theirs)
    assert first.message("approved")["hash"] == mine  # one trace's hashes compare
    for folder in ("a", "b"):
        key = tmp_path / folder / "t.jsonl.key"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes()) == 32


def test_a_key_someone_else_can_read_is_not_used(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "herdr_link")
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    (folder / "t.jsonl.key").write_bytes(b"k" * 32)
    (folder / "t.jsonl.key").chmod(0o644)
    tracer = Tracer(folder / "t.jsonl")
    tracer.event("call", message=tracer.message("approved"))
    assert not tracer.enabled and "may be read by others" in caplog.text and not (folder / "t.jsonl").exists()


def test_the_viewer_escapes_what_came_from_outside(tmp_path):
    path = tmp_path / "trace.jsonl"
    hostile = "lab\x1b]52;c;ZXZpbA==\x07el\x1b[2J\x9b31m"
    event = {"t": "2026-12-04T00:00:00.000Z", "pid": 1, "event": "call", "tool": hostile, "caller": hostile,
             "target": "x", "action": None, "code": "INVALID_CALL", "reason": hostile}  # fmt: skip
    path.write_text(json.dumps(event) + "\n")
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "herdr_link", "trace", "--file", str(path), *extra],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "\x9b" not in done.stdout
        assert "\\u001b]52" in done.stdout  # shown, escaped


def test_follow_goes_on_after_the_file_is_emptied_in_place(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text("")
    tracer = Tracer(path)
    argv = [sys.executable, "-m", "herdr_link", "trace", "--file", str(path), "--follow", "--json"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as follower:
        try:
            seen = _reader(follower)
            tracer.event("before", n=1)
            assert _wait(seen, "before")
            os.truncate(path, 0)  # emptied in place (logrotate's copytruncate, `: > file`)
            tracer.event("after", n=2)
            assert _wait(seen, "after")
        finally:
            follower.terminate()
            tracer.close()


def _reader(process: subprocess.Popen[str]) -> list[str]:
    lines: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)  # noqa: PERF402 (a list another thread reads as it grows)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _wait(lines: list[str], event: str, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(json.loads(line).get("event") == event for line in lines if line.strip()):
            return True
        time.sleep(0.1)
    return False


def test_a_folder_others_may_write_to_is_refused_even_for_an_event_that_needs_no_key(tmp_path, caplog):
    """The folder is judged when the trace is opened, not only when a message's hash needs the key."""
    caplog.set_level(logging.WARNING, "herdr_link")
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    tracer = Tracer(open_folder / "trace.jsonl")
    tracer.event("herdr", argv=["agent", "list"], exit=0)  # no message, no redaction: no key asked for
    assert list(open_folder.iterdir()) == [] and "may be written by others" in caplog.text and not tracer.enabled


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root (CI has it)")
@pytest.mark.parametrize("whose", ["trace.jsonl", "trace.jsonl.key"])
def test_another_users_trace_or_key_is_never_used_even_by_root(tmp_path, caplog, whose):
    """Root may open any file: the trace still takes only the running user's own."""
    caplog.set_level(logging.WARNING, "herdr_link")
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    theirs = folder / whose
    before = b"k" * 32 if whose.endswith(".key") else b"their own line\n"
    theirs.write_bytes(before)
    theirs.chmod(0o600)
    os.chown(theirs, OTHER_UID, OTHER_UID)
    tracer = Tracer(folder / "trace.jsonl")
    tracer.event("call", message=tracer.message("approved"))
    assert not tracer.enabled and "belongs to another user" in caplog.text
    assert theirs.read_bytes() == before and theirs.stat().st_uid == OTHER_UID
    assert whose == "trace.jsonl" or not (folder / "trace.jsonl").exists()  # their key: no trace written with it


@pytest.mark.parametrize(
    ("mode", "written"),
    [(0o700, True), (0o711, True), (0o755, True), (0o720, False), (0o702, False)],
    ids=["private", "others-may-enter", "others-may-read", "group-may-write", "others-may-write"],
)
def test_only_a_folder_no_one_else_may_write_to_holds_the_trace(tmp_path, caplog, mode, written):
    """Reading or entering the folder is harmless (the file itself is private); writing to it is not."""
    caplog.set_level(logging.WARNING, "herdr_link")
    folder = tmp_path / "state"
    folder.mkdir()
    folder.chmod(mode)
    tracer = Tracer(folder / "trace.jsonl")
    tracer.event("note")
    assert tracer.enabled is written and (folder / "trace.jsonl").exists() is written
    assert ("may be written by others" in caplog.text) is not written
