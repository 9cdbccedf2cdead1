"""peers, send and close with scripted Herdr replies (TypeScript herdr.test.ts cases 1-8, 23-27)."""

import json
from typing import Any

import anyio
import pytest
from scripted_herdr import IN_PANE, agent, err, got, link, ok, scripted

from herdr_link_control import Link, RunResult, ScriptedRunner, SpawnFailed
from herdr_link_protocol import (
    WRAPPER_HEADER,
    AgentState,
    Cause,
    ErrorCode,
    InvalidToolCall,
    LinkError,
    extract_envelope,
)

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
BRAIN = got(agent("brain", status="working"))
REVIEWER = got(agent("reviewer", pane="w1:p2"))
LIST = ("agent", "list")


def listing(*rows: dict[str, Any]) -> RunResult:
    return ok({"id": "cli:agent:list", "result": {"agents": list(rows), "type": "agent_list"}})


async def test_peers_lists_only_live_named_same_workspace_agents_in_order():
    runner = scripted(
        {
            SELF: BRAIN,
            LIST: listing(
                agent("brain", status="working"),
                agent("reviewer", pane="w1:p2", status="idle"),
                agent(None, pane="w1:p3"),
                agent("Invalid Name", pane="w1:p4"),
                agent("other", ws="w2", pane="w2:p1"),
                agent("dup", ws="w2", pane="w2:p2"),  # a foreign row must not hide the valid one below
                agent("dup", pane="w1:p5", status="on_fire"),
                agent("noworkspace", ws="", pane="w1:p6"),
                agent("tester", pane="w1:p7", status="done"),
            ),
        }
    )
    receipt = await link(runner).peers()
    assert receipt.to_json() == json.dumps(
        {
            "self": {"name": "brain", "state": "working"},
            "peers": [
                {"name": "reviewer", "state": "idle"},
                {"name": "dup", "state": "unknown"},
                {"name": "tester", "state": "done"},
            ],
        },
        separators=(",", ":"),
    )
    assert sorted(runner.calls) == [SELF, LIST]


async def test_peers_of_a_caller_without_a_workspace_is_empty():
    runner = scripted({SELF: got(agent("brain", ws="")), LIST: listing(agent("reviewer", ws=""))})
    assert (await link(runner).peers()).peers == ()


async def test_peers_looks_up_self_and_the_list_concurrently():
    both_started = anyio.Event()
    started: list[str] = []

    async def answer(argv, value):
        started.append(argv[1])
        if len(started) == 2:
            both_started.set()
        with anyio.fail_after(5):
            await both_started.wait()
        return value

    runner = ScriptedRunner(lambda argv: answer(argv, BRAIN if argv[1] == "get" else listing()))
    await link(runner).peers()  # would time out if the two calls ran one after the other
    assert sorted(started) == ["get", "list"]


async def test_send_delivers_the_wrapper_as_one_argument_without_wait():
    runner = scripted({SELF: BRAIN, ("agent", "get", "reviewer"): REVIEWER, ("agent", "prompt"): ok({"result": {}})})
    receipt = await link(runner).send("reviewer", "please review the design")
    prompt = runner.calls[-1]
    assert prompt[:3] == ("agent", "prompt", "w1:p2") and len(prompt) == 4 and "--wait" not in prompt
    assert prompt[3].startswith(WRAPPER_HEADER)
    envelope = extract_envelope(prompt[3])
    assert envelope is not None and (envelope.from_, envelope.to, envelope.message) == (
        "brain",
        "reviewer",
        "please review the design",
    )
    assert receipt.to_json() == json.dumps(
        {"status": "sent", "id": envelope.id, "to": "reviewer"}, separators=(",", ":")
    )
    assert runner.calls[:2] == [LIST, ("agent", "get", "w1:p2")]  # one list shows caller and target; the pin


async def test_send_to_another_workspace_is_indistinguishable_from_a_missing_peer():
    texts = set()
    for target in (
        got(agent("reviewer", ws="w2")),
        got(agent("reviewer", ws="")),
        err("agent_not_found"),
        got(agent("someone-else")),
    ):
        runner = scripted({SELF: BRAIN, ("agent", "get", "reviewer"): target})
        with pytest.raises(LinkError) as caught:
            await link(runner).send("reviewer", "hi")
        texts.add(str(caught.value))
        assert not any(c[:2] == ("agent", "prompt") for c in runner.calls)
    assert texts == {str(LinkError(Cause.NOT_A_PEER))}


@pytest.mark.parametrize("to", ["BadName", "", "w1:p2", "a" * 33])
async def test_an_invalid_recipient_makes_no_herdr_call(to):
    runner = scripted({})
    with pytest.raises(LinkError) as caught:
        await link(runner).send(to, "hi")
    assert caught.value.code is ErrorCode.PEER_NOT_FOUND and runner.calls == []


@pytest.mark.parametrize("message", ["", "   ", "\t\n", "\u3000\ufeff"])
async def test_a_blank_message_is_refused_after_resolution_and_nothing_is_delivered(message):
    runner = scripted({SELF: BRAIN, ("agent", "get", "reviewer"): REVIEWER})
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", message)
    assert str(caught.value) == str(LinkError(Cause.MESSAGE_EMPTY))
    assert runner.calls == [LIST]


async def test_the_size_limit_is_exact_at_the_boundary():
    runner = scripted({SELF: BRAIN, ("agent", "get", "reviewer"): REVIEWER, ("agent", "prompt"): ok({})})
    probe = Link(
        {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/b", "HERDR_PANE_ID": "w1:p1"},
        runner=runner,
        delivery_limit=10**6,
        pane_evidence=IN_PANE,
    )
    await probe.send("reviewer", "x")
    overhead = len(runner.calls[-1][3].encode()) - 1
    limit = 1000
    bounded = Link(
        {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/b", "HERDR_PANE_ID": "w1:p1"},
        runner=runner,
        delivery_limit=limit,
        pane_evidence=IN_PANE,
    )
    await bounded.send("reviewer", "y" * (limit - overhead))  # exactly at the limit: delivered
    assert len(runner.calls[-1][3].encode()) == limit
    prompts_before = sum(c[:2] == ("agent", "prompt") for c in runner.calls)
    with pytest.raises(LinkError) as caught:
        await bounded.send("reviewer", "y" * (limit - overhead + 1))
    assert str(caught.value) == "SEND_FAILED: message exceeds 1000 bytes once wrapped for delivery"
    assert sum(c[:2] == ("agent", "prompt") for c in runner.calls) == prompts_before


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        (err("agent_blocked"), ErrorCode.SEND_FAILED),
        (err("agent_not_ready"), ErrorCode.SEND_FAILED),
        (err("agent_prompt_failed"), ErrorCode.SEND_FAILED),
        (err("agent_not_found"), ErrorCode.PEER_NOT_FOUND),
        (TimeoutError(), ErrorCode.NOT_IN_HERDR),
        (SpawnFailed(2, "gone"), ErrorCode.NOT_IN_HERDR),
        (RunResult(0, "", ""), ErrorCode.NOT_IN_HERDR),
    ],
)
async def test_prompt_failures_keep_their_classification(failure, code):
    runner = scripted({SELF: BRAIN, ("agent", "get", "reviewer"): REVIEWER, ("agent", "prompt"): failure})
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hi")
    assert caught.value.code is code


async def test_a_timed_out_send_says_it_may_have_been_delivered():
    runner = scripted({SELF: BRAIN, ("agent", "get", "reviewer"): REVIEWER, ("agent", "prompt"): TimeoutError()})
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hi")
    assert str(caught.value) == str(LinkError(Cause.SEND_TIMEOUT))
    assert sum(c[:2] == ("agent", "prompt") for c in runner.calls) == 1  # never retried


async def test_close_resolves_the_current_pane_and_closes_it():
    runner = scripted(
        {
            SELF: got(agent()),
            ("agent", "get", "worker-a"): got(agent("worker-a", pane="w1:p9")),
            ("pane", "close"): ok({"result": {"type": "ok"}}),
        }
    )
    receipt = await link(runner).close("worker-a")
    assert receipt.to_json() == '{"status":"closed","agent":"worker-a"}'
    assert runner.calls[-1] == ("pane", "close", "w1:p9")
    assert sorted(runner.calls[:2]) == [("agent", "get", "w1:p1"), ("agent", "get", "worker-a")]


async def test_close_needs_no_caller_name_and_never_bootstraps():
    runner = scripted(
        {SELF: got(agent(None)), ("agent", "get", "w"): got(agent("w", pane="w1:p2")), ("pane", "close"): ok({})}
    )
    await link(runner).close("w")
    assert not any(c[:2] == ("agent", "rename") for c in runner.calls)


@pytest.mark.parametrize(
    ("table", "code"),
    [
        ({("agent", "get", "w"): got(agent("w", ws="w2"))}, ErrorCode.PEER_NOT_FOUND),
        ({("agent", "get", "w"): err("agent_not_found")}, ErrorCode.PEER_NOT_FOUND),
        ({("agent", "get", "w"): RunResult(1, '{"error":{"code":"agent_not_found"}}', "")}, ErrorCode.PEER_NOT_FOUND),
        ({("agent", "get", "w"): got(agent("w", pane=""))}, ErrorCode.PEER_NOT_FOUND),
        (
            {("agent", "get", "w"): got(agent("w", pane="w1:p2")), ("pane", "close"): err("pane_not_found")},
            ErrorCode.CLOSE_FAILED,
        ),
        (
            {("agent", "get", "w"): got(agent("w", pane="w1:p2")), ("pane", "close"): TimeoutError()},
            ErrorCode.NOT_IN_HERDR,
        ),
    ],
)
async def test_close_failures(table, code):
    runner = scripted({SELF: got(agent("brain")), **table})
    with pytest.raises(LinkError) as caught:
        await link(runner).close("w")
    assert caught.value.code is code


async def test_outside_herdr_nothing_runs():
    runner = scripted({})
    for environ in (
        {},
        {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/b"},
        {"HERDR_ENV": "0", "HERDR_BIN_PATH": "/b", "HERDR_PANE_ID": "w1:p1"},
    ):
        subject = Link(environ, runner=runner)
        assert not subject.in_herdr
        for call in (subject.peers(), subject.send("a", "b"), subject.close("a"), subject.start({})):
            with pytest.raises(LinkError) as caught:
                await call
            assert str(caught.value) == str(LinkError(Cause.ENVIRONMENT_MISSING))
        assert await subject.bootstrap() is None
    assert runner.calls == []


async def test_call_validates_arguments_with_the_protocol_table():
    runner = scripted({})
    subject = link(runner)
    for tool, arguments, code in [
        ("herdr_link_send", {"message": "x"}, ErrorCode.PEER_NOT_FOUND),
        ("herdr_link_send", {"to": "b", "message": 3}, ErrorCode.SEND_FAILED),
        ("herdr_link_close", {}, ErrorCode.PEER_NOT_FOUND),
        ("herdr_link_start", {"name": "w", "pane": "w1:p2"}, ErrorCode.START_INPUT_INVALID),
    ]:
        with pytest.raises(LinkError) as caught:
            await subject.call(tool, arguments)
        assert caught.value.code is code
    for tool, arguments in [("herdr_link_wait", {}), ("herdr_link_send", [])]:
        with pytest.raises(InvalidToolCall):
            await subject.call(tool, arguments)
    assert runner.calls == []


async def test_unexpected_failures_become_the_tools_fallback_code():
    runner = ScriptedRunner(lambda argv: (_ for _ in ()).throw(RuntimeError("bug w1:p1")))
    subject = link(runner)
    for tool, arguments, code in [
        ("herdr_link_peers", {}, ErrorCode.NOT_IN_HERDR),
        ("herdr_link_send", {"to": "b", "message": "x"}, ErrorCode.SEND_FAILED),
        ("herdr_link_close", {"agent": "b"}, ErrorCode.CLOSE_FAILED),
        ("herdr_link_start", {"name": "w", "kind": "pi", "args": []}, ErrorCode.START_FAILED),
    ]:
        with pytest.raises(LinkError) as caught:
            await subject.call(tool, arguments)
        assert caught.value.code is code and "w1:p1" not in str(caught.value)


async def test_states_map_onto_the_closed_vocabulary():
    runner = scripted(
        {SELF: got(agent("brain", status=" DONE ")), LIST: listing(agent("x", pane="w1:p2", status="on_fire"))}
    )
    receipt = await link(runner).peers()
    assert receipt.self_.state is AgentState.DONE and receipt.peers[0].state is AgentState.UNKNOWN


async def test_two_rows_with_the_same_name_are_one_peer():
    runner = scripted(
        {
            SELF: got(agent("brain")),
            ("agent", "list"): listing(
                agent("brain"), agent("twin", pane="w1:p2"), agent("twin", pane="w1:p3", status="working")
            ),
        }
    )
    receipt = await link(runner).peers()
    assert [(p.name, p.state) for p in receipt.peers] == [("twin", "idle")]


async def test_the_session_rule_fails_closed_when_herdr_refuses_the_list():
    runner = scripted({("agent", "list"): err("internal_error")})
    with pytest.raises(LinkError) as caught:
        await link(runner).session_pane("/proj")
    assert caught.value.cause is Cause.PEERS_REFUSED


@pytest.mark.parametrize("directory", ["", None])
async def test_the_session_rule_with_no_directory_never_matches_the_process_cwd(directory, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # "" resolved as a path would be this directory, the caller's own cwd
    mine = agent("brain", cwd=str(tmp_path), kind="opencode")
    runner = scripted({("agent", "list"): listing(mine)})
    with pytest.raises(LinkError) as caught:
        await link(runner).session_pane(directory)
    assert caught.value.cause is Cause.SESSION_PANE_AMBIGUOUS
    assert await link(runner).session_pane(str(tmp_path)) == "w1:p1"  # the same pane, named by its directory


async def test_the_survey_lists_only_named_agents_and_none_for_a_caller_without_a_workspace():
    rows = listing(agent("brain"), agent(None, pane="w1:p2"), agent("reviewer", pane="w1:p3"))
    survey = await link(scripted({SELF: got(agent("brain")), ("agent", "list"): rows})).survey()
    assert [p.name for p in survey.peers] == ["reviewer"]  # the unnamed row is left out
    homeless = agent("brain", ws="")
    rows = listing(homeless, agent("drifter", ws="", pane="w1:p4"), agent("reviewer", pane="w1:p3"))
    survey = await link(scripted({SELF: got(homeless), ("agent", "list"): rows})).survey()
    assert survey.workspace_id == "" and survey.peers == ()  # no workspace, no peers: not even another without one


@pytest.mark.parametrize(
    "now",
    [
        got(agent("reviewer", pane="w1:p2", terminal_id="term_2b")),  # another terminal in the pane
        got(agent("reviewer", pane="w1:p2", agent="claude")),  # another kind took the pane and the name
        got(agent("someone", pane="w1:p2")),  # another agent in the pane
        got(agent(None, pane="w1:p2")),  # the name was released
        err("agent_not_found"),  # the pane holds no agent any more
    ],
)
async def test_a_send_types_only_into_the_pane_it_resolved_while_it_holds_the_same_occupant(now):
    runner = scripted(
        {
            SELF: BRAIN,
            ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2", terminal_id="term_2a")),
            ("agent", "get", "w1:p2"): now,
            ("agent", "prompt"): ok({"result": {}}),
        }
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hello")
    assert caught.value.cause is Cause.SEND_TARGET_CHANGED and "w1:p2" not in str(caught.value)
    assert not [call for call in runner.calls if call[:2] == ("agent", "prompt")]


async def test_a_send_pins_the_resolved_pane_by_its_canonical_id_never_the_name():
    pinned = got(agent("reviewer", pane="w1:p2", terminal_id="term_2a", agent="codex"))
    runner = scripted({SELF: BRAIN, ("agent", "get", "reviewer"): pinned, ("agent", "prompt"): ok({"result": {}})})
    await link(runner).send("reviewer", "hello")
    assert runner.calls[-2:][0] == ("agent", "get", "w1:p2") and runner.calls[-1][:3] == ("agent", "prompt", "w1:p2")


@pytest.mark.parametrize(
    "failure",
    [err("server_not_running", "no server"), RunResult(101, "", "thread 'main' panicked")],
    ids=["server-gone", "cli-crashed"],
)
async def test_herdr_failing_during_the_occupant_check_is_herdrs_failure_not_a_changed_target(failure):
    """The send's re-check of its target's pane is answered by Herdr's own failure: the caller is told Herdr
    failed (nothing typed), never that another agent took the pane."""
    runner = scripted(
        {
            SELF: BRAIN,
            ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2", terminal_id="term_2a")),
            ("agent", "get", "w1:p2"): failure,
            ("agent", "prompt"): ok({"result": {}}),
        }
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hello")
    assert caught.value.code is ErrorCode.NOT_IN_HERDR and caught.value.cause is not Cause.SEND_TARGET_CHANGED
    assert not [call for call in runner.calls if call[:2] == ("agent", "prompt")]


@pytest.mark.parametrize("code", ["internal_error", "not_implemented", "invalid_request"])
async def test_herdr_refusing_the_occupant_check_is_a_refused_send_not_a_changed_target(code):
    """Only ``agent_not_found`` says the pinned pane holds no agent; Herdr refusing the re-check otherwise is
    a send Herdr did not accept (nothing typed), never news that another agent took the pane."""
    runner = scripted(
        {
            SELF: BRAIN,
            ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2", terminal_id="term_2a")),
            ("agent", "get", "w1:p2"): err(code),
            ("agent", "prompt"): ok({"result": {}}),
        }
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hello")
    assert caught.value.cause is Cause.SEND_REJECTED and code in caught.value.detail
    assert not [call for call in runner.calls if call[:2] == ("agent", "prompt")]


async def test_a_send_reads_its_caller_and_target_from_one_list_and_pins_the_target_before_typing():
    rows = listing(agent("brain"), agent("reviewer", pane="w1:p2", terminal_id="term_2a", agent="codex"))
    runner = scripted({LIST: rows, ("agent", "prompt"): ok({"result": {}})})
    await link(runner).send("reviewer", "hello")
    assert [call[:3] for call in runner.calls] == [LIST, ("agent", "get", "w1:p2"), ("agent", "prompt", "w1:p2")]


async def test_a_name_the_list_shows_twice_is_no_peer_and_nothing_is_typed():
    rows = listing(agent("brain"), agent("reviewer", pane="w1:p2"), agent("reviewer", pane="w1:p3"))
    runner = scripted({LIST: rows, ("agent", "prompt"): ok({"result": {}})})
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hello")
    assert caught.value.code is ErrorCode.PEER_NOT_FOUND and runner.calls == [LIST]


@pytest.mark.parametrize("own", [agent(None), agent("brain", pane="w1:p9")])  # unnamed; moved (another id)
async def test_a_send_whose_list_shows_no_named_own_row_asks_herdr_for_the_caller(own):
    rows = listing(own, agent("reviewer", pane="w1:p2"))
    runner = scripted({LIST: rows, SELF: BRAIN, ("agent", "prompt"): ok({"result": {}})})
    await link(runner).send("reviewer", "hello")
    envelope = extract_envelope(runner.calls[-1][3])
    assert envelope is not None and envelope.from_ == "brain" and runner.calls[1] == SELF


async def test_a_refused_list_refuses_the_send_as_it_refuses_peers():
    runner = scripted({LIST: err("internal_error"), ("agent", "prompt"): ok({"result": {}})})
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hello")
    assert caught.value.cause is Cause.PEERS_REFUSED and runner.calls == [LIST]
