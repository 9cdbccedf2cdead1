"""What every host's scenarios share: the reply a receiving model writes, the activation point,
and the receive and start-then-close scenarios with their checks."""

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_model import Body, Dialect, ScriptedModel, Step
from matrix import Run

from herdr_link_protocol import COMMUNICATION_CONTRACT, GATEWAY_TOOL, TIER1_TOOLS, extract_envelope
from herdr_link_testkit import HerdrError, HerdrSim

ACTIVE = '"status":"active"'
CANONICAL = (GATEWAY_TOOL, *TIER1_TOOLS)
"""Every tool by its canonical name; each host's test maps them to the names it presents."""


def reply_to_sender(dialect: Dialect) -> Callable[[Body], dict[str, Any]]:
    """The send input of a model that read an inbound wrapper: reply to its ``from`` with its id."""

    def reply(body: Body) -> dict[str, Any]:
        envelope = extract_envelope(dialect.prompt(body))
        assert envelope is not None, "the wrapper did not reach the model's prompt"
        return {"to": envelope.from_, "message": f"ack {envelope.id}"}

    return reply


def after_activation(dialect: Dialect, requests: list[Body]) -> Body:
    """The first request whose history holds the activation result."""
    return next(r for r in requests if any(ACTIVE in text for text in dialect.results(r)))


def activation_text(dialect: Dialect, requests: list[Body]) -> str:
    """The activation result as the model received it (receipt and presentation)."""
    return next(text for r in requests for text in dialect.results(r) if ACTIVE in text)


Asker = Callable[[list[Step], dict[str, str], Path], object]
"""Another host's run: ``run_gemini`` or ``run_codex`` (steps, pane environment, working directory)."""


def asked_by_another_host(ask: Asker, sim: HerdrSim, workspace: dict[str, str], tmp_path: Path) -> tuple[str, Any]:
    """The other host, in ``reviewer``'s pane, asks ``brain`` a question through its own adapter;
    returns the wrapper ``brain``'s pane received and the question's envelope."""
    asked = [Step("herdr_link"), Step("herdr_link_send", {"to": "brain", "message": "what is 2+2?"})]
    ask(asked, sim.env(workspace["reviewer"]), tmp_path / "reviewer")
    [delivery] = sim.deliveries(workspace["brain"])
    question = extract_envelope(delivery.text)
    assert question is not None and question.from_ == "reviewer"
    return delivery.text, question


def reply_steps(dialect: Dialect) -> list[Step]:
    """Activate, then reply to the inbound message's ``from``."""
    return [Step("herdr_link"), Step("herdr_link_send", reply_to_sender(dialect))]


def assert_answered(sim: HerdrSim, workspace: dict[str, str], question: Any) -> None:
    """``reviewer``'s pane got exactly one reply, from ``brain``, naming the question's id."""
    [reply] = sim.deliveries(workspace["reviewer"])
    answer = extract_envelope(reply.text)
    assert answer is not None and (answer.from_, answer.to) == ("brain", "reviewer")
    assert answer.message == f"ack {question.id}"


def start_close_steps(kind: str) -> list[Step]:
    """Start a worker of ``kind`` beside ``brain``, then close it."""
    return [
        Step("herdr_link"),
        Step("herdr_link_start", {"name": "worker", "kind": kind, "args": [], "with": "brain"}),
        Step("herdr_link_close", {"agent": "worker"}),
    ]


def assert_started_and_closed(sim: HerdrSim, dialect: Dialect, requests: list[Body]) -> None:
    """The split, start and close reached Herdr, both receipts reached the model, the pane is gone."""
    commands = [c[:2] for c in sim.log.commands()]
    assert ("pane", "split") in commands and ("agent", "start") in commands and ("pane", "close") in commands
    final = "\n".join(dialect.results(requests[-1]))
    assert '"status":"started","agent":"worker"' in final and '"status":"closed","agent":"worker"' in final
    with pytest.raises(HerdrError):
        sim.agent("worker")


def scenario_row(host: str, era: str, prefix: str, scenario: str, spawned: float, model: ScriptedModel,
                 *, active: bool = True) -> Run:  # fmt: skip
    """The host matrix row of one scenario run, from what its model saw."""
    requests = model.primary_requests
    return Run(
        host, scenario, era, "yes" if model.saw_tier1() else "no", model.dialect, prefix, requests,
        after_activation(model.dialect, requests) if active else None, model.paths(requests[-1]),
        model.first_offering(spawned),
    )  # fmt: skip


def pair_workspace(sim: HerdrSim, tmp_path: Path, brain: str, reviewer: str) -> dict[str, str]:
    """One workspace: ``brain`` (an agent of kind ``brain``, where the host under test runs) and
    ``reviewer`` beside it."""
    brain_pane = sim.create_workspace(str(tmp_path))
    sim.add_agent(brain_pane, brain, name="brain")
    reviewer_pane = sim.split(brain_pane)
    sim.add_agent(reviewer_pane, reviewer, name="reviewer")
    return {"brain": brain_pane, "reviewer": reviewer_pane}


def sent_to_reviewer(sim: HerdrSim, workspace: dict[str, str], message: str) -> Any:
    """The envelope of the one delivery ``reviewer``'s pane received: from ``brain``, ``message`` intact."""
    [delivery] = sim.deliveries(workspace["reviewer"])
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.from_ == "brain" and envelope.message == message
    return envelope


RULE = "Never wait or poll for the reply"
"""From rule 1 of the contract, which no tool description repeats: where it is, the rules are."""
assert RULE in COMMUNICATION_CONTRACT


def outside_herdr() -> dict[str, str]:
    """The rig's environment without any ``HERDR_*``: a host started outside every Herdr pane."""
    return {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}


def rules_in(body: Body) -> int:
    """How many times the contract's first rule is in a request (system prompt and history)."""
    return json.dumps(body, ensure_ascii=False).count(RULE)
