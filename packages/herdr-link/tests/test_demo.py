"""``herdr-link demo``: the transcript tells the whole story in order, and the worker's pane is gone."""

import io
import json
import os
import re
import subprocess
import sys
import time

import pytest

from herdr_link import cli, run_demo
from herdr_link_protocol import extract_envelope


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _calls(events):
    return [(e.agent, e.name) for e in events if e.kind == "call"]


@pytest.mark.anyio
@pytest.mark.parametrize("configured", [False, True])
async def test_the_demo_runs_the_whole_story(configured):
    out = io.StringIO()
    events = await run_demo(out, configured=configured)
    assert _calls(events) == [
        ("brain", "herdr_link"),
        ("brain", "herdr_link_start"),
        ("brain", "herdr_link_peers"),
        ("brain", "herdr_link_send"),
        ("worker", "herdr_link"),
        ("worker", "herdr_link_send"),
        ("brain", "herdr_link_close"),
    ]
    calls = {(e.agent, e.name): e for e in events if e.kind == "call"}
    assert not any(e.is_error for e in calls.values())
    assert json.loads(calls["brain", "herdr_link"].result) == {
        "status": "active",
        "capabilities": ["start", "peers", "send", "close"],
    }
    assert json.loads(calls["brain", "herdr_link_start"].result) == {
        "status": "started",
        "agent": "worker",
        "kind": "claude",
    }
    assert json.loads(calls["brain", "herdr_link_peers"].result)["peers"] == [{"name": "worker", "state": "idle"}]
    assert json.loads(calls["worker", "herdr_link_send"].result)["to"] == "brain"
    assert json.loads(calls["brain", "herdr_link_close"].result) == {"status": "closed", "agent": "worker"}
    prompts = [e.result for e in events if e.kind == "prompt"]
    assert "prompt received from brain: 'Count the words in:" in prompts[0]
    assert "prompt received from worker: '9 words'" in prompts[1]
    assert events[-1].result.endswith("is gone")
    start_commands = [c[:2] for c in calls["brain", "herdr_link_start"].commands]
    assert ("pane", "split") in start_commands and ("agent", "start") in start_commands
    assert calls["brain", "herdr_link_close"].commands[-1][:2] == ("pane", "close")
    text = out.getvalue()
    # typed into the pane the send resolved (its canonical id), never by name
    assert re.search(r"\$ herdr agent prompt w\d+:p\d+ '<wrapper,", text) and "Done in" in text
    if configured:  # the configuration itself, not the temporary file it was written to
        assert 'which holds:\n{"agents": {"worker": {"placement": {"mode": "with"}' in text
        assert "agent_config.json)" not in text


@pytest.mark.anyio
async def test_show_envelopes_prints_them_whole():
    out = io.StringIO()
    events = await run_demo(out, show_envelopes=True)
    prompt = next(e for e in events if e.kind == "prompt")
    line = prompt.result.split(" ", prompt.result.index("{") and 0)[-1]
    assert '{"protocol":"herdr-link/1"' in prompt.result and extract_envelope(prompt.result[prompt.result.index("{") :])
    assert "<wrapper," not in out.getvalue() and line


def test_the_command_line_runs_the_demo():
    done = subprocess.run([sys.executable, "-m", "herdr_link", "demo"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "worker's pane w1:p2 is gone" in done.stdout


def test_the_demos_servers_trace_where_the_users_settings_file_says(tmp_path):
    """``[trace] file = "~/…"`` in ~/.config/herdr-link/config.toml is the user's HOME, not the simulation's."""
    (tmp_path / ".config" / "herdr-link").mkdir(parents=True)
    (tmp_path / ".config" / "herdr-link" / "config.toml").write_text('[trace]\nfile = "~/state/trace.jsonl"\n')
    unset = ("HERDR_LINK_TRACE", "HERDR_LINK_CONFIG", "XDG_CONFIG_HOME")
    env = {**{k: v for k, v in os.environ.items() if k not in unset}, "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link", "demo"], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    trace = tmp_path / "state" / "trace.jsonl"
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert {"herdr_link_start", "herdr_link_send", "herdr_link_close"} <= {line.get("tool") for line in lines}
    assert f"The servers trace into {trace} (your trace setting)." in done.stdout


def test_the_closing_time_counts_from_the_commands_start(monkeypatch, capsys):
    """What ran before the demo (loading it) is counted: here the command "started" 1000 s ago."""
    monkeypatch.setattr(cli, "STARTED", time.perf_counter() - 1000)
    assert cli.main(["demo"]) == 0
    assert re.search(r"\nDone in 1\d\d\d\.\d s, from the command's start\.\n$", capsys.readouterr().out)
