"""Herdr's public id formats: bijective base-32 numbers, canonical ids and their lenient forms."""

import re
from typing import Final

__all__ = ["ALPHABET", "decode_number", "encode_number", "pane_id", "parse_canonical_pane_id", "tab_id", "workspace_id"]

ALPHABET: Final = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"
"""Digits 1..32 of Herdr's bijective base 32 (no I, L, O, U): 1→'1', 10→'A', 32→'0', 33→'11'."""

_VALUE: Final = {char: index + 1 for index, char in enumerate(ALPHABET)}
_CANONICAL_PANE: Final = re.compile(r"(w[0-9A-Z]+):p([0-9A-Z]+)")


def encode_number(number: int) -> str:
    """Encode a positive integer in bijective base 32."""
    if number < 1:
        raise ValueError("Herdr numbers start at 1")
    digits = []
    while number:
        number, remainder = divmod(number - 1, 32)
        digits.append(ALPHABET[remainder])
    return "".join(reversed(digits))


def decode_number(text: str) -> int | None:
    """Decode bijective base 32, or return ``None`` if ``text`` is not such a number."""
    if not text:
        return None
    number = 0
    for char in text:
        value = _VALUE.get(char)
        if value is None:
            return None
        number = number * 32 + value
    return number


def workspace_id(number: int) -> str:
    """``w<N>``."""
    return f"w{encode_number(number)}"


def tab_id(workspace: str, number: int) -> str:
    """``<ws>:t<N>``."""
    return f"{workspace}:t{encode_number(number)}"


def pane_id(workspace: str, number: int) -> str:
    """``<ws>:p<N>``."""
    return f"{workspace}:p{encode_number(number)}"


def parse_canonical_pane_id(text: str) -> tuple[str, int] | None:
    """Split a canonical pane id into its workspace id and pane number (``None`` if not canonical)."""
    match = _CANONICAL_PANE.fullmatch(text)
    if match is None or encode_number(decode_number(match.group(2)) or 1) != match.group(2):
        return None
    number = decode_number(match.group(2))
    return (match.group(1), number) if number else None
