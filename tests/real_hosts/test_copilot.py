"""GitHub Copilot CLI 1.0.102 end to end: a real ``copilot -p`` in a simulated Herdr pane, wired by
``herdr-link-mcp install --host copilot --yes`` in its HOME (the server, and Herdr Link's hook file:
the Tier 0 hint and the permission hook that allows our tools), a scripted Chat Completions model on
loopback (bring-your-own-key, offline mode), no network.

Copilot CLI runs its MCP servers as children of each pane's own ``copilot`` process (no shared
process), so a headless run without a terminal is served as the pane in its environment. It names
our tools ``herdr_link-<tool>`` and re-lists them after ``tools/list_changed`` within the same turn.
"""

import json
from pathlib import Path

import pytest
from fake_model import Anthropic, ChatCompletions, FakeModelServer, ScriptedModel, Step
from hosts import CopilotCli, HostRun
from matrix import SCENARIOS, Run, record
from scenarios import CANONICAL, activation_text, reply_steps, scenario_row, sent_to_reviewer

from herdr_link_control import PaneEvidence, TerminalPane
from herdr_link_protocol import COMMUNICATION_CONTRACT, PresentationForm, extract_envelope, tier0_hint
from herdr_link_testkit import HerdrSim

HOST = "GitHub Copilot CLI 1.0.102"
PREFIX = "herdr_link-"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = ChatCompletions()
HINT = tier0_hint(PresentationForm.SERVER_DASH, "herdr_link", tool_search=False)
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]
IN_LEAD = PaneEvidence(TerminalPane.SAME, "the rig stands for an adapter in the lead's pane")


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    brain = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(brain, "copilot", name="brain")
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(reviewer, "claude", name="reviewer")
    return {"brain": brain, "reviewer": reviewer}


def run_copilot(
    steps: list[Step], env: dict[str, str], workdir: Path, *flags: str, prompt: str = "go"
) -> tuple[HostRun, ScriptedModel]:
    model = ScriptedModel(DIALECT, NAMES, steps)
    workdir.mkdir(parents=True, exist_ok=True)
    with FakeModelServer(model) as api:
        done = CopilotCli(workdir).run(prompt, env, api.url, *flags)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    return done, model


def tool_failures(done: HostRun) -> list[dict[str, object]]:
    """The tool executions Copilot reports as failed, from its JSON events."""
    return [
        e for e in done.events()
        if e.get("type") == "tool.execution_complete" and not (e.get("data") or {}).get("success", True)
    ]  # fmt: skip


def row(scenario: str, done: HostRun, model: ScriptedModel) -> Run:
    return scenario_row(HOST, "2025-11-25", PREFIX, scenario, done.spawned, model)


def test_a_headless_copilot_speaks_as_its_pane_and_a_claude_code_pane_answers(workspace, herdr_sim, tmp_path):
    from test_claude_code import run as run_claude

    ask = {"to": "reviewer", "message": "what is 2+2?"}
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", ask)]
    # No --allow-tool: headless, Copilot refuses every MCP call no rule allows; the installed
    # permissionRequest hook is that rule.
    done, model = run_copilot(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    assert tool_failures(done) == []
    requests = model.primary_requests
    assert HINT in json.dumps(requests[0], ensure_ascii=False)  # the sessionStart hook's context, in the request
    assert CONTRACT_LINE in activation_text(DIALECT, requests)
    assert model.paths(requests[-1]) == ["gateway", "Tier 1", "Tier 1"]  # re-listed within the turn
    final = "\n".join(DIALECT.results(requests[-1]))
    assert '"self":{"name":"brain"' in final  # peers answered as its own pane
    question = sent_to_reviewer(herdr_sim, workspace, ask["message"])
    # A real Claude Code in the reviewer's pane reads the wrapper and replies to `from`.
    [delivery] = herdr_sim.deliveries(workspace["reviewer"])
    run_claude(reply_steps(Anthropic()), herdr_sim.env(workspace["reviewer"]), tmp_path / "reviewer", "modern",
               prompt=delivery.text)  # fmt: skip
    [reply] = herdr_sim.deliveries(workspace["brain"])
    answer = extract_envelope(reply.text)
    assert answer is not None and (answer.from_, answer.to) == ("reviewer", "brain")
    assert answer.message == f"ack {question.id}"
    record(row("activate, peers, send to Claude Code, its reply back", done, model))


def stand_in_lead(root: Path) -> Path:
    """A program named ``claude`` that reads what is typed into its pane and does nothing with it: the
    lead's pane is reported as a Claude Code, and Herdr types a message only into a pane whose foreground
    program is the agent it reports (the worker, not the lead, is what these tests run for real)."""
    program = root / "lead-bin" / "claude"
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text("#!/bin/sh\nwhile read -r line; do :; done\n")
    program.chmod(0o755)
    return program


def test_a_copilot_worker_started_by_link_answers_in_its_tui(tmp_path):
    """The user ran ``herdr-link-mcp install --host copilot --trust <project>`` and has a model key in
    their shell's environment. A lead's Link starts a Copilot worker in a real pane (Herdr types
    ``copilot --allow-tool herdr_link``, the row's worker arguments, into the pane's shell); its TUI reads
    the wrapper typed into its composer, and its model replies to ``from``."""
    import asyncio

    from interactive import WAIT, at_prompt, lead_pane, our_commands, settled
    from link_worker import assert_acked, ping_and_close

    from herdr_link_control import Link
    from herdr_link_testkit import HerdrSim

    worker_model = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer(worker_model) as api:
        copilot = CopilotCli(tmp_path, "--trust", str(project))
        env = copilot.environment({"SHELL": "/bin/bash", "LANG": "C.UTF-8"}, api.url)
        env["PATH"] = f"{copilot.package.executable.parent}:{our_commands()}:{env['PATH']}"
        with HerdrSim(real_panes=True, env=env) as sim:
            lead, _ = lead_pane(sim, project)
            link = Link(sim.env(lead, env), pane_evidence=IN_LEAD)  # an adapter in the lead's pane
            at_prompt(sim, lead)
            sim.type_text(lead, f"{stand_in_lead(tmp_path)}\r")  # Herdr types a reply only to a running agent
            started = asyncio.run(link.start({"name": "worker", "kind": "copilot", "args": []}))
            pane = sim.agent("worker")["pane_id"]
            sim.wait_for(lambda: sim.bracketed_paste(pane) and "❯" in sim.read(pane), timeout=WAIT, what="its composer")
            settled(sim, pane, quiet=2.0)
            answered = ping_and_close(sim, link, lead, pane, worker_model, DIALECT, WAIT * 2)
    assert started.agent == "worker"
    assert_acked(answered, worker_model, DIALECT)
    assert "Do you want to use this tool?" not in answered.screen and "Confirm folder trust" not in answered.screen, (
        answered.screen
    )
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a lead's Link (explicit, a new tab; README set-up only)",
            "outcome": "came up wired (`--allow-tool herdr_link` from its row), activated, answered the lead's message "
            "and was closed; no question on its screen. Set-up: `herdr-link-mcp install --host copilot --trust "
            "<project>`",
            "prompts": [],
        }
    )


def _copilot_user(machine, model_url: str) -> list[str]:
    """The user's one-time set-up of Copilot CLI: our install command (their project's folder trusted) and
    their bring-your-own-key model in the login environment; ``copilot`` on PATH."""
    copilot = CopilotCli(machine.root, "--trust", str(machine.project))  # its HOME is the user's
    keys = copilot.environment({}, model_url)
    machine.env.update({name: value for name, value in keys.items() if name != "PATH"})
    machine.env["PATH"] = f"{copilot.package.executable.parent}:{machine.env['PATH']}"
    return ["herdr-link-mcp install --host copilot --trust <project>"]


def test_copilot_in_its_tui_answers_the_user_through_a_worker_it_starts(tmp_path):
    from tui_story import TuiLead, a_question_through_a_helper, assert_the_user_was_answered

    host = TuiLead(HOST, "copilot", "copilot", "❯", False, DIALECT, NAMES, _copilot_user,
                   notes=" (started as plain `copilot`: install's permission hook allows Link's tools)")  # fmt: skip
    assert_the_user_was_answered(host, a_question_through_a_helper(host, tmp_path))
