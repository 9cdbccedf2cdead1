"""The generated OpenCode 2 bundle (experimental) under Node with a fake V2 plugin context, end to end
against the simulated Herdr: no-op outside Herdr, a direct tool, per-session activation, the contract
only in active sessions, the tool hidden from sessions the directory rule cannot place, the rule with
zero, one and two matching panes, one server serving several panes' sessions, dispatch and errors.
"""

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from herdr_link_control import surface_violation
from herdr_link_opencode_bridge import OPENCODE_V2_SETUP
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


def test_outside_herdr_it_registers_nothing_spawns_nothing_and_tells_the_user(drive_v2, tmp_path):
    # A shared OpenCode 2 server started outside Herdr serves every pane's sessions: none gets the tool,
    # and the server's own output (the user's, never a model's) names the set-up that works.
    report = drive_v2({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, [], {})
    assert report["exports"] == ["default"] and report["id"] == "herdr-link"
    assert report["tools"] == [] and report["hooks"] == [] and report["transforms"] == 0
    assert report["cleanup"] == "undefined"
    assert not (tmp_path / "bridge.pid").exists()
    assert "started outside Herdr" in report["stderr"] and OPENCODE_V2_SETUP in report["stderr"]


def test_one_tool_through_transform_one_context_hook_and_a_cleanup(drive_v2, herdr_sim: HerdrSim, team, project):
    report = drive_v2(herdr_sim.env(team[0]), [], {"s1": at(project)})
    assert report["tools"] == ["herdr_link"] and report["transforms"] == 1
    assert report["hooks"] == ["context", "compaction", "generate"]
    assert report["cleanup"] == "function" and report["disposed"] == 4  # every registration released
    assert report["description"] == TOOL_SPECS["herdr_link"].description
    # A direct tool with its own permission key: OpenCode 2 puts every other tool in Code Mode.
    assert report["options"] == {"codemode": False, "permission": "herdr_link"}
    schema = report["input"]
    assert schema == link_data()["dispatcher"]["input"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert list(schema["properties"]) == [
        "action", "arguments", "to", "message", "agent", "name", "with", "cwd", "config_agent", "kind", "args"
    ]  # fmt: skip
    assert schema["properties"]["arguments"]["type"] == "object"
    assert schema["properties"]["action"]["enum"] == ["start", "peers", "send", "close", "activate", None]
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
    assert results[7] == {"system": [BASE], "hidden": True}  # no session id: no tool, nothing
    assert "ok" in results[8] and results[9] == {"system": [BASE, PRESENTATION]}  # any action activates


def test_the_directory_is_compared_after_resolving_symlinks(drive_v2, herdr_sim: HerdrSim, team, project, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(project)
    sessions = {"s1": at(link), "s3": {"directory": str(project)}}
    steps = [call("s1", action="peers"), call("s3", action="peers")]
    results = drive_v2(herdr_sim.env(team[0]), steps, sessions)["results"]
    assert all("ok" in result for result in results), results


def test_a_session_in_a_subdirectory_is_placed_by_its_own_folder(drive_v2, herdr_sim: HerdrSim, project):
    # OpenCode 2: location.directory is the session's own folder; subpath is that folder relative to the
    # project root (so joining the two names a folder that does not exist).
    app = project / "app"
    app.mkdir()
    pane = herdr_sim.create_workspace(str(app))
    herdr_sim.add_agent(pane, "opencode", name="appdev")
    sessions = {"s1": at(app, subpath="app")}
    results = drive_v2(herdr_sim.env(pane), [call("s1", action="peers")], sessions)["results"]
    assert json.loads(results[0]["ok"])["self"] == {"name": "appdev", "state": "idle"}


@pytest.mark.parametrize("form", [{}, {"action": "activate"}, {"action": None}, {"action": None, "arguments": {}}])
def test_every_activation_form_passes_opencodes_input_check_and_activates(
    drive_v2, herdr_sim: HerdrSim, team, project, form
):
    # OpenCode 2 checks a tool's input against its JSON Schema before the plugin sees it.
    schema = link_data()["dispatcher"]["input"]
    jsonschema.Draft202012Validator(schema).validate(form)
    results = drive_v2(herdr_sim.env(team[0]), [call("s1", raw=form), context("s1")], {"s1": at(project)})["results"]
    assert results == [{"ok": ACTIVE}, {"system": [BASE, PRESENTATION]}]


def test_the_input_check_still_refuses_what_the_protocol_does_not_know():
    schema = link_data()["dispatcher"]["input"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate({"action": "teleport"})


def test_no_instance_bootstraps_the_unnamed_pane_that_started_the_server(drive_v2, herdr_sim: HerdrSim, project):
    host = herdr_sim.create_workspace(str(project.parent))
    herdr_sim.add_agent(host, "claude")  # unnamed, in the pane the shared server was started from
    brain = herdr_sim.split(host, cwd=str(project))
    herdr_sim.add_agent(brain, "opencode")  # unnamed: the session's own pane gets the name
    results = drive_v2(herdr_sim.env(host), [call("s1", action="peers")], {"s1": at(project)})["results"]
    me = json.loads(results[0]["ok"])["self"]["name"]
    assert herdr_sim.name_of(brain) == me and me.startswith("hl-")
    assert herdr_sim.name_of(host) is None
    assert not [c for c in herdr_sim.log.commands() if c[:2] == ("agent", "rename") and c[2] == host]


@pytest.mark.parametrize("kind", ["compaction", "generate"])
def test_every_request_kind_of_an_unplaced_session_hides_the_tool(drive_v2, herdr_sim: HerdrSim, team, tmp_path, kind):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sessions = {"s1": at(elsewhere), "s2": at(herdr_sim.agent("brain")["cwd"])}
    steps = [{"kind": kind, "session": "s1"}, {"kind": kind, "session": "s2"}]
    results = drive_v2(herdr_sim.env(team[0]), steps, sessions)["results"]
    assert results == [{"system": [BASE], "hidden": True}, {"system": [BASE]}]  # no contract outside context


class TestAUserActsInHerdrBetweenRequests:
    """The user (not Link) runs Herdr's own commands mid-scenario, so ``pane report-agent`` (how Herdr's own
    tests start an agent) is allowed here beside spec §8's surface."""

    @pytest.fixture
    def herdr_command_policy(self) -> Callable[[Sequence[str]], str | None]:
        return lambda argv: None if tuple(argv[:2]) == ("pane", "report-agent") else surface_violation(argv)

    def test_a_session_whose_pane_closed_is_refused_and_never_placed_elsewhere(
        self, drive_v2, herdr_sim: HerdrSim, team, project
    ):
        brain, reviewer = team
        later = herdr_sim.create_workspace(str(project))  # another workspace's shell, in the same folder
        steps = [
            call("s1", action="peers"),
            {"kind": "herdr", "argv": ["pane", "close", brain]},  # the session's pane closes
            # an OpenCode then starts in the other workspace's pane in the same folder
            {
                "kind": "herdr",
                "argv": [
                    "pane",
                    "report-agent",
                    later,
                    "--source",
                    "custom:test",
                    "--agent",
                    "opencode",
                    "--state",
                    "idle",
                ],
            },  # fmt: skip
            call("s1", action="peers"),
            call("s1", action="send", to="reviewer", message="x"),
            context("s1"),
        ]
        results = drive_v2(herdr_sim.env(brain), steps, {"s1": at(project)})["results"]
        assert json.loads(results[0]["ok"])["self"]["name"] == "brain"
        assert results[1] == {"herdr": 0} and results[2] == {"herdr": 0}
        left = str(LinkError(Cause.SESSION_PANE_LEFT))
        assert results[3] == {"error": left} and results[4] == {"error": left}
        assert results[5] == {"system": [BASE], "hidden": True}
        assert herdr_sim.deliveries(reviewer) == [] and herdr_sim.name_of(later) is None  # nothing as the newcomer


def test_zero_matching_panes_fail_closed_and_do_not_activate(drive_v2, herdr_sim: HerdrSim, team, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    steps = [call("s1"), context("s1"), call("s1", action="send", to="reviewer", message="hi"), call("ghost")]
    report = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(elsewhere)})
    results = report["results"]
    assert results[0] == {"error": UNRESOLVED}
    assert results[1] == {"system": [BASE], "hidden": True}  # the model is not offered the tool at all
    assert results[2] == {"error": UNRESOLVED} and herdr_sim.deliveries(team[1]) == []
    assert results[3] == {"error": UNRESOLVED}  # session.get failed: fail closed as well
    assert report["gets"] == ["s1", "s1", "s1", "ghost"]  # resolved on every call and every request


def test_a_bridge_that_cannot_start_hides_nothing_and_every_call_says_so(drive_v2, herdr_sim: HerdrSim, team, project):
    env = {**herdr_sim.env(team[0]), "HERDR_LINK_BRIDGE": json.dumps(["/nonexistent/herdr-link-bridge"])}
    report = drive_v2(env, [context("s1"), call("s1", action="peers")], {"s1": at(project)})
    assert report["results"][0] == {"system": [BASE]}  # not refused by the rule: the tool stays offered
    assert report["results"][1] == {"error": link_data()["errors"]["unavailable"]}


def test_a_codex_pane_in_the_same_directory_does_not_count(drive_v2, herdr_sim: HerdrSim, team, project):
    # team's reviewer is a Codex pane in the same directory: still exactly one OpenCode pane.
    results = drive_v2(herdr_sim.env(team[0]), [call("s1", action="peers")], {"s1": at(project)})["results"]
    assert json.loads(results[0]["ok"])["self"] == {"name": "brain", "state": "idle"}


def test_two_opencode_agents_started_with_each_other_share_a_directory_so_only_new_sessions_fail_closed(
    drive_v2, herdr_sim: HerdrSim, team, project
):
    steps = [
        call("s1", action="start", name="twin", kind="opencode", args=[], **{"with": "brain"}),
        call("s1", action="peers"),
        call("s2", action="peers"),
        call("s2"),
    ]
    results = drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project), "s2": at(project)})["results"]
    assert json.loads(results[0]["ok"]) == {"status": "started", "agent": "twin", "kind": "opencode"}
    assert herdr_sim.agent("twin")["cwd"] == str(project)
    # s1 was placed on brain before the twin came: it stays there; a session placed now cannot be
    assert json.loads(results[1]["ok"])["self"]["name"] == "brain"
    assert results[2] == {"error": UNRESOLVED} and results[3] == {"error": UNRESOLVED}


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


def test_a_send_costs_the_sessions_pane_check_plus_the_send(drive_v2, herdr_sim: HerdrSim, team, project):
    steps = [call("s1"), call("s1", action="send", to="reviewer", message="hi")]
    drive_v2(herdr_sim.env(team[0]), steps, {"s1": at(project)})
    commands = [command[:2] for command in herdr_sim.log.commands()]
    assert commands[0] == ("agent", "list")  # the activation placed the session by its directory, once
    send = commands[commands.index(("agent", "prompt")) - 3 :]
    # the pane it was placed on still holds it; the send as that pane: one list (caller and target), the target
    # pinned, the prompt
    assert send == [("agent", "get"), ("agent", "list"), ("agent", "get"), ("agent", "prompt")]


@pytest.fixture
def shared(herdr_sim: HerdrSim, tmp_path: Path, project: Path) -> dict[str, str]:
    """One OpenCode 2 server for three OpenCode panes: started in ``host`` (workspace 1, its own
    directory), it serves ``brain`` (workspace 1, ``project``, beside the Codex ``reviewer``) and
    ``coder`` (workspace 2, ``other``, beside the Claude ``helper``)."""
    other = tmp_path / "other"
    other.mkdir()
    (tmp_path / "home").mkdir()
    host = herdr_sim.create_workspace(str(tmp_path / "home"))
    herdr_sim.add_agent(host, "opencode", name="host")
    brain = herdr_sim.split(host, cwd=str(project))
    herdr_sim.add_agent(brain, "opencode", name="brain")
    reviewer = herdr_sim.split(brain, cwd=str(project))
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    coder = herdr_sim.create_workspace(str(other))
    herdr_sim.add_agent(coder, "opencode", name="coder")
    helper = herdr_sim.split(coder, cwd=str(other))
    herdr_sim.add_agent(helper, "claude", name="helper")
    return {"host": host, "brain": brain, "reviewer": reviewer, "coder": coder, "helper": helper, "other": str(other)}


def test_a_server_shared_by_panes_answers_each_session_as_its_own_pane(drive_v2, herdr_sim: HerdrSim, shared, project):
    steps = [
        call("s1", action="peers"),
        call("s2", action="peers"),
        call("s1", action="send", to="reviewer", message="from brain"),
        call("s2", action="send", to="helper", message="from coder"),
        call("s2", action="send", to="reviewer", message="across workspaces"),
    ]
    sessions = {"s1": at(project), "s2": at(shared["other"])}
    results = drive_v2(herdr_sim.env(shared["host"]), steps, sessions)["results"]  # the server's env: host's
    assert json.loads(results[0]["ok"]) == {
        "self": {"name": "brain", "state": "idle"},
        "peers": [{"name": "host", "state": "idle"}, {"name": "reviewer", "state": "idle"}],
    }
    assert json.loads(results[1]["ok"]) == {
        "self": {"name": "coder", "state": "idle"},
        "peers": [{"name": "helper", "state": "idle"}],
    }
    [to_reviewer] = herdr_sim.deliveries(shared["reviewer"])
    [to_helper] = herdr_sim.deliveries(shared["helper"])
    assert extract_envelope(to_reviewer.text).from_ == "brain"  # type: ignore[union-attr]
    assert extract_envelope(to_helper.text).from_ == "coder"  # type: ignore[union-attr]
    assert results[4] == {"error": str(LinkError(Cause.NOT_A_PEER))}  # coder's workspace has no reviewer


def test_a_shared_server_never_answers_a_session_as_the_pane_that_started_it(
    drive_v2, herdr_sim: HerdrSim, shared, tmp_path
):
    # A session whose directory is no OpenCode pane's (a client outside Herdr, say) is refused and not
    # offered the tool, although the server's own HERDR_PANE_ID (host's) is a live, named OpenCode pane.
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    steps = [context("s9"), call("s9"), call("s9", action="send", to="host", message="x")]
    results = drive_v2(herdr_sim.env(shared["host"]), steps, {"s9": at(nowhere)})["results"]
    assert results == [{"system": [BASE], "hidden": True}, {"error": UNRESOLVED}, {"error": UNRESOLVED}]
    assert all(herdr_sim.deliveries(pane) == [] for pane in shared.values() if pane.startswith("w"))


def test_one_directory_in_two_workspaces_is_refused_without_naming_either(
    drive_v2, herdr_sim: HerdrSim, shared, project
):
    twin = herdr_sim.create_workspace(str(project))
    herdr_sim.add_agent(twin, "opencode", name="twin")
    results = drive_v2(herdr_sim.env(shared["host"]), [call("s1", action="peers")], {"s1": at(project)})["results"]
    assert results == [{"error": UNRESOLVED}]
    assert "workspace" not in UNRESOLVED
