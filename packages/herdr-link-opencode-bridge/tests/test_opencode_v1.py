"""The generated OpenCode 1.x bundle under Node with a fake plugin context, against the simulated Herdr.

Covers the TypeScript ``opencode.test.ts`` list and more: the bridge's real process, stray fields,
bridge crash and restart.
"""

import json
from pathlib import Path

import pytest

from herdr_link_protocol import (
    COMMUNICATION_CONTRACT,
    Cause,
    LinkError,
    PresentationForm,
    active_presentation,
    extract_envelope,
)
from herdr_link_testkit import HerdrSim

ACTIVE = '{"status":"active","capabilities":["start","peers","send","close"]}'
PRESENTATION = active_presentation(PresentationForm.GATEWAY_DISPATCH)


@pytest.fixture
def team(herdr_sim: HerdrSim, tmp_path):
    brain = herdr_sim.create_workspace(str(tmp_path))
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "opencode", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    return brain, reviewer


def call(session: str = "s1", **args: object) -> dict[str, object]:
    return {"kind": "call", "session": session, "args": args}


def test_outside_herdr_it_does_nothing_and_spawns_nothing(drive, tmp_path):
    report = drive({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, [])
    assert report["hooks"] == [] and report["tools"] == []
    assert not (tmp_path / "bridge.pid").exists()


def test_one_default_export_one_tool_and_the_documented_args(drive, herdr_sim: HerdrSim, team):
    report = drive(herdr_sim.env(team[0]), [])
    assert report["exports"] == ["default"] and report["id"] == "herdr-link"
    assert report["tools"] == ["herdr_link"]
    assert report["hooks"] == ["dispose", "experimental.chat.system.transform", "tool"]
    assert report["argKeys"] == [
        "action",
        "arguments",
        "to",
        "message",
        "agent",
        "name",
        "with",
        "cwd",
        "config_agent",
        "kind",
        "args",
    ]


def test_activation_is_idempotent_per_session_and_the_contract_follows_it(drive, herdr_sim: HerdrSim, team):
    steps = [
        {"kind": "system", "session": "s1"},
        call("s1"),
        call("s1"),
        {"kind": "system", "session": "s1"},
        {"kind": "system", "session": "s1"},
        {"kind": "system", "session": "s1"},
        {"kind": "system", "session": "s2"},
        {"kind": "system", "session": None},
        call("s1", action="activate"),
    ]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert results[0]["system"] == ["You are OpenCode."]
    assert results[1] == {"ok": ACTIVE} and results[2] == {"ok": ACTIVE}
    for index in (3, 4, 5):  # three consecutive requests of the active session: exactly one copy each
        assert results[index]["system"] == ["You are OpenCode.", PRESENTATION]
        assert results[index]["system"][1].startswith(COMMUNICATION_CONTRACT)
    assert results[6]["system"] == ["You are OpenCode."]  # another session stays dormant
    assert results[7]["system"] == ["You are OpenCode."]  # no session id: fail closed
    assert results[8] == {"ok": ACTIVE}  # "activate" is {} (PROTOCOL.md §4.1), which the schema admits


def test_every_action_dispatches_to_the_control_layer(drive, herdr_sim: HerdrSim, team, tmp_path):
    brain, reviewer = team
    steps = [
        call("s1", action="peers"),
        call("s1", action="send", to="reviewer", message="please review"),
        call("s1", action="start", name="worker", kind="pi", args=["--model", "x"]),
        call("s1", action="close", agent="worker"),
        {"kind": "system", "session": "s1"},
    ]
    results = drive(herdr_sim.env(brain), steps, directory=str(tmp_path))["results"]
    assert json.loads(results[0]["ok"]) == {
        "self": {"name": "brain", "state": "idle"},
        "peers": [{"name": "reviewer", "state": "idle"}],
    }
    sent = json.loads(results[1]["ok"])
    envelope = extract_envelope(herdr_sim.deliveries(reviewer)[0].text)
    assert envelope is not None and envelope.id == sent["id"] and envelope.message == "please review"
    assert json.loads(results[2]["ok"]) == {"status": "started", "agent": "worker", "kind": "pi"}
    assert json.loads(results[3]["ok"]) == {"status": "closed", "agent": "worker"}
    assert results[4]["system"][1] == PRESENTATION  # any action also activates the session
    assert (
        "agent",
        "start",
        "worker",
        "--kind",
        "pi",
        "--pane",
        "w1:p3",
        "--",
        "--model",
        "x",
    ) in herdr_sim.log.commands()


def test_configured_start_reads_the_sessions_directory(drive, herdr_sim: HerdrSim, team, tmp_path):
    project = tmp_path / "project"
    (project / ".agents").mkdir(parents=True)
    (project / ".agents" / "agent_config.json").write_text(
        json.dumps(
            {
                "agents": {
                    "helper": {"placement": {"mode": "new_tab", "label": "help"}, "variants": [{"kind": "claude"}]}
                }
            }
        )
    )
    steps = [
        {
            "kind": "call",
            "session": "s1",
            "directory": str(project),
            "args": {"action": "start", "name": "aide", "config_agent": "helper"},
        }
    ]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert json.loads(results[0]["ok"]) == {"status": "started", "agent": "aide", "kind": "claude"}
    assert herdr_sim.agent("aide")["cwd"] == str(project)


def test_the_nested_form_the_contract_teaches_is_delivered(drive, herdr_sim: HerdrSim, team):
    steps = [
        call("s1", action="send", arguments={"to": "reviewer", "message": "nested", "wait_for_previous": True}),
        call("s1", action="peers", arguments={}),
    ]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert json.loads(results[0]["ok"])["status"] == "sent"
    assert json.loads(results[1]["ok"])["self"]["name"] == "brain"
    [delivery] = herdr_sim.deliveries(team[1])
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and (envelope.from_, envelope.message) == ("brain", "nested")


def test_fields_of_another_action_are_dropped(drive, herdr_sim: HerdrSim, team):
    steps = [
        call("s1", action="send", to="reviewer", message="hi", agent="someone", name="x"),
        call("s1", action="start", name="w2", kind="pi", args=[], to="reviewer", message="m"),
        call("s1", action="peers", to="reviewer"),
    ]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert json.loads(results[0]["ok"])["status"] == "sent"
    assert json.loads(results[1]["ok"])["status"] == "started"
    assert "ok" in results[2]


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ({"action": "send", "to": "ghost", "message": "x"}, str(LinkError(Cause.NOT_A_PEER))),
        ({"action": "send", "to": "reviewer"}, 'SEND_FAILED: "message" must be a string'),
        ({"action": "send", "message": "x"}, 'PEER_NOT_FOUND: "to" must be an Agent Name'),
        ({"action": "close"}, 'PEER_NOT_FOUND: "agent" must be an Agent Name'),
        ({"action": "start", "name": "w"}, str(LinkError(Cause.START_MODE_MISSING))),
        (
            {"action": "start", "name": "w", "config_agent": "x"},
            str(LinkError(Cause.CONFIG_NOT_FOUND)),
        ),
    ],
)
def test_errors_carry_the_protocols_codes_and_texts(drive, herdr_sim: HerdrSim, team, args, text, tmp_path):
    results = drive(herdr_sim.env(team[0]), [call("s1", **args)], directory=str(tmp_path))["results"]
    assert results == [{"error": text}]


def test_losing_herdr_mid_session_is_not_in_herdr(drive, herdr_sim: HerdrSim, team):
    env = herdr_sim.env(team[0])
    herdr_sim.remove_binary()
    results = drive(env, [call("s1", action="peers")])["results"]
    assert results == [{"error": str(LinkError(Cause.HERDR_UNREACHABLE))}]


def test_a_dead_bridge_fails_clearly_and_is_started_again(drive, herdr_sim: HerdrSim, team):
    steps = [call("s1", action="peers"), {"kind": "kill-bridge"}, call("s1", action="peers")]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert "ok" in results[0] and results[1] == {"killed": True}
    assert "ok" in results[2]  # the next call started a new bridge


def test_a_missing_bridge_is_an_agent_facing_error(plugin_dir: Path, herdr_sim: HerdrSim, team):
    import subprocess

    env = {**herdr_sim.env(team[0]), "HERDR_LINK_BRIDGE": '["/no/such/herdr-link-bridge"]'}
    scenario = json.dumps({"directory": "/tmp", "steps": [call("s1", action="peers"), call("s1")]})
    done = subprocess.run(
        ["node", str(Path(__file__).parent / "node" / "opencode_v1_driver.mjs"), str(plugin_dir / "herdr-link.js")],
        input=scenario,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    results = json.loads(done.stdout)["results"]
    assert results[0] == {"error": str(LinkError(Cause.BRIDGE_UNAVAILABLE))}
    assert results[1] == {"ok": ACTIVE}  # activation needs no bridge
