"""Codex CLI 0.171.0 end to end: a real ``codex exec`` in a simulated Herdr pane, configured from
``herdr-link-mcp wiring --host codex --json``, a scripted Responses model on loopback, no network.

What each scenario holds in place (issue: real hosts, part 2):
- the SessionStart hint reaches the model: the wiring trusts its own hook (Codex skips untrusted
  hooks silently);
- wired as ``wiring`` prints it by default (not ``required``), the server is offered in the first
  request: it answers ``initialize`` and the dormant ``tools/list`` before its SDK has loaded;
- a server that cannot answer in that time (+3 s before its Python even starts) is still offered in
  the first request when wired with ``--required`` (``required = true``);
- stock Codex never re-lists, so the activation result leads with the gateway's dispatch form, and
  every later call goes through it; with ``--enable mcp_tool_list_changed`` Tier 1 names work too;
- outside Herdr the required server still starts, offers nothing, and Codex runs normally.
"""

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_model import FakeModelServer, Responses, ScriptedModel, Step
from hosts import Codex, HostRun
from matrix import Run, record
from scenarios import (
    CANONICAL,
    activation_text,
    asked_by_another_host,
    assert_answered,
    assert_started_and_closed,
    outside_herdr,
    pair_workspace,
    reply_steps,
    scenario_row,
    sent_to_reviewer,
    start_close_steps,
)
from test_gemini import run_gemini

from herdr_link_protocol import COMMUNICATION_CONTRACT, PresentationForm, tier0_hint
from herdr_link_testkit import HerdrSim

HOST = "Codex 0.171.0"
NS = "mcp__herdr_link"
NAMES = {tool: f"{NS}.{tool}" for tool in CANONICAL}
DIALECT = Responses()
HINT = tier0_hint(PresentationForm.MCP_NAMESPACED, "herdr_link")
CONTRACT_LINE = COMMUNICATION_CONTRACT.splitlines()[0]
RELIST = ("--enable", "mcp_tool_list_changed")
SLOW_START = 3.0
"""Seconds the slow-start scenario adds before our server's Python even starts (not required, Codex
left our server out of its first request at +0.5 s and kept it at +0.3 s, on this rig's machine)."""


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "codex", "gemini")


def run_codex(
    steps: list[Step],
    env: dict[str, str],
    workdir: Path,
    prompt: str = "go",
    flags: tuple[str, ...] = (),
    wiring_options: tuple[str, ...] = (),
) -> tuple[HostRun, ScriptedModel]:
    model = ScriptedModel(DIALECT, NAMES, steps)
    workdir.mkdir(parents=True, exist_ok=True)
    with FakeModelServer(model) as api:
        done = Codex(workdir, *wiring_options).run(prompt, env, api.url, flags=flags)
    assert done.returncode == 0, done.stderr[-3000:]
    failed = [e for e in done.events() if e.get("type") == "item.completed" and e["item"].get("status") == "failed"]
    assert failed == [], failed
    return done, model


def row(scenario: str, done: HostRun, model: ScriptedModel, *, active: bool = True) -> Run:
    return scenario_row(HOST, "2025-06-18", NS, scenario, done.spawned, model, active=active)


def test_dormant_codex_shows_the_hint_and_defers_the_gateway(workspace, herdr_sim, tmp_path):
    done, model = run_codex([], herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    first = json.dumps(model.primary_requests[0])
    assert HINT in first  # the SessionStart hook ran: trusted by the wiring's own [hooks.state] entry
    assert DIALECT.ours(model.primary_requests[0], NS) == []  # deferred behind tool_search
    assert CONTRACT_LINE not in first and "herdr_link_peers" not in first
    record(row("dormant", done, model, active=False))


def test_activate_then_peers_and_send_go_through_dispatch(workspace, herdr_sim, tmp_path):
    send = {"to": "reviewer", "message": "please review the design"}
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", send)]
    done, model = run_codex(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    requests = model.primary_requests
    assert DIALECT.searched(requests[-1])[0] == "herdr_link"  # found through Codex's tool_search
    activation = activation_text(DIALECT, requests)
    appendix = activation.split(COMMUNICATION_CONTRACT, 1)[1]  # what follows the six rules
    assert appendix.index('"action":"send"') < appendix.index("herdr_link_peers")  # dispatch leads
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"]
    assert not any(NAMES["herdr_link_peers"] in DIALECT.callable(r) for r in requests)  # never re-listed
    envelope = sent_to_reviewer(herdr_sim, workspace, send["message"])
    final = "\n".join(DIALECT.results(requests[-1]))
    assert '"self":{"name":"brain"' in final and envelope.id in final
    record(row("activate, peers, send", done, model))


def test_with_list_changed_enabled_tier1_names_work_after_the_re_list(workspace, herdr_sim, tmp_path):
    send = {"to": "reviewer", "message": "named tools"}
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", send, search_first=True)]
    done, model = run_codex(steps, herdr_sim.env(workspace["brain"]), tmp_path / "brain", flags=RELIST)
    requests = model.primary_requests
    # Dispatch works at once; once Codex has re-listed, its tool_search finds the Tier 1 tool by name.
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "Tier 1"]
    sent_to_reviewer(herdr_sim, workspace, "named tools")
    record(row("activate, peers, send (--enable mcp_tool_list_changed)", done, model))


def test_a_wrapper_from_gemini_is_answered_to_from(workspace, herdr_sim, tmp_path):
    text, question = asked_by_another_host(run_gemini, herdr_sim, workspace, tmp_path)
    done, model = run_codex(reply_steps(DIALECT), herdr_sim.env(workspace["brain"]), tmp_path / "brain", prompt=text)
    assert_answered(herdr_sim, workspace, question)
    record(row("receive (from Gemini CLI) and reply", done, model))


def test_start_with_then_close(workspace, herdr_sim, tmp_path):
    done, model = run_codex(start_close_steps("codex"), herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    assert_started_and_closed(herdr_sim, DIALECT, model.primary_requests)
    record(row("start with, close", done, model))


def test_not_required_the_server_is_offered_in_the_first_request(workspace, herdr_sim, tmp_path):
    done, model = run_codex([Step("herdr_link")], herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    config = tomllib.loads((tmp_path / "brain" / "home" / ".codex" / "config.toml").read_text())
    assert "required" not in config["mcp_servers"]["herdr_link"]  # wired as `wiring` prints it by default
    requests = model.primary_requests
    # Codex did not wait for the server; the model's first tool search (request 1) still found the gateway.
    assert DIALECT.searched(requests[1]) == ["herdr_link"] and NAMES["herdr_link"] in DIALECT.callable(requests[1])
    record(row("not required: offered in the first request", done, model))


@pytest.fixture
def slow_server_start(tmp_path: Path) -> Iterator[Path]:
    """Delay every Python start of the rig's environment by SLOW_START s for one HOME only.

    A ``.pth`` line runs at interpreter start; it sleeps only when the marker file exists in the
    HOME it runs under, which only this scenario's Codex (and so our server it spawns) has.
    """
    import site
    import sysconfig

    home = tmp_path / "brain" / "home"
    marker = home / ".herdr-link-rig-slow-start"
    pth = Path(sysconfig.get_paths()["purelib"]) / "herdr_link_rig_slow_start.pth"
    pth.write_text(
        "import os, time; p = os.path.expanduser('~/.herdr-link-rig-slow-start'); "
        "os.path.exists(p) and time.sleep(float(open(p).read()))\n"
    )
    home.mkdir(parents=True, exist_ok=True)
    marker.write_text(str(SLOW_START))
    assert site.ENABLE_USER_SITE is not None  # site processes .pth files in this environment
    try:
        yield marker
    finally:
        pth.unlink()
        marker.unlink(missing_ok=True)


def test_a_slow_server_start_wired_required_is_still_offered_in_the_first_request(
    workspace, herdr_sim, tmp_path, slow_server_start
):
    steps = [Step("herdr_link")]
    env = herdr_sim.env(workspace["brain"])
    done, model = run_codex(steps, env, tmp_path / "brain", wiring_options=("--required",))
    requests = model.primary_requests
    # The model's first move is the tool search of request 1; it found our gateway, so the server
    # was up before Codex sent its first model request (required = true).
    assert DIALECT.searched(requests[1]) == ["herdr_link"] and NAMES["herdr_link"] in DIALECT.callable(requests[1])
    assert model.paths(requests[-1]) == ["gateway"]
    assert '"status":"active"' in activation_text(DIALECT, requests)
    record(row(f"slow server start (+{SLOW_START:.0f} s), --required", done, model))


def test_outside_herdr_the_required_server_starts_and_offers_nothing(tmp_path):
    env = outside_herdr()
    done, model = run_codex([Step("herdr_link")], env, tmp_path / "plain")
    requests = model.primary_requests
    assert HINT not in json.dumps(requests[0])  # the hook printed nothing outside Herdr
    assert not any(NAMES["herdr_link"] in DIALECT.callable(r) for r in requests)
    assert "cannot call" in done.stdout  # the model's own answer: nothing to call, and Codex ran on
