import re

import pytest
from hypothesis import given, strategies as st

from herdr_link_protocol import Cause, ErrorCode, LinkError

RAW_ID = re.compile(r"\bw[0-9A-Z]+(:[tp][0-9A-Z]+)?\b|term_[0-9a-f]+")


def test_there_are_exactly_the_ten_spec_codes():
    assert [c.value for c in ErrorCode] == [
        "NOT_IN_HERDR", "SELF_UNNAMED", "PEER_NOT_FOUND", "SEND_FAILED", "CLOSE_FAILED",
        "START_CONFIG_NOT_FOUND", "START_AGENT_NOT_FOUND", "START_CONFIG_INVALID", "START_INPUT_INVALID",
        "START_FAILED",
    ]  # fmt: skip


def test_every_code_has_causes_and_every_cause_a_fixed_reason():
    assert {cause.code for cause in Cause} == set(ErrorCode)
    assert len({cause.value for cause in Cause}) == len(Cause)


def test_error_renders_code_and_fixed_reason():
    error = LinkError(Cause.MESSAGE_TOO_LARGE, "wrapper was 200000 bytes", limit=131071)
    assert error.code is ErrorCode.SEND_FAILED
    assert str(error) == error.agent_text == "SEND_FAILED: message exceeds 131071 bytes once wrapped for delivery"


def test_a_bare_code_uses_its_generic_reason():
    assert str(LinkError(ErrorCode.PEER_NOT_FOUND)) == "PEER_NOT_FOUND: target agent is not a live peer"
    assert str(LinkError(ErrorCode.NOT_IN_HERDR)) == "NOT_IN_HERDR: Herdr environment is unavailable"


def test_operator_detail_stays_out_of_the_agent_text_but_in_the_repr():
    detail = "agent_not_found: agent target w1:p2 not found (term_6536c0d6f27a82)"
    error = LinkError(ErrorCode.PEER_NOT_FOUND, detail)
    assert "w1:p2" not in str(error) and "agent_not_found" not in str(error)
    assert error.detail == detail and "w1:p2" in repr(error)


@pytest.mark.parametrize("field", ["w1:p2", "term_abc", "x\x1b[2J", "a" * 40, "Pane", ""])
def test_unusual_field_names_are_never_echoed(field):
    assert str(LinkError(Cause.START_FIELD_INVALID, field=field)) == 'START_INPUT_INVALID: "argument" is invalid'


@given(st.sampled_from(list(Cause)), st.text(), st.one_of(st.none(), st.text(max_size=50)), st.integers(0, 10**9))
def test_agent_text_never_contains_ids_or_diagnostics(cause, detail, field, limit):
    text = str(LinkError(cause, detail, field=field, limit=limit))
    assert text.startswith(f"{cause.code}: ")
    assert RAW_ID.search(text) is None
    assert text == str(LinkError(cause, "", field=field, limit=limit))  # the detail never shapes the text
    assert text.isprintable()
