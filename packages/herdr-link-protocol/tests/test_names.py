import re

import pytest
from hypothesis import given, strategies as st

from herdr_link_protocol import (
    AgentState,
    generate_self_name,
    is_valid_agent_name,
    is_valid_message_id,
    new_message_id,
    normalize_agent_state,
)

ALL_CHARACTERS = st.characters(exclude_categories=())  # the full code-point range, surrogates included


@pytest.mark.parametrize("name", ["brain", "worker-a", "a", "a" * 32, "x_1-2", "hl-0a1b2c3d"])
def test_valid_agent_names_are_accepted(name):
    assert is_valid_agent_name(name)


@pytest.mark.parametrize(
    "name", ["", "Brain", "1worker", "a" * 33, "-a", "_a", "a b", "a.b", "ä", "a\n", None, 3, ["a"], "ａ"]
)
def test_invalid_agent_names_are_refused(name):
    assert not is_valid_agent_name(name)


@given(st.text(ALL_CHARACTERS, max_size=40))
def test_agent_name_validation_matches_herdrs_ascii_grammar(text):
    expected = re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", text, flags=re.ASCII) is not None
    assert is_valid_agent_name(text) is expected


@pytest.mark.parametrize("message_id", ["hl_mep7abc_4f8k2n", "hl_0_a"])
def test_valid_message_ids_are_accepted(message_id):
    assert is_valid_message_id(message_id)


@pytest.mark.parametrize("message_id", ["hl_abc", "hl_ABC_def", "hl_abc_", "message-id", "hl__a", "hl_a_b_c", 7])
def test_invalid_message_ids_are_refused(message_id):
    assert not is_valid_message_id(message_id)


def test_new_message_ids_are_unique_and_well_formed():
    ids = {new_message_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(is_valid_message_id(i) for i in ids)


def test_message_id_encodes_the_timestamp_in_base36():
    assert new_message_id(now_ms=0, random_part="0") == "hl_0_0"
    assert new_message_id(now_ms=36**2, random_part="abc") == "hl_100_abc"


@given(st.text(ALL_CHARACTERS, max_size=12))
def test_message_id_refuses_any_random_part_outside_its_alphabet(part):
    if re.fullmatch(r"[a-z0-9]+", part, flags=re.ASCII):
        assert is_valid_message_id(new_message_id(random_part=part))
    else:
        with pytest.raises(ValueError):
            new_message_id(random_part=part)


def test_generated_self_names_are_valid_and_prefixed():
    names = {generate_self_name() for _ in range(500)}
    assert all(re.fullmatch(r"hl-[0-9a-f]{8}", n) and is_valid_agent_name(n) for n in names)
    assert len(names) > 490


@pytest.mark.parametrize(
    ("raw", "state"),
    [("idle", AgentState.IDLE), (" DONE ", AgentState.DONE), ("Working", AgentState.WORKING),
     ("blocked", AgentState.BLOCKED), ("on_fire", AgentState.UNKNOWN), (42, AgentState.UNKNOWN),
     (None, AgentState.UNKNOWN), ("", AgentState.UNKNOWN)],
)  # fmt: skip
def test_agent_states_normalise_onto_the_closed_vocabulary(raw, state):
    assert normalize_agent_state(raw) is state
