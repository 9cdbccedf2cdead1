"""Pi 1.6.0 end to end with a model in the loop: a real Pi in RPC mode in a simulated Herdr pane,
the native extension installed by ``herdr-link-pi-bridge install --yes`` into its HOME, a scripted
OpenAI Chat Completions model on loopback (``models.json``, ``openai-completions``), no network.

What each scenario holds in place (issue: real hosts, part 3):
- the activating turn sees the rules: the next request of the same turn carries the contract (as a
  Tier 1 tool's prompt guideline) and the Tier 1 tools, and no later request carries it twice;
- the gateway's dispatch form works, nested ``arguments`` and flat keys;
- a wrapper sent by another host's adapter becomes Pi's prompt and is answered to ``from``.
"""

from pathlib import Path

import pytest
from fake_model import ChatCompletions, FakeModelServer, ScriptedModel, Step
from hosts import Pi, PiSession
from matrix import Run, record
from scenarios import (
    CANONICAL,
    after_activation,
    asked_by_another_host,
    assert_answered,
    assert_started_and_closed,
    outside_herdr,
    pair_workspace,
    reply_steps,
    rules_in,
    scenario_row,
    sent_to_reviewer,
    start_close_steps,
)
from test_gemini import run_gemini

from herdr_link_testkit import HerdrSim

HOST = "Pi 1.6.0 (native extension)"
NAMES = {tool: tool for tool in CANONICAL}
PREFIX = "herdr_link"
DIALECT = ChatCompletions()


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "pi", "gemini")


def run_pi(
    steps: list[Step], env: dict[str, str], workdir: Path, prompts: tuple[str, ...] = ("go",)
) -> tuple[PiSession, ScriptedModel]:
    model = ScriptedModel(DIALECT, NAMES, steps)
    pi = Pi(workdir)
    installed = pi.install(env)
    assert installed.returncode == 0, installed.stderr
    with FakeModelServer(model) as api:
        done = pi.run(list(prompts), env, api.url)
    assert done.returncode == 0, done.stderr[-3000:]
    assert all(any(e.get("type") == "agent_settled" for e in events) for events in done.prompts), done.stderr[-2000:]
    errors = [
        e for events in done.prompts for e in events if e.get("type") == "tool_execution_end" and e.get("isError")
    ]
    assert errors == [], errors
    return done, model


def row(scenario: str, done: PiSession, model: ScriptedModel, *, active: bool = True) -> Run:
    return scenario_row(HOST, "—", PREFIX, scenario, done.spawned, model, active=active)


def test_dormant_pi_offers_only_the_gateway_and_no_contract(workspace, herdr_sim, tmp_path):
    done, model = run_pi([], herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    first = model.primary_requests[0]
    assert [t["function"]["name"] for t in DIALECT.ours(first, PREFIX)] == ["herdr_link"]
    assert rules_in(first) == 0
    record(row("dormant", done, model, active=False))


def test_the_activating_turn_sees_the_rules_and_the_tier1_tools(workspace, herdr_sim, tmp_path):
    send = {"to": "reviewer", "message": "please review the design"}
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", send)]
    done, model = run_pi(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", prompts=("go", "and now?"))
    requests = model.primary_requests
    active = after_activation(DIALECT, requests)
    assert requests.index(active) == 1  # the very next request of the activating turn
    assert rules_in(active) == 1 and NAMES["herdr_link_peers"] in DIALECT.callable(active)
    assert all(rules_in(r) == 1 for r in requests[1:])  # once, also in the next prompt's requests
    assert model.paths(requests[-1]) == ["gateway", "Tier 1", "Tier 1"]
    sent_to_reviewer(herdr_sim, workspace, send["message"])
    record(row("activate, peers, send", done, model))


def test_the_gateway_dispatches_nested_and_flat_arguments(workspace, herdr_sim, tmp_path):
    steps = [
        Step("herdr_link_peers", dispatch=True),
        Step("herdr_link_send", {"to": "reviewer", "message": "nested"}, dispatch=True),
    ]
    done, model = run_pi(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    assert model.paths(requests[-1]) == ["gateway dispatch", "gateway dispatch"]
    assert '"self":{"name":"brain"' in DIALECT.results(requests[-1])[0]
    sent_to_reviewer(herdr_sim, workspace, "nested")
    record(row("gateway dispatch (peers, send)", done, model, active=False))


def test_a_wrapper_from_gemini_is_answered_to_from(workspace, herdr_sim, tmp_path):
    text, question = asked_by_another_host(run_gemini, herdr_sim, workspace, tmp_path)
    done, model = run_pi(reply_steps(DIALECT), herdr_sim.env(workspace["brain"]), tmp_path / "brain", prompts=(text,))
    assert rules_in(after_activation(DIALECT, model.primary_requests)) == 1  # the rules, in this one turn
    assert_answered(herdr_sim, workspace, question)
    record(row("receive (from Gemini CLI) and reply", done, model))


def test_start_with_then_close(workspace, herdr_sim, tmp_path):
    done, model = run_pi(start_close_steps("pi"), herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    assert_started_and_closed(herdr_sim, DIALECT, model.primary_requests)
    record(row("start with, close", done, model))


def test_outside_herdr_pi_offers_nothing_of_ours(tmp_path):
    env = outside_herdr()
    done, model = run_pi([Step("herdr_link")], env, tmp_path / "plain")
    assert all(DIALECT.ours(r, PREFIX) == [] for r in model.primary_requests)
