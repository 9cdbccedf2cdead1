"""A failed start leaks no tab and no pane: id-less replies, late completions, refusals (spec §4.2).

Against the simulated Herdr through real ``herdr`` processes, at every allocation step of both
placements, plus the finder's rules on their own.
"""

import logging

import pytest
from scripted_herdr import agent, got, link, ok, scripted

from herdr_link_control import Link, Timeouts
from herdr_link_control._leftovers import pane_number, split_candidates, tab_candidates
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
        await Link(herdr_sim.env(brain)).start({"name": "w", "kind": "pi", "args": [], **extra})
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
    subject = Link(herdr_sim.env(brain), timeouts=Timeouts(command=5.0))
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
        await Link(herdr_sim.env(brain)).start({"name": "w", "kind": "pi", "args": [], **extra})
    assert herdr_sim.pane_ids() == before
    assert ("pane", "list") not in {c[:2] for c in herdr_sim.log.commands()}


@pytest.mark.parametrize("placement", PLACEMENTS)
async def test_the_success_path_asks_nothing_more(herdr_sim: HerdrSim, team, placement):
    brain, _ = team
    _, extra = PLACEMENTS[placement]
    herdr_sim.log.clear()
    await Link(herdr_sim.env(brain)).start({"name": "w", "kind": "pi", "args": [], **extra})
    assert ("pane", "list") not in {c[:2] for c in herdr_sim.log.commands()}


def test_pane_numbers_are_bijective_base_32():
    assert [pane_number(f"w1:p{s}") for s in ("1", "9", "A", "Z", "0", "11", "1A")] == [1, 9, 10, 31, 32, 33, 42]
    assert pane_number("w1:t2") is None and pane_number("w1:pI") is None and pane_number(None) is None


def shell(pane: str, tab: str, cwd: str = "/p") -> dict[str, object]:
    return {"pane_id": pane, "tab_id": tab, "cwd": cwd, "agent_status": "unknown"}


def test_only_a_plain_shell_that_looks_like_the_request_is_a_candidate():
    pick = tab_candidates("/p")
    agent_pane = {**shell("w1:p5", "w1:t3"), "agent": "pi", "agent_status": "idle"}
    assert pick([shell("w1:p1", "w1:t1"), agent_pane], None) == []  # the newest runs an agent
    assert pick([shell("w1:p1", "w1:t1"), shell("w1:p5", "w1:t3", cwd="/q")], None) == []  # elsewhere
    assert pick([shell("w1:p4", "w1:t3"), shell("w1:p5", "w1:t3")], None) == []  # not alone in its tab
    assert pick([shell("w1:p1", "w1:t1"), shell("w1:p5", "w1:t3")], None) == [["tab", "close", "w1:t3"]]
    # Without an answer, only a pane that was not there before counts, however new it looks.
    assert pick([shell("w1:p1", "w1:t1"), shell("w1:p5", "w1:t3")], {"w1:p1", "w1:p5"}) == []
    split = split_candidates("w1:p2", "/p")
    panes = [shell("w1:p2", "w1:t1"), shell("w1:p6", "w1:t1"), shell("w1:p7", "w1:t9")]
    assert split(panes, {"w1:p2", "w1:p7"}) == [["pane", "close", "w1:p6"]]
    assert split(panes, {"w1:p2"}) == [["pane", "close", "w1:p6"]]  # p7 is in another tab


async def test_two_candidates_are_logged_and_left(caplog):
    panes = ok(
        {"result": {"panes": [{"pane_id": "w1:p1", "tab_id": "w1:t1", "cwd": "/proj", "agent_status": "idle",
                               "agent": "claude"}] + [shell(f"w1:p{n}", f"w1:t{n}", "/proj") for n in (5, 6)]}}
    )  # fmt: skip
    runner = scripted(
        {
            ("agent", "get", "w1:p1"): got(agent("brain", cwd="/proj")),
            ("tab", "create"): TimeoutError(),
            ("pane", "list"): [ok({"result": {"panes": []}}), panes],  # before, then two new tabs
        }
    )
    with pytest.raises(LinkError):
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert not any(call[:2] == ("tab", "close") for call in runner.calls)
    assert "left them all" in caplog.text
