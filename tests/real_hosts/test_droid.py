"""Factory Droid 0.225.2 end to end: a real ``droid exec`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host droid --yes``, a scripted OpenAI Chat Completions model (a BYOK custom
model) on loopback, no network (``pane_story.py`` tells the story).

Droid defers MCP tools behind ``ToolSearch`` (``select:<name>`` declares the tool from the next
request on), often lists our server only after its first model request (the model searches again),
and re-lists after ``tools/list_changed``, so the Tier 1 tools are loaded and called by name.
"""

import json
from pathlib import Path

import pytest
from fake_model import DROID_SEARCH, SearchingChat
from hosts import FactoryDroid
from matrix import record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, scenario_row

from herdr_link_protocol import COMMUNICATION_CONTRACT
from herdr_link_testkit import HerdrSim

HOST = "Factory Droid 0.225.2"
PREFIX = "herdr_link___"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = SearchingChat(DROID_SEARCH)


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "droid", "claude")


def test_droid_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(FactoryDroid, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    assert DIALECT.ours(requests[0], PREFIX) == []  # deferred (and at start-up often not listed yet)
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation_text(DIALECT, requests)
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    assert model.paths(requests[-1]) == ["gateway", "Tier 1", "Tier 1"]  # re-listed, loaded by ToolSearch
    assert json.loads(done.stdout)["is_error"] is False
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))
