"""Started workers come up wired and ready (issue 35, item 5; issue 34, item 2), in real panes.

A user followed the README: installed the hosts, ran our install command for each (the lead's
folder trusted for the hosts that ask, with ``--trust``), and typed ``claude`` into a pane of the
simulated Herdr. They ask that Claude Code lead, in its composer, to start a worker of one kind and
send it a message. The lead's (scripted) model calls ``herdr_link_start`` and ``herdr_link_send``;
Herdr types the worker's command into a new pane's shell, the worker's interactive TUI comes up with
the user's files, and the wrapper is typed into its composer. The worker's model replies to
``from``; the reply is typed into the lead's composer as a new turn; the lead closes the worker.
Nothing here launches, wires or trusts a worker: only the README's commands and the user's typing.
"""

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_model import (
    Anthropic,
    Body,
    ChatCompletions,
    Decision,
    Dialect,
    FakeModelServer,
    Gate,
    Gemini,
    Responses,
    ScriptedModel,
    Step,
)
from hosts import OpenCode, Pi, install_wiring
from interactive import KINDS, WAIT, at_prompt, reads_its_composer, say, settled, status, user_machine
from matrix import SCENARIOS
from scenarios import CANONICAL, reply_steps
from test_real_panes import FIRST_RUN, LABEL

from herdr_link_control import surface_violation
from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrError, HerdrSim

WORKER = "helper"
REQUEST = "Start a helper and ask it for a ping."
HINT_START = "Herdr Link: you can message, start and close other coding agents"
NAMES: dict[str, dict[str, str]] = {
    "claude": {tool: f"mcp__herdr_link__{tool}" for tool in CANONICAL},
    "codex": {tool: f"mcp__herdr_link.{tool}" for tool in CANONICAL},
    "gemini": {tool: f"mcp_herdr_link_{tool}" for tool in CANONICAL},
    "opencode": {tool: tool for tool in CANONICAL},
    "pi": {tool: tool for tool in CANONICAL},
}
DIALECTS: dict[str, type[Dialect]] = {
    "claude": Anthropic, "codex": Responses, "gemini": Gemini, "opencode": ChatCompletions, "pi": ChatCompletions,
}  # fmt: skip


def _kind_of(sim: HerdrSim, name: str) -> str | None:
    try:
        return str(sim.agent(name).get("agent"))
    except HerdrError:  # not started (yet)
        return None


def started_worker(sim: HerdrSim, lead: ScriptedModel, pane: str, kind: str) -> str:
    """Wait for the lead in ``pane`` to have started a ``kind`` worker; the worker's pane."""
    try:
        sim.wait_for(lambda: _kind_of(sim, WORKER) == kind, timeout=WAIT * 2, what=f"a {kind} worker")
    except TimeoutError:
        results = [t for b in lead.primary_requests for t in lead.dialect.results(b)]
        raise AssertionError(f"no {kind} worker; the lead saw {results}; its screen:\n{sim.read(pane)}") from None
    return str(sim.agent(WORKER)["pane_id"])


def answered_and_closed(sim: HerdrSim, lead: ScriptedModel, worker: ScriptedModel, worker_pane: str, kind: str) -> str:
    """Wait for the worker's reply to reach the lead's model and for the lead's close to be answered; the
    worker's screen as it was once it had replied."""
    try:
        sim.wait_for(lambda: any(_replied(b) for b in lead.primary_requests), timeout=WAIT * 3, what="a reply")
    except TimeoutError:
        calls = [worker.dialect.calls(b) for b in worker.primary_requests]
        raise AssertionError(
            f"no reply from the {kind} worker; its model saw {len(worker.requests)} request(s), calls {calls}; "
            f"it received {sim.received(worker_pane)[-300:]!r}; its screen:\n{sim.read(worker_pane)}"
        ) from None
    shown = sim.read(worker_pane)
    sim.wait_for(lambda: _closed(lead), timeout=WAIT, what="the lead's close answered")
    return shown


def _closed(model: ScriptedModel) -> bool:
    return any('"status":"closed"' in text for body in model.primary_requests for text in model.dialect.results(body))


def _replied(body: Body) -> bool:
    return f'"from":"{WORKER}"' in Anthropic().prompt(body)


class PacedLead(ScriptedModel):
    """The lead's model, with a real model's pace after a start: it answers the request that holds
    the start's result once :attr:`worker_ready` is set (the rig sets it when the worker's TUI reads
    its composer). A real model's round trip (seconds) usually covers a worker's start-up; a scripted
    one answers at once, and Herdr 0.8.2 may declare an agent ready before its TUI reads input
    (``docs/hosts.md``, "Starting workers")."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.worker_ready = threading.Event()
        self.worker_saw_sent: Callable[[], bool] = lambda: True
        """Whether the worker's model has seen its send's receipt (so closing it loses nothing)."""

    def decide(self, body: Body) -> Decision:
        if any('"status":"started"' in text for text in self.dialect.results(body)):
            self.worker_ready.wait(WAIT * 2)
        if _replied(body):  # a real model takes a while too; the worker finishes its own turn meanwhile
            deadline = time.monotonic() + WAIT
            while not self.worker_saw_sent() and time.monotonic() < deadline:
                time.sleep(0.05)
        return super().decide(body)


LEAD = "lead"
"""The name the user gave the lead's pane in Herdr (a `with` placement names its anchor)."""
START: dict[str, dict[str, Any]] = {
    "claude": {"name": WORKER, "kind": "claude", "args": [], "with": LEAD},  # explicit, beside the lead
    "codex": {"name": WORKER, "kind": "codex", "args": []},  # explicit, a new tab
    "gemini": {"name": WORKER, "config_agent": "gemini-tab"},  # configured, a new tab
    "opencode": {"name": WORKER, "config_agent": "opencode-beside", "with": LEAD},  # configured, beside
    "pi": {"name": WORKER, "kind": "pi", "args": []},  # explicit, a new tab
}
"""How the lead starts each kind: explicit and configured, both placements, across the five."""
CONFIG = {
    "agents": {
        "gemini-tab": {"placement": {"mode": "new_tab", "label": "helpers"}, "variants": [{"kind": "gemini"}]},
        "opencode-beside": {"placement": {"mode": "with"}, "variants": [{"kind": "opencode", "args": []}]},
    }
}
"""The project's ``.agents/agent_config.json`` (the README's format)."""


def lead_model(kind: str) -> PacedLead:
    steps = [
        Step("herdr_link"),
        Step("herdr_link_start", START[kind]),
        Step("herdr_link_send", {"to": WORKER, "message": "ping"}),
        Gate(_replied, "waiting for the helper"),
        Step("herdr_link_close", {"agent": WORKER}),
    ]
    return PacedLead(Anthropic(), NAMES["claude"], steps)


class Shared:
    """One Anthropic endpoint for a Claude Code lead and a Claude Code worker: a request belongs to
    the lead when its conversation holds the user's request, else to the worker."""

    def __init__(self, lead: ScriptedModel, worker: ScriptedModel) -> None:
        self.lead, self.worker = lead, worker
        self.dialect = lead.dialect
        self.lock = threading.Lock()
        self.requests: list[Body] = []
        self.arrivals: list[float] = []

    def decide(self, body: Body) -> Decision:
        model = self.lead if REQUEST in self.dialect.prompt(body) else self.worker
        model.requests.append(body)
        model.arrivals.append(time.monotonic())
        return model.decide(body)


def follow_the_readme(kind: str, machine: Any) -> list[str]:
    """The README's set-up for the lead (Claude Code) and for the worker's kind; returns the commands."""
    project = str(machine.project)
    commands = ["herdr-link-mcp install --host claude --trust <project>"]
    install_wiring("claude", machine.home, "--trust", project)
    if kind == "codex":
        commands.append("herdr-link-mcp install --host codex")
        install_wiring("codex", machine.home)
    elif kind == "gemini":
        commands.append("herdr-link-mcp install --host gemini --trust <project>")
        install_wiring("gemini", machine.home, "--trust", project)
    elif kind == "opencode":
        commands.append("herdr-link-opencode-install --runtime v1")
        done = OpenCode(machine.root).install(machine.env, "--runtime", "v1")
        assert done.returncode == 0, done.stderr
    elif kind == "pi":
        commands.append("herdr-link-pi-bridge install")
        done = Pi(machine.root).install(machine.env)
        assert done.returncode == 0, done.stderr
    return commands


@pytest.fixture
def allowed_lookups(request: pytest.FixtureRequest) -> frozenset[str]:
    """Interactive Codex fetches its announcement tip from raw.githubusercontent.com (see
    ``test_real_panes.py``); nothing waits for it."""
    callspec = getattr(request.node, "callspec", None)
    return (
        frozenset({"raw.githubusercontent.com"}) if callspec and callspec.params.get("kind") == "codex" else frozenset()
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_claude_code_lead_starts_a_worker_that_answers(kind: str, tmp_path: Path) -> None:
    lead = lead_model(kind)
    worker = ScriptedModel(DIALECTS[kind](), NAMES[kind], reply_steps(DIALECTS[kind]()))
    lead.worker_saw_sent = lambda: any(
        '"status":"sent"' in text for body in worker.primary_requests for text in worker.dialect.results(body)
    )
    servers = [FakeModelServer(Shared(lead, worker) if kind == "claude" else lead)]
    if kind != "claude":
        servers.append(FakeModelServer(worker))
    for server in servers:
        server.__enter__()
    try:
        machine = user_machine(
            tmp_path, anthropic=servers[0].url, models={kind: servers[-1].url} if kind != "claude" else None
        )
        commands = follow_the_readme(kind, machine)
        (machine.project / ".agents").mkdir()
        (machine.project / ".agents" / "agent_config.json").write_text(json.dumps(CONFIG))
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            pane = sim.create_workspace(str(machine.project))
            at_prompt(sim, pane)
            sim.type_text(pane, "claude\r")  # the user starts the lead
            # A person waits for Claude Code's composer to be drawn (Herdr may read the pane idle earlier).
            composer = lambda: any(line.startswith("❯") for line in sim.read(pane).splitlines())  # noqa: E731
            sim.wait_for(composer, timeout=WAIT, what="the lead's composer")
            settled(sim, pane)
            sim.request("agent.rename", target=pane, name=LEAD)  # the user names the pane in Herdr
            say(sim, pane, REQUEST)
            worker_pane = started_worker(sim, lead, pane, kind)
            # The worker's TUI reads its composer: it switched bracketed paste on and drew a screen that has
            # settled. (Herdr declares an agent ready earlier when no screen rule matches: see PacedLead.)
            drawn = lambda: sim.bracketed_paste(worker_pane) and bool(sim.read(worker_pane).strip())  # noqa: E731
            sim.wait_for(drawn, timeout=WAIT, what="the worker's composer")
            # OpenCode 1.18 draws its composer and then, for a few seconds more (longer on a busy machine),
            # drops what is typed, with no change on its screen when it starts reading: the rig types a
            # letter until it shows, as a person would, and deletes it.
            if kind == "opencode":
                reads_its_composer(sim, worker_pane, placeholder="Ask anything")
            else:
                settled(sim, worker_pane, quiet=1.0)
            lead.worker_ready.set()
            shown = answered_and_closed(sim, lead, worker, worker_pane, kind)
            assert status(sim, WORKER) is None  # the worker's pane is gone
            blocked = sim.blocking_screens()
            commands_run = sim.log.commands()
            left = set(sim.pane_ids())
    finally:
        for server in reversed(servers):
            server.__exit__(None, None, None)
    results = [text for body in lead.primary_requests for text in lead.dialect.results(body)]
    assert any('"status":"started"' in text for text in results), results
    assert any('"status":"sent"' in text for text in results), results
    assert any('"status":"closed"' in text for text in results), results
    assert blocked == [], [shot.screen for shot in blocked]  # no worker waited at a prompt
    assert [reason for argv in commands_run if (reason := surface_violation(argv))] == []  # spec §8's surface
    assert left == {pane}  # every started pane is gone
    placed = "beside the lead" if "with" in START[kind] else "in a new tab"
    how = "configured" if "config_agent" in START[kind] else "explicit"
    question = FIRST_RUN[kind][1]
    assert question is None or question not in shown, shown
    first = worker.primary_requests[0]
    if kind in ("opencode", "pi"):  # native adapters: the dormant gateway's description is the hint
        assert NAMES[kind]["herdr_link"] in worker.dialect.callable(first), f"no gateway offered to the {kind} worker"
    else:
        assert HINT_START in json.dumps(first, ensure_ascii=False), f"no Tier 0 hint reached the {kind} worker"
    worker_results = [text for body in worker.primary_requests for text in worker.dialect.results(body)]
    assert any('"status":"sent"' in text for text in worker_results), worker_results
    reply = next(extract_envelope(lead.dialect.prompt(b)) for b in lead.primary_requests if _replied(b))
    asked = extract_envelope(worker.dialect.prompt(first))
    assert asked is not None and (asked.from_, asked.to, asked.message) == (LEAD, WORKER, "ping")
    assert reply is not None and (reply.from_, reply.to, reply.message) == (WORKER, LEAD, f"ack {asked.id}")
    wrappers = [b for b in worker.primary_requests if "herdr-link/1" in worker.dialect.prompt(b)]
    assert worker.dialect.prompt(wrappers[-1]).count('"protocol":"herdr-link/1"') == 1  # delivered once
    SCENARIOS.append(
        {
            "host": LABEL[kind],
            "case": f"a worker started by a Claude Code lead ({how}, {placed}; README set-up only)",
            "outcome": f"came up wired ({'the gateway offered' if kind in ('opencode', 'pi') else 'the hint given'}), "
            "answered the lead's message (the reply became the lead's next turn) and was closed by the lead; no "
            "prompt on either screen. Set-up: " + "; ".join(f"`{command}`" for command in commands),
            "prompts": [],
        }
    )
