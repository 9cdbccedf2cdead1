"""Claude Code 2.1.332 end to end: a real ``claude -p`` in a simulated Herdr pane, our MCP server
registered from ``herdr-link-mcp wiring``, a scripted model on loopback, no network.

A scripted model cannot prove that a real model decides to activate at the right time; it proves
what the host does with our server when it does: what it offers, when it re-lists, what it passes on.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from fake_model import FakeAnthropic, ScriptedModel, Step, tool_results, tool_uses
from hosts import ClaudeCode, ClaudeRun
from matrix import NS, ours, record

from herdr_link_protocol import COMMUNICATION_CONTRACT, extract_envelope
from herdr_link_testkit import HerdrError, HerdrSim

GATEWAY, PEERS, SEND, START, CLOSE = (
    NS + t for t in ("herdr_link", "herdr_link_peers", "herdr_link_send", "herdr_link_start", "herdr_link_close")
)
TIER1 = (PEERS, SEND, START, CLOSE)
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]
ERAS = {"modern": False, "legacy": True}


@pytest.fixture(params=list(ERAS))
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    brain = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(brain, "claude", name="brain")
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(reviewer, "claude", name="reviewer")
    return {"brain": brain, "reviewer": reviewer}


def run(
    steps: list[Step], env: dict[str, str], workdir: Path, era: str, prompt: str = "go"
) -> tuple[ClaudeRun, list[dict[str, Any]]]:
    model = ScriptedModel(steps)
    workdir.mkdir(parents=True, exist_ok=True)
    with FakeAnthropic(model) as api:
        done = ClaudeCode(workdir).run(prompt, env, api.url, legacy=ERAS[era])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.result["is_error"] is False and done.result["permission_denials"] == []
    primary = [r for r in model.requests if model.primary(r)]
    assert done.era() == ("2025-11-25" if era == "legacy" else "2026-07-28")
    assert done.stopped_on_sigint()
    return done, primary


def after_activation(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The first request whose history holds the activation result."""
    return next(r for r in requests if any('"status":"active"' in text for text in tool_results(r)))


def test_dormant_offers_only_the_deferred_gateway_and_no_contract(workspace, herdr_sim, tmp_path, era):
    done, requests = run([], herdr_sim.env(workspace["brain"]), tmp_path / "brain", era)
    first = json.dumps(requests[0])
    assert ours(requests[0]) == []  # deferred: not among the tool definitions at all
    assert GATEWAY in first and not any(name in first for name in TIER1)  # named once, for tool search
    assert CONTRACT_LINE not in first
    record("dormant", era, done, requests, None)


def test_tool_search_activate_peers_and_send(workspace, herdr_sim, tmp_path, era):
    steps = [Step(GATEWAY), Step(PEERS), Step(SEND, {"to": "reviewer", "message": "please review the design"})]
    done, requests = run(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", era)
    searched = [u["input"]["query"] for u in tool_uses(requests[-1]) if u["name"] == "ToolSearch"]
    assert searched[0] == f"select:{GATEWAY}"  # the gateway was loaded through tool search
    next_request = json.dumps(after_activation(requests))
    assert all(name in next_request for name in TIER1)  # re-listed before the next model request
    assert CONTRACT_LINE in next_request  # the contract arrived with the activation result
    [delivery] = herdr_sim.deliveries(workspace["reviewer"])
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.from_ == "brain" and envelope.message == "please review the design"
    final = "\n".join(tool_results(requests[-1]))
    assert '"self":{"name":"brain"' in final and envelope.id in final  # both receipts reached the model
    assert done.refreshed()
    record("activate, peers, send", era, done, requests, after_activation(requests))


def _reply_to_sender(request: dict[str, Any]) -> dict[str, Any]:
    prompt = "\n".join(
        b.get("text", "") if isinstance(b, dict) else str(b)
        for m in request["messages"] if m["role"] == "user"
        for b in (m["content"] if isinstance(m["content"], list) else [m["content"]])
    )  # fmt: skip
    envelope = extract_envelope(prompt)
    assert envelope is not None, "the wrapper did not reach the model's prompt"
    return {"to": envelope.from_, "message": f"ack {envelope.id}"}


def test_a_delivered_wrapper_is_answered_to_from(workspace, herdr_sim, tmp_path, era):
    steps = [Step(GATEWAY), Step(SEND, {"to": "reviewer", "message": "what is 2+2?"})]
    run(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", era)
    [delivery] = herdr_sim.deliveries(workspace["reviewer"])
    question = extract_envelope(delivery.text)
    assert question is not None
    done, requests = run(
        [Step(GATEWAY), Step(SEND, _reply_to_sender)],
        herdr_sim.env(workspace["reviewer"]), tmp_path / "reviewer", era, prompt=delivery.text,
    )  # fmt: skip
    [reply] = herdr_sim.deliveries(workspace["brain"])
    answer = extract_envelope(reply.text)
    assert answer is not None and answer.from_ == "reviewer" and answer.to == "brain"
    assert answer.message == f"ack {question.id}"
    record("receive and reply", era, done, requests, after_activation(requests))


def test_start_with_then_close(workspace, herdr_sim, tmp_path, era):
    steps = [
        Step(GATEWAY),
        Step(START, {"name": "worker", "kind": "claude", "args": [], "with": "brain"}),
        Step(CLOSE, {"agent": "worker"}),
    ]
    done, requests = run(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", era)
    commands = [c[:2] for c in herdr_sim.log.commands()]
    assert ("pane", "split") in commands and ("agent", "start") in commands and ("pane", "close") in commands
    final = "\n".join(tool_results(requests[-1]))
    assert '"status":"started","agent":"worker"' in final and '"status":"closed","agent":"worker"' in final
    with pytest.raises(HerdrError):
        herdr_sim.agent("worker")  # the pane is gone, and its agent with it
    record("start with, close", era, done, requests, after_activation(requests))
