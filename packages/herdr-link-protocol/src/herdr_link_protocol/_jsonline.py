"""One reader for JSON-lines input (the MCP server's stdin, the bridge's stdin), sans I/O.

Bytes go in (:meth:`JsonLineReader.feed`), read lines come out (:class:`JsonLine`). The rules, which
``PROTOCOL.md`` §7.2 and ``docs/bridge.md`` state:

* a line ends at ``\\n`` only; one trailing ``\\r`` is dropped, so CRLF works, and a raw CR inside a
  line is JSON whitespace like any other;
* bytes that are not UTF-8 become U+FFFD (as the MCP SDK's own reader does) and a leading byte order
  mark is dropped (RFC 8259 §8.1 allows both); a blank line is no message;
* the line is parsed once, and everything (the id too) is read from the parsed object, never from
  the text; duplicate keys: the last one wins (as ``JSON.parse`` and ``json.loads``);
* nesting never ends the reader: a value nested more than :data:`MAX_JSON_DEPTH` levels deep (the
  message itself is level 1) is not parsed but marked :data:`TOO_DEEP` in its top-level member, so
  the message keeps its id; only a line whose top level cannot be read is a :class:`LineFault`;
* a line longer than :data:`MAX_LINE_BYTES` is cut: its first :data:`MAX_LINE_BYTES` bytes are read
  for the top-level members they complete (so an early ``id`` is still known) and the rest is
  dropped; such a line is always answered as :attr:`LineFault.TOO_LONG`, never served.

``NaN`` and ``Infinity`` are not JSON and make a line unreadable, as in ``JSON.parse``.
"""

import enum
import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_LINE_BYTES",
    "TOO_DEEP",
    "JsonLine",
    "JsonLineReader",
    "LineFault",
    "TooDeep",
    "parse_json_line",
]

MAX_LINE_BYTES: Final = 4 * 1024 * 1024
"""Longest input line read whole, in bytes without its ``\\n`` (4 MiB). Far above any real message:
a send is at most 131,071 bytes once wrapped, and escaped six bytes a character that is 786,426."""

MAX_JSON_DEPTH: Final = 128
"""Deepest nesting of arrays and objects that is parsed, the message object counting as level 1."""

_WHITESPACE: Final = " \t\r\n"
_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_STRUCTURE: Final = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_SCALAR_END: Final = re.compile(r"[,\]} \t\r\n]")


class TooDeep:
    """The value of a top-level member nested deeper than :data:`MAX_JSON_DEPTH`: known to be there,
    not parsed (and so not checked)."""

    _instance: "TooDeep | None" = None

    def __new__(cls) -> "TooDeep":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "TOO_DEEP"


TOO_DEEP: Final = TooDeep()
"""The one :class:`TooDeep` value."""


class LineFault(enum.Enum):
    """Why a line is not a message."""

    NOT_JSON = "not_json"
    """The top level is not JSON (or is cut inside a member that must be read to know it)."""
    NOT_OBJECT = "not_object"
    """The top level is JSON but not an object (an array, a string, a number)."""
    TOO_LONG = "too_long"
    """The line is longer than :data:`MAX_LINE_BYTES`; :attr:`JsonLine.message` holds the members read."""


@dataclass(frozen=True)
class JsonLine:
    """One read line: the top-level object (``TOO_DEEP`` where a member nests too deep), a fault, or both
    (a line too long whose first members could be read)."""

    message: dict[str, Any] | None
    fault: LineFault | None = None
    size: int = field(default=0, compare=False)
    """The line's length in bytes, ``\\n`` excluded (a cut line: at least :data:`MAX_LINE_BYTES` + 1)."""

    @property
    def request_id(self) -> str | int | None:
        """The ``id`` member when it can be echoed (a string, lone surrogates and all, or an integer), else ``None``."""
        value = None if self.message is None else self.message.get("id")
        return value if isinstance(value, str | int) and not isinstance(value, bool) else None

    @property
    def too_deep(self) -> tuple[str, ...]:
        """The top-level members nested deeper than :data:`MAX_JSON_DEPTH`."""
        return tuple(k for k, v in (self.message or {}).items() if v is TOO_DEEP)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_refuse_constant)


def _skip_whitespace(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _nests_deeper_than(text: str, limit: int) -> bool:
    """Whether the brackets of ``text`` (outside strings) nest more than ``limit`` deep."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


def _value_end(text: str, start: int) -> tuple[int, int] | None:
    """Where the JSON value at ``start`` ends and how deep it nests (``0`` for a scalar), found without
    parsing it; ``None`` when it does not end in ``text``."""
    if text.startswith('"', start):
        string = _STRING.match(text, start)
        return (string.end(), 0) if string else None
    if not text.startswith(("[", "{"), start):
        scalar = _SCALAR_END.search(text, start)
        return (scalar.start() if scalar else len(text)), 0
    depth = deepest = 0
    for match in _STRUCTURE.finditer(text, start):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
            if depth == 0:
                return match.end(), deepest
    return None


def _members(text: str, cut: bool) -> dict[str, Any] | None:
    """The top-level object of ``text`` read member by member, each member's value parsed alone (or
    :data:`TOO_DEEP`); ``None`` when the top level is not an object that can be read. ``cut``: the
    text stops mid-line, so the members completed before the cut are the result."""
    members: dict[str, Any] = {}

    def unread() -> dict[str, Any] | None:
        return members if cut else None

    def closed(index: int) -> dict[str, Any] | None:
        return members if cut or not text[index + 1 :].strip(_WHITESPACE) else None

    index = _skip_whitespace(text, 0)
    if not text.startswith("{", index):
        return None
    index = _skip_whitespace(text, index + 1)
    if text.startswith("}", index):
        return closed(index)
    while True:
        key = _STRING.match(text, index)
        colon = _skip_whitespace(text, key.end()) if key else len(text)
        if key is None or not text.startswith(":", colon):
            return unread()
        start = _skip_whitespace(text, colon + 1)
        end = _value_end(text, start) if start < len(text) else None
        if end is None or (cut and end[0] >= len(text)):  # a value running into the cut may be incomplete
            return unread()
        stop, depth = end
        try:
            name = _loads(key.group())
            value = TOO_DEEP if depth >= MAX_JSON_DEPTH else _loads(text[start:stop])
        except (ValueError, RecursionError):
            return unread()
        members[name] = value
        index = _skip_whitespace(text, stop)
        if text.startswith(",", index):
            index = _skip_whitespace(text, index + 1)
        elif text.startswith("}", index):
            return closed(index)
        else:
            return unread()


def parse_json_line(line: bytes, *, cut: bool = False) -> JsonLine | None:
    """Read one line (without its ``\\n``); ``None`` for a blank line. Never raises.

    ``cut``: the line was longer than :data:`MAX_LINE_BYTES` and ``line`` is its beginning; the result
    is :attr:`LineFault.TOO_LONG` with the members that beginning completes.
    """
    size = len(line)
    if line.endswith(b"\r"):
        line = line[:-1]
    text = line.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not text.strip(_WHITESPACE):
        return None
    if cut:
        return JsonLine(_members(text, cut=True) or {}, LineFault.TOO_LONG, size)
    if not _nests_deeper_than(text, MAX_JSON_DEPTH):
        try:
            value = _loads(text)
        except (ValueError, RecursionError):
            return JsonLine(None, LineFault.NOT_JSON, size)
        if isinstance(value, dict):
            return JsonLine(value, None, size)
        return JsonLine(None, LineFault.NOT_OBJECT, size)
    members = _members(text, cut=False)
    if members is not None:
        return JsonLine(members, None, size)
    start = _skip_whitespace(text, 0)
    whole = _value_end(text, start)
    readable = text.startswith("[", start) and whole is not None and not text[whole[0] :].strip(_WHITESPACE)
    return JsonLine(None, LineFault.NOT_OBJECT if readable else LineFault.NOT_JSON, size)


class JsonLineReader:
    """Splits a byte stream into read lines: :meth:`feed` what arrives, :meth:`end` at end of input.

    Memory stays bounded by :data:`MAX_LINE_BYTES` (plus one chunk): a longer line keeps its
    beginning and drops the rest as it arrives.
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._dropped = 0  # bytes of the current line dropped past the limit

    def __repr__(self) -> str:
        return f"<JsonLineReader buffered={len(self._buffer)} dropping={self._dropped > 0}>"

    def feed(self, data: bytes) -> list[JsonLine]:
        """The lines ``data`` completes, in order (blank lines left out)."""
        lines: list[JsonLine] = []
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            self._take(data[start:newline])
            if (line := self._line()) is not None:
                lines.append(line)
            start = newline + 1
        self._take(data[start:])
        return lines

    def end(self) -> list[JsonLine]:
        """The last line, when the input ends without a ``\\n``."""
        line = self._line()
        return [] if line is None else [line]

    def _take(self, part: bytes) -> None:
        room = self.max_line_bytes + 1 - len(self._buffer)  # one byte more than the limit marks a cut
        self._buffer += part[:room]
        self._dropped += max(0, len(part) - room)

    def _line(self) -> JsonLine | None:
        """The buffered line, read (``None`` when it is blank); the buffer starts afresh."""
        line, dropped = bytes(self._buffer), self._dropped
        self._buffer.clear()
        self._dropped = 0
        cut = dropped > 0 or (len(line) > self.max_line_bytes and not line.endswith(b"\r"))
        if not cut:
            return parse_json_line(line)
        parsed = parse_json_line(line[: self.max_line_bytes], cut=True)
        return None if parsed is None else JsonLine(parsed.message, parsed.fault, len(line) + dropped)
