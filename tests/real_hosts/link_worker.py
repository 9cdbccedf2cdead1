"""A worker a lead's Link started in a real pane, pinged and closed: the part the issue 71 hosts' worker
tests (Copilot CLI, Cline, Kilo Code) share. The worker's model answers ``ack <id>`` to ``from``."""

import asyncio
from dataclasses import dataclass
from typing import Any

from fake_model import Dialect, ScriptedModel
from interactive import status

from herdr_link_control import Link, surface_violation
from herdr_link_protocol import SentReceipt, extract_envelope
from herdr_link_testkit import Delivery, HerdrSim


@dataclass
class Answered:
    """What the ping left: the receipt, the worker's reply to the lead, its screen then, and every command
    the simulated Herdr ran."""

    sent: SentReceipt
    reply: Delivery
    screen: str
    commands: list[Any]


def ping_and_close(
    sim: HerdrSim, link: Link, lead: str, pane: str, model: ScriptedModel, dialect: Dialect, wait: float
) -> Answered:
    """Send the worker ``ping``, wait (up to ``wait`` s) for its reply in the lead's pane, then close it."""
    sent = asyncio.run(link.send("worker", "ping"))
    try:
        sim.wait_for(lambda: bool(sim.deliveries(lead)), timeout=wait, what="the worker's reply")
    except TimeoutError:
        calls = [dialect.calls(body) for body in model.primary_requests]
        results = [dialect.results(body) for body in model.primary_requests[-1:]]
        raise AssertionError(
            f"no reply; its model saw {len(model.requests)} request(s), calls {calls}, results {results}; typed "
            f"{sim.received(pane)[-300:]!r}; its screen:\n{sim.read(pane)}"
        ) from None
    screen = sim.read(pane)
    [reply] = sim.deliveries(lead)
    asyncio.run(link.close("worker"))
    assert status(sim, "worker") is None
    return Answered(sent, reply, screen, sim.log.commands())


def assert_acked(answered: Answered, model: ScriptedModel, dialect: Dialect) -> None:
    """Every command was within spec §8's surface, and the worker answered the ping from ``worker`` to ``lead``."""
    assert [reason for argv in answered.commands if (reason := surface_violation(argv))] == []  # spec §8
    answer = extract_envelope(answered.reply.text)
    assert answer is not None and (answer.from_, answer.to) == ("worker", "lead"), answered.reply.text
    asked = extract_envelope(dialect.prompt(model.primary_requests[0]))
    assert asked is not None and asked.id == answered.sent.id and answer.message == f"ack {asked.id}"
