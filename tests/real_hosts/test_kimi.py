"""Kimi Code CLI 2.1.0 end to end: a real ``kimi -p`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host kimi --yes``, a scripted OpenAI Chat Completions model on loopback, no
network (``pane_story.py`` tells the story).

Kimi Code passes MCP servers its whole environment, so the pane's Herdr variables reach ours as they are.
Its MCP client is named after its identity slug (``kimi-code``), which is how the table knows a run
without a terminal is its own pane's process. It lists tools once per session, so after activation the
calls go through the gateway's ``action`` dispatch.
"""

from pathlib import Path

import pytest
from fake_model import DISPATCH_FIRST, ChatCompletions
from hosts import KimiCode
from matrix import record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, scenario_row

from herdr_link_protocol import COMMUNICATION_CONTRACT
from herdr_link_testkit import HerdrSim

HOST = "Kimi Code CLI 2.1.0"
PREFIX = "mcp__herdr_link__"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = ChatCompletions()


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "kimi", "claude")


def test_kimi_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(KimiCode, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    assert [tool["function"]["name"] for tool in DIALECT.ours(requests[0], PREFIX)] == [NAMES["herdr_link"]]
    activation = activation_text(DIALECT, requests)
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation and DISPATCH_FIRST in activation  # never re-lists
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"] and not model.saw_tier1()
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))
