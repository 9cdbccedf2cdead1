"""Spec statements that other tests verified only indirectly, each with a test that fails when it breaks."""

from pathlib import Path
from typing import Any

import pytest
from scripted_herdr import IN_PANE, agent, err, got, link, ok, scripted

from herdr_link_control import CallContext, Link, RunResult, _herdr_argv as commands, surface_violation
from herdr_link_protocol import AgentState, Cause, ErrorCode, LinkError, extract_envelope, parse_call
from herdr_link_testkit import HerdrSim

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
LIST = ("agent", "list")
SESSION_RULE = str(LinkError(Cause.SESSION_PANE_AMBIGUOUS))


def listing(*rows: dict[str, Any]) -> RunResult:
    return ok({"result": {"agents": list(rows), "type": "agent_list"}})


# ---- the command surface (spec §8) ---------------------------------------------------------------


def test_every_argv_the_builders_make_is_on_the_surface():
    built = [
        commands.agent_get("reviewer"),
        commands.agent_list(),
        commands.agent_prompt("reviewer", "--wait"),
        commands.agent_start("w", "pi", "w1:p3", ["--model", "m"]),
        commands.agent_start("w", "pi", "w1:p3", []),
        commands.agent_rename("w1:p1", "hl-0a1b2c3d"),
        commands.pane_close("w1:p2"),
        commands.pane_get("w1:p2"),
        commands.pane_list("w1"),
        commands.pane_split("w1:p2", "/proj"),
        commands.tab_create("w1", "/proj", None),
        commands.tab_create("w1", "/proj", "review"),
        commands.tab_close("w1:t2"),
    ]
    assert [surface_violation(argv) for argv in built] == [None] * len(built)


@pytest.mark.parametrize(
    "argv",
    [
        ["agent", "wait", "reviewer"],
        ["agent", "read", "reviewer"],
        ["agent", "prompt", "reviewer", "hi", "--wait"],
        ["agent", "rename", "w1:p2", "reviewer"],
        ["agent", "start", "w", "--kind", "pi", "--pane", "w1:p3"],
        ["pane", "send-text", "w1:p2", "x"],
        ["pane", "send-keys", "w1:p2", "Enter"],
        ["pane", "read", "w1:p2"],
        ["pane", "split", "w1:p2", "--direction", "down", "--cwd", "/p", "--no-focus"],
        ["pane", "split", "w1:p2", "--direction", "right", "--cwd", "/p"],
        ["tab", "create", "--workspace", "w1", "--cwd", "/p"],
        ["tab", "create", "--workspace", "w1", "--cwd", "/p", "--focus", "x", "--no-focus"],
        ["events", "subscribe"],
        ["workspace", "create"],
        ["pane", "close", "--current"],
    ],
)
def test_commands_outside_the_surface_are_named(argv):
    assert surface_violation(argv) is not None


# ---- the OpenCode 2 session rule ------------------------------------------------------------------


def _session(*rows: dict[str, Any]) -> Link:
    """A Link whose own pane (``w1:p1``) is not the caller's concern: the rule reads only the list."""
    return link(scripted({LIST: listing(*rows)}))


async def test_the_session_rule_finds_the_one_opencode_pane_in_the_directory(tmp_path: Path):
    rows = (
        agent("brain", pane="w1:p1", cwd=str(tmp_path / "elsewhere"), agent="opencode"),  # the process's own
        agent("coder", pane="w2:p3", ws="w2", cwd=str(tmp_path), agent="opencode"),
        agent("reviewer", pane="w2:p4", ws="w2", cwd=str(tmp_path), agent="codex"),  # not an OpenCode pane
    )
    assert await _session(*rows).session_pane(str(tmp_path)) == "w2:p3"


async def test_an_unlabelled_pane_counts(tmp_path: Path):
    assert await _session(agent("brain", pane="w1:p2", cwd=str(tmp_path))).session_pane(str(tmp_path)) == "w1:p2"


async def test_a_symlinked_directory_is_the_same_directory(tmp_path: Path):
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    row = agent("brain", cwd=str(tmp_path / "real"), agent="opencode")
    assert await _session(row).session_pane(str(tmp_path / "alias")) == "w1:p1"


@pytest.mark.parametrize(
    "case", ["no pane there", "an unlabelled pane makes two", "two opencode panes", "two workspaces", "no directory"]
)
async def test_the_session_rule_fails_closed(tmp_path: Path, case: str):
    project = str(tmp_path)
    rows = [agent("brain", cwd=project, agent="opencode")]
    directory: str | None = project
    if case == "no pane there":  # only the process's own pane is OpenCode, and it is elsewhere
        rows = [agent("brain", cwd=str(tmp_path / "elsewhere"), agent="opencode")]
    elif case == "an unlabelled pane makes two":
        rows.append(agent(None, pane="w1:p2", cwd=project))
    elif case == "two opencode panes":
        rows.append(agent("coder", pane="w1:p2", cwd=project, agent="opencode"))
    elif case == "two workspaces":
        rows.append(agent("coder", ws="w2", pane="w2:p5", cwd=project, agent="opencode"))
    else:
        directory = ""
    with pytest.raises(LinkError) as caught:
        await _session(*rows).session_pane(directory)
    assert str(caught.value) == SESSION_RULE
    assert "w2" not in str(caught.value) and "workspace" not in str(caught.value)


async def test_a_call_placed_by_the_rule_runs_as_that_pane_not_the_process_pane(tmp_path: Path):
    coder = agent("coder", ws="w2", pane="w2:p3", cwd=str(tmp_path), agent="opencode")
    runner = scripted(
        {
            LIST: listing(agent("brain", agent="opencode"), coder, agent("helper", ws="w2", pane="w2:p4")),
            ("agent", "get", "w2:p3"): got(coder),
        }
    )
    session = link(runner)
    pane = await session.session_pane(str(tmp_path))
    receipt = await session.run(parse_call("herdr_link_peers", {}, in_herdr=True), CallContext(caller_pane=pane))
    assert receipt.model_dump(mode="json", by_alias=True) == {
        "self": {"name": "coder", "state": "idle"},
        "peers": [{"name": "helper", "state": "idle"}],
    }
    assert ("agent", "get", "w1:p1") not in [tuple(c[:3]) for c in runner.calls]  # the process's pane: never


# ---- which code each lookup role earns, through the operations ------------------------------------


async def test_a_refused_agent_list_is_reported_as_such():
    runner = scripted({SELF: got(agent("brain")), LIST: err("internal_error")})
    with pytest.raises(LinkError) as caught:
        await link(runner).peers()
    assert str(caught.value) == str(LinkError(Cause.PEERS_REFUSED))


async def test_a_close_whose_own_record_is_refused_blames_the_caller_not_the_target():
    runner = scripted({SELF: err("internal_error"), ("agent", "get", "worker"): got(agent("worker", pane="w1:p3"))})
    with pytest.raises(LinkError) as caught:
        await link(runner).close("worker")
    assert str(caught.value) == (str(LinkError(Cause.CALLER_NOT_REPORTED)))
    assert not any(call[:2] == ("pane", "close") for call in runner.calls)


async def test_a_close_whose_own_record_has_no_workspace_blames_the_caller():
    runner = scripted(
        {SELF: got(agent("brain", ws="")), ("agent", "get", "worker"): got(agent("worker", pane="w1:p3"))}
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).close("worker")
    assert "own workspace" in str(caught.value)


async def test_a_prompt_herdr_refuses_with_internal_error_is_send_failed():
    runner = scripted(
        {
            SELF: got(agent("brain")),
            ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2")),
            ("agent", "prompt"): err("internal_error"),
        }
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hi")
    assert str(caught.value) == str(LinkError(Cause.SEND_REJECTED))


async def test_a_target_record_under_another_name_is_not_that_peer():
    runner = scripted({SELF: got(agent("brain")), ("agent", "get", "reviewer"): got(agent("impostor", pane="w1:p2"))})
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hi")
    assert caught.value.code is ErrorCode.PEER_NOT_FOUND
    assert not any(call[:2] == ("agent", "prompt") for call in runner.calls)


async def test_an_agent_get_reply_without_an_agent_is_not_in_herdr():
    runner = scripted({SELF: ok({"result": {"type": "agent_info"}}), LIST: listing()})
    with pytest.raises(LinkError) as caught:
        await link(runner).peers()
    assert caught.value.code is ErrorCode.NOT_IN_HERDR


def test_an_agent_list_reply_with_top_level_agents_is_read():
    rows = commands.parse_agent_rows({"agents": [agent("a"), agent("b", pane="w1:p2"), "junk"]})
    assert [row.name for row in rows] == ["a", "b"]


async def test_peers_drops_our_own_pane_under_another_name_and_our_name_on_another_pane():
    runner = scripted(
        {
            SELF: got(agent("brain")),
            LIST: listing(
                agent("brain"),
                agent("stale", pane="w1:p1"),  # our pane, another name: still us
                agent("brain", pane="w1:p9"),  # our name on another pane: not a peer
                agent("reviewer", pane="w1:p2"),
            ),
        }
    )
    receipt = await link(runner).peers()
    assert [peer.name for peer in receipt.peers] == ["reviewer"]


# ---- statements about what is never needed --------------------------------------------------------


async def test_explicit_start_never_reads_the_configuration(herdr_sim: HerdrSim, tmp_path: Path):
    (tmp_path / ".agents").mkdir()
    (tmp_path / ".agents" / "agent_config.json").write_text("{ this is not json")
    brain = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(brain, "claude", name="brain")
    receipt = await Link(herdr_sim.env(brain), pane_evidence=IN_PANE).start(
        {"name": "worker", "kind": "pi", "args": []}
    )
    assert receipt.to_json() == '{"status":"started","agent":"worker","kind":"pi"}'


@pytest.mark.parametrize("state", [AgentState.BLOCKED, AgentState.WORKING, AgentState.DONE, AgentState.UNKNOWN])
async def test_send_and_close_never_depend_on_the_targets_state(herdr_sim: HerdrSim, tmp_path: Path, state):
    brain = herdr_sim.create_workspace(str(tmp_path))
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "claude", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    herdr_sim.set_status(reviewer, state.value)
    subject = Link(herdr_sim.env(brain), pane_evidence=IN_PANE)
    if state is AgentState.BLOCKED:  # Link does not look: Herdr itself refuses a prompt to a blocked agent
        with pytest.raises(LinkError) as caught:
            await subject.send("reviewer", "while blocked")
        assert str(caught.value) == str(LinkError(Cause.SEND_TARGET_BLOCKED))
        assert herdr_sim.log.commands()[-1][:3] == ("agent", "prompt", reviewer)
    else:
        await subject.send("reviewer", f"while {state.value}")
        [delivery] = herdr_sim.deliveries(reviewer)
        envelope = extract_envelope(delivery.text)
        assert envelope is not None and envelope.message == f"while {state.value}"
    assert (await subject.close("reviewer")).to_json() == '{"status":"closed","agent":"reviewer"}'
    assert not herdr_sim.exists(reviewer)
