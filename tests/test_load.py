"""The exactly-once check at small scale: every message arrives once, in the right pane; the checker
itself notices loss, duplication and misdelivery. (The full 16 × 50 run is in ``nox -s bench``.)"""

import pytest
from load import LoadReport, check_inboxes, run_load

from herdr_link_protocol import build_envelope, build_wrapper
from herdr_link_testkit import HerdrSim


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_concurrent_senders_through_their_own_servers_deliver_exactly_once():
    report = await run_load(agents=4, messages=6, seed=7)
    assert report.errors == [] and len(report.sent) == 24
    assert report.lost == [] and report.duplicated == [] and report.misdelivered == [] and report.unexpected == 0
    assert report.exactly_once
    assert {sender for sender, _ in report.sent.values()} == {"agent-00", "agent-01", "agent-02", "agent-03"}
    assert all(sender != recipient for sender, recipient in report.sent.values())


def _deliver(sim: HerdrSim, target: str, sender: str, recipient: str, message_id: str) -> None:
    envelope = build_envelope(sender, recipient, "hello", message_id=message_id)
    sim.request("agent.prompt", target=target, text=build_wrapper(envelope))


def test_the_check_notices_loss_duplication_misdelivery_and_strays():
    with HerdrSim() as sim:
        a = sim.create_workspace()
        b = sim.split(a)
        sim.add_agent(a, "claude", name="alpha")
        sim.add_agent(b, "claude", name="beta")
        report = LoadReport(agents=2, messages=2)
        ids = ["hl_mep7abc_aaaaaa", "hl_mep7abc_bbbbbb", "hl_mep7abc_cccccc", "hl_mep7abc_dddddd"]
        report.sent = {
            ids[0]: ("alpha", "beta"),
            ids[1]: ("alpha", "beta"),
            ids[2]: ("beta", "alpha"),
            ids[3]: ("beta", "alpha"),
        }
        _deliver(sim, "beta", "alpha", "beta", ids[0])
        _deliver(sim, "beta", "alpha", "beta", ids[0])  # duplicated
        _deliver(sim, "beta", "beta", "alpha", ids[2])  # delivered to the wrong pane
        _deliver(sim, "alpha", "alpha", "beta", "hl_mep7abc_zzzzzz")  # no receipt named it
        sim.request("agent.prompt", target="alpha", text="plain text, no envelope")
        check_inboxes(sim, {"alpha": a, "beta": b}, report)
    assert report.duplicated == [ids[0]]
    assert report.misdelivered == [ids[2]]
    assert sorted(report.lost) == [ids[1], ids[3]]
    assert report.unexpected == 2
    assert not report.exactly_once
