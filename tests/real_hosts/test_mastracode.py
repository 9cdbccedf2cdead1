"""MastraCode 0.32.1 end to end: a real ``mastracode -p`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host mastracode --yes``, a scripted OpenAI Chat Completions model on loopback,
no network (``pane_story.py`` tells the story).

MastraCode starts MCP servers with only HOME, LOGNAME, PATH, SHELL, TERM and USER: the pane's Herdr
variables reach ours because the entry forwards them (``${NAME}``). Its MCP client is named after the
server's key (``herdr_link``), which is how the table knows a run without a terminal is its own pane's
process. It lists tools once at start, so after activation the calls go through the gateway's
``action`` dispatch; a tool message carries the whole MCP result as JSON (as Cline's does).

As a worker (``worker_story.py``), its TUI in a real pane: it has no hint hook (``docs/hosts.md``), and a
message typed into it reaches the model inside a ``<user delivery="message">`` element (``MastraChat``).
"""

import json
from pathlib import Path

import pytest
from fake_model import DISPATCH_FIRST, MastraChat, ScriptedModel
from hosts import MastraCode, install_wiring, merge_json
from interactive import Machine
from matrix import SCENARIOS, record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, reply_steps, scenario_row
from tui_story import TuiLead, a_question_through_a_helper, assert_the_user_was_answered
from worker_story import a_lead_starts_a_worker, assert_the_worker_answered

from herdr_link_protocol import COMMUNICATION_CONTRACT
from herdr_link_testkit import HerdrSim

HOST = "MastraCode 0.32.1"
PREFIX = "herdr_link_"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = MastraChat()
EMPTY_COMPOSER = "│ ›" + " " * 8
"""Its composer, empty: MastraCode 0.32.1 draws no placeholder text (a letter typed shows after the mark)."""
WELCOME = "Welcome to Mastra Code"
"""The first screen of its set-up wizard ("Continue" / "Skip"), drawn at a start until the user has finished
or skipped it once (``settings.json`` ``onboarding``)."""


@pytest.fixture
def allowed_lookups(request: pytest.FixtureRequest) -> frozenset[str]:
    """MastraCode 0.32.1's TUI, at every start, fetches the model catalogues of its built-in gateways
    (``models.dev/api.json``, ``api.netlify.com``'s AI gateway providers) to show whether the model has a key
    (``getCurrentModelAuthStatus`` → ``listAvailableModels``, ``@mastra/core`` 1.52.1 ``listProviders``);
    ``MASTRA_OFFLINE`` stops only the registry's sync, nothing found stops this. Offline the lookups fail and
    nothing waits for them. ``mastracode -p`` looks up nothing."""
    headless = request.node.name == test_mastracode_asks_claude_code_as_itself_and_hears_back.__name__
    return frozenset() if headless else frozenset({"models.dev", "api.netlify.com"})


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "mastracode", "claude")


def test_mastracode_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(MastraCode, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    result = json.loads(done.stdout.splitlines()[0])  # then its terminal resets, though stdout is no terminal
    assert result["status"] == "completed" and [r for r in result["toolResults"] if r["isError"]] == [], result
    requests = model.primary_requests
    assert [tool["function"]["name"] for tool in DIALECT.ours(requests[0], PREFIX)] == [NAMES["herdr_link"]]
    activation = activation_text(DIALECT, requests)
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation and DISPATCH_FIRST in activation  # never re-lists
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"] and not model.saw_tier1()
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))


def _mastracode_user(machine: Machine, model_url: str) -> None:
    """The user's one-time set-up of MastraCode: their model (a custom OpenAI-compatible provider, the rig's
    keys), and what its first start records once they have skipped its set-up wizard and answered its
    "Try compact quiet mode?" question (``settings.json`` ``onboarding``); ``mastracode`` on PATH. Offline:
    no update check, no telemetry."""
    MastraCode.settings(machine.home, model_url)
    answered = {"completedAt": None, "skippedAt": "2026-12-06T15:00:00.000Z", "version": 1, "modePackId": None,
                "omPackId": None, "quietModePreferenceSelected": True}  # fmt: skip
    merge_json(machine.home / ".local" / "share" / "mastracode" / "settings.json", {"onboarding": answered})
    machine.env.update({"MASTRACODE_DISABLE_UPDATE_CHECK": "1", "MASTRA_TELEMETRY_DISABLED": "1"})
    machine.env["PATH"] = f"{MastraCode.package.executable.parent}:{machine.env['PATH']}"


def test_a_claude_code_lead_starts_a_mastracode_worker_that_answers(tmp_path):
    """Herdr types ``mastracode`` into the new pane's shell (the pane's environment, the user's HOME wired by
    ``herdr-link-mcp install --host mastracode``); its TUI asks nothing, and its model replies to ``from``."""
    worker = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    story = a_lead_starts_a_worker("mastracode", worker, tmp_path, _mastracode_user, placeholder=EMPTY_COMPOSER)
    assert_the_worker_answered(story, worker, hinted=False)  # MastraCode has no hint hook (docs/hosts.md)
    assert worker.paths(worker.primary_requests[-1]) == ["gateway", "gateway dispatch"]  # never re-lists
    assert WELCOME not in story["shown"], story["shown"]
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a Claude Code lead (explicit, beside the lead; README set-up only)",
            "outcome": "came up wired (the gateway declared, the reply sent through its action dispatch), answered "
            "the lead's message (the reply became the lead's next turn) and was closed by the lead; no prompt on "
            "either screen. Set-up: `herdr-link-mcp install --host claude --trust <project>`; `herdr-link-mcp "
            "install --host mastracode`; its set-up wizard once skipped",
            "prompts": [],
        }
    )


def _mastracode_lead(machine: Machine, model_url: str) -> list[str]:
    """The user's one-time set-up of MastraCode as their own agent: our install command, then its model (its
    set-up wizard once skipped)."""
    install_wiring("mastracode", machine.home)
    _mastracode_user(machine, model_url)
    return ["herdr-link-mcp install --host mastracode"]


def test_mastracode_in_its_tui_answers_the_user_through_a_worker_it_starts(tmp_path):
    host = TuiLead(HOST, "mastracode", "mastracode", EMPTY_COMPOSER, True, DIALECT, NAMES, _mastracode_lead,
                   notes=" (its calls through the gateway's dispatch: it never re-lists)")  # fmt: skip
    story = a_question_through_a_helper(host, tmp_path)
    lead = story.lead
    assert lead.paths(lead.primary_requests[-1]) == [
        "gateway",
        "gateway dispatch",
        "gateway dispatch",
        "gateway dispatch",
    ]
    assert WELCOME not in story.screen, story.screen
    assert_the_user_was_answered(host, story)
