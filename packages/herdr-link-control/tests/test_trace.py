"""The opt-in trace: nothing written when off; when on, one JSON line per call, Herdr command and
decision, with what Herdr types replaced by its length and hash; private; never failing a call, even
unwritable, full or rotated under it; whole lines when two processes write at once. And reading it
back: one message's path by its id, one agent, a window, ``--json``."""

import argparse
import io
import json
import logging
import os
import select
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from scripted_herdr import agent, err, got, link, ok, scripted

from herdr_link_control import CallContext, Tracer, fingerprint, redact_argv
from herdr_link_control.commandline import UsageError, add_trace_arguments, command_parser, read_trace, run_trace
from herdr_link_protocol import LinkError

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
TABLE = {
    SELF: got(agent("brain")),
    ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2")),
    ("agent", "prompt"): ok({"result": {}}),
}
SECRET = "the launch codes are 0000"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_off_by_default_nothing_is_written(tmp_path):
    subject = link(scripted(TABLE), HOME=str(tmp_path))
    await subject.send("reviewer", SECRET)
    assert not subject.tracer.enabled and list(tmp_path.rglob("*")) == []


async def test_a_send_is_traced_with_the_commands_under_it_and_no_message_text(tmp_path):
    path = tmp_path / "state" / "trace.jsonl"
    subject = link(scripted(TABLE), HERDR_LINK_TRACE=str(path))
    receipt = await subject.send("reviewer", SECRET)
    events = _lines(path)
    call = next(e for e in events if e["event"] == "call")
    assert call["action"] == "send" and call["target"] == "reviewer" and call["id"] == receipt.id
    key = (tmp_path / "state" / "trace.jsonl.key").read_bytes()  # the trace's own key, beside it, private
    assert (tmp_path / "state" / "trace.jsonl.key").stat().st_mode & 0o777 == 0o600 and len(key) == 32
    assert call["message"] == {"length": len(SECRET), "hash": fingerprint(SECRET, key)} and call["code"] == "ok"
    assert call["message"]["hash"] != fingerprint(SECRET)  # unkeyed, a short text is found by guessing
    assert call["caller"] == "brain" and isinstance(call["ms"], float)
    herdr = [e for e in events if e["event"] == "herdr"]
    assert [e["role"] for e in herdr] == ["peers", "target", "prompt"] and call["call"]  # list, pin, prompt
    assert all(e["call"] == call["call"] for e in herdr)
    prompt = next(e for e in herdr if e["role"] == "prompt")
    assert prompt["exit"] == 0 and prompt["timeout"] is False and prompt["argv"][3].startswith("<")
    assert "launch codes" not in path.read_text()  # neither the message nor the wrapper around it
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


async def test_the_text_only_with_the_users_explicit_setting(tmp_path):
    settings, path = tmp_path / "config.toml", tmp_path / "trace.jsonl"
    settings.write_text(f'[trace]\nfile = "{path}"\ncontent = true\n')
    await link(scripted(TABLE), HERDR_LINK_CONFIG=str(settings)).send("reviewer", SECRET)
    call = next(e for e in _lines(path) if e["event"] == "call")
    assert call["message"]["text"] == SECRET
    spaced = "line\u2028separator\x85next"  # written raw (ensure_ascii off): the reader must not cut there
    await link(scripted(TABLE), HERDR_LINK_CONFIG=str(settings)).send("reviewer", spaced)
    texts = [e["message"]["text"] for e in read_trace(path) if e["event"] == "call"]
    assert texts == [SECRET, spaced]


async def test_a_refusal_is_traced_with_its_code_and_herdrs(tmp_path):
    path = tmp_path / "trace.jsonl"
    runner = scripted({**TABLE, ("agent", "prompt"): err("agent_blocked", "agent reviewer is blocked")})
    with pytest.raises(LinkError):
        await link(runner, HERDR_LINK_TRACE=str(path)).send("reviewer", "hi")
    events = _lines(path)
    call = next(e for e in events if e["event"] == "call")
    assert call["code"] == "SEND_FAILED" and "waiting for its user" in str(call["reason"]) and "id" not in call
    assert next(e for e in events if e.get("role") == "prompt")["herdr_error"] == "agent_blocked"


def test_what_herdr_is_given_to_type_is_replaced_by_its_length_and_hash():
    assert redact_argv(["agent", "prompt", "reviewer", SECRET]) == [
        "agent",
        "prompt",
        "reviewer",
        f"<25 chars, {fingerprint(SECRET)}>",
    ]
    started = redact_argv(["agent", "start", "w", "--kind", "codex", "--pane", "p", "--", "-m", "secret-model"])
    assert started[:8] == ["agent", "start", "w", "--kind", "codex", "--pane", "p", "--"]
    assert "secret-model" not in json.dumps(started) and started[9].startswith("<12 chars")


async def test_an_unwritable_trace_is_one_warning_and_the_call_still_answers(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("")
    caplog.set_level(logging.WARNING, "herdr_link")
    subject = link(scripted(TABLE), HERDR_LINK_TRACE=str(blocker / "trace.jsonl"))  # a folder that is a file
    assert (await subject.send("reviewer", "one")).to == "reviewer"
    assert (await subject.send("reviewer", "two")).to == "reviewer"
    assert caplog.text.count("cannot be written") == 1 and not subject.tracer.enabled


FULL: Final = """
import logging, resource, signal, sys
from pathlib import Path
from herdr_link_control import Tracer
logging.basicConfig(level=logging.WARNING, format="%(message)s")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the kernel then answers a write past the limit with EFBIG
tracer = Tracer(Path(sys.argv[1]))
tracer.event("first")
resource.setrlimit(resource.RLIMIT_FSIZE, (Path(sys.argv[1]).stat().st_size, resource.RLIM_INFINITY))
tracer.event("second")
tracer.event("third")
print(tracer.enabled)
"""


def test_a_write_the_kernel_refuses_stops_tracing_after_one_warning(tmp_path):
    # A real refused write (the file-size limit; /dev/full is a device, which the trace no longer opens)
    path = tmp_path / "trace.jsonl"
    done = subprocess.run([sys.executable, "-c", FULL, str(path)], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False" and done.stderr.count("cannot be written") == 1, done.stderr
    assert "File too large" in done.stderr and [e["event"] for e in _lines(path)] == ["first"]


def test_past_its_size_the_file_is_rotated_and_one_older_kept(tmp_path):
    path = tmp_path / "trace.jsonl"
    tracer = Tracer(path, max_bytes=2000)
    for index in range(60):
        tracer.event("note", index=index, pad="x" * 40)
    older = path.with_name("trace.jsonl.1")
    assert older.exists() and path.stat().st_size <= 2000 and older.stat().st_size <= 2000
    indexes = [e["index"] for e in read_trace(path)]
    assert indexes == sorted(indexes) and indexes[-1] == 59  # the newest kept, in order, nothing half-written


def test_a_file_rotated_or_removed_under_a_writer_is_reopened(tmp_path):
    path = tmp_path / "trace.jsonl"
    tracer = Tracer(path)
    tracer.event("note", index=1)
    path.rename(tmp_path / "moved.jsonl")  # another process rotated it
    tracer.event("note", index=2)
    path.unlink()
    tracer.event("note", index=3)
    assert [e["index"] for e in _lines(path)] == [3] and [e["index"] for e in _lines(tmp_path / "moved.jsonl")] == [1]


def test_two_processes_writing_at_once_leave_whole_lines(tmp_path):
    path = tmp_path / "trace.jsonl"
    program = (
        "import sys\nfrom pathlib import Path\nfrom herdr_link_control import Tracer\n"
        "tracer = Tracer(Path(sys.argv[1]))\n"
        "for index in range(400):\n    tracer.event('note', writer=sys.argv[2], index=index, pad='y' * 300)\n"
    )
    writers = [subprocess.Popen([sys.executable, "-c", program, str(path), name]) for name in ("a", "b")]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    events = _lines(path)  # every line parses: no two writes interleaved inside a line
    for name in ("a", "b"):
        assert [e["index"] for e in events if e["writer"] == name] == list(range(400))


def test_a_key_a_killed_writer_left_short_is_filled_at_once_and_tracing_goes_on(tmp_path, monkeypatch):
    for left in (b"", b"half a k"):  # killed before it wrote, or in the middle
        folder = tmp_path / str(len(left))
        folder.mkdir(mode=0o700)
        (folder / "t.jsonl.key").write_bytes(left)
        (folder / "t.jsonl.key").chmod(0o600)
        monkeypatch.setattr(time, "sleep", _no_waiting)  # never waits for a writer that is gone
        tracer = Tracer(folder / "t.jsonl")
        tracer.event("call", message=tracer.message(SECRET))
        monkeypatch.undo()
        key = (folder / "t.jsonl.key").read_bytes()
        assert tracer.enabled and len(key) == 32 and not key.startswith(left or b"-")
        assert _lines(folder / "t.jsonl")[0]["message"]["hash"] == fingerprint(SECRET, key)
        later = Tracer(folder / "t.jsonl")  # every later process keeps that key
        assert later.message(SECRET)["hash"] == fingerprint(SECRET, key) and later.enabled


def _no_waiting(seconds: float) -> None:
    raise AssertionError(f"slept {seconds} s")


def test_processes_starting_at_once_over_a_short_key_all_use_one_new_key(tmp_path):
    program = (
        "import sys, time\nfrom pathlib import Path\nfrom herdr_link_control import Tracer\n"
        "go = Path(sys.argv[2])\n"
        "while not go.exists():\n    time.sleep(0.001)\n"
        "tracer = Tracer(Path(sys.argv[1]))\nprint(tracer.key.hex(), tracer.enabled)\n"
    )
    for round_ in range(3):
        folder = tmp_path / str(round_)
        folder.mkdir(mode=0o700)
        (folder / "t.jsonl.key").write_bytes(b"")
        (folder / "t.jsonl.key").chmod(0o600)
        go = folder / "go"
        starting = [
            subprocess.Popen([sys.executable, "-c", program, str(folder / "t.jsonl"), str(go)], stdout=subprocess.PIPE)
            for _ in range(4)
        ]
        time.sleep(0.5)  # (only to let them reach the line; any order they reach it in is fine)
        go.touch()
        keys = {writer.communicate(timeout=120)[0].decode().strip() for writer in starting}
        assert keys == {(folder / "t.jsonl.key").read_bytes().hex() + " True"}, keys


# ---- reading it back ------------------------------------------------------------------------------


def _args(*argv: str) -> argparse.Namespace:
    """The ``trace`` command's arguments, read by its own options."""
    parser = command_parser("herdr-link trace")
    add_trace_arguments(parser)
    return parser.parse_args(argv)


async def test_one_messages_path_by_its_id_and_the_receivers_next_calls_as_inference(tmp_path):
    path = tmp_path / "trace.jsonl"
    receipt = await link(scripted(TABLE), HERDR_LINK_TRACE=str(path)).send("reviewer", "please review")
    replying = {
        **TABLE,
        SELF: got(agent("reviewer", pane="w1:p2")),
        ("agent", "get", "brain"): got(agent("brain", pane="w1:p3")),
    }
    await link(scripted(replying), HERDR_LINK_TRACE=str(path), HERDR_PANE_ID="w1:p1").send("brain", "done")
    out = io.StringIO()
    assert run_trace(_args("--id", receipt.id), {"HERDR_LINK_TRACE": str(path)}, out) == 0
    shown = out.getvalue()
    assert f"message {receipt.id}, on the sender's side" in shown and "herdr agent prompt w1:p2 <" in shown
    assert "it does not show that the receiver read it" in shown
    assert "inferred by name and time" in shown and "send reviewer → brain" in shown
    out = io.StringIO()
    assert run_trace(_args("--id", receipt.id, "--json"), {"HERDR_LINK_TRACE": str(path)}, out) == 0
    assert all(json.loads(line)["t"] for line in out.getvalue().splitlines())
    assert run_trace(_args("--id", "hl_nothing_here"), {"HERDR_LINK_TRACE": str(path)}, io.StringIO()) == 1


def test_by_agent_and_window_and_when_there_is_no_trace(tmp_path):
    path = tmp_path / "trace.jsonl"
    tracer = Tracer(path)
    tracer.event("call", caller="alpha", target="beta", action="send", code="ok")
    tracer.event("call", caller="gamma", target="delta", action="send", code="ok")
    env = {"HERDR_LINK_TRACE": str(path)}
    out = io.StringIO()
    assert run_trace(_args("--agent", "beta"), env, out) == 0 and "alpha → beta" in out.getvalue()
    assert "gamma" not in out.getvalue()
    assert run_trace(_args("--since", "2099-01-01T00:00:00Z"), env, io.StringIO()) == 1
    assert run_trace(_args("--since", "1h"), env, io.StringIO()) == 0
    with pytest.raises(UsageError, match="'yesterday-ish' is neither"):
        _args("--since", "yesterday-ish")
    assert run_trace(_args(), {"HOME": str(tmp_path)}, io.StringIO()) == 1  # off: nothing configured
    assert run_trace(_args(), {"HERDR_LINK_TRACE": str(tmp_path / "none.jsonl")}, io.StringIO()) == 1
    assert os.environ.get("HERDR_LINK_TRACE") is None  # the tests never trace the developer's own runs


FOLLOW = (
    "import argparse, sys\nfrom herdr_link_control.commandline import add_trace_arguments, run_trace\n"
    "parser = argparse.ArgumentParser()\nadd_trace_arguments(parser)\n"
    "sys.exit(run_trace(parser.parse_args(sys.argv[1:]), {}))\n"
)
"""The ``trace`` command as ``herdr-link`` and ``herdr-link-mcp`` wire it (both distributions depend on this one)."""


def test_follow_shows_the_lines_written_from_now_on_even_before_the_file_exists(tmp_path):
    path = tmp_path / "trace.jsonl"
    command = [sys.executable, "-c", FOLLOW, "--file", str(path), "--follow", "--agent", "beta"]
    tracer = Tracer(path)
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as follower:
        try:
            assert follower.stdout is not None and follower.stderr is not None
            started = follower.stderr.readline()  # it says it follows once it does (or why it stopped)
            assert started.startswith(f"following {path}") and not path.exists(), started
            deadline, seen = time.monotonic() + 60, ""
            while not seen:  # keep writing until the follower shows a line: no assumption about its speed
                assert time.monotonic() < deadline and follower.poll() is None, "the follower showed nothing"
                tracer.event("call", caller="alpha", target="beta", action="send", code="ok", reason="sent")
                tracer.event("call", caller="gamma", target="delta", action="send", code="ok", reason="sent")
                ready, _, _ = select.select([follower.stdout], [], [], 0.2)
                if ready:
                    seen = follower.stdout.readline()
            assert "send alpha → beta" in seen and "gamma" not in seen
        finally:
            follower.terminate()
            tracer.close()


async def test_concurrent_calls_of_two_hosts_each_trace_their_own_context(tmp_path):
    """Each call carries its own context (``CallContext``), so calls of two hosts through one ``Link``,
    interleaved, never trace the other's host or session (when the adapter wrote them on the shared
    ``Link`` per call, the later call's host could label the earlier one)."""
    path = tmp_path / "trace.jsonl"
    subject = link(scripted(TABLE), HERDR_LINK_TRACE=str(path))
    contexts = [CallContext("bridge", f"host-{n}", f"session-{n}") for n in range(8)]
    async with anyio.create_task_group() as group:
        for context in contexts:
            group.start_soon(subject.call, "herdr_link_send", {"to": "reviewer", "message": context.host}, context)
    calls = [e for e in _lines(path) if e["event"] == "call"]
    assert len(calls) == len(contexts)
    assert sorted((c["host"], c["session"], c["adapter"]) for c in calls) == sorted(
        (c.host, c.session, "bridge") for c in contexts
    )
    assert not hasattr(subject, "host") and not hasattr(subject, "adapter")


def test_every_argument_herdr_is_given_to_start_an_agent_with_is_hidden_the_first_too():
    shown = redact_argv(["agent", "start", "w", "--kind", "pi", "--", "secret-first", "--model", "secret-model"])
    assert shown[:6] == ["agent", "start", "w", "--kind", "pi", "--"]
    assert [arg.startswith("<") and arg.endswith(">") for arg in shown[6:]] == [True, True, True]
    assert "secret" not in json.dumps(shown)


async def test_a_trace_in_folders_that_do_not_exist_yet_makes_them_private(tmp_path):
    """``~/.local/state/herdr-link/trace.jsonl`` on a machine where ``~/.local/state`` is not there yet."""
    path = tmp_path / "local" / "state" / "herdr-link" / "trace.jsonl"
    await link(scripted(TABLE), HERDR_LINK_TRACE=str(path)).send("reviewer", "hi")
    assert [e["event"] for e in _lines(path)].count("call") == 1
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_writer_whose_file_another_process_rotated_writes_into_the_new_file(tmp_path):
    path = tmp_path / "trace.jsonl"
    first, second = Tracer(path), Tracer(path)  # two processes' writers of one trace
    first.event("note", index=1)
    path.rename(tmp_path / "trace.jsonl.1")  # another process rotated it ...
    second.event("note", index=2)  # ... and began the new file
    first.event("note", index=3)
    assert [e["index"] for e in _lines(path)] == [2, 3]
    assert [e["index"] for e in _lines(tmp_path / "trace.jsonl.1")] == [1]
