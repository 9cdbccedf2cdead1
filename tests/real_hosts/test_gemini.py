"""Gemini CLI 0.61.0 end to end: a real ``gemini -p`` in a simulated Herdr pane, configured from
``herdr-link-mcp wiring --host gemini --json``, a scripted Gemini model on loopback, no network.

Gemini CLI adds a ``wait_for_previous`` boolean to every tool's schema, and its model sets it on a
call that depends on earlier ones; the scripted model does the same, so send, start and close here
carry it. It re-lists after ``list_changed`` but declares the new tools a request late, which the
scenarios record as the path each call took.
"""

import json
from pathlib import Path

import pytest
from fake_model import WAIT_FOR_PREVIOUS, FakeModelServer, Gemini, ScriptedModel, Step
from hosts import GeminiCli, HostRun
from matrix import Run, record
from scenarios import (
    CANONICAL,
    activation_text,
    asked_by_another_host,
    assert_answered,
    assert_started_and_closed,
    pair_workspace,
    reply_steps,
    scenario_row,
    sent_to_reviewer,
    start_close_steps,
)

from herdr_link_protocol import COMMUNICATION_CONTRACT, PresentationForm, tier0_hint
from herdr_link_testkit import HerdrSim

HOST = "Gemini CLI 0.61.0"
PREFIX = "mcp_herdr_link_"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = Gemini()
HINT = tier0_hint(PresentationForm.MCP_SINGLE_PREFIX, "herdr_link")
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "gemini", "codex")


def run_gemini(
    steps: list[Step], env: dict[str, str], workdir: Path, prompt: str = "go", trust: Path | None = None
) -> tuple[HostRun, ScriptedModel]:
    model = ScriptedModel(DIALECT, NAMES, steps)
    workdir.mkdir(parents=True, exist_ok=True)
    with FakeModelServer(model) as api:
        done = GeminiCli(workdir, trust).run(prompt, env, api.url)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    stats = json.loads(done.stdout)["stats"]["tools"]
    assert stats["totalFail"] == 0, stats
    return done, model


def row(scenario: str, done: HostRun, model: ScriptedModel, *, active: bool = True) -> Run:
    return scenario_row(HOST, "2025-06-18", PREFIX, scenario, done.spawned, model, active=active)


def test_dormant_gemini_offers_the_gateway_alone_with_the_hint(workspace, herdr_sim, tmp_path):
    done, model = run_gemini([], herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    first = model.primary_requests[0]
    assert [d["name"] for d in DIALECT.ours(first, PREFIX)] == [NAMES["herdr_link"]]
    assert HINT in json.dumps(first)  # the SessionStart hook's <hook_context>
    assert CONTRACT_LINE not in json.dumps(first)
    record(row("dormant", done, model, active=False))


def test_activate_peers_and_send_with_wait_for_previous(workspace, herdr_sim, tmp_path):
    send = {"to": "reviewer", "message": "please review the design"}
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", send)]
    done, model = run_gemini(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    calls = DIALECT.calls(requests[-1])
    # The field Gemini adds rode along on the dependent calls (beside a dispatched action, or in
    # a Tier 1 call's arguments), and broke nothing.
    assert [WAIT_FOR_PREVIOUS in c.arguments for c in calls] == [False, True, True]
    assert CONTRACT_LINE in activation_text(DIALECT, requests)
    envelope = sent_to_reviewer(herdr_sim, workspace, send["message"])
    final = "\n".join(DIALECT.results(requests[-1]))
    assert '"self":{"name":"brain"' in final and envelope.id in final
    assert any(NAMES["herdr_link_send"] in DIALECT.callable(r) for r in requests)  # Gemini re-listed
    record(row("activate, peers, send (wait_for_previous)", done, model))


def test_a_wrapper_from_codex_is_answered_to_from(workspace, herdr_sim, tmp_path):
    from test_codex import run_codex  # test_codex imports run_gemini from here

    text, question = asked_by_another_host(run_codex, herdr_sim, workspace, tmp_path)
    done, model = run_gemini(reply_steps(DIALECT), herdr_sim.env(workspace["brain"]), tmp_path / "brain", prompt=text)
    assert_answered(herdr_sim, workspace, question)
    record(row("receive (from Codex) and reply", done, model))


def test_start_with_then_close(workspace, herdr_sim, tmp_path):
    # The worker opens in brain's folder, which the user trusted for Gemini CLI (the README's step 2);
    # untrusted, the start is refused before anything is made (PROTOCOL.md §4.2).
    steps, env = start_close_steps("gemini"), herdr_sim.env(workspace["brain"])
    done, model = run_gemini(steps, env, tmp_path / "brain", trust=tmp_path)
    assert_started_and_closed(herdr_sim, DIALECT, model.primary_requests)
    record(row("start with, close", done, model))
