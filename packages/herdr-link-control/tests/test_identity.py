"""Self identity and the bootstrap of spec §6.3 (TypeScript herdr.test.ts cases 9-22)."""

import re

import anyio
import pytest
from scripted_herdr import agent, err, got, link, ok, scripted

from herdr_link_control import RunResult, SpawnFailed
from herdr_link_protocol import Cause, ErrorCode, LinkError

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
RENAME = ("agent", "rename", "w1:p1")
NAMED = got(agent("brain"))
UNNAMED = got(agent())


async def test_an_existing_valid_name_is_kept_untouched():
    runner = scripted({SELF: NAMED})
    assert await link(runner).bootstrap() == "brain"
    assert runner.calls == [SELF]


async def test_an_unnamed_occupant_is_named_and_confirmed_by_rereading():
    runner = scripted({SELF: [UNNAMED, got(agent("hl-0a1b2c3d"))], RENAME: got(agent("hl-0a1b2c3d"))})
    assert await link(runner).bootstrap() == "hl-0a1b2c3d"
    assert [c[:2] for c in runner.calls] == [("agent", "get"), ("agent", "rename"), ("agent", "get")]
    assert re.fullmatch(r"hl-[0-9a-f]{8}", runner.calls[1][3])


async def test_name_collisions_regenerate_within_the_budget():
    runner = scripted({SELF: [UNNAMED, got(agent("hl-x"))], RENAME: [err("agent_name_taken"), got(agent())]})
    assert await link(runner).bootstrap() == "hl-x"
    renames = [c[3] for c in runner.calls if c[:2] == ("agent", "rename")]
    assert len(renames) == 2 and renames[0] != renames[1]


async def test_exhausting_the_collision_budget_fails_closed():
    runner = scripted({SELF: UNNAMED, RENAME: err("agent_name_taken")})
    with pytest.raises(LinkError) as caught:
        await link(runner).peers()
    assert caught.value.code is ErrorCode.SELF_UNNAMED
    assert sum(c[:2] == ("agent", "rename") for c in runner.calls) == 3


async def test_a_rename_that_does_not_take_effect_is_self_unnamed():
    runner = scripted({SELF: UNNAMED, RENAME: got(agent())})
    with pytest.raises(LinkError) as caught:
        await link(runner).send("reviewer", "hi")
    assert caught.value.code is ErrorCode.SELF_UNNAMED


@pytest.mark.parametrize(
    "failure",
    [err("server_not_running"), TimeoutError(), SpawnFailed(2, "gone"), RunResult(0, "garbage", "")],
)
async def test_not_in_herdr_keeps_its_code_during_bootstrap(failure):
    for table in ({SELF: failure}, {SELF: UNNAMED, RENAME: failure}):
        runner = scripted(table)
        with pytest.raises(LinkError) as caught:
            await link(runner).peers()
        assert caught.value.code is ErrorCode.NOT_IN_HERDR
    single = scripted({SELF: failure})
    with pytest.raises(LinkError):
        await link(single).peers()
    assert single.calls.count(SELF) == 1  # only "not yet detected" is retried


async def test_bootstrap_failures_are_sanitised():
    runner = scripted({SELF: UNNAMED, RENAME: err("agent_launch_pending", "pane w1:p1 term_abc pending")})
    with pytest.raises(LinkError) as caught:
        await link(runner).peers()
    assert str(caught.value) == str(LinkError(Cause.NO_STABLE_NAME))
    assert "w1:p1" in caught.value.detail


async def test_readiness_retry_names_the_occupant_once_detected():
    runner = scripted(
        {
            SELF: [err("agent_not_found"), err("agent_not_found"), UNNAMED, got(agent("hl-1"))],
            RENAME: got(agent("hl-1")),
            ("agent", "list"): got(agent("hl-1")),
        }
    )
    assert (await link(runner).peers()).self_.name == "hl-1"
    assert runner.calls.count(SELF) == 4 and sum(c[:2] == ("agent", "rename") for c in runner.calls) == 1


async def test_exhausted_readiness_is_self_unnamed_and_leaves_nothing_behind():
    runner = scripted({SELF: [err("agent_not_found")] * 4 + [NAMED], ("agent", "list"): got(agent("brain"))})
    subject = link(runner)
    with pytest.raises(LinkError) as caught:
        await subject.peers()
    assert caught.value.cause is Cause.SELF_NOT_DETECTED and caught.value.code is ErrorCode.SELF_UNNAMED
    assert str(caught.value) == str(LinkError(Cause.SELF_NOT_DETECTED))
    assert (await subject.bootstrap()) == "brain"  # no poisoned state


async def test_concurrent_bootstraps_coalesce_into_one_rename():
    release = anyio.Event()
    held: dict[str, str] = {}

    async def slow_rename(argv):
        await release.wait()
        held["name"] = argv[3]
        return got(agent(argv[3]))

    runner = scripted({SELF: lambda argv: got(agent(held.get("name"))), RENAME: slow_rename})
    subject = link(runner)
    names: list[str | None] = []

    async def boot() -> None:
        names.append(await subject.bootstrap())

    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(boot)
        await anyio.wait_all_tasks_blocked()
        release.set()
    assert len(set(names)) == 1 and names[0] == held["name"]
    assert sum(c[:2] == ("agent", "rename") for c in runner.calls) == 1


async def test_a_communication_path_falls_back_to_the_bootstrap():
    runner = scripted(
        {
            SELF: [UNNAMED, UNNAMED, got(agent("hl-2"))],
            RENAME: got(agent("hl-2")),
            ("agent", "list"): got(agent("hl-2")),
        }
    )
    assert (await link(runner).peers()).self_.name == "hl-2"


async def test_identity_is_fresh_on_every_call_and_ignores_herdr_workspace_id():
    runner = scripted(
        {
            SELF: [got(agent("brain", ws="w1")), got(agent("brain", ws="w2"))],
            ("agent", "list"): [got(agent("brain")), got(agent("brain", ws="w2"))],
        }
    )
    subject = link(runner, HERDR_WORKSPACE_ID="w1")
    await subject.peers()
    await subject.peers()
    assert runner.calls.count(SELF) == 2  # nothing cached


async def test_after_a_pane_move_the_self_lookup_follows_the_pane_alias():
    # Herdr accepts a moved pane's old id (HERDR_PANE_ID) only in pane commands.
    pane_reply = ok({"id": "cli:pane:get", "result": {"type": "pane_info", "pane": {"pane_id": "w2:p3"}}})
    runner = scripted(
        {
            SELF: err("agent_not_found"),
            ("pane", "get", "w1:p1"): pane_reply,
            ("agent", "get", "w2:p3"): got(agent("brain", ws="w2", pane="w2:p3")),
            ("agent", "list"): got(agent("brain", ws="w2")),
        }
    )
    receipt = await link(runner).peers()
    assert receipt.self_.name == "brain"
    own = [c for c in runner.calls if c != ("agent", "list")]  # the list runs concurrently
    assert own == [SELF, ("pane", "get", "w1:p1"), ("agent", "get", "w2:p3")]


async def test_a_moved_unnamed_agent_is_renamed_by_its_current_pane_id():
    pane_reply = ok({"result": {"pane": {"pane_id": "w2:p3"}}})
    held: dict[str, str] = {}
    runner = scripted(
        {
            SELF: err("agent_not_found"),
            ("pane", "get", "w1:p1"): pane_reply,
            ("agent", "get", "w2:p3"): lambda argv: got(agent(held.get("name"), ws="w2", pane="w2:p3")),
            ("agent", "rename", "w2:p3"): lambda argv: held.update(name=argv[3]) or got(agent(argv[3])),
        }
    )
    assert await link(runner).bootstrap() == held["name"]


async def test_a_not_yet_detected_agent_in_an_unmoved_pane_is_not_looked_up_twice():
    pane_reply = ok({"result": {"pane": {"pane_id": "w1:p1"}}})
    runner = scripted({SELF: err("agent_not_found"), ("pane", "get", "w1:p1"): pane_reply})
    assert await link(runner).bootstrap() is None
    assert runner.calls.count(SELF) == 3  # the readiness probes only
    assert ("agent", "get", "w1:p1") in runner.calls and not any(c[2:] == ("w2:p3",) for c in runner.calls)


async def test_a_refused_retry_after_the_pane_moved_is_the_retrys_own_refusal():
    pane_reply = ok({"result": {"pane": {"pane_id": "w2:p3"}}})
    runner = scripted(
        {
            SELF: err("agent_not_found"),
            ("pane", "get", "w1:p1"): pane_reply,
            ("agent", "get", "w2:p3"): err("internal_error"),
        }
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).peers()
    assert caught.value.cause is Cause.NO_STABLE_NAME  # not the first lookup's "not yet detected"
    assert ("agent", "get", "w2:p3") in runner.calls


@pytest.mark.parametrize(
    "pane_reply",
    [
        ok({"result": "pane"}),
        ok({"result": {"pane": "w2:p3"}}),
        ok({"result": {"pane": {"pane_id": ""}}}),
        ok({"result": {"pane": {"pane_id": 7}}}),
        ok({"result": {"pane": {}}}),
        err("pane_not_found"),
    ],
    ids=["result-not-object", "pane-not-object", "empty-id", "non-string-id", "no-id", "refused"],
)
async def test_a_pane_get_that_gives_no_usable_id_keeps_the_first_lookups_error(pane_reply):
    runner = scripted({SELF: err("agent_not_found"), ("pane", "get", "w1:p1"): pane_reply})
    with pytest.raises(LinkError) as caught:
        await link(runner).peers()
    assert caught.value.code is ErrorCode.SELF_UNNAMED
    retried = [c for c in runner.calls if c[:2] == ("agent", "get") and c != SELF]
    assert retried == []  # no lookup by an id Herdr did not give


async def test_callers_sharing_a_failing_bootstrap_all_get_its_error():
    release = anyio.Event()

    async def refused_rename(argv):
        await release.wait()
        return err("internal_error")

    runner = scripted({SELF: UNNAMED, RENAME: refused_rename})
    subject = link(runner)
    errors: list[LinkError] = []

    async def peers() -> None:
        try:
            await subject.peers()
        except LinkError as error:
            errors.append(error)

    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(peers)
        await anyio.wait_all_tasks_blocked()
        release.set()
    assert len(errors) == 3 and {e.cause for e in errors} == {Cause.NO_STABLE_NAME}
    assert sum(c[:2] == ("agent", "rename") for c in runner.calls) == 1


async def test_a_caller_waiting_on_a_cancelled_bootstrap_gets_an_error_not_a_crash():
    renaming = anyio.Event()

    async def hanging_rename(argv):
        renaming.set()
        await anyio.sleep_forever()

    runner = scripted({SELF: UNNAMED, RENAME: hanging_rename})
    subject = link(runner)
    outcome: list[object] = []
    first = anyio.CancelScope()

    async def bootstrapper() -> None:
        with first:
            await subject.peers()

    async def waiter() -> None:
        try:
            outcome.append(await subject.peers())
        except LinkError as error:
            outcome.append(error)

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(bootstrapper)
            await renaming.wait()
            group.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            first.cancel()  # the caller that runs the bootstrap gives up
    [error] = outcome
    assert isinstance(error, LinkError) and error.cause is Cause.NO_STABLE_NAME
