"""Link against Herdr 0.9's slower ``agent prompt``, which answers only after its Enter (300 ms after
the text, and more for long texts; herdrdev/herdr #3187, #3506, #3685): a slow but successful
delivery is a success, within the command timeout ``PROTOCOL.md`` §6.1 states."""

import anyio
import pytest
from scripted_herdr import IN_PANE

from herdr_link_control import DEFAULT_DELIVERY_LIMIT, Link
from herdr_link_protocol import extract_envelope
from herdr_link_testkit import Fault, HerdrSim

pytestmark = pytest.mark.anyio

SLOW_0_9 = 6.0
"""Seconds a simulated 0.9 spends on one prompt before it answers: 20 times its 300 ms, standing for a
long text into a program that reads its paste slowly. Under the 10 s command timeout."""


@pytest.fixture
def pair(tmp_path):
    with HerdrSim(herdr_version="0.9.0") as sim:
        brain = sim.create_workspace(str(tmp_path))
        reviewer = sim.split(brain)
        sim.add_agent(brain, "claude", name="brain")
        sim.add_agent(reviewer, "codex", name="reviewer")
        yield sim, brain, reviewer


async def test_a_send_that_0_9_answers_slowly_is_a_success(pair):
    sim, brain, reviewer = pair
    sim.fault_method("agent.prompt", Fault("delay", seconds=SLOW_0_9))
    link = Link(sim.env(brain), pane_evidence=IN_PANE)
    began = anyio.current_time()
    receipt = await link.send("reviewer", "a slow but successful delivery")
    assert anyio.current_time() - began >= SLOW_0_9
    assert receipt.to == "reviewer"
    [delivery] = sim.deliveries(reviewer)
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.message == "a slow but successful delivery"


async def test_the_largest_wrapper_is_delivered_by_0_9(pair):
    sim, brain, reviewer = pair
    link = Link(sim.env(brain), pane_evidence=IN_PANE)
    message = "x" * (DEFAULT_DELIVERY_LIMIT - 1024)  # near the limit, with room for the wrapper
    receipt = await link.send("reviewer", message)
    assert receipt.to == "reviewer"
    [delivery] = sim.deliveries(reviewer)
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.message == message
    assert sim.received(reviewer).endswith(b"\x1b[201~\r")


def test_protocol_md_states_the_timeouts_this_code_uses():
    import re
    from pathlib import Path

    from herdr_link_control import Timeouts

    text = (Path(__file__).resolve().parents[3] / "PROTOCOL.md").read_text(encoding="utf-8")
    section = text.split("**Timeouts (this implementation's addition).**", 1)[1].split("\n\n", 1)[0]
    stated = {m[0]: float(m[1]) for m in re.findall(r"- `?([a-z ]+?)`?(?: \(.*?\))?: (\d+) s", section)}
    defaults = Timeouts()
    assert stated["agent start"] == defaults.start
    assert stated["agent prompt"] == defaults.command
    assert re.search(rf"every other command .*?: {defaults.command:g} s", section, re.S)


def test_a_0_9_record_with_agent_instance_id_reads_as_any_other():
    from herdr_link_control._herdr_argv import parse_agent_rows

    row = {"terminal_id": "term_1", "name": "reviewer", "agent": "codex", "agent_status": "idle",
           "workspace_id": "w1", "tab_id": "w1:t1", "pane_id": "w1:p2", "focused": False, "revision": 1}  # fmt: skip
    plain = parse_agent_rows({"result": {"agents": [row]}})
    newer = parse_agent_rows({"result": {"agents": [{**row, "agent_instance_id": "ai_7f3a"}]}})
    assert newer == plain and [r.name for r in newer] == ["reviewer"]
