"""``herdr-link demo``: the transcript tells the whole story in order, and the worker's pane is gone."""

import io
import json
import re
import subprocess
import sys

import pytest

from herdr_link import run_demo
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
