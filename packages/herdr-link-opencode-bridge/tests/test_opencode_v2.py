"""The generated OpenCode 2 bundle (experimental) under Node with a fake V2 plugin context, end to end
against the simulated Herdr: no-op outside Herdr, per-session activation, the contract only in
active sessions, the directory rule with zero, one and two matching panes, dispatch and errors.
"""

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from herdr_link_opencode_bridge import RUNTIMES
from herdr_link_opencode_bridge._bundles import link_data
from herdr_link_protocol import (
    COMMUNICATION_CONTRACT,
    TOOL_SPECS,
    Cause,
    LinkError,
    PresentationForm,
    active_presentation,
    extract_envelope,
)
from herdr_link_testkit import HerdrSim

ACTIVE = '{"status":"active","capabilities":["start","peers","send","close"]}'
PRESENTATION = active_presentation(PresentationForm.GATEWAY_DISPATCH)
BASE = "You are OpenCode."
UNRESOLVED = str(LinkError(Cause.SESSION_PANE_AMBIGUOUS))
UNKNOWN_ACTION = "Unknown gateway action: teleport; use one of start, peers, send, close"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def team(herdr_sim: HerdrSim, project: Path, tmp_path: Path) -> tuple[str, str]:
    """``brain`` (OpenCode, in ``project``) and ``reviewer`` (Codex, in the same directory)."""
    brain = herdr_sim.create_workspace(str(project))
    reviewer = herdr_sim.split(brain, cwd=str(project))
    herdr_sim.add_agent(brain, "opencode", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    return brain, reviewer


def at(directory: Path | str, **extra: Any) -> dict[str, Any]:
    """A ``Session.Info`` fragment as the cited revision shapes it: ``location.directory``."""
    return {"location": {"directory": str(directory)}, **extra}


def call(session: str | None = "s1", raw: Any = None, **fields: Any) -> dict[str, Any]:
    """A tool call with ``fields`` as its input, or ``raw`` when the input is not an object."""
    return {"kind": "call", "session": session, "args": fields if raw is None else raw}


def context(session: str | None = "s1") -> dict[str, Any]:
    return {"kind": "context", "session": session}


def test_outside_herdr_it_registers_nothing_and_spawns_nothing(drive_v2, tmp_path):
    report = drive_v2({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, [], {})
    assert report["exports"] == ["default"] and report["id"] == "herdr-link"
    assert report["tools"] == [] and report["hooks"] == [] and report["transforms"] == 0
    assert report["cleanup"] == "undefined"
    assert not (tmp_path / "bridge.pid").exists()


def test_one_tool_through_transform_one_context_hook_and_a_cleanup(drive_v2, herdr_sim: HerdrSim, team, project):
    report = drive_v2(herdr_sim.env(team[0]), [], {"s1": at(project)})
    assert report["tools"] == ["herdr_link"] and report["transforms"] == 1
    assert report["hooks"] == ["context"]
    assert report["cleanup"] == "function" and report["disposed"] == 2  # both registrations released
    assert report["description"] == TOOL_SPECS["herdr_link"].description
    schema = report["input"]
    assert schema == link_data(RUNTIMES["opencode-v2"])["dispatcher"]["input"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert list(schema["properties"]) == [
        "action", "arguments", "to", "message", "agent", "name", "with", "cwd", "config_agent", "kind", "args"
    ]  # fmt: skip
    assert schema["properties"]["arguments"]["type"] == "object"
    assert schema["properties"]["action"]["enum"] == ["start", "peers", "send", "close"]
    assert schema["properties"]["args"] == {
        **schema["properties"]["args"],
        "type": "array",
        "items": {"type": "string"},
    }


def test_activation_is_per_session_and_the_contract_follows_it(drive_v2, herdr_sim: HerdrSim, team, project):
    steps = [context("s1"), call("s1"), call("s1"), context("s1"), context("s1"), context("s1"), context("s2")]
    steps += [context(None), call("s2", action="peers"), context("s2")]
    results = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project), "s2": at(project)})["results"]
    assert results[0] == {"system": [BASE]}
    assert results[1] == {"ok": ACTIVE} and results[2] == {"ok": ACTIVE}
    for index in (3, 4, 5):  # every request of the active session carries exactly one copy
        assert results[index] == {"system": [BASE, PRESENTATION]}
        assert results[index]["system"][1].startswith(COMMUNICATION_CONTRACT)
    assert results[6] == {"system": [BASE]}  # another session stays dormant
    assert results[7] == {"system": [BASE]}  # no session id: nothing
    assert "ok" in results[8] and results[9] == {"system": [BASE, PRESENTATION]}  # any action activates


def test_the_directory_is_compared_after_resolving_symlinks_and_may_carry_a_subpath(
    drive_v2, herdr_sim: HerdrSim, team, project, tmp_path
):
    link = tmp_path / "link"
    link.symlink_to(project)
    sessions = {"s1": at(link), "s2": at(tmp_path, subpath="project"), "s3": {"directory": str(project)}}
    steps = [call("s1", action="peers"), call("s2", action="peers"), call("s3", action="peers")]
    results = drive_v2(herdr_sim.env(team[0]), steps, sessions)["results"]
    assert all("ok" in result for result in results), results


def test_zero_matching_panes_fail_closed_and_do_not_activate(drive_v2, herdr_sim: HerdrSim, team, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    steps = [call("s1"), context("s1"), call("s1", action="send", to="reviewer", message="hi"), call("ghost")]
    report = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(elsewhere)})
    results = report["results"]
    assert results[0] == {"error": UNRESOLVED}
    assert results[1] == {"system": [BASE]}
    assert results[2] == {"error": UNRESOLVED} and herdr_sim.deliveries(team[1]) == []
    assert results[3] == {"error": UNRESOLVED}  # session.get failed: fail closed as well
    assert report["gets"] == ["s1", "s1", "ghost"]  # resolved on every call


def test_a_codex_pane_in_the_same_directory_does_not_count(drive_v2, herdr_sim: HerdrSim, team, project):
    # team's reviewer is a Codex pane in the same directory: still exactly one OpenCode pane.
    results = drive_v2(herdr_sim.env(team[0]), [call("s1", action="peers")], {"s1": at(project)})["results"]
    assert json.loads(results[0]["ok"])["self"] == {"name": "brain", "state": "idle"}


def test_two_opencode_agents_started_with_each_other_share_a_directory_and_fail_closed(
    drive_v2, herdr_sim: HerdrSim, team, project
):
    steps = [
        call("s1", action="start", name="twin", kind="opencode", args=[], **{"with": "brain"}),
        call("s1", action="peers"),
        call("s1"),
    ]
    results = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project)})["results"]
    assert json.loads(results[0]["ok"]) == {"status": "started", "agent": "twin", "kind": "opencode"}
    assert herdr_sim.agent("twin")["cwd"] == str(project)
    assert results[1] == {"error": UNRESOLVED} and results[2] == {"error": UNRESOLVED}


def test_every_action_dispatches_to_the_control_layer(drive_v2, herdr_sim: HerdrSim, team, project):
    brain, reviewer = team
    steps = [
        call("s1", action="peers"),
        call("s1", action="send", to="reviewer", message="please review", agent="stray"),
        call("s1", action="start", name="worker", kind="pi", args=["--model", "x"]),
        call("s1", action="close", agent="worker"),
    ]
    results = drive_v2(herdr_sim.env(brain), steps, {"s1": at(project)})["results"]
    assert json.loads(results[0]["ok"]) == {
        "self": {"name": "brain", "state": "idle"},
        "peers": [{"name": "reviewer", "state": "idle"}],
    }
    sent = json.loads(results[1]["ok"])
    envelope = extract_envelope(herdr_sim.deliveries(reviewer)[0].text)
    assert envelope is not None and envelope.id == sent["id"] and envelope.message == "please review"
    assert envelope.from_ == "brain" and envelope.to == "reviewer"
    assert json.loads(results[2]["ok"]) == {"status": "started", "agent": "worker", "kind": "pi"}
    assert json.loads(results[3]["ok"]) == {"status": "closed", "agent": "worker"}


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ({"action": "teleport"}, UNKNOWN_ACTION),
        ({"action": "send", "arguments": ["x"]}, 'herdr_link "arguments" must be an object'),
        (
            {"action": "send", "arguments": {"to": "reviewer", "message": "x", "pane": "w1:p2"}},
            'SEND_FAILED: "pane" is not accepted: address agents by Agent Name',
        ),
        (["peers"], "herdr_link arguments must be an object"),
        ({"action": "send", "to": "ghost", "message": "x"}, str(LinkError(Cause.NOT_A_PEER))),
        ({"action": "send", "to": "reviewer", "message": 5}, 'SEND_FAILED: "message" must be a string'),
        ({"action": "send", "to": 7, "message": "x"}, 'PEER_NOT_FOUND: "to" must be an Agent Name'),
        ({"action": "close"}, 'PEER_NOT_FOUND: "agent" must be an Agent Name'),
        ({"action": "start", "name": "w"}, str(LinkError(Cause.START_MODE_MISSING))),
    ],
)
def test_invalid_input_gets_the_protocols_codes_and_texts(drive_v2, herdr_sim: HerdrSim, team, project, args, text):
    steps = [call("s1", raw=args), context("s1")]
    results = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project)})["results"]
    assert results[0] == {"error": text}
    for delivery_pane in team:
        assert herdr_sim.deliveries(delivery_pane) == []


def test_activate_and_the_nested_form_work(drive_v2, herdr_sim: HerdrSim, team, project):
    steps = [
        call("s1", raw={"action": "activate"}),
        call(
            "s1", raw={"action": "send", "arguments": {"to": "reviewer", "message": "nested"}, "wait_for_previous": 1}
        ),
    ]
    results = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project)})["results"]
    assert results[0] == {"ok": ACTIVE}
    assert json.loads(results[1]["ok"])["status"] == "sent"
    [delivery] = herdr_sim.deliveries(team[1])
    assert '"message":"nested"' in delivery.text


def test_a_dead_bridge_fails_clearly_and_is_started_again(drive_v2, herdr_sim: HerdrSim, team, project):
    steps = [call("s1", action="peers"), {"kind": "kill-bridge"}, call("s1", action="peers")]
    results = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project)})["results"]
    assert "ok" in results[0] and results[1] == {"killed": True} and "ok" in results[2]


def test_a_send_costs_the_directory_rule_plus_the_send(drive_v2, herdr_sim: HerdrSim, team, project):
    steps = [call("s1"), call("s1", action="send", to="reviewer", message="hi")]
    drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project)})
    commands = [command[:2] for command in herdr_sim.log.commands()]
    send = commands[commands.index(("agent", "prompt")) - 4 :]
    # directory rule: self ∥ list; then the V1 send path: self ∥ target, then the prompt.
    assert sorted(send[:2]) == [("agent", "get"), ("agent", "list")]
    assert send[2:] == [("agent", "get"), ("agent", "get"), ("agent", "prompt")]
