"""oh-my-pi 18.2.3 end to end: a real ``omp -p`` in a simulated Herdr pane, wired only by ``herdr-link-mcp
install --host omp --yes``, a scripted OpenAI Chat Completions model on loopback, no network
(``pane_story.py`` tells the story).

oh-my-pi mounts MCP tools as ``xd://`` devices (its default ``tools.xdev``): none is declared to the
model; the system prompt lists ``xd://mcp__herdr_link_herdr_link`` and the model runs a device by
calling ``write`` with the device's path and its JSON input.
"""

import json
from pathlib import Path

import pytest
from fake_model import ChatCompletions, XdevChat
from hosts import OhMyPi
from matrix import record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, scenario_row

from herdr_link_protocol import COMMUNICATION_CONTRACT, PresentationForm, presented_tool_name
from herdr_link_testkit import HerdrSim

HOST = "oh-my-pi 18.2.3"
PREFIX = "mcp__herdr_link_"
NAMES = {tool: presented_tool_name(tool, PresentationForm.XD_DEVICE, "herdr_link") for tool in CANONICAL}
DIALECT = XdevChat()


@pytest.fixture
def allowed_lookups() -> frozenset[str]:
    """oh-my-pi 18.2.3 refreshes its model catalogues in the background at start (models.md: the shared
    models.dev catalogue from catalog.stencil.so, and the providers that list models without a key);
    offline they fail and nothing waits for them."""
    return frozenset({"catalog.stencil.so", "api.commandcode.ai", "api.kilo.ai", "api.venice.ai",
                      "coding-intl.dashscope.aliyuncs.com", "hyper.charm.land", "zenmux.ai"})  # fmt: skip


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "omp", "claude")


def test_omp_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(OhMyPi, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    assert DIALECT.ours(requests[0], PREFIX) == []  # not declared to the model: a device
    assert "xd://" + NAMES["herdr_link"] in DIALECT.system(requests[0])  # listed in the system prompt
    assert [c.name for c in ChatCompletions().calls(requests[-1])] == ["write"] * 3  # each call a device write
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation_text(DIALECT, requests)
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    first, *rest = model.paths(requests[-1])  # Tier 1 once its re-list has mounted the devices
    assert first == "gateway" and set(rest) <= {"gateway dispatch", "Tier 1"} and len(rest) == 2
    ends = [e for e in map(json.loads, done.stdout.splitlines()) if e.get("type") == "tool_execution_end"]
    assert [(e["toolName"], e["isError"]) for e in ends] == [("write", False)] * 3
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))
