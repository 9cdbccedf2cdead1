"""Claude Code 2.1.332 end to end: a real ``claude -p`` in a simulated Herdr pane, our MCP server
registered from ``herdr-link-mcp wiring``, a scripted model on loopback, no network.

A scripted model cannot prove that a real model decides to activate at the right time; it proves
what the host does with our server when it does: what it offers, when it re-lists, what it passes on.
"""

import json
from pathlib import Path

import pytest
from fake_model import Anthropic, FakeModelServer, ScriptedModel, Step, tool_uses
from hosts import ClaudeCode, ClaudeRun
from matrix import Run, record
from scenarios import CANONICAL, after_activation, pair_workspace, reply_to_sender, sent_to_reviewer

from herdr_link_protocol import COMMUNICATION_CONTRACT, extract_envelope
from herdr_link_testkit import HerdrError, HerdrSim

NS = "mcp__herdr_link__"
NAMES = {tool: NS + tool for tool in CANONICAL}
GATEWAY, PEERS, SEND, START, CLOSE = (NAMES[f"herdr_link{t}"] for t in ("", "_peers", "_send", "_start", "_close"))
TIER1 = (PEERS, SEND, START, CLOSE)
DIALECT = Anthropic()
HOST = "Claude Code 2.1.332"
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]
ERAS = {"modern": False, "legacy": True}


@pytest.fixture(params=list(ERAS))
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "claude", "claude")


def run(
    steps: list[Step], env: dict[str, str], workdir: Path, era: str, prompt: str = "go", trust: Path | None = None
) -> tuple[ClaudeRun, ScriptedModel]:
    model = ScriptedModel(DIALECT, NAMES, steps)
    workdir.mkdir(parents=True, exist_ok=True)
    # The panes of the workspace sit in workdir's parent, which the user trusted for Claude Code (the
    # README's step 2): otherwise a Claude Code peer there would sit at its trust dialog, and a send to
    # it is refused with nothing typed (PROTOCOL.md §4.4).
    with FakeModelServer(model) as api:
        done = ClaudeCode(workdir, trust or workdir.parent).run(prompt, env, api.url, legacy=ERAS[era])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.result["is_error"] is False and done.result["permission_denials"] == []
    # Seen once in CI (the session's first Claude Code run): "unknown", no negotiation line in Claude
    # Code's MCP log. Its log is shown on failure, to tell a slow connection from a log not written.
    assert done.era() == ("2025-11-25" if era == "legacy" else "2026-07-28"), [
        str(entry.get("debug", entry))[:200] for entry in done.mcp_log
    ]
    # How fast our server exits on Claude Code's SIGINT (100 ms before its SIGTERM) depends on the
    # machine; test_stdio.py holds the clean exit on either signal, so nothing here waits on speed.
    return done, model


def row(scenario: str, era: str, done: ClaudeRun, model: ScriptedModel, active: bool = True) -> Run:
    requests = model.primary_requests
    return Run(
        HOST, scenario, f"{done.era()} ({era})", "yes" if done.refreshed() else "no", DIALECT, NS, requests,
        after_activation(DIALECT, requests) if active else None, model.paths(requests[-1]),
        model.first_offering(done.spawned),
    )  # fmt: skip


def test_dormant_offers_only_the_deferred_gateway_and_no_contract(workspace, herdr_sim, tmp_path, era):
    done, model = run([], herdr_sim.env(workspace["brain"]), tmp_path / "brain", era)
    requests = model.primary_requests
    first = json.dumps(requests[0])
    assert DIALECT.ours(requests[0], NS) == []  # deferred: not among the tool definitions at all
    assert GATEWAY in first and not any(name in first for name in TIER1)  # named once, for tool search
    assert CONTRACT_LINE not in first
    record(row("dormant", era, done, model, active=False))


def test_tool_search_activate_peers_and_send(workspace, herdr_sim, tmp_path, era):
    send = {"to": "reviewer", "message": "please review the design"}
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", send)]
    done, model = run(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", era)
    requests = model.primary_requests
    searched = [u["input"]["query"] for u in tool_uses(requests[-1]) if u["name"] == "ToolSearch"]
    assert searched[0] == f"select:{GATEWAY}"  # the gateway was loaded through tool search
    next_request = json.dumps(after_activation(DIALECT, requests))
    assert all(name in next_request for name in TIER1)  # re-listed before the next model request
    assert CONTRACT_LINE in next_request  # the contract arrived with the activation result
    envelope = sent_to_reviewer(herdr_sim, workspace, "please review the design")
    final = "\n".join(DIALECT.results(requests[-1]))
    assert '"self":{"name":"brain"' in final and envelope.id in final  # both receipts reached the model
    assert done.refreshed()
    record(row("activate, peers, send", era, done, model))


def test_a_delivered_wrapper_is_answered_to_from(workspace, herdr_sim, tmp_path, era):
    steps = [Step("herdr_link"), Step("herdr_link_send", {"to": "reviewer", "message": "what is 2+2?"})]
    run(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", era)
    [delivery] = herdr_sim.deliveries(workspace["reviewer"])
    question = extract_envelope(delivery.text)
    assert question is not None
    done, model = run(
        [Step("herdr_link"), Step("herdr_link_send", reply_to_sender(DIALECT))],
        herdr_sim.env(workspace["reviewer"]), tmp_path / "reviewer", era, prompt=delivery.text,
    )  # fmt: skip
    [reply] = herdr_sim.deliveries(workspace["brain"])
    answer = extract_envelope(reply.text)
    assert answer is not None and answer.from_ == "reviewer" and answer.to == "brain"
    assert answer.message == f"ack {question.id}"
    record(row("receive and reply", era, done, model))


def test_start_with_then_close(workspace, herdr_sim, tmp_path, era):
    steps = [
        Step("herdr_link"),
        Step("herdr_link_start", {"name": "worker", "kind": "claude", "args": [], "with": "brain"}),
        Step("herdr_link_close", {"agent": "worker"}),
    ]
    # A Claude Code worker beside brain opens in brain's folder, which the user trusted (run() says so);
    # untrusted, the start is refused before anything is made, as Claude Code would first ask (§4.2).
    done, model = run(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", era, trust=tmp_path)
    requests = model.primary_requests
    commands = [c[:2] for c in herdr_sim.log.commands()]
    assert ("pane", "split") in commands and ("agent", "start") in commands and ("pane", "close") in commands
    final = "\n".join(DIALECT.results(requests[-1]))
    assert '"status":"started","agent":"worker"' in final and '"status":"closed","agent":"worker"' in final
    with pytest.raises(HerdrError):
        herdr_sim.agent("worker")  # the pane is gone, and its agent with it
    record(row("start with, close", era, done, model))
