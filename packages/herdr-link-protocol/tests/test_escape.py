import json
import unicodedata

import pytest
from hypothesis import given, strategies as st

from herdr_link_protocol import UNSAFE_CODE_POINT_RANGES, dumps_terminal_safe, is_terminal_safe

UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
ALL_CHARACTERS = st.characters(exclude_categories=())
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _in_table(point: int) -> bool:
    return any(low <= point <= high for low, high in UNSAFE_CODE_POINT_RANGES)


def test_table_covers_every_unsafe_category_of_this_pythons_unicode_database():
    missing = [
        hex(p) for p in range(0x110000) if unicodedata.category(chr(p)) in UNSAFE_CATEGORIES and not _in_table(p)
    ]
    assert missing == []


def test_table_holds_only_unsafe_or_unassigned_code_points():
    extra = [
        hex(p)
        for low, high in UNSAFE_CODE_POINT_RANGES
        for p in range(low, high + 1)
        if unicodedata.category(chr(p)) not in UNSAFE_CATEGORIES | {"Cn"}
    ]
    assert extra == []


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("\x1b[201~", "\\u001b[201~"),
        ("\x00", "\\u0000"),
        ("\x7f", "\\u007f"),
        ("\x9b", "\\u009b"),
        ("\x85", "\\u0085"),
        ("\u202e", "\\u202e"),
        ("\u200b", "\\u200b"),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("\ud800", "\\ud800"),
        ("\U000e0041", "\\udb40\\udc41"),
        ("\n\r\t", "\\n\\r\\t"),
        ('"\\', '\\"\\\\'),
        ("中文 😀 é", "中文 😀 é"),
    ],
)
def test_unsafe_code_points_are_escaped_and_readable_text_is_not(text, escaped):
    assert dumps_terminal_safe(text) == f'"{escaped}"'


@given(st.text(ALL_CHARACTERS))
def test_no_unsafe_or_line_breaking_character_survives(text):
    line = dumps_terminal_safe({"message": text})
    assert is_terminal_safe(line)
    assert not any(char in line for char in LINE_BREAKS)
    assert line.splitlines() == [line]
    line.encode("utf-8")  # lone surrogates were escaped, so the line is always encodable


@given(st.text(ALL_CHARACTERS))
def test_escaping_round_trips_exactly(text):
    assert json.loads(dumps_terminal_safe({"message": text})) == {"message": text}


def test_key_order_is_kept():
    assert dumps_terminal_safe({"b": 1, "a": 2}) == '{"b":1,"a":2}'
