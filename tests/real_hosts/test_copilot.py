"""GitHub Copilot CLI 1.0.102 end to end: a real ``copilot -p`` in a simulated Herdr pane, wired by
``herdr-link-mcp install --host copilot --yes`` in its HOME, a scripted Chat Completions model on
loopback (bring-your-own-key, offline mode), no network.

Copilot CLI runs its MCP servers as children of each pane's own ``copilot`` process (no shared
process), so a headless run without a terminal is served as the pane in its environment. It names
our tools ``herdr_link-<tool>`` and re-lists them after ``tools/list_changed`` within the same turn.
"""

from pathlib import Path

import pytest
from fake_model import Anthropic, ChatCompletions, FakeModelServer, ScriptedModel, Step
from hosts import CopilotCli, HostRun
from matrix import Run, record
from scenarios import CANONICAL, activation_text, reply_steps, scenario_row, sent_to_reviewer

from herdr_link_protocol import COMMUNICATION_CONTRACT, extract_envelope
from herdr_link_testkit import HerdrSim

HOST = "GitHub Copilot CLI 1.0.102"
PREFIX = "herdr_link-"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = ChatCompletions()
ALLOW = ("--allow-tool", "herdr_link")
"""What `herdr-link-mcp wiring --host copilot` tells a user to start Copilot with (and Link starts its
workers with): headless, Copilot refuses every MCP call no rule allows."""
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]


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
    done, model = run_copilot(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", *ALLOW)
    assert tool_failures(done) == []
    requests = model.primary_requests
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
