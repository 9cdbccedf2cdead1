"""oh-my-pi 18.2.3 end to end: a real ``omp -p`` in a simulated Herdr pane, wired only by ``herdr-link-mcp
install --host omp --yes``, a scripted OpenAI Chat Completions model on loopback, no network
(``pane_story.py`` tells the story).

oh-my-pi mounts MCP tools as ``xd://`` devices (its default ``tools.xdev``): none is declared to the
model; the system prompt lists ``xd://mcp__herdr_link_herdr_link`` and the model runs a device by
calling ``write`` with the device's path and its JSON input (a device not listed yet, while our server
still connects, it looks for with ``read xd://<device>``). It re-lists: after activation the Tier 1
devices are mounted. Then a Claude Code lead starts an ``omp`` worker in a real pane, which answers.
"""

import json
from pathlib import Path

import pytest
from fake_model import ChatCompletions, ScriptedModel, XdevChat
from hosts import OhMyPi
from interactive import Machine, settled
from matrix import SCENARIOS, record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, reply_steps, scenario_row
from worker_story import a_lead_starts_a_worker, assert_the_worker_answered

from herdr_link_protocol import COMMUNICATION_CONTRACT, PresentationForm, presented_tool_name
from herdr_link_testkit import HerdrSim

HOST = "oh-my-pi 18.2.3"
PREFIX = "mcp__herdr_link_"
NAMES = {tool: presented_tool_name(tool, PresentationForm.XD_DEVICE, "herdr_link") for tool in CANONICAL}
DIALECT = XdevChat()
EMPTY_COMPOSER = "\n╰─\n"
"""Its composer, empty: oh-my-pi 18.2.3 draws no placeholder text, only the mark on a row of its own (a
letter typed shows after it; the screen's rows are read without their trailing blanks)."""
USER_CONFIG = (
    "setupVersion: 2\nmodelRoles:\n  default: rig/scripted\nstartup:\n  checkUpdate: false\n"
    "disabledProviders:\n  - claude\n"
)
"""The user's ``~/.omp/agent/config.yml``: its first-run setup wizard done once (what finishing it records,
``markSetupWizardComplete``), their model the default, no update check offline, and its loading of Claude
Code's files off (it reads the MCP servers of ``~/.claude.json`` too, where the lead's install put ours:
off, the worker is wired by ``install --host omp`` alone)."""


@pytest.fixture
def allowed_lookups() -> frozenset[str]:
    """oh-my-pi 18.2.3 refreshes its model catalogues in the background at start (models.md: the shared
    models.dev catalogue from catalog.stencil.so, the providers that list models without a key, and, in the
    worker test, those the user has a key for in the environment, ANTHROPIC_API_KEY and GEMINI_API_KEY, set
    for their other agents); offline they fail and nothing waits for them."""
    return frozenset({"catalog.stencil.so", "api.commandcode.ai", "api.kilo.ai", "api.venice.ai",
                      "coding-intl.dashscope.aliyuncs.com", "hyper.charm.land", "zenmux.ai", "api.anthropic.com",
                      "generativelanguage.googleapis.com"})  # fmt: skip


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "omp", "claude")


def test_omp_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(OhMyPi, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    assert DIALECT.ours(requests[0], PREFIX) == []  # not declared to the model: a device
    assert "xd://" + NAMES["herdr_link"] in DIALECT.system(requests[-1])  # listed in the system prompt
    made = [c.name for c in ChatCompletions().calls(requests[-1]) if c.name != "read"]  # reads: looking for it
    assert made == ["write"] * 3  # each call a device write
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation_text(DIALECT, requests)
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    first, *rest = model.paths(requests[-1])  # Tier 1 once its re-list has mounted the devices
    assert first == "gateway" and set(rest) <= {"gateway dispatch", "Tier 1"} and len(rest) == 2
    ends = [e for e in map(json.loads, done.stdout.splitlines()) if e.get("type") == "tool_execution_end"]
    assert [(e["toolName"], e["isError"]) for e in ends if e["toolName"] == "write"] == [("write", False)] * 3
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))


def _omp_user(machine: Machine, model_url: str) -> None:
    """The user's one-time set-up of oh-my-pi: their model in ``~/.omp/agent/models.yml`` (a custom
    OpenAI-compatible provider), :data:`USER_CONFIG`, ``omp`` (and Bun) on PATH."""
    OhMyPi.settings(machine.home, model_url)
    (machine.home / ".omp" / "agent" / "config.yml").write_text(USER_CONFIG)
    machine.env["PATH"] = f"{OhMyPi.package.executable.parent}:{machine.env['PATH']}"


def _takes_a_message(sim: HerdrSim, pane: str) -> bool:
    """oh-my-pi 18.2.3 shows its composer, and echoes what is typed, about a second before it switches
    bracketed paste on: a message Herdr types in that second goes in without paste brackets and stays in its
    composer unsent. Once it is on, the lead waits for the screen to settle (a person reads it first: a
    message pasted while it was still starting once stayed unsent too). Its MCP servers may still be
    connecting after that: its model then reads ``xd://<device>`` until ours is mounted, as
    :class:`fake_model.XdevChat` does."""
    if not sim.bracketed_paste(pane):
        return False
    settled(sim, pane, quiet=2.0)
    return True


def test_a_claude_code_lead_starts_an_omp_worker_that_answers(tmp_path):
    """Herdr types ``omp`` into the new pane's shell (the pane's environment, the user's HOME wired by
    ``herdr-link-mcp install --host omp``); its TUI asks nothing, and its model replies to ``from`` by a
    write to the ``send`` device (or the gateway's, before the re-list)."""
    worker = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    story = a_lead_starts_a_worker(
        "omp", worker, tmp_path, _omp_user, placeholder=EMPTY_COMPOSER, ready=_takes_a_message
    )
    assert_the_worker_answered(story, worker, hinted=False)  # oh-my-pi has no hint wired (docs/hosts.md)
    first, *rest = worker.paths(worker.primary_requests[-1])
    assert first == "gateway" and len(rest) == 1 and set(rest) <= {"gateway dispatch", "Tier 1"}
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a Claude Code lead (explicit, beside the lead; README set-up only)",
            "outcome": "came up wired (the gateway listed as an `xd://` device, run by `write`), answered the "
            "lead's message (the reply became the lead's next turn) and was closed by the lead; no prompt on "
            "either screen. Set-up: `herdr-link-mcp install --host claude --trust <project>`; `herdr-link-mcp "
            "install --host omp` (its loading of Claude Code's files off)",
            "prompts": [],
        }
    )
