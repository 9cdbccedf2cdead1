"""Pi 1.6.0 end to end with a model in the loop: a real Pi in RPC mode in a simulated Herdr pane,
the native extension installed by ``herdr-link-pi-bridge install --yes`` into its HOME, a scripted
OpenAI Chat Completions model on loopback (``models.json``, ``openai-completions``), no network.

What each scenario holds in place (issue: real hosts, part 3):
- the activating turn sees the rules: the next request of the same turn carries the contract (as a
  Tier 1 tool's prompt guideline) and the Tier 1 tools, and no later request carries it twice;
- the gateway's dispatch form works, nested ``arguments`` and flat keys;
- a wrapper sent by another host's adapter becomes Pi's prompt and is answered to ``from``.
"""

import json
import os
from pathlib import Path

import pytest
from fake_model import ChatCompletions, FakeModelServer, ScriptedModel, Step
from hosts import Pi, PiSession
from matrix import Run, record
from scenarios import after_activation, reply_to_sender
from test_gemini import run_gemini

from herdr_link_protocol import COMMUNICATION_CONTRACT, extract_envelope
from herdr_link_testkit import HerdrError, HerdrSim

HOST = "Pi 1.6.0 (native extension)"
CANONICAL = ("herdr_link", "herdr_link_peers", "herdr_link_send", "herdr_link_start", "herdr_link_close")
NAMES = {tool: tool for tool in CANONICAL}
PREFIX = "herdr_link"
DIALECT = ChatCompletions()
RULE = "Never wait or poll for the reply"  # from rule 1, which no tool description repeats
assert RULE in COMMUNICATION_CONTRACT


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    brain = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(brain, "pi", name="brain")
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(reviewer, "gemini", name="reviewer")
    return {"brain": brain, "reviewer": reviewer}


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


def rules_in(body: dict[str, object]) -> int:
    """How many times the contract's first rule is in a request (system prompt and history)."""
    return json.dumps(body, ensure_ascii=False).count(RULE)


def row(scenario: str, done: PiSession, model: ScriptedModel, *, active: bool = True) -> Run:
    requests = model.primary_requests
    return Run(
        HOST, scenario, "—", "yes" if model.saw_tier1() else "no", DIALECT, PREFIX, requests,
        after_activation(DIALECT, requests) if active else None, model.paths(requests[-1]),
        model.first_offering(done.spawned),
    )  # fmt: skip


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
    [delivery] = herdr_sim.deliveries(workspace["reviewer"])
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.from_ == "brain" and envelope.message == send["message"]
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
    [delivery] = herdr_sim.deliveries(workspace["reviewer"])
    assert extract_envelope(delivery.text).message == "nested"  # type: ignore[union-attr]
    record(row("gateway dispatch (peers, send)", done, model, active=False))


def test_a_wrapper_from_gemini_is_answered_to_from(workspace, herdr_sim, tmp_path):
    asked = [Step("herdr_link"), Step("herdr_link_send", {"to": "brain", "message": "what is 2+2?"})]
    run_gemini(asked, herdr_sim.env(workspace["reviewer"]), tmp_path / "reviewer")
    [delivery] = herdr_sim.deliveries(workspace["brain"])
    question = extract_envelope(delivery.text)
    assert question is not None and question.from_ == "reviewer"
    steps = [Step("herdr_link"), Step("herdr_link_send", reply_to_sender(DIALECT))]
    done, model = run_pi(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", prompts=(delivery.text,))
    [reply] = herdr_sim.deliveries(workspace["reviewer"])
    answer = extract_envelope(reply.text)
    assert answer is not None and (answer.from_, answer.to) == ("brain", "reviewer")
    assert answer.message == f"ack {question.id}"
    assert rules_in(after_activation(DIALECT, model.primary_requests)) == 1  # the rules, in this one turn
    record(row("receive (from Gemini CLI) and reply", done, model))


def test_start_with_then_close(workspace, herdr_sim, tmp_path):
    steps = [
        Step("herdr_link"),
        Step("herdr_link_start", {"name": "worker", "kind": "pi", "args": [], "with": "brain"}),
        Step("herdr_link_close", {"agent": "worker"}),
    ]
    done, model = run_pi(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    commands = [c[:2] for c in herdr_sim.log.commands()]
    assert ("pane", "split") in commands and ("agent", "start") in commands and ("pane", "close") in commands
    final = "\n".join(DIALECT.results(model.primary_requests[-1]))
    assert '"status":"started","agent":"worker"' in final and '"status":"closed","agent":"worker"' in final
    with pytest.raises(HerdrError):
        herdr_sim.agent("worker")
    record(row("start with, close", done, model))


def test_outside_herdr_pi_offers_nothing_of_ours(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
    done, model = run_pi([Step("herdr_link")], env, tmp_path / "plain")
    assert all(DIALECT.ours(r, PREFIX) == [] for r in model.primary_requests)
