"""A failed start leaks no tab and no pane: id-less replies, late completions, refusals (spec §4.2).

Against the simulated Herdr through real ``herdr`` processes, at every allocation step of both
placements, plus the finder's rules on their own.
"""

import logging
from typing import Any

import anyio
import pytest
from scripted_herdr import ENV, IN_PANE, agent, err, got, link, ok, scripted

from herdr_link_control import Link, ScriptedRunner, Timeouts
from herdr_link_control._leftovers import Snapshot, split_candidates, tab_candidates
from herdr_link_protocol import ErrorCode, LinkError
from herdr_link_testkit import Fault, HerdrSim, StartScript

pytestmark = pytest.mark.anyio


@pytest.fixture
def team(herdr_sim: HerdrSim, tmp_path):
    """brain (the caller) and anchor, side by side in one tab of one workspace."""
    brain = herdr_sim.create_workspace(str(tmp_path))
    anchor = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "claude", name="brain")
    herdr_sim.add_agent(anchor, "codex", name="anchor")
    herdr_sim.script_start("pi", StartScript())
    return brain, anchor


PLACEMENTS = {"new_tab": ("tab.create", {}), "with": ("pane.split", {"with": "anchor"})}


@pytest.mark.parametrize("placement", PLACEMENTS)
async def test_a_reply_without_the_id_is_found_and_closed(herdr_sim: HerdrSim, team, placement, caplog):
    brain, _ = team
    method, extra = PLACEMENTS[placement]
    before = herdr_sim.pane_ids()
    herdr_sim.fault_method(method, Fault("empty_result"))
    caplog.set_level(logging.INFO, "herdr_link")
    with pytest.raises(LinkError) as caught:
        await Link(herdr_sim.env(brain), pane_evidence=IN_PANE).start({"name": "w", "kind": "pi", "args": [], **extra})
    assert caught.value.code is ErrorCode.START_FAILED
    assert herdr_sim.pane_ids() == before  # what Herdr made was closed
    assert "closed what a failed" in caplog.text


@pytest.mark.parametrize("placement", PLACEMENTS)
async def test_an_allocation_completed_after_the_timeout_is_found_and_closed(herdr_sim: HerdrSim, team, placement):
    brain, _ = team
    method, extra = PLACEMENTS[placement]
    before = herdr_sim.pane_ids()
    # Herdr completes 2 s after our 5 s timeout: after the snapshot taken at the failure (2 s to spare)
    # and inside the one more command timeout we look for it (3 s to spare), however busy the machine.
    herdr_sim.fault_method(method, Fault("delay", seconds=7.0))
    subject = Link(herdr_sim.env(brain), timeouts=Timeouts(command=5.0), pane_evidence=IN_PANE)
    with pytest.raises(LinkError) as caught:
        await subject.start({"name": "w", "kind": "pi", "args": [], **extra})
    assert caught.value.code is ErrorCode.NOT_IN_HERDR  # the primary error is kept
    assert herdr_sim.pane_ids() == before


@pytest.mark.parametrize("placement", PLACEMENTS)
async def test_a_refusal_made_nothing_and_nothing_is_looked_for(herdr_sim: HerdrSim, team, placement):
    brain, _ = team
    method, extra = PLACEMENTS[placement]
    before = herdr_sim.pane_ids()
    herdr_sim.fault_method(method, Fault("error", code="internal_error"))
    herdr_sim.log.clear()
    with pytest.raises(LinkError):
        await Link(herdr_sim.env(brain), pane_evidence=IN_PANE).start({"name": "w", "kind": "pi", "args": [], **extra})
    assert herdr_sim.pane_ids() == before
    assert [c[:2] for c in herdr_sim.log.commands()].count(("pane", "list")) == 1  # the snapshot only


@pytest.mark.parametrize("placement", PLACEMENTS)
async def test_the_success_path_lists_the_panes_once_before_and_closes_nothing(herdr_sim: HerdrSim, team, placement):
    brain, _ = team
    _, extra = PLACEMENTS[placement]
    herdr_sim.log.clear()
    await Link(herdr_sim.env(brain), pane_evidence=IN_PANE).start({"name": "w", "kind": "pi", "args": [], **extra})
    heads = [c[:2] for c in herdr_sim.log.commands()]
    allocate = ("tab", "create") if placement == "new_tab" else ("pane", "split")
    assert heads.count(("pane", "list")) == 1
    assert heads.index(("pane", "list")) < heads.index(allocate)
    assert ("tab", "close") not in heads and ("pane", "close") not in heads


async def test_two_starts_at_once_one_failing_never_take_the_other_agents_tab(caplog):
    """The failing start's reply (without the id) comes only once the other start's tab exists, and
    the other's agent starts only after the failing start has looked: its tab is a plain shell then.
    Ordered by events, not by time, so a busy machine cannot change what is tested."""
    panes: list[dict[str, object]] = [{"pane_id": "w1:p1", "tab_id": "w1:t1", "cwd": "/proj", "agent": "claude"}]
    first_create, other_created, failing_done = anyio.Event(), anyio.Event(), anyio.Event()
    closed: list[str] = []

    async def tab_create(argv: object) -> object:
        number = len(panes) + 4
        panes.append({"pane_id": f"w1:p{number}", "tab_id": f"w1:t{number}", "cwd": "/proj", "agent_status": "unknown"})
        if not first_create.is_set():  # the failing start's: Herdr made the tab, the reply lacks its id
            first_create.set()
            await other_created.wait()
            return ok({"result": {}})
        other_created.set()
        root = {"pane_id": f"w1:p{number}", "tab_id": f"w1:t{number}", "workspace_id": "w1"}
        return ok({"result": {"tab": {"tab_id": f"w1:t{number}"}, "root_pane": root}})

    async def agent_start(argv: object) -> object:
        await failing_done.wait()
        return ok({"result": {"type": "agent_started"}})

    def tab_close(argv: Any) -> object:
        closed.append(argv[2])
        panes[:] = [p for p in panes if p["tab_id"] != argv[2]]
        return ok({"result": {"type": "ok"}})

    runner = scripted(
        {
            ("agent", "get", "w1:p1"): got(agent("brain", cwd="/proj")),
            ("pane", "list"): lambda argv: ok({"result": {"panes": [dict(p) for p in panes]}}),
            ("tab", "create"): tab_create,
            ("agent", "start"): agent_start,
            ("tab", "close"): tab_close,
        }
    )
    caplog.set_level(logging.INFO, "herdr_link")
    outcomes: dict[str, object] = {}

    async def start(name: str) -> None:
        try:
            outcomes[name] = await link(runner).start({"name": name, "kind": "pi", "args": []})
        except LinkError as error:
            outcomes[name] = error
        finally:
            if name == "failing":
                failing_done.set()

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(start, "failing")
            await first_create.wait()
            group.start_soon(start, "other")
    assert isinstance(outcomes["failing"], LinkError)
    assert not isinstance(outcomes["other"], LinkError), outcomes["other"]
    assert "w1:t6" not in closed  # the other agent's tab was not taken
    assert "left them all" in caplog.text  # two new plain shells: in doubt, both left and logged


def shell(pane: str, tab: str, cwd: str = "/p") -> dict[str, object]:
    return {"pane_id": pane, "tab_id": tab, "cwd": cwd, "agent_status": "unknown"}


EMPTY = Snapshot(frozenset({"w1:p1"}), frozenset({"w1:t1"}))


def test_only_a_new_plain_shell_that_looks_like_the_request_is_a_candidate(tmp_path):
    pick = tab_candidates("/p")
    agent_pane = {**shell("w1:p5", "w1:t3"), "agent": "pi", "agent_status": "idle"}
    launching = {**shell("w1:p5", "w1:t3"), "agent": "pi"}  # just launched: status still unknown
    assert pick([shell("w1:p1", "w1:t1"), agent_pane], EMPTY) == []  # it runs an agent
    assert pick([shell("w1:p1", "w1:t1"), launching], EMPTY) == []  # an agent, even before its status
    assert pick([shell("w1:p1", "w1:t1"), shell("w1:p5", "w1:t3", cwd="/q")], EMPTY) == []  # elsewhere
    assert pick([shell("w1:p4", "w1:t3"), shell("w1:p5", "w1:t3")], EMPTY) == []  # not alone in its tab
    assert pick([shell("w1:p1", "w1:t1"), shell("w1:p5", "w1:t3")], EMPTY) == [["tab", "close", "w1:t3"]]
    assert pick([shell("w1:p5", "w1:t1")], EMPTY) == []  # a new pane in a tab that was there before
    # A pane that was there before our command began is never taken, however new it looks.
    before = Snapshot(frozenset({"w1:p1", "w1:p5"}), frozenset({"w1:t1", "w1:t3"}))
    assert pick([shell("w1:p1", "w1:t1"), shell("w1:p5", "w1:t3")], before) == []
    split = split_candidates("w1:p2", "/p")
    panes = [shell("w1:p2", "w1:t1"), shell("w1:p6", "w1:t1"), shell("w1:p7", "w1:t9")]
    assert split(panes, Snapshot(frozenset({"w1:p2", "w1:p7"}), frozenset())) == [["pane", "close", "w1:p6"]]
    assert split(panes, Snapshot(frozenset({"w1:p2"}), frozenset())) == [["pane", "close", "w1:p6"]]  # p7: elsewhere
    assert split(panes[1:], Snapshot(frozenset({"w1:p2"}), frozenset())) == []  # the anchor is not listed
    tabless = {"pane_id": "w1:p6", "cwd": "/p", "agent_status": "unknown"}  # no tab: not the anchor's either
    assert split([tabless], Snapshot(frozenset({"w1:p2"}), frozenset())) == []
    assert split([shell("w1:p2", "w1:t1"), {**shell("w1:p6", "w1:t1"), "agent": "pi"}], EMPTY) == []


def test_a_cwd_reported_through_a_symlink_or_another_spelling_still_matches(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link_path = tmp_path / "link"
    link_path.symlink_to(real)
    for reported in (str(link_path), f"{real}/", f"{tmp_path}/./real"):
        assert tab_candidates(str(real))([shell("w1:p5", "w1:t3", cwd=reported)], EMPTY) == [["tab", "close", "w1:t3"]]
        assert split_candidates("w1:p2", str(real))(
            [shell("w1:p2", "w1:t1"), shell("w1:p6", "w1:t1", cwd=reported)], EMPTY
        ) == [["pane", "close", "w1:p6"]]
    assert tab_candidates(str(real))([shell("w1:p5", "w1:t3", cwd=str(tmp_path))], EMPTY) == []


def listing(*panes: dict[str, object]) -> object:
    return ok({"result": {"panes": [{"pane_id": "w1:p1", "tab_id": "w1:t1", "cwd": "/proj", "agent": "claude",
                                     "agent_status": "idle"}, *panes]}})  # fmt: skip


def starting(
    tab_create: object, *pane_lists: object, more: dict[tuple[str, ...], object] | None = None
) -> ScriptedRunner:
    return scripted(
        {
            ("agent", "get", "w1:p1"): got(agent("brain", cwd="/proj")),
            ("tab", "create"): tab_create,
            ("pane", "list"): list(pane_lists),
            **(more or {}),
        }
    )


async def test_two_candidates_are_logged_and_left(caplog):
    runner = starting(TimeoutError(), listing(), listing(*(shell(f"w1:p{n}", f"w1:t{n}", "/proj") for n in (5, 6))))
    with pytest.raises(LinkError):
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert not any(call[:2] == ("tab", "close") for call in runner.calls)
    assert "left them all" in caplog.text


async def test_a_plain_shell_tab_that_was_there_before_is_not_taken_on_the_answered_path(caplog):
    old_shell = shell("w1:p5", "w1:t5", "/proj")  # someone's own shell tab in the same cwd, and the newest
    runner = starting(ok({"result": {}}), listing(old_shell), listing(old_shell))
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert caught.value.code is ErrorCode.START_FAILED
    assert not any(call[:2] == ("tab", "close") for call in runner.calls)
    assert "nothing recognisable" in caplog.text


@pytest.mark.parametrize(
    "reply",
    [ok({"result": "panes"}), ok({"result": {"panes": {"w1:p5": {}}}}), ok({"result": {}}), ok({"other": 1})],
    ids=["result-not-object", "panes-not-list", "no-panes", "no-result"],
)
async def test_a_malformed_pane_list_closes_nothing(reply, caplog):
    runner = starting(ok({"result": {}}), listing(), reply)
    with pytest.raises(LinkError):
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert not any(call[:2] == ("tab", "close") for call in runner.calls)
    assert "without a list of panes" in caplog.text


async def test_a_listing_that_holds_no_pane_with_an_id_closes_nothing(caplog):
    idless = ok({"result": {"panes": [{"tab_id": "w1:t5", "cwd": "/proj", "agent_status": "unknown"}]}})
    runner = starting(ok({"result": {}}), listing(), idless)
    with pytest.raises(LinkError):
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert not any(call[:2] == ("tab", "close") for call in runner.calls)
    assert "nothing recognisable" in caplog.text


async def test_no_snapshot_before_means_nothing_is_taken(caplog):
    runner = starting(ok({"result": {}}), err("internal_error"), listing(shell("w1:p5", "w1:t5", "/proj")))
    with pytest.raises(LinkError):
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert not any(call[:2] == ("tab", "close") for call in runner.calls)
    assert "none was listed before it" in caplog.text


async def test_a_refused_rollback_close_is_logged_and_the_start_error_kept(caplog):
    runner = starting(
        ok({"result": {}}),
        listing(),
        listing(shell("w1:p5", "w1:t5", "/proj")),
        more={("tab", "close"): err("tab_not_found")},
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert caught.value.code is ErrorCode.START_FAILED
    assert [c for c in runner.calls if c[:2] == ("tab", "close")] == [("tab", "close", "w1:t5")]
    assert "herdr tab close w1:t5 (left by a failed tab create) failed" in caplog.text


async def test_a_start_cancelled_during_the_search_still_closes_what_appears():
    appeared = listing(shell("w1:p5", "w1:t5", "/proj"))
    listed, gave_up = anyio.Event(), anyio.Event()

    async def late(argv: object) -> object:  # the allocation shows up on the third look, after the caller gave up
        listed.set()
        await gave_up.wait()
        return appeared

    runner = starting(TimeoutError(), listing(), listing(), late, appeared, more={("tab", "close"): ok({"result": {}})})
    subject = link(runner)
    async with anyio.create_task_group() as group:

        async def start() -> None:
            with pytest.raises(LinkError):
                await subject.start({"name": "w", "kind": "pi", "args": []})

        group.start_soon(start)
        with anyio.fail_after(30):
            await listed.wait()
        group.cancel_scope.cancel()  # the caller gives up while the search is looking
        gave_up.set()
    assert ("tab", "close", "w1:t5") in runner.calls  # the shielded search finished and closed it


async def test_an_allocation_that_never_appears_ends_the_search_within_one_more_timeout(caplog):
    runner = starting(TimeoutError(), listing())
    subject = Link(ENV, runner=runner, timeouts=Timeouts(command=1.0), pane_evidence=IN_PANE)
    with anyio.fail_after(30):
        with pytest.raises(LinkError):
            await subject.start({"name": "w", "kind": "pi", "args": []})
    looks = [c for c in runner.calls if c[:2] == ("pane", "list")]
    assert 2 <= len(looks) < 60  # it looked again, and then stopped
    assert "a failed tab create made nothing within one more command timeout" in caplog.text
