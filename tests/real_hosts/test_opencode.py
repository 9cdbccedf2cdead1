"""OpenCode 1.18.33 end to end with a model in the loop: a real ``opencode run`` in a simulated Herdr
pane, the plugin installed by ``herdr-link-opencode-install --runtime v1`` into its HOME, its
``@opencode-ai/plugin`` by a real (offline) ``npm install``, a scripted OpenAI Chat Completions
model on loopback through ``@ai-sdk/openai-compatible``, no network.

What each scenario holds in place (issue: real hosts, part 3):
- the plugin loads (OpenCode logs no failure) and offers exactly the one ``herdr_link`` tool;
- the contract arrives in the very next request of the activating turn, and calls in exactly the
  form it teaches (nested ``arguments``) reach the peer;
- ``{"action":"activate"}`` activates and an unknown action gets the protocol's error, not a
  JavaScript TypeError;
- the file installed with ``--runtime v2`` (every file holds OpenCode 1.x's ``server`` and OpenCode
  2's ``setup``) loads in OpenCode 1.x and serves it: a machine with both OpenCodes keeps working.
"""

from pathlib import Path

import pytest
from fake_model import ChatCompletions, FakeModelServer, ScriptedModel, Step
from hosts import HostRun, OpenCode
from matrix import Run, record
from scenarios import (
    CANONICAL,
    after_activation,
    asked_by_another_host,
    assert_answered,
    assert_started_and_closed,
    outside_herdr,
    pair_workspace,
    reply_steps,
    rules_in,
    scenario_row,
    sent_to_reviewer,
    start_close_steps,
)
from test_gemini import run_gemini

from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim

HOST = "OpenCode 1.18.33 (plugin, runtime v1)"
NAMES = {tool: tool for tool in CANONICAL}  # only herdr_link is ever listed: the rest go through its dispatch
PREFIX = "herdr_link"
DIALECT = ChatCompletions()


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "opencode", "gemini")


def installed(workdir: Path, env: dict[str, str], runtime: str = "v1") -> OpenCode:
    host = OpenCode(workdir)
    host.prepare_config()
    done = host.install(env, "--runtime", runtime)
    assert done.returncode == 0, (done.stdout, done.stderr)
    checked = {"v1": "OpenCode 1.x", "v2": "OpenCode 2"}[runtime]  # one file; the flag picks what is checked
    assert (
        "installed:" in done.stdout
        and "is the current bundle" in done.stdout
        and f"checked for {checked}" in done.stdout
    )
    return host


def run_opencode(
    steps: list[Step], env: dict[str, str], workdir: Path, prompt: str = "go", runtime: str = "v1"
) -> tuple[HostRun, ScriptedModel]:
    host = installed(workdir, env, runtime)
    model = ScriptedModel(DIALECT, NAMES, steps)
    with FakeModelServer(model) as api:
        done = host.run(prompt, env, api.url)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "failed to load plugin" not in done.stderr, done.stderr[-3000:]
    return done, model


def row(scenario: str, done: HostRun, model: ScriptedModel, *, active: bool = True) -> Run:
    return scenario_row(HOST, "—", PREFIX, scenario, done.spawned, model, active=active)


def test_dormant_opencode_offers_the_one_dispatcher_and_no_contract(workspace, herdr_sim, tmp_path):
    done, model = run_opencode([], herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    first = model.primary_requests[0]
    [ours] = DIALECT.ours(first, PREFIX)
    assert ours["function"]["name"] == "herdr_link" and "arguments" in ours["function"]["parameters"]["properties"]
    assert rules_in(first) == 0
    record(row("dormant", done, model, active=False))


def test_activation_shows_the_contract_in_the_same_turn_and_its_form_works(workspace, herdr_sim, tmp_path):
    send = {"to": "reviewer", "message": "please review the design"}
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", send)]
    done, model = run_opencode(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    active = after_activation(DIALECT, requests)
    assert requests.index(active) == 1 and rules_in(active) == 1  # the next request of this turn, once
    assert '{"action":"send","arguments":{"to":"<name>","message":"<text>"}}' in DIALECT.system(active)
    calls = DIALECT.calls(requests[-1])
    assert calls[2].arguments == {"action": "send", "arguments": send}  # exactly the taught form
    assert '"self":{"name":"brain"' in DIALECT.results(requests[-1])[1]
    sent_to_reviewer(herdr_sim, workspace, send["message"])
    record(row("activate, peers, send (nested arguments)", done, model))


def test_activate_action_and_an_unknown_action(workspace, herdr_sim, tmp_path):
    # Off-enum values reach the plugin: OpenCode passes them through its zod enum.
    steps = [Step("herdr_link", {"action": "activate"}), Step("herdr_link", {"action": "wait"})]
    done, model = run_opencode(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    results = DIALECT.results(model.primary_requests[-1])
    assert results[0] == '{"status":"active","capabilities":["start","peers","send","close"]}'
    assert "Unknown gateway action: wait; use one of start, peers, send, close" in results[1]
    assert "TypeError" not in results[1]
    record(row("activate action, unknown action", done, model))


def test_a_wrapper_from_gemini_is_answered_to_from(workspace, herdr_sim, tmp_path):
    text, question = asked_by_another_host(run_gemini, herdr_sim, workspace, tmp_path)
    done, model = run_opencode(reply_steps(DIALECT), herdr_sim.env(workspace["brain"]), tmp_path / "brain", prompt=text)
    assert extract_envelope(DIALECT.prompt(model.primary_requests[0])) == question  # verbatim, from stdin
    assert_answered(herdr_sim, workspace, question)
    record(row("receive (from Gemini CLI) and reply", done, model))


def test_start_with_then_close(workspace, herdr_sim, tmp_path):
    done, model = run_opencode(start_close_steps("opencode"), herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    assert_started_and_closed(herdr_sim, DIALECT, model.primary_requests)
    record(row("start with, close", done, model))


def test_outside_herdr_opencode_offers_nothing_of_ours(tmp_path):
    env = outside_herdr()
    done, model = run_opencode([Step("herdr_link")], env, tmp_path / "plain")
    assert all(DIALECT.ours(r, PREFIX) == [] for r in model.primary_requests)


def test_the_file_installed_for_opencode_2_serves_opencode_1(workspace, herdr_sim, tmp_path):
    # `--runtime v2` on a machine whose `opencode` is 1.18.33: installed (a note says which half runs),
    # loaded by the real OpenCode 1.x, and its gateway activates and sends.
    send = {"to": "reviewer", "message": "from the file installed for OpenCode 2"}
    steps = [Step("herdr_link"), Step("herdr_link_send", send)]
    done, model = run_opencode(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", runtime="v2")
    assert rules_in(after_activation(DIALECT, model.primary_requests)) == 1
    sent_to_reviewer(herdr_sim, workspace, send["message"])
    record(row("the --runtime v2 file in OpenCode 1.x", done, model))
