"""Wrappers from herdr_link_protocol, typed into a peer's prompt through the simulated ``herdr`` CLI.

This is the pair harness of the two lowest packages: what the protocol builds is exactly what the
terminal receives, it never carries a control sequence or splits into several submitted lines, and
the receiver extracts the same envelope.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from herdr_link_protocol import MAX_DELIVERY_BYTES, build_envelope, build_wrapper, extract_envelope, is_blank_message
from herdr_link_testkit import HerdrSim

TS_FIXTURES = Path(__file__).resolve().parents[1] / "packages/herdr-link-protocol/tests/data/ts-fixtures.json"
SENDS = json.loads(TS_FIXTURES.read_text(encoding="utf-8"))["sends"]


@pytest.fixture(scope="module")
def pair():
    """``brain`` (caller, w1:p1) and ``reviewer`` (w1:p2) in one simulated workspace."""
    with HerdrSim() as sim:
        brain = sim.create_workspace()
        reviewer = sim.split(brain)
        sim.add_agent(brain, "claude", name="brain")
        sim.add_agent(reviewer, "codex", name="reviewer")
        yield sim, sim.env(brain), reviewer


def _deliver(pair, text: str):
    sim, env, reviewer = pair
    before = len(sim.deliveries(reviewer))
    done = subprocess.run([sim.bin_path, "agent", "prompt", "reviewer", text], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    delivered = sim.deliveries(reviewer)
    assert len(delivered) == before + 1
    return delivered[-1]


@pytest.mark.parametrize("case", SENDS, ids=[c["case"] for c in SENDS])
def test_every_typescript_test_message_arrives_clean_and_whole(pair, case):
    envelope = build_envelope("brain", "reviewer", case["message"])
    delivery = _deliver(pair, build_wrapper(envelope))
    assert delivery.raw_controls == () and delivery.submitted_lines == 1
    assert extract_envelope(delivery.text) == envelope


def test_the_typescript_wrapper_lets_a_raw_c1_csi_through(pair):
    # The weakness our escaping fixes: TypeScript leaves U+009B (a one-byte CSI) raw in the envelope.
    case = next(c for c in SENDS if c["case"] == "c1_csi")
    assert _deliver(pair, case["wrapper"]).raw_controls != ()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(exclude_categories=()), min_size=1, max_size=200))
def test_any_message_arrives_clean_and_whole(pair, message):
    if is_blank_message(message):
        return
    envelope = build_envelope("brain", "reviewer", message)
    delivery = _deliver(pair, build_wrapper(envelope))
    assert delivery.raw_controls == () and delivery.submitted_lines == 1
    assert extract_envelope(delivery.text) == envelope


@pytest.mark.skipif(sys.platform != "linux", reason="MAX_DELIVERY_BYTES is Linux's MAX_ARG_STRLEN less one")
def test_the_delivery_limit_is_the_largest_argument_this_platform_accepts():
    # MAX_DELIVERY_BYTES must fit one argv element exactly, and one byte more must not.
    subprocess.run(["/bin/true", "x" * MAX_DELIVERY_BYTES], check=True)
    with pytest.raises(OSError) as caught:
        subprocess.run(["/bin/true", "x" * (MAX_DELIVERY_BYTES + 1)], check=True)
    assert caught.value.errno == 7  # E2BIG
