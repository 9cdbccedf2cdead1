"""Terminal-safe compact JSON: the one serialiser for text that Herdr Link types into a peer's prompt.

``json.dumps`` already escapes C0 controls. On top of that, every code point that a terminal or a
line splitter could act on is written as a ``\\uXXXX`` escape: DEL and the C1 controls (U+009B is a
one-byte CSI), Unicode format controls (bidi overrides, zero-width characters, tags), the line and
paragraph separators, and lone surrogates (which UTF-8 cannot even encode). And the three ASCII
characters a shell acts on inside a double-quoted string, ``$``, backquote and ``!`` (expansion,
command substitution, history), are escaped too: every string of the line is double-quoted JSON, so if
Herdr types the line into a shell instead of an agent, nothing in it expands or runs. Any JSON parser
reads the escapes back to the original string, and all other non-ASCII text stays readable.
"""

import json
import re
from typing import Final

__all__ = [
    "SHELL_ACTIVE_CHARACTERS",
    "UNSAFE_CODE_POINT_RANGES",
    "dumps_terminal_safe",
    "escape_unsafe",
    "is_terminal_safe",
]

UNSAFE_CODE_POINT_RANGES: Final = (
    (0x0000, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C),
    (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xD800, 0xDFFF),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
"""Unicode general categories Cc, Cf, Cs, Zl and Zp as of Unicode 15.1, as inclusive ranges.

Fixed here rather than read from :mod:`unicodedata` so that every Python version escapes the same
set (a test checks the table against the running interpreter's database).
"""

SHELL_ACTIVE_CHARACTERS: Final = "$`!"
"""What a shell (bash, dash, zsh, fish) still acts on inside double quotes, besides ``\\`` and ``"``, which JSON
escapes anyway: parameter and arithmetic expansion and command substitution (``$``), the old command
substitution (backquote) and history expansion (``!``)."""
_SHELL_ESCAPES: Final = {ord(char): f"\\u{ord(char):04x}" for char in SHELL_ACTIVE_CHARACTERS}

_UNSAFE: Final = re.compile(
    "[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in UNSAFE_CODE_POINT_RANGES) + "]"
)


def _escape(match: re.Match[str]) -> str:
    point = ord(match.group())
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    point -= 0x10000
    return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"


def dumps_terminal_safe(value: object) -> str:
    """Serialise ``value`` as one compact JSON line that contains no unsafe code point and none of
    :data:`SHELL_ACTIVE_CHARACTERS` (each written as its ``\\uXXXX`` escape, which only a string can hold).

    Keys keep their insertion order; non-ASCII text other than the unsafe ranges is written raw.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _UNSAFE.sub(_escape, text).translate(_SHELL_ESCAPES)


def is_terminal_safe(text: str) -> bool:
    """Return whether ``text`` contains no code point from :data:`UNSAFE_CODE_POINT_RANGES`."""
    return _UNSAFE.search(text) is None


def escape_unsafe(text: str) -> str:
    """``text`` with every code point of :data:`UNSAFE_CODE_POINT_RANGES` written as its ``\\uXXXX``
    escape: what came from outside (a label, a tool name, a message) shown on a terminal as text, never
    as a control sequence. Inside a JSON line it keeps the line valid and its value unchanged."""
    return _UNSAFE.sub(_escape, text)
