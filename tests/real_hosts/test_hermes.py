"""Hermes Agent 0.19.0 end to end: a real ``hermes chat -q`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host hermes --yes`` (``~/.hermes/config.yaml``, YAML), a scripted OpenAI Chat
Completions model on loopback (its ``custom`` provider), no network (``pane_story.py`` tells the story).

Hermes starts MCP servers with a filtered environment: the pane's Herdr variables reach ours because the
entry forwards them (``${NAME}``). Its MCP client is the Python SDK's default (``mcp``), which the table
knows for Hermes: a run without a terminal is its own pane's process. Its model is given re-listed tools
only between turns, so after activation the calls go through the gateway's ``action`` dispatch.
"""

from pathlib import Path

import pytest
from fake_model import DISPATCH_FIRST, HermesChat, ScriptedModel
from hosts import HermesAgent
from interactive import Machine
from matrix import SCENARIOS, record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, reply_steps, scenario_row
from worker_story import a_lead_starts_a_worker, assert_the_worker_answered

from herdr_link_protocol import COMMUNICATION_CONTRACT
from herdr_link_testkit import HerdrSim

HOST = "Hermes Agent 0.19.0"
PREFIX = "mcp__herdr_link__"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = HermesChat()


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "hermes", "claude")


def test_hermes_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(HermesAgent, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    assert [tool["function"]["name"] for tool in DIALECT.ours(requests[0], PREFIX)] == [NAMES["herdr_link"]]
    activation = activation_text(DIALECT, requests)
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation and DISPATCH_FIRST in activation  # dispatch first
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"] and not model.saw_tier1()
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))


EMPTY_COMPOSER = "\n❯\n"
"""Its composer, empty: Hermes Agent 0.19.0's classic REPL draws the mark alone on its line (a letter typed
shows after it)."""
REPL_LOOKUPS = frozenset(
    {"models.dev", "raw.githubusercontent.com", "hermes-agent.nousresearch.com", "api.anthropic.com"}
)
"""What Hermes Agent 0.19.0's interactive REPL (not ``hermes chat -q``, which looks up nothing here) tries
to resolve at start: its model catalogue (``hermes_cli/model_catalog.py``, models.dev), its documentation
site and a provider's API, none traced to one setting yet. Offline they fail and the session goes on."""


@pytest.fixture
def allowed_lookups(request: pytest.FixtureRequest) -> frozenset[str]:
    return REPL_LOOKUPS if "worker" in request.node.name else frozenset()


def _hermes_user(machine: Machine, model_url: str) -> None:
    """The user's one-time set-up of Hermes Agent: their model in ``~/.hermes/config.yaml`` (the ``custom``
    provider on an OpenAI-compatible endpoint, the rig's keys); ``hermes`` on PATH."""
    HermesAgent.settings(machine.home, model_url)
    machine.env["PATH"] = f"{HermesAgent.package.executable.parent}:{machine.env['PATH']}"


def test_a_claude_code_lead_starts_a_hermes_worker_that_answers(tmp_path):
    """Herdr types ``hermes`` into the new pane's shell (the pane's environment, the user's HOME wired by
    ``herdr-link-mcp install --host hermes``); its REPL asks nothing, and its model replies to ``from``."""
    worker = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    story = a_lead_starts_a_worker("hermes", worker, tmp_path, _hermes_user, placeholder=EMPTY_COMPOSER)
    assert_the_worker_answered(story, worker, hinted=False)  # Hermes Agent has no hint hook (docs/hosts.md)
    assert worker.paths(worker.primary_requests[-1]) == ["gateway", "gateway dispatch"]  # dispatch first
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a Claude Code lead (explicit, beside the lead; README set-up only)",
            "outcome": "came up wired, answered the lead's message through the gateway's dispatch (the reply "
            "became the lead's next turn) and was closed by the lead; no prompt on either screen. Set-up: "
            "`herdr-link-mcp install --host claude --trust <project>`; `herdr-link-mcp install --host hermes`",
            "prompts": [],
        }
    )
