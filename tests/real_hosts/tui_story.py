"""A host's own TUI as the user's agent in a real pane, answering a question through a worker it starts
(issue 71: the interactive story), shared by the tests of the hosts that have no story of their own.

The user followed the README: installed the host and Claude Code, did each one's one-time set-up (a
model provider), ran ``herdr-link-mcp install --host <host>`` and ``herdr-link-mcp install --host claude
--trust <project>``, typed the host's command into a pane of the simulated Herdr with real panes and
named that pane ``lead``. They type a question into its composer. The host's scripted model activates
Link, starts a Claude Code ``helper`` beside the lead (``herdr_link_start``), sends it the question and
ends its turn. The helper's model answers ``from``; Herdr types that reply into the lead's composer as a
new turn; the lead's model closes the helper and tells the user the helper's answer, on the lead's screen.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_model import Anthropic, Body, Decision, Dialect, FakeModelServer, Gate, ScriptedModel, Step, Text
from hosts import install_wiring
from interactive import WAIT, Machine, at_prompt, reads_its_composer, say, settled, status, user_machine
from matrix import SCENARIOS
from test_workers import HINT_START, LEAD, NAMES, WORKER, PacedLead, _replied, answered_and_closed, started_worker

from herdr_link_control import surface_violation
from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim

QUESTION = "What is 2+2? Ask a helper."
ANSWER = "2+2 is 4"
SAYS = "Helper says: "
"""How the lead's model begins its answer to the user (the helper's answer follows)."""
CASE = "the user's own agent in its TUI: a question, answered by a Claude Code worker it starts (README set-up only)"


@dataclass
class TuiLead:
    """One host as the user's own agent: what the user types to start it (``command``), what its screen
    shows once it reads its composer (``ready``; with ``placeholder``, a text that typing hides), its
    model's dialect and tool names, and ``set_up(machine, model_url)``: the user's one-time set-up (our
    install command among it), returning the README commands it ran."""

    label: str
    kind: str
    command: str
    ready: str
    placeholder: bool
    dialect: Dialect
    names: dict[str, str]
    set_up: Callable[[Machine, str], list[str]]
    notes: str = ""
    """What the outcome adds for this host (how it was started, what it asked)."""


class Lead(PacedLead):
    """The lead's model: activate, start the helper beside the lead, send it the user's question, end the
    turn; once the helper's reply is a new turn, close the helper and answer the user with its answer."""

    def __init__(self, dialect: Dialect, names: dict[str, str]) -> None:
        steps = [
            Step("herdr_link"),
            Step("herdr_link_start", {"name": WORKER, "kind": "claude", "args": [], "with": LEAD}),
            Step("herdr_link_send", {"to": WORKER, "message": QUESTION}),
            Gate(_replied, "I asked a helper; I will tell you its answer."),
            Step("herdr_link_close", {"agent": WORKER}),
        ]
        super().__init__(dialect, names, steps)

    def decide(self, body: Body) -> Decision:
        decision = super().decide(body)
        if decision == Text("done"):  # every step is done: the helper's answer, to the user
            reply = extract_envelope(self.dialect.prompt(body))
            return Text(SAYS + (reply.message if reply is not None else "(no reply)"))
        return decision


def _answer(body: Body) -> dict[str, Any]:
    """The helper's send: ``ANSWER`` to the sender of the question it read."""
    envelope = extract_envelope(Anthropic().prompt(body))
    assert envelope is not None, "the question's wrapper did not reach the helper's model"
    return {"to": envelope.from_, "message": ANSWER}


@dataclass
class Story:
    """What the story left for its checks."""

    lead: Lead
    helper: ScriptedModel
    screen: str
    pane: str
    left: set[str]
    gone: bool
    replies: list[Any]
    blocked: list[str]
    violations: list[str]
    commands: list[str]


def a_question_through_a_helper(host: TuiLead, root: Path) -> Story:
    """The story for ``host``, in a user machine under ``root``."""
    lead = Lead(host.dialect, host.names)
    helper = ScriptedModel(Anthropic(), NAMES["claude"], [Step("herdr_link"), Step("herdr_link_send", _answer)])
    lead.worker_saw_sent = lambda: any(
        '"status":"sent"' in text for body in helper.primary_requests for text in helper.dialect.results(body)
    )
    with FakeModelServer(lead) as lead_api, FakeModelServer(helper) as helper_api:
        machine = user_machine(root, anthropic=helper_api.url)
        install_wiring("claude", machine.home, "--trust", str(machine.project))
        commands = ["herdr-link-mcp install --host claude --trust <project>", *host.set_up(machine, lead_api.url)]
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            pane = sim.create_workspace(str(machine.project))
            at_prompt(sim, pane)
            sim.type_text(pane, host.command + "\r")  # the user starts their agent
            if host.placeholder:  # a person types once the TUI shows what is typed
                reads_its_composer(sim, pane, placeholder=host.ready)
            else:
                shown = lambda: sim.bracketed_paste(pane) and host.ready in sim.read(pane)  # noqa: E731
                sim.wait_for(shown, timeout=WAIT * 2, what=f"{host.label}'s composer")
                settled(sim, pane, quiet=2.0)
            sim.request("agent.rename", target=pane, name=LEAD)  # the user names the pane in Herdr
            say(sim, pane, QUESTION)
            helper_pane = started_worker(sim, lead, pane, "claude")
            drawn = lambda: sim.bracketed_paste(helper_pane) and bool(sim.read(helper_pane).strip())  # noqa: E731
            sim.wait_for(drawn, timeout=WAIT, what="the helper's composer")
            settled(sim, helper_pane)
            lead.worker_ready.set()
            answered_and_closed(sim, lead, helper, helper_pane, "claude")
            try:
                sim.wait_for(lambda: SAYS + ANSWER in sim.read(pane), timeout=WAIT * 2, what="the lead's answer")
            except TimeoutError:
                raise AssertionError(f"no answer on the lead's screen:\n{sim.read(pane)}") from None
            screen = settled(sim, pane)
            story = Story(
                lead, helper, screen, pane, set(sim.pane_ids()), status(sim, WORKER) is None, sim.deliveries(pane),
                [shot.screen for shot in sim.blocking_screens()],
                [reason for argv in sim.log.commands() if (reason := surface_violation(argv))],
                commands,
            )  # fmt: skip
    return story


def assert_the_user_was_answered(host: TuiLead, story: Story) -> None:
    """The question reached the lead's model, the lead (as its own pane) started the helper and sent it the
    question, the helper answered once, the answer shows on the lead's screen and the helper's pane is
    gone; then the outcome is recorded in ``docs/host-matrix.md``."""
    lead, helper = story.lead, story.helper
    assert QUESTION in lead.dialect.prompt(lead.primary_requests[0])  # typed into the TUI, read by its model
    results = [text for body in lead.primary_requests for text in lead.dialect.results(body)]
    assert all(any(f'"status":"{s}"' in text for text in results) for s in ("started", "sent", "closed")), results
    first = helper.primary_requests[0]
    assert HINT_START in json.dumps(first, ensure_ascii=False), "no Tier 0 hint reached the helper"
    asked = extract_envelope(helper.dialect.prompt(first))
    assert asked is not None and (asked.from_, asked.to, asked.message) == (LEAD, WORKER, QUESTION)  # as its pane
    [reply] = [extract_envelope(delivery.text) for delivery in story.replies]
    assert reply is not None and (reply.from_, reply.to, reply.message) == (WORKER, LEAD, ANSWER)
    assert SAYS + ANSWER in story.screen, story.screen
    assert story.gone and story.left == {story.pane}, story.left  # the helper's pane was closed
    assert story.blocked == [] and story.violations == []
    SCENARIOS.append(
        {
            "host": host.label,
            "case": CASE,
            "outcome": "the question typed into its composer reached its model; it started a Claude Code helper "
            "beside itself and sent it the question as `lead` (its own pane); the helper's answer became the "
            "lead's next turn, the lead closed the helper and its answer showed on its screen; no prompt on either "
            f"screen{host.notes}. Set-up: " + "; ".join(f"`{command}`" for command in story.commands),
            "prompts": [],
        }
    )
