"""Kilo Code 7.7.7 end to end: a real ``kilo run`` in simulated Herdr panes, wired by ``herdr-link-mcp
install --host kilo --yes`` in its HOME, a scripted Chat Completions model on loopback (an
OpenAI-compatible provider in its inline config), no network.

By default each ``kilo`` runs its own server, whose MCP servers are its children in the pane's session
(each pane's run here has its pane's terminal, as in Herdr). Once a user runs ``kilo daemon``, every
later ``kilo`` of that HOME attaches to it, and our server is the daemon's child, with the environment
of the pane that started it and no terminal. Kilo names our tools ``herdr_link_<tool>`` and re-lists
them after ``tools/list_changed``.
"""

import threading

from fake_model import Anthropic, ChatCompletions, FakeModelServer, ScriptedModel, Step
from hosts import HostRun, KiloCli
from matrix import SCENARIOS, Run, record
from scenarios import CANONICAL, activation_text, reply_steps, scenario_row, sent_to_reviewer
from test_cline import Panes, peers_result

from herdr_link_protocol import COMMUNICATION_CONTRACT, extract_envelope

HOST = "Kilo Code 7.7.7"
PREFIX = "herdr_link_"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = ChatCompletions()
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]
WAIT = 180.0


def tool_errors(done: HostRun) -> list[dict[str, object]]:
    """The tool calls ``kilo run --format json`` reports as not completed."""
    return [
        e for e in done.events()
        if e.get("type") == "tool_use" and (e.get("part") or {}).get("state", {}).get("status") != "completed"
    ]  # fmt: skip


def row(scenario: str, done: HostRun, model: ScriptedModel) -> Run:
    return scenario_row(HOST, "2025-11-25", PREFIX, scenario, done.spawned, model)


def test_two_kilo_panes_at_once_speak_as_themselves_and_a_claude_code_pane_answers(herdr_sim, tmp_path):
    """Kilo's default (no ``kilo daemon``): each ``kilo`` runs its own server, and ours is its child in its
    pane. ``brain`` activates, lists its peers and, while its session is still open, ``beta`` (the same
    user's Kilo in another pane) does too; then ``brain`` asks a real Claude Code, which replies."""
    from test_claude_code import run as run_claude

    brain = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(brain, "kilo", name="brain")
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(reviewer, "claude", name="reviewer")
    beta = herdr_sim.split(brain)
    herdr_sim.add_agent(beta, "kilo", name="beta")
    kilo = KiloCli(tmp_path / "user")  # one user: both Kilo panes share its HOME
    ask = {"to": "reviewer", "message": "what is 2+2?"}
    models = {
        "pane-brain": ScriptedModel(DIALECT, NAMES, [Step("herdr_link"), Step("herdr_link_peers"),
                                                     Step("herdr_link_send", ask)]),
        "pane-beta": ScriptedModel(DIALECT, NAMES, [Step("herdr_link"), Step("herdr_link_peers", dispatch=True)]),
    }  # fmt: skip
    panes = Panes(models, hold="pane-brain", hold_after=2)
    runs: dict[str, HostRun] = {}
    with FakeModelServer(panes) as api:
        first = threading.Thread(
            target=lambda: runs.update(brain=kilo.run("pane-brain: ask the reviewer", herdr_sim.env(brain), api.url))
        )
        first.start()
        try:
            assert panes.holding.wait(WAIT), "brain's session never got to its peers' result"
            runs["beta"] = kilo.run("pane-beta: go", herdr_sim.env(beta), api.url)  # while brain's session is open
        finally:
            panes.release.set()
            first.join(WAIT)
    for done in runs.values():
        assert done.returncode == 0 and tool_errors(done) == [], (done.stdout[-3000:], done.stderr[-3000:])
    model = models["pane-brain"]
    requests = model.primary_requests
    assert CONTRACT_LINE in activation_text(DIALECT, requests)
    assert model.paths(requests[-1]) == ["gateway", "Tier 1", "Tier 1"]  # re-listed within the turn
    assert '"self":{"name":"brain"' in peers_result(model)  # each pane's peers answered as itself
    assert '"self":{"name":"beta"' in peers_result(models["pane-beta"])
    question = sent_to_reviewer(herdr_sim, {"brain": brain, "reviewer": reviewer}, ask["message"])
    [delivery] = herdr_sim.deliveries(reviewer)
    run_claude(reply_steps(Anthropic()), herdr_sim.env(reviewer), tmp_path / "reviewer", "modern", prompt=delivery.text)
    [reply] = herdr_sim.deliveries(brain)
    answer = extract_envelope(reply.text)
    assert answer is not None and (answer.from_, answer.to) == ("reviewer", "brain")
    assert answer.message == f"ack {question.id}"
    assert herdr_sim.deliveries(beta) == []
    record(row("activate, peers, send to Claude Code, its reply back (a second Kilo pane at once)", runs["brain"],
               model))  # fmt: skip


def test_a_kilo_worker_started_by_link_answers_in_its_tui(tmp_path, monkeypatch):
    """The user ran ``herdr-link-mcp install --host kilo`` and has their model in Kilo's config. A lead's
    Link starts a Kilo worker in a real pane (Herdr types ``kilo``); its TUI reads the wrapper typed into
    its composer, and its model replies to ``from`` from the worker's own pane."""
    import asyncio

    from interactive import WAIT as SCREEN_WAIT, at_prompt, lead_pane, our_commands, reads_its_composer
    from link_worker import assert_acked, ping_and_close
    from test_copilot import IN_LEAD, stand_in_lead

    from herdr_link_control import Link
    from herdr_link_testkit import HerdrSim

    worker_model = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer(worker_model) as api:
        kilo = KiloCli(tmp_path)
        env = kilo.environment({"SHELL": "/bin/bash", "LANG": "C.UTF-8"}, api.url)
        env["PATH"] = f"{kilo.package.executable.parent}:{our_commands()}:{env['PATH']}"
        with HerdrSim(real_panes=True, env=env) as sim:
            lead, _ = lead_pane(sim, project)
            link = Link(sim.env(lead, env), pane_evidence=IN_LEAD)  # an adapter in the lead's pane
            monkeypatch.setenv("HOME", str(kilo.home))  # its process runs as the user
            at_prompt(sim, lead)
            sim.type_text(lead, f"{stand_in_lead(tmp_path)}\r")
            started = asyncio.run(link.start({"name": "worker", "kind": "kilo", "args": []}))
            pane = sim.agent("worker")["pane_id"]
            try:
                # Kilo draws its composer long before it reads what is typed (a person tries a letter).
                reads_its_composer(sim, pane, placeholder="Ask anything")
            except (TimeoutError, AssertionError) as error:
                raise AssertionError(
                    f"{error}; typed {sim.received(pane)[-300:]!r}; screen:\n{sim.read(pane)}"
                ) from None
            answered = ping_and_close(sim, link, lead, pane, worker_model, DIALECT, SCREEN_WAIT * 3)
    assert started.agent == "worker"
    assert_acked(answered, worker_model, DIALECT)
    assert "Permission required" not in answered.screen, answered.screen
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a lead's Link (explicit, a new tab; README set-up only)",
            "outcome": "came up wired, activated, answered the lead's message and was closed; no question on its "
            "screen. Set-up: `herdr-link-mcp install --host kilo`",
            "prompts": [],
        }
    )


def _kilo_user(machine, model_url: str) -> list[str]:
    """The user's one-time set-up of Kilo Code: our install command, and their model in Kilo's config (the
    rig's inline config, in the login environment); ``kilo`` on PATH."""
    kilo = KiloCli(machine.root)  # its HOME is the user's
    keys = kilo.environment({}, model_url)
    machine.env.update({name: value for name, value in keys.items() if name != "PATH"})
    machine.env["PATH"] = f"{kilo.package.executable.parent}:{machine.env['PATH']}"
    return ["herdr-link-mcp install --host kilo"]


def test_kilo_in_its_tui_answers_the_user_through_a_worker_it_starts(tmp_path):
    from tui_story import TuiLead, a_question_through_a_helper, assert_the_user_was_answered

    host = TuiLead(HOST, "kilo", "kilo", "Ask anything", True, DIALECT, NAMES, _kilo_user)
    assert_the_user_was_answered(host, a_question_through_a_helper(host, tmp_path))
