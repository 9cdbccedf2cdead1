"""Qwen Code 0.24.4 end to end: a real ``qwen -p`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host qwen --yes``, a scripted OpenAI Chat Completions model on loopback, no
network (``pane_story.py`` tells the story).

Qwen Code defers MCP tools: its model loads ours with ``tool_search`` (``select:<name>``) and calls
them through ``tool_call``; it never re-lists after ``tools/list_changed``, so after activation the
calls go through the gateway's ``action`` dispatch.
"""

import json
from pathlib import Path

import pytest
from fake_model import QWEN_SEARCH, SearchingChat
from hosts import QwenCode
from matrix import record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, scenario_row

from herdr_link_protocol import COMMUNICATION_CONTRACT, PresentationForm, tier0_hint
from herdr_link_testkit import HerdrSim

HOST = "Qwen Code 0.24.4"
PREFIX = "mcp__herdr_link__"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = SearchingChat(QWEN_SEARCH)
HINT = tier0_hint(PresentationForm.MCP_PREFIXED, "herdr_link")


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "qwen", "claude")


def test_qwen_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(QwenCode, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    first = json.dumps(requests[0])
    assert DIALECT.ours(requests[0], PREFIX) == [] and NAMES["herdr_link"] in first  # deferred, named once
    assert HINT in first  # the SessionStart hook's context, in the system prompt
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation_text(DIALECT, requests)
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"]  # no re-listing
    assert json.loads(done.stdout)[-1]["is_error"] is False
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))
