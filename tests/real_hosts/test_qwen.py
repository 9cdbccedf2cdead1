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
from fake_model import QWEN_SEARCH, ScriptedModel, SearchingChat
from hosts import QwenCode, install_wiring
from interactive import Machine
from matrix import SCENARIOS, record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, reply_steps, scenario_row
from tui_story import TuiLead, a_question_through_a_helper, assert_the_user_was_answered
from worker_story import a_lead_starts_a_worker, assert_the_worker_answered

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


def _qwen_user(machine: Machine, model_url: str) -> None:
    """The user's one-time set-up of Qwen Code: what its "Custom Provider" dialog records (the key in
    the environment), and no update check or usage statistics offline; ``qwen`` on PATH."""
    QwenCode.settings(machine.home, model_url)
    machine.env["PATH"] = f"{QwenCode.package.executable.parent}:{machine.env['PATH']}"


def test_a_claude_code_lead_starts_a_qwen_worker_that_answers(tmp_path):
    worker = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    story = a_lead_starts_a_worker("qwen", worker, tmp_path, _qwen_user, placeholder="Type your message")
    assert_the_worker_answered(story, worker)
    assert model_paths(worker) == ["gateway", "gateway dispatch"]
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a Claude Code lead (explicit, beside the lead; README set-up only)",
            "outcome": "came up wired (the hint given), answered the lead's message (the reply became the lead's "
            "next turn) and was closed by the lead; no prompt on either screen. Set-up: `herdr-link-mcp install "
            "--host claude --trust <project>`; `herdr-link-mcp install --host qwen`",
            "prompts": [],
        }
    )


def model_paths(model: ScriptedModel) -> list[str]:
    return model.paths(model.primary_requests[-1])


def _qwen_lead(machine: Machine, model_url: str) -> list[str]:
    """The user's one-time set-up of Qwen Code as their own agent: our install command, then its provider."""
    install_wiring("qwen", machine.home)
    _qwen_user(machine, model_url)
    return ["herdr-link-mcp install --host qwen"]


def test_qwen_in_its_tui_answers_the_user_through_a_worker_it_starts(tmp_path):
    host = TuiLead(HOST, "qwen", "qwen", "Type your message", True, DIALECT, NAMES, _qwen_lead,
                   notes=" (its tools found with `tool_search`, called through the gateway's dispatch)")  # fmt: skip
    story = a_question_through_a_helper(host, tmp_path)
    assert model_paths(story.lead) == ["gateway", "gateway dispatch", "gateway dispatch", "gateway dispatch"]
    assert_the_user_was_answered(host, story)
