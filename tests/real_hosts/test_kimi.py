"""Kimi Code CLI 2.1.0 end to end: a real ``kimi -p`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host kimi --yes``, a scripted OpenAI Chat Completions model on loopback, no
network (``pane_story.py`` tells the story).

Kimi Code passes MCP servers its whole environment, so the pane's Herdr variables reach ours as they are.
Its MCP client is named after its identity slug (``kimi-code``), which is how the table knows a run
without a terminal is its own pane's process. It lists tools once per session, so after activation the
calls go through the gateway's ``action`` dispatch.

As a worker its TUI runs in a real pane: it asks "Trust this folder?" in a folder without its record, and
before each MCP call without a permission rule; ``install --host kimi --trust <project>`` writes both.
"""

from pathlib import Path

import pytest
from fake_model import DISPATCH_FIRST, ChatCompletions, ScriptedModel
from hosts import KimiCode, install_wiring
from interactive import Machine
from matrix import record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, reply_steps, scenario_row
from worker_story import a_lead_starts_a_worker

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


TUI_LOOKUPS = frozenset({"api.kimi.com", "code.kimi.com"})
"""What Kimi Code 2.1.0's TUI (not ``kimi -p``) tries to resolve at start: its managed provider's API and its
CDN (the ``mainland-cn`` region profile), not traced to one setting yet. Offline they fail and the session
goes on."""


@pytest.fixture
def allowed_lookups(request: pytest.FixtureRequest) -> frozenset[str]:
    return TUI_LOOKUPS if "worker" in request.node.name else frozenset()


EMPTY_COMPOSER = "│ >" + " " * 8
"""Kimi Code 2.1.0's composer, empty: a ``>`` mark in a box, no placeholder text (a letter typed shows after it)."""
TRUST_QUESTION = "Trust this folder?"
APPROVAL = "Approve mcp__herdr_link__herdr_link?"
"""What Kimi Code 2.1.0's TUI asks before a call of our gateway tool that no rule it applies allows."""


def _kimi_user(machine: Machine, model_url: str) -> None:
    """The user's one-time set-up of Kimi Code: their model in ``~/.kimi-code/config.toml`` (an
    OpenAI-compatible provider, the rig's keys), ``kimi`` on PATH, no update check or telemetry; then
    ``herdr-link-mcp install --host kimi --trust <project>``."""
    KimiCode.settings(machine.home, model_url)
    machine.env["KIMI_CODE_NO_AUTO_UPDATE"] = "1"
    machine.env["KIMI_DISABLE_TELEMETRY"] = "1"
    machine.env["PATH"] = f"{KimiCode.package.executable.parent}:{machine.env['PATH']}"
    install_wiring("kimi", machine.home, "--trust", str(machine.project))


def test_a_claude_code_lead_starts_a_kimi_worker_that_waits_at_its_approval_question(tmp_path):
    """Herdr types ``kimi`` into the new pane's shell (the pane's environment, the user's HOME wired by
    ``herdr-link-mcp install --host kimi --trust <project>``): its TUI asks no trust question and reads its
    composer, and its model calls Herdr Link; but Kimi Code 2.1.0 reads ``[[permission.rules]]`` from
    ``config.toml`` without adding them to the rules its permission gate consults (no caller of ``addRules``
    in ``dist/main.mjs``), so it asks before that call and the worker waits there. When a build applies the
    rule this fails: the worker then answers, and the story's checks (``test_grok.py``'s) belong here."""
    worker = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    story = a_lead_starts_a_worker("kimi", worker, tmp_path, _kimi_user, EMPTY_COMPOSER, stops_at=APPROVAL)
    screen = story["stopped"]
    assert TRUST_QUESTION not in screen, screen
    assert worker.primary_requests, "the worker's model was never asked"  # it read the lead's message
