import pytest
from hypothesis import given, strategies as st

from herdr_link_testkit import decode_number, encode_number


@pytest.mark.parametrize(
    ("number", "text"), [(1, "1"), (9, "9"), (10, "A"), (31, "Z"), (32, "0"), (33, "11"), (64, "10"), (65, "21")]
)
def test_numbers_use_herdrs_bijective_base32(number, text):
    # docs/herdr.md §3: alphabet 123456789ABCDEFGHJKMNPQRSTVWXYZ0, so the 10th pane of w1 is w1:pA.
    assert encode_number(number) == text
    assert decode_number(text) == number


@given(st.integers(1, 10**9))
def test_encoding_round_trips(number):
    assert decode_number(encode_number(number)) == number


@pytest.mark.parametrize("text", ["", "I", "L", "O", "U", "a", "-1"])
def test_letters_outside_the_alphabet_do_not_decode(text):
    assert decode_number(text) is None
