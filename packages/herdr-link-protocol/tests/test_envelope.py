import json

import pytest
from hypothesis import given, strategies as st

from herdr_link_protocol import (
    PROTOCOL_ID,
    Cause,
    Envelope,
    ErrorCode,
    LinkError,
    RemoteProtocolError,
    build_envelope,
    is_blank_message,
    is_valid_message_id,
    parse_envelope,
)

ALL_CHARACTERS = st.characters(exclude_categories=())
NAMES = st.from_regex(r"\A[a-z][a-z0-9_-]{0,31}\Z")

# One table drives both directions: the envelope we build serialises to this line, and the line parses back.
SIMPLE_CASES = [
    ("brain", "reviewer", "please review the design",
     '{"protocol":"herdr-link/1","id":"hl_1_a","from":"brain","to":"reviewer","message":"please review the design"}'),
    ("reviewer", "brain", "检查完成。",
     '{"protocol":"herdr-link/1","id":"hl_1_a","from":"reviewer","to":"brain","message":"检查完成。"}'),
    ("a", "b", 'line 1\nline "2"\t\x1b[31m',
     '{"protocol":"herdr-link/1","id":"hl_1_a","from":"a","to":"b","message":"line 1\\nline \\"2\\"\\t\\u001b[31m"}'),
]  # fmt: skip


@pytest.mark.parametrize(("from_", "to", "message", "line"), SIMPLE_CASES)
def test_envelope_serialises_to_the_golden_line(from_, to, message, line):
    assert build_envelope(from_, to, message, message_id="hl_1_a").to_line() == line


@pytest.mark.parametrize(("from_", "to", "message", "line"), SIMPLE_CASES)
def test_golden_line_parses_back_to_the_envelope(from_, to, message, line):
    envelope = parse_envelope(line)
    assert (envelope.protocol, envelope.id, envelope.from_, envelope.to, envelope.message) == (
        PROTOCOL_ID, "hl_1_a", from_, to, message,
    )  # fmt: skip


def test_envelope_keys_are_exactly_the_five_in_order():
    line = build_envelope("brain", "reviewer", "x").to_line()
    assert list(json.loads(line)) == ["protocol", "id", "from", "to", "message"]


def test_adapter_assigns_protocol_and_a_fresh_id():
    first, second = build_envelope("a", "b", "x"), build_envelope("a", "b", "x")
    assert first.protocol == PROTOCOL_ID
    assert is_valid_message_id(first.id) and first.id != second.id


@pytest.mark.parametrize(
    ("from_", "to", "message", "code"),
    [
        ("Bad", "b", "x", ErrorCode.SELF_UNNAMED),
        ("", "b", "x", ErrorCode.SELF_UNNAMED),
        ("a", "Bad", "x", ErrorCode.PEER_NOT_FOUND),
        ("a", "", "x", ErrorCode.PEER_NOT_FOUND),
        ("a", "b", "", ErrorCode.SEND_FAILED),
        ("a", "b", " \t\n\u3000\ufeff\u2028", ErrorCode.SEND_FAILED),
        ("Bad", "Bad", "", ErrorCode.SELF_UNNAMED),  # checked in the spec's order
    ],
)
def test_building_an_invalid_envelope_raises_the_spec_code(from_, to, message, code):
    with pytest.raises(LinkError) as caught:
        build_envelope(from_, to, message)
    assert caught.value.code is code


def test_an_invalid_envelope_cannot_be_constructed():
    with pytest.raises(ValueError):
        Envelope(id="nope", from_="a", to="b", message="x")
    with pytest.raises(ValueError):
        Envelope(id="hl_1_a", from_="a", to="b", message=3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("message", "blank"),
    [("", True), ("  \t\n  ", True), ("\v\f\xa0\u3000", True), ("\ufeff", True), ("\u2028", True), ("\u2029", True),
     ("\x85", False), ("\x1c\x1d\x1e\x1f", False), ("\u200b", False), ("x", False), (" x ", False)],
)  # fmt: skip
def test_blank_means_what_javascript_trim_removes(message, blank):
    assert is_blank_message(message) is blank


def test_received_envelopes_may_carry_extra_keys():
    line = '{"protocol":"herdr-link/1","id":"hl_1_a","from":"a","to":"b","message":"x","reply_to":"hl_0_b"}'
    envelope = parse_envelope(line)
    assert envelope.message == "x"
    assert "reply_to" not in envelope.to_line()


@pytest.mark.parametrize(
    "line",
    [
        "not json",
        "[]",
        '{"protocol":"herdr-link/2","id":"hl_1_a","from":"a","to":"b","message":"x"}',
        '{"protocol":"herdr-link/1","id":"bad","from":"a","to":"b","message":"x"}',
        '{"protocol":"herdr-link/1","id":"hl_1_a","from":"A","to":"b","message":"x"}',
        '{"protocol":"herdr-link/1","id":"hl_1_a","from":"a","to":"b","message":"  "}',
        '{"protocol":"herdr-link/1","id":"hl_1_a","from":"a","to":"b","message":5}',
        '{"protocol":"herdr-link/1","id":"hl_1_a","from_":"a","to":"b","message":"x"}',
        '{"protocol":"herdr-link/1","id":"hl_1_a","from":"a","message":"x"}',
    ],
)
def test_invalid_received_text_is_a_remote_protocol_error(line):
    with pytest.raises(RemoteProtocolError):
        parse_envelope(line)


@given(NAMES, NAMES, st.text(ALL_CHARACTERS, min_size=1))
def test_every_valid_envelope_round_trips_through_its_line(from_, to, message):
    if is_blank_message(message):
        return
    envelope = build_envelope(from_, to, message)
    assert parse_envelope(envelope.to_line()) == envelope


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"from": "Bad"}, 'not a herdr-link/1 envelope: "from" is invalid'),
        ({"to": None}, 'not a herdr-link/1 envelope: "to" is invalid'),
        ({"id": "x"}, 'not a herdr-link/1 envelope: "id" is invalid'),
        ({"message": " "}, 'not a herdr-link/1 envelope: "message" is invalid'),
        ({"protocol": "herdr-link/2"}, 'not a herdr-link/1 envelope: "protocol" is invalid'),
    ],
)
def test_parse_errors_name_the_bad_field(change, reason):
    line = {"protocol": "herdr-link/1", "id": "hl_1_a", "from": "a", "to": "b", "message": "x", **change}
    with pytest.raises(RemoteProtocolError) as caught:
        parse_envelope(json.dumps(line))
    assert str(caught.value) == reason


def test_parse_errors_name_a_missing_field():
    with pytest.raises(RemoteProtocolError) as caught:
        parse_envelope('{"protocol":"herdr-link/1","id":"hl_1_a","to":"b","message":"x"}')
    assert str(caught.value) == 'not a herdr-link/1 envelope: "from" is missing'


def test_an_invalid_sender_is_named_as_the_sender():
    with pytest.raises(LinkError) as caught:
        build_envelope("Bad", "b", "x")
    assert str(caught.value) == str(LinkError(Cause.SENDER_INVALID))
