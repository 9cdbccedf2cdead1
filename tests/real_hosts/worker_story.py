"""A Claude Code lead starts a worker of a newly wired kind in a real pane, and the worker answers
(issue 71, item 4, part 2), as ``test_workers.py`` does for the first five kinds.

The user followed the README: installed the hosts, did each one's one-time set-up (a model
provider), ran ``herdr-link-mcp install --host claude --trust <project>`` and ``herdr-link-mcp install
--host <kind> --yes``, and typed ``claude`` into a pane of the simulated Herdr with real panes. They
ask the lead to start a helper and ping it. The lead's model calls ``herdr_link_start`` (an explicit
kind, beside the lead) and ``herdr_link_send``; Herdr types the worker's command into the new pane's
shell and, once its TUI reads its composer, the wrapper into it. The worker's model replies to
``from``; the reply becomes the lead's next turn; the lead closes the worker.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fake_model import Anthropic, FakeModelServer, Gate, ScriptedModel, Step
from hosts import install_wiring
from interactive import WAIT, Machine, at_prompt, reads_its_composer, say, settled, status, user_machine
from test_workers import (
    HINT_START,
    LEAD,
    NAMES,
    REQUEST,
    WORKER,
    PacedLead,
    _replied,
    answered_and_closed,
    started_worker,
)

from herdr_link_control import surface_violation
from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim


def lead_starting(kind: str) -> PacedLead:
    """The lead's model: activate, start a ``kind`` helper beside the lead, ping it, wait, close it."""
    steps = [
        Step("herdr_link"),
        Step("herdr_link_start", {"name": WORKER, "kind": kind, "args": [], "with": LEAD}),
        Step("herdr_link_send", {"to": WORKER, "message": "ping"}),
        Gate(_replied, "waiting for the helper"),
        Step("herdr_link_close", {"agent": WORKER}),
    ]
    return PacedLead(Anthropic(), NAMES["claude"], steps)


def a_lead_starts_a_worker(
    kind: str, worker: ScriptedModel, tmp_path: Path, set_up: Callable[[Machine, str], None], placeholder: str,
    *, ready: Callable[[HerdrSim, str], bool] | None = None, stops_at: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The story for ``kind``: ``set_up(machine, model_url)`` is the user's one-time set-up of that host
    (its model provider; its bin directory on PATH). ``ready(sim, worker_pane)``, when given, must also
    hold before the lead sends (a worker whose TUI reads its composer before it can take a message:
    oh-my-pi). ``stops_at``, when given, is a question the worker is expected to stop at once the lead has
    sent: the story then ends when the worker's screen shows it (``"stopped"``: that screen). Returns what
    the checks need."""
    lead = lead_starting(kind)
    lead.worker_saw_sent = lambda: any(
        '"status":"sent"' in text for body in worker.primary_requests for text in worker.dialect.results(body)
    )
    with FakeModelServer(lead) as lead_api, FakeModelServer(worker) as worker_api:
        machine = user_machine(tmp_path, anthropic=lead_api.url)
        set_up(machine, worker_api.url)
        install_wiring("claude", machine.home, "--trust", str(machine.project))
        install_wiring(kind, machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            pane = sim.create_workspace(str(machine.project))
            at_prompt(sim, pane)
            sim.type_text(pane, "claude\r")
            composer = lambda: any(line.startswith("❯") for line in sim.read(pane).splitlines())  # noqa: E731
            sim.wait_for(composer, timeout=WAIT, what="the lead's composer")
            settled(sim, pane)
            sim.request("agent.rename", target=pane, name=LEAD)
            say(sim, pane, REQUEST)
            worker_pane = started_worker(sim, lead, pane, kind)
            # A person types once the TUI shows what is typed: keys typed earlier are lost (Qwen Code).
            try:
                reads_its_composer(sim, worker_pane, placeholder=placeholder)
            except (TimeoutError, AssertionError) as error:
                raise AssertionError(
                    f"{error}; typed {sim.received(worker_pane)[-300:]!r}; its screen:\n{sim.read(worker_pane)}"
                ) from None
            if ready is not None:
                sim.wait_for(lambda: ready(sim, worker_pane), timeout=WAIT, what=f"{kind} ready for a message")
            lead.worker_ready.set()
            if stops_at is not None:
                sim.wait_for(lambda: stops_at in sim.read(worker_pane), timeout=WAIT, what=f"{kind} at {stops_at!r}")
                return {"lead": lead, "pane": pane, "stopped": sim.read(worker_pane)}
            shown = answered_and_closed(sim, lead, worker, worker_pane, kind)
            gone = status(sim, WORKER) is None
            blocked = [shot.screen for shot in sim.blocking_screens()]
            violations = [reason for argv in sim.log.commands() if (reason := surface_violation(argv))]
            left = set(sim.pane_ids())
    return {"lead": lead, "pane": pane, "shown": shown, "gone": gone, "blocked": blocked,
            "violations": violations, "left": left}  # fmt: skip


def assert_the_worker_answered(story: dict[str, Any], worker: ScriptedModel, *, hinted: bool = True) -> None:
    """Started, pinged, answered to ``from`` once, closed; the hint reached it (a kind with one: ``hinted``);
    nothing blocked."""
    lead = story["lead"]
    results = [text for body in lead.primary_requests for text in lead.dialect.results(body)]
    assert all(any(f'"status":"{s}"' in text for text in results) for s in ("started", "sent", "closed")), results
    assert story["gone"] and story["left"] == {story["pane"]}  # the worker's pane is gone
    assert story["blocked"] == [] and story["violations"] == []
    first = worker.primary_requests[0]
    assert not hinted or HINT_START in json.dumps(first, ensure_ascii=False), "no Tier 0 hint reached the worker"
    asked = extract_envelope(worker.dialect.prompt(first))
    assert asked is not None and (asked.from_, asked.to, asked.message) == (LEAD, WORKER, "ping")
    reply = next(extract_envelope(lead.dialect.prompt(b)) for b in lead.primary_requests if _replied(b))
    assert reply is not None and (reply.from_, reply.to, reply.message) == (WORKER, LEAD, f"ack {asked.id}")
