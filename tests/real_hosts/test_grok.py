"""Grok Build 1.0.41 end to end: a real ``grok -p`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host grok --yes``, a scripted OpenAI Chat Completions model on loopback, no
network (``pane_story.py`` tells the story).

Grok Build defers MCP tools: its model finds ours with ``search_tool`` (keywords; while the server
still connects the answer is ``"status": "partial"`` with no results, and the model searches again)
and calls them through ``use_tool``; it was not seen to re-list, so after activation the calls go
through the gateway's ``action`` dispatch. Every MCP call asks first (``grok -p`` cancels it) unless a
permission rule allows it: install writes ``[permission] allow = ["MCPTool(herdr_link__*)"]``.
"""

import json
from pathlib import Path

import pytest
from fake_model import GROK_SEARCH, SearchingChat
from hosts import GrokBuild
from matrix import record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, scenario_row

from herdr_link_protocol import COMMUNICATION_CONTRACT
from herdr_link_testkit import HerdrSim

HOST = "Grok Build 1.0.41"
PREFIX = "herdr_link__"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = SearchingChat(GROK_SEARCH)


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "grok", "claude")


def test_grok_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(GrokBuild, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    assert json.loads(done.stdout)["stopReason"] != "cancelled", done.stdout  # a call refused for want of the rule
    requests = model.primary_requests
    assert DIALECT.ours(requests[0], PREFIX) == []  # deferred (and at start-up often still connecting)
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation_text(DIALECT, requests)
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"]  # no re-listing
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))
