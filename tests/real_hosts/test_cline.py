"""Cline 3.0.65 end to end: a real ``cline --json`` in simulated Herdr panes, wired by ``herdr-link-mcp
install --host cline --yes`` in its HOME, a scripted Chat Completions model on loopback (the provider
``cline auth`` records), no network.

Cline's first session starts a hub daemon in a session of its own (on 127.0.0.1:25463, the network
namespace's), and later sessions of the same HOME run inside it: their MCP servers are the hub's
children, with the environment of the pane that started the hub and no terminal. Each pane's run here
has its pane's terminal, as in Herdr. Cline lists our tools once (``herdr_link__<tool>``) and never
re-lists, so the activation result teaches the gateway's dispatch. Every test stops the hub by its pid.
"""

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_model import Anthropic, Body, ClineChat, Decision, FakeModelServer, ScriptedModel, Step
from hosts import ClineCli, HostRun
from matrix import SCENARIOS, Run, record
from scenarios import CANONICAL, activation_text, reply_steps, scenario_row, sent_to_reviewer

from herdr_link_protocol import COMMUNICATION_CONTRACT, Cause, LinkError, extract_envelope

HOST = "Cline 3.0.65"
PREFIX = "herdr_link__"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = ClineChat()
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]
WAIT = 120.0


@pytest.fixture
def allowed_lookups() -> frozenset[str]:
    """Cline 3.0.65 fetches its PostHog feature flags from data.cline.bot at every start, and its TUI also
    its model catalogue (models.dev) and account (api.cline.bot); only its test switches (``E2E_TEST``,
    ``IS_TEST``) turn off the first, nothing found the others. Offline they fail and nothing waits for
    them (telemetry, ``otel.cline.bot``, is off by ``telemetryOptOut``)."""
    return frozenset({"data.cline.bot", "models.dev", "api.cline.bot"})


@pytest.fixture
def cline(tmp_path: Path) -> Iterator[ClineCli]:
    """One user's Cline, wired by our install command; its hub daemon, if any, stopped at the end."""
    host = ClineCli(tmp_path / "user")
    try:
        yield host
    finally:
        host.stop_hub()


class Panes:
    """One model endpoint for every Cline session of a HOME (they share its provider settings): a
    request belongs to the pane whose marker its user prompt holds; a model may hold its turn open
    after a step (``hold_after``) until :attr:`release` is set."""

    def __init__(self, models: dict[str, ScriptedModel], hold: str = "", hold_after: int = 0) -> None:
        self.models, self.hold, self.hold_after = models, hold, hold_after
        self.dialect = next(iter(models.values())).dialect
        self.lock = threading.Lock()  # FakeModelServer's; each request is decided by its own pane's model
        self.requests: list[Body] = []
        self.arrivals: list[float] = []
        self.holding, self.release = threading.Event(), threading.Event()

    def decide(self, body: Body) -> Decision:
        marker = next(m for m in self.models if m in self.dialect.prompt(body))
        model = self.models[marker]
        model.requests.append(body)
        model.arrivals.append(time.monotonic())
        if marker == self.hold and len(self.dialect.calls(body)) == self.hold_after:
            self.holding.set()
            self.lock.release()  # the other panes' requests go on meanwhile
            try:
                self.release.wait(WAIT)
            finally:
                self.lock.acquire()
        return model.decide(body)


def row(scenario: str, done: HostRun, model: ScriptedModel) -> Run:
    return scenario_row(HOST, "2024-11-05", PREFIX, scenario, done.spawned, model)


def test_a_headless_cline_speaks_as_its_pane_and_a_claude_code_pane_answers(herdr_sim, tmp_path, cline):
    from test_claude_code import run as run_claude

    brain = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(brain, "cline", name="brain")
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(reviewer, "claude", name="reviewer")
    workspace = {"brain": brain, "reviewer": reviewer}
    ask = {"to": "reviewer", "message": "what is 2+2?"}
    model = ScriptedModel(DIALECT, NAMES, [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", ask)])
    with FakeModelServer(model) as api:
        done = cline.run("please ask the reviewer", herdr_sim.env(brain), api.url)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    requests = model.primary_requests
    assert CONTRACT_LINE in activation_text(DIALECT, requests)
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"]  # no re-list
    final = "\n".join(DIALECT.results(requests[-1]))
    assert '"self":{"name":"brain"' in final  # peers answered as its own pane
    question = sent_to_reviewer(herdr_sim, workspace, ask["message"])
    [delivery] = herdr_sim.deliveries(reviewer)
    run_claude(reply_steps(Anthropic()), herdr_sim.env(reviewer), tmp_path / "reviewer", "modern", prompt=delivery.text)
    [reply] = herdr_sim.deliveries(brain)
    answer = extract_envelope(reply.text)
    assert answer is not None and (answer.from_, answer.to) == ("reviewer", "brain")
    assert answer.message == f"ack {question.id}"
    record(row("activate, peers, send to Claude Code, its reply back", done, model))


def peers_result(model: ScriptedModel) -> str:
    """What the pane's ``peers`` call (the second call of its script) returned to its model."""
    return next(r for body in model.requests for r in model.dialect.results(body)[1:2])


def test_two_cline_panes_at_once_each_speak_as_themselves_or_are_refused(herdr_sim, tmp_path, cline):
    alpha = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(alpha, "cline", name="alpha")
    beta = herdr_sim.split(alpha)
    herdr_sim.add_agent(beta, "cline", name="beta")
    steps = [Step("herdr_link"), Step("herdr_link_peers", dispatch=True)]
    models = {
        marker: ScriptedModel(DIALECT, NAMES, steps) for marker in ("pane-alpha", "pane-beta-plain", "pane-beta-own")
    }
    panes = Panes(models, hold="pane-alpha", hold_after=2)
    runs: dict[str, HostRun] = {}
    with FakeModelServer(panes) as api:
        # alpha's session runs in its own process (no hub yet) and starts the hub; it stays open.
        first = threading.Thread(
            target=lambda: runs.update(alpha=cline.run("pane-alpha: go", herdr_sim.env(alpha), api.url))
        )
        first.start()
        assert panes.holding.wait(WAIT), "alpha's session never got to its peers' result"
        herdr_sim.wait_for(lambda: bool(cline.hub_pids()), timeout=WAIT, what="Cline's hub daemon")
        # beta, plain `cline` (its default): its session runs in alpha's hub, with alpha's environment.
        runs["beta"] = cline.run("pane-beta-plain: go", herdr_sim.env(beta), api.url)
        # beta as the row's set-up says (what Link starts Cline workers with): its own process.
        own = ("--data-dir", str(cline.data))
        runs["beta-own"] = cline.run("pane-beta-own: go", herdr_sim.env(beta), api.url, *own)
        panes.release.set()
        first.join(WAIT)
    assert all(done.returncode == 0 for done in runs.values()), {k: v.stderr[-1500:] for k, v in runs.items()}
    assert '"self":{"name":"alpha"' in peers_result(models["pane-alpha"])
    refused = str(LinkError(Cause.SELF_UNPROVEN))
    assert refused in peers_result(models["pane-beta-plain"]), peers_result(models["pane-beta-plain"])  # never as alpha
    assert '"self":{"name":"beta"' in peers_result(models["pane-beta-own"])
    assert herdr_sim.deliveries(alpha) == [] and herdr_sim.deliveries(beta) == []
    record(row("two panes at once (beta's plain `cline` in alpha's hub refused, with --data-dir itself)", runs["alpha"],
               models["pane-alpha"]))  # fmt: skip


def test_a_cline_worker_started_by_link_answers_in_its_tui(tmp_path, cline):
    """The user ran ``herdr-link-mcp install --host cline`` and once set Cline up (its provider, the two
    notices its first TUI starts show, dismissed). A lead's Link starts a Cline worker in a real pane (Herdr
    types ``cline --data-dir <HOME>/.cline/data``, the row's per-pane arguments); its TUI reads the wrapper
    typed into its composer, and its model replies to ``from`` from the worker's own pane."""
    import asyncio
    import json

    from interactive import WAIT as SCREEN_WAIT, at_prompt, lead_pane, our_commands, settled
    from link_worker import assert_acked, ping_and_close
    from test_copilot import IN_LEAD, stand_in_lead

    from herdr_link_control import Link
    from herdr_link_testkit import HerdrSim

    worker_model = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer(worker_model) as api:
        cline.configure(api.url)
        shown = {"shown": {"cline-cli-cline-pass-intro": True, "cline-cli-desktop-launch": True}}
        (cline.data / "settings" / "cli-notices.json").write_text(json.dumps(shown))  # the user dismissed them once
        env = {**cline.environment({"SHELL": "/bin/bash", "LANG": "C.UTF-8"}), "HOME": str(cline.home)}
        env["PATH"] = f"{cline.package.executable.parent}:{our_commands()}:{env['PATH']}"
        with HerdrSim(real_panes=True, env=env) as sim:
            lead, _ = lead_pane(sim, project)
            link = Link(sim.env(lead), pane_evidence=IN_LEAD)  # an adapter in the lead's pane, as it was started
            at_prompt(sim, lead)
            sim.type_text(lead, f"{stand_in_lead(tmp_path)}\r")
            started = asyncio.run(link.start({"name": "worker", "kind": "cline", "args": []}))
            pane = sim.agent("worker")["pane_id"]
            idle = "What can I do for you?"
            try:
                sim.wait_for(lambda: idle in sim.read(pane), timeout=SCREEN_WAIT * 2, what="its composer")
            except TimeoutError:
                raise AssertionError(
                    f"no composer; typed {sim.received(pane)[-300:]!r}; screen:\n{sim.read(pane)}"
                ) from None
            settled(sim, pane, quiet=2.0)
            answered = ping_and_close(sim, link, lead, pane, worker_model, DIALECT, SCREEN_WAIT * 2)
    assert started.agent == "worker"
    assert_acked(answered, worker_model, DIALECT)
    assert "Approve tool call?" not in answered.screen, answered.screen
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a lead's Link (explicit, a new tab; README set-up only)",
            "outcome": "came up in its own process (`--data-dir <HOME>/.cline/data` from its row), activated, "
            "answered the lead's message and was closed; no question on its screen. Set-up: `herdr-link-mcp "
            "install --host cline`",
            "prompts": [],
        }
    )


def test_cline_in_its_tui_answers_the_user_through_a_worker_it_starts(tmp_path, cline):
    """Plain ``cline``, the user's default: the first Cline of this HOME runs its session in its own process
    (and starts the hub daemon for later ones), so our server is its child in the lead's pane."""
    import json

    from tui_story import TuiLead, a_question_through_a_helper, assert_the_user_was_answered

    def set_up(machine, model_url: str) -> list[str]:
        cline.configure(model_url)  # its provider, as `cline auth` records it; its two notices dismissed once
        shown = {"shown": {"cline-cli-cline-pass-intro": True, "cline-cli-desktop-launch": True}}
        (cline.data / "settings" / "cli-notices.json").write_text(json.dumps(shown))
        machine.env.update({k: v for k, v in cline.environment({}).items() if k != "PATH"})
        machine.env["PATH"] = f"{cline.package.executable.parent}:{machine.env['PATH']}"
        return ["herdr-link-mcp install --host cline"]

    host = TuiLead(HOST, "cline", "cline", "What can I do for you?", False, DIALECT, NAMES, set_up,
                   notes=" (plain `cline`, the first of its HOME: its session runs in its own process)")  # fmt: skip
    assert cline.home == tmp_path / "user" / "home"  # the story's user is the fixture's
    assert_the_user_was_answered(host, a_question_through_a_helper(host, tmp_path / "user"))
