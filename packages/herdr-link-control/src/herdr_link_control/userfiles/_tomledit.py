"""Surgical edits to a user's TOML file (Codex's ``config.toml``): text inserted and removed, never
re-serialised, so no key of the user's moves (tomlkit puts a new table between a dotted key and the
keys after it, which then belong to the new table).

A new table is appended at the end, after a blank line; a table put in place of another's is written
where that one stood, in its form (``[table]`` blocks or an inline table), and the text it replaced can
be put back byte for byte; a key is set where it stands or added after the last key of its table; a
table is removed with the blank line that came with it; an item is appended to a list in the list's
layout (a line of its own where each item has one) and taken out with exactly the text it brought, so
appending and taking out gives back the list byte for byte. A table appended to an array of tables
(``[[path]]`` blocks) is a block of its own after the last one's lines, after a blank line, and is taken
out with that blank line. Every edit is
checked by parsing the result with ``tomllib``: it must equal the old document with exactly that
change, or the edit raises :class:`DocumentError` and the text is not changed.
"""

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._jsonedit import MISSING, DocumentError, _value_at, _with

__all__ = ["TomlDocument", "toml_key", "toml_value"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_QUOTED_KEY = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


def toml_key(path: Sequence[str]) -> str:
    """A dotted key, each part bare where TOML allows it and quoted otherwise."""
    return ".".join(part if _BARE_KEY.fullmatch(part) else toml_value(part) for part in path)


def _table_block(path: Sequence[str], leaves: Mapping[str, Any], nl: str) -> str:
    """``[path]`` and its leaves' lines, then a ``[path.key]`` block for each leaf that is a table."""
    lines = [f"[{toml_key(path)}]{nl}"]
    lines += [f"{toml_key([k])} = {toml_value(v)}{nl}" for k, v in leaves.items() if not isinstance(v, Mapping)]
    for key, value in leaves.items():
        if isinstance(value, Mapping):
            lines.append(_table_block((*path, key), value, nl))
    return "".join(lines)


def _inline_table(leaves: Mapping[str, Any]) -> str:
    """``leaves`` as one inline table (``{ a = 1, env = { B = "c" } }``)."""
    body = ", ".join(f"{toml_key([k])} = {_inline_table(v) if isinstance(v, Mapping) else toml_value(v)}"
                     for k, v in leaves.items())  # fmt: skip
    return "{ " + body + " }" if body else "{}"


def toml_value(value: Any) -> str:
    """One value as TOML (strings, booleans, integers, lists of them and inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")  # a valid TOML basic string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return _inline_table(value)
    raise DocumentError(f"no TOML form for {type(value).__name__}")


@dataclass
class _Entry:
    """One ``key = value`` line (with what follows it on its line, and its newline)."""

    path: tuple[str, ...]
    start: int
    value_start: int
    value_end: int
    end: int


@dataclass
class _Table:
    path: tuple[str, ...]
    start: int  # where its header line starts (0 for the root)
    header_end: int  # after the header line's newline
    array: bool = False
    entries: list[_Entry] = field(default_factory=list)

    @property
    def content_end(self) -> int:
        """After its last key line (or its header): blank lines and comments after it are not its own."""
        return self.entries[-1].end if self.entries else self.header_end


@dataclass
class _Inline:
    """An inline table (``{ a = 1, b.c = 2 }``): where its braces are and its members (each a key
    and its value, without the separators)."""

    path: tuple[str, ...]
    open: int
    close: int = 0
    members: list[_Entry] = field(default_factory=list)


@dataclass
class _Array:
    """An array: where its brackets are and where each item starts and ends."""

    path: tuple[str, ...]
    open: int
    close: int = 0
    items: list[tuple[int, int]] = field(default_factory=list)


_REST_OF_ITEM_LINE = re.compile(r"[ \t]*(,?)[ \t]*(#[^\n]*)?\r?\n")
"""After an item that ends its line: its comma, a comment, the newline."""
_BARE_ITEM_END = re.compile(r"[ \t]*(,?)[ \t]*\r?\n")
"""After an item of ours alone on its line: its comma (or none) and the newline, no comment."""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.inlines: list[_Inline] = []
        self.arrays: list[_Array] = []

    def skip_blank(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in " \t":
            self.at += 1

    def key(self) -> tuple[str, ...]:
        parts: list[str] = []
        while True:
            self.skip_blank()
            found = _QUOTED_KEY.match(self.text, self.at) or _BARE_KEY.match(self.text, self.at)
            if found is None:
                raise DocumentError("a key that cannot be read")
            token = found.group()
            parts.append(tomllib.loads(f"k = {token}")["k"] if token[0] in "\"'" else token)
            self.at = found.end()
            self.skip_blank()
            if not self.text.startswith(".", self.at):
                return tuple(parts)
            self.at += 1

    def value(self, path: tuple[str, ...] = ()) -> None:
        """Move past one value (the one at ``path``): strings (all four kinds), arrays and inline
        tables (nested, over lines); each inline table is noted with its members."""
        text = self.text
        for quote in ('"""', "'''"):
            if text.startswith(quote, self.at):
                pattern = r'(?:[^\\]|\\.)*?"""(?!"(?!""))' if quote == '"""' else r"[\s\S]*?'''(?!'(?!''))"
                found = re.compile(pattern).match(text, self.at + 3)
                if found is None:
                    raise DocumentError("an unclosed string")
                self.at = found.end()
                return
        if text.startswith('"', self.at) or text.startswith("'", self.at):
            found = _QUOTED_KEY.match(text, self.at)
            if found is None:
                raise DocumentError("an unclosed string")
            self.at = found.end()
            return
        if text.startswith(("[", "{"), self.at):
            close = "]" if text[self.at] == "[" else "}"
            inline = _Inline(path, self.at) if close == "}" else None
            array = _Array(path, self.at) if close == "]" else None
            self.at += 1
            while True:
                self.skip_space_and_comments()
                if text.startswith(close, self.at):
                    if inline is not None:
                        inline.close = self.at
                        self.inlines.append(inline)
                    if array is not None:
                        array.close = self.at
                        self.arrays.append(array)
                    self.at += 1
                    return
                if text.startswith(",", self.at):
                    self.at += 1
                    continue
                if array is not None:
                    start = self.at
                    self.value((*path, "[]"))  # an array's items have no path of their own
                    array.items.append((start, self.at))
                    continue
                assert inline is not None
                start = self.at
                key = (*path, *self.key())
                self.skip_blank()
                self.at += 1  # "="
                self.skip_blank()
                value_start = self.at
                self.value(key)
                inline.members.append(_Entry(key, start, value_start, self.at, self.at))
        found = re.compile(r"[^\s,\]\}#]+").match(text, self.at)
        if found is None:
            raise DocumentError("a value that cannot be read")
        self.at = found.end()

    def skip_space_and_comments(self) -> None:
        while self.at < len(self.text):
            char = self.text[self.at]
            if char in " \t\r\n":
                self.at += 1
            elif char == "#":
                newline = self.text.find("\n", self.at)
                self.at = len(self.text) if newline < 0 else newline
            else:
                return

    def rest_of_line(self) -> int:
        """After the value: spaces and a comment, then the newline (or the end of the text)."""
        newline = self.text.find("\n", self.at)
        return len(self.text) if newline < 0 else newline + 1


def _scan(text: str) -> tuple[list[_Table], list[_Inline], list[_Array]]:
    tables = [_Table((), 0, 0)]
    scanner = _Scanner(text)
    while scanner.at < len(text):
        scanner.skip_space_and_comments()
        if scanner.at >= len(text):
            break
        line_start = text.rfind("\n", 0, scanner.at) + 1
        if text.startswith("[", scanner.at):
            array = text.startswith("[[", scanner.at)
            scanner.at += 2 if array else 1
            path = scanner.key()
            scanner.skip_blank()
            scanner.at += 2 if array else 1
            tables.append(_Table(path, line_start, scanner.rest_of_line(), array))
            scanner.at = tables[-1].header_end
            continue
        key = scanner.key()
        scanner.skip_blank()
        scanner.at += 1  # "="
        scanner.skip_blank()
        value_start = scanner.at
        table = tables[-1]
        scanner.value(table.path + key)
        value_end = scanner.at
        scanner.at = scanner.rest_of_line()
        table.entries.append(_Entry(table.path + key, line_start, value_start, value_end, scanner.at))
    return tables, scanner.inlines, scanner.arrays


class TomlDocument:
    """A TOML text and surgical edits to it. Only tables with a ``[header]`` are added to; a path
    written with dotted keys or as an inline table is edited where its key line stands."""

    def __init__(self, text: str) -> None:
        self._text = text
        try:
            self._value = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise DocumentError(str(error)) from error
        self._tables, self._inlines, self._arrays = _scan(text)
        self._newline = "\r\n" if "\r\n" in text else "\n"

    @property
    def text(self) -> str:
        return self._text

    @property
    def value(self) -> dict[str, Any]:
        return self._value

    def get(self, path: Sequence[str | int]) -> Any:
        """The value at ``path`` (keys, and indexes into lists), or :data:`MISSING`."""
        return _value_at(self._value, path)

    def _replace(self, start: int, end: int, new: str, expected: Any) -> None:
        self._accept(self._text[:start] + new + self._text[end:], expected)

    def _accept(self, text: str, expected: Any) -> None:
        """Take ``text`` as the document if it parses to exactly ``expected``; otherwise raise."""
        try:
            value = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise DocumentError(f"an edit would not give valid TOML ({error})") from error
        if value != expected:
            raise DocumentError("an edit would change more than it should")
        self._text, self._value = text, value
        self._tables, self._inlines, self._arrays = _scan(text)

    def _table(self, path: Sequence[str]) -> _Table | None:
        found = [t for t in self._tables if t.path == tuple(path) and not t.array]
        return found[0] if found else None

    def _entry(self, path: Sequence[str]) -> _Entry | None:
        for table in self._tables:
            for entry in table.entries:
                if entry.path == tuple(path):
                    return entry
        return None

    def _member(self, path: Sequence[str]) -> tuple[_Inline, int] | None:
        """The inline table holding the member written as exactly ``path``, and its index there."""
        for inline in self._inlines:
            for index, member in enumerate(inline.members):
                if member.path == tuple(path):
                    return inline, index
        return None

    def _inline_above(self, path: Sequence[str]) -> _Inline | None:
        """The nearest ancestor of ``path`` written as an inline table."""
        for length in range(len(path) - 1, 0, -1):
            found = [i for i in self._inlines if i.path == tuple(path[:length])]
            if found:
                return found[0]
        return None

    def _add_member(self, inline: _Inline, path: Sequence[str], value_text: str, expected: Any) -> None:
        """Add ``key = value`` to ``inline`` after its last member (``{}`` gets it between its braces)."""
        member = f"{toml_key(path[len(inline.path) :])} = {value_text}"
        if inline.members:
            at = inline.members[-1].value_end
            self._replace(at, at, ", " + member, expected)
        else:
            self._replace(inline.close, inline.close, member, expected)

    def _dotted_line_after(self, parent: Sequence[str]) -> tuple[_Table, _Entry] | None:
        """The last key line that writes a leaf of ``parent`` with dotted keys, and its table."""
        found = None
        for table in self._tables:
            for entry in table.entries:
                if entry.path[: len(parent)] == tuple(parent) and len(table.path) < len(parent):
                    found = table, entry
        return found

    def set(self, path: Sequence[str], value: Any) -> None:
        """Set one leaf: its value replaced where it stands, or added where its parent is written (a
        ``key = value`` line in its table, a dotted line after its siblings' lines, a member of its
        inline table), or its table appended (``[table]``) when the document has no such table yet."""
        expected = _with(self._value, path, value)
        entry = self._entry(path)
        member = self._member(path)
        if entry is not None or member is not None:
            written = entry if entry is not None else member[0].members[member[1]]  # type: ignore[index]
            self._replace(written.value_start, written.value_end, toml_value(value), expected)
            return
        table = self._table(path[:-1])
        inline = self._inline_above(path)
        dotted = self._dotted_line_after(path[:-1]) if table is None and inline is None else None
        if table is not None or dotted is not None:
            where, at = (table, table.content_end) if table is not None else (dotted[0], dotted[1].end)  # type: ignore[index]
            line = f"{toml_key(path[len(where.path) :])} = {toml_value(value)}"
            if self._text[:at].endswith("\n") or at == 0:
                line += self._newline
            else:  # the last line of a text without a final newline: it keeps none
                line = self._newline + line
            self._replace(at, at, line, expected)
            return
        if inline is not None:
            self._add_member(inline, path, toml_value(value), expected)
            return
        self.add_table(path[:-1], {path[-1]: value})

    def _array(self, path: Sequence[str]) -> _Array | None:
        found = [a for a in self._arrays if a.path == tuple(path)]
        return found[0] if len(found) == 1 else None

    def append(self, path: Sequence[str], item: Any) -> None:
        """Append ``item`` to the list at ``path`` in the list's layout: after ``[`` in an empty list, on a
        line of its own after the last item's line where that item has one (its comma and comment stay
        with it), else after the last item on its line (``, item``). A table appended to an array of
        tables, or where ``path`` is missing, is a ``[[path]]`` block (:meth:`_append_block`).

        Raises:
            DocumentError: ``path`` holds no list, or no array of tables for a table (nothing is changed).
        """
        current = self.get(path)
        if isinstance(item, Mapping) and (current is MISSING or self._elements(path)):
            self._append_block(path, item, [] if current is MISSING else current)
            return
        array = self._array(path) if isinstance(current, list) else None
        if array is None:
            wanted = "an array of tables" if isinstance(item, Mapping) else "a list"
            raise DocumentError(f"{toml_key(path)} is not {wanted}")
        expected = _with(self._value, path, [*current, item])
        text, value = self._text, toml_value(item)
        if not array.items:
            self._replace(array.open + 1, array.open + 1, value, expected)
            return
        start, end = array.items[-1]
        line_start = text.rfind("\n", 0, start) + 1
        rest = _REST_OF_ITEM_LINE.match(text, end)
        if rest is not None and not text[line_start:start].strip(" \t"):
            line = text[line_start:start] + value + ("," if rest.group(1) else "") + self._newline
            comma = "" if rest.group(1) else ","
            self._accept(text[:end] + comma + text[end : rest.end()] + line + text[rest.end() :], expected)
            return
        before = text[:start]
        gap = before[len(before.rstrip(" \t\r\n")) :] or " "
        self._replace(end, end, "," + gap + value, expected)

    def _elements(self, path: Sequence[str]) -> list[tuple[int, int]]:
        """Where each ``[[path]]`` block of an array of tables is written: from its header to the end of
        its last key line, the ``[path.…]`` blocks right after it included."""
        blocks = sorted((t for t in self._tables if t.path), key=lambda t: t.start)
        found: list[tuple[int, int]] = []
        for at, block in enumerate(blocks):
            if block.path != tuple(path) or not block.array:
                continue
            last = at
            while (
                last + 1 < len(blocks)
                and blocks[last + 1].path[: len(path)] == tuple(path)
                and not (blocks[last + 1].path == tuple(path) and blocks[last + 1].array)
            ):
                last += 1
            found.append((block.start, blocks[last].content_end))
        return found

    def _append_block(self, path: Sequence[str], leaves: Mapping[str, Any], current: list[Any]) -> None:
        """Append ``[[path]]`` with ``leaves`` after the array's last block (at the end when it has none),
        after a blank line; in an inline table, a member ``key = [{ … }]`` of it."""
        expected = _with(self._value, path, [*current, dict(leaves)])
        inline = self._inline_above(path)
        if inline is not None and not current:
            self._add_member(inline, path, "[" + _inline_table(leaves) + "]", expected)
            return
        nl = self._newline
        block = f"[[{toml_key(path)}]]{nl}" + "".join(
            f"{toml_key([k])} = {toml_value(v)}{nl}" for k, v in leaves.items()
        )
        elements = self._elements(path)
        text = self._text
        at = elements[-1][1] if elements else len(text)
        if at == 0:
            addition = block
        elif text[:at].endswith("\n"):
            addition = nl + block
        else:  # the last line of a text without a final newline: it keeps none
            addition = nl + nl + block[: -len(nl)]
        self._replace(at, at, addition, expected)

    def _cut_blocks(self, text: str, spans: Sequence[tuple[int, int]]) -> str:
        """``text`` without the blocks at ``spans``, each with the blank line an appended block came after."""
        for start, end in sorted(spans, reverse=True):
            if text[:start].endswith(("\n\n", "\r\n\r\n")):
                start -= len(self._newline)
                if not text[start:end].endswith("\n"):  # and the newline added to a text without a final one
                    start -= len(self._newline)
            text = text[:start] + text[end:]
        return text

    def _remove_item(self, path: Sequence[str], index: int) -> None:
        """Take out item ``index`` of the list at ``path`` with exactly the text :meth:`append` gave it:
        its own line (and the comma it added after the item before), or its separator."""
        array = self._array(path)
        elements = self._elements(path) if array is None else []
        if elements and index < len(elements):
            kept = [v for i, v in enumerate(self.get(path)) if i != index]
            expected = _with(self._value, path, kept) if kept else self._without(path)
            self._accept(self._cut_blocks(self._text, [elements[index]]), expected)
            return
        if array is None:
            raise DocumentError(f"{toml_key(path)} is not written as a list")
        items, text = array.items, self._text
        start, end = items[index]
        last = index == len(items) - 1
        expected = _with(self._value, path, [v for i, v in enumerate(self.get(path)) if i != index])
        line_start = text.rfind("\n", 0, start) + 1
        own_line = _BARE_ITEM_END.match(text, end) if not text[line_start:start].strip(" \t") else None
        if own_line is not None and (own_line.group(1) or last):
            comma = re.compile(r"[ \t]*,").match(text, items[index - 1][1]) if index and not own_line.group(1) else None
            if comma is None and index and not own_line.group(1):  # its separator stands on a later line
                self._replace(items[index - 1][1], end, "", expected)
                return
            cut = text[:line_start] + text[own_line.end() :]
            if comma is not None:
                cut = cut[: items[index - 1][1]] + cut[comma.end() :]
            self._accept(cut, expected)
        elif not last:
            self._replace(start, items[index + 1][0], "", expected)
        elif index:
            self._replace(items[index - 1][1], end, "", expected)
        else:
            trailing = re.compile(r"[ \t]*,").match(text, end)
            self._replace(start, trailing.end() if trailing else end, "", expected)

    def _written_table(self, path: Sequence[str]) -> tuple[int, int, bool] | None:
        """Where the table at ``path`` is written whole in one place: its ``[path]`` block with the
        ``[path.…]`` blocks right after it (start, end, ``False``), or an inline table as a key line's or
        a member's value (``True``); ``None`` when it is spelled otherwise (dotted keys, blocks apart)."""
        written = self._entry(path)
        member = self._member(path)
        if written is None and member is not None:
            written = member[0].members[member[1]]
        if written is not None:
            inline = self._text.startswith("{", written.value_start)
            return (written.value_start, written.value_end, True) if inline else None
        blocks = sorted((t for t in self._tables if t.path), key=lambda t: t.start)
        at = next((i for i, t in enumerate(blocks) if t.path == tuple(path) and not t.array), None)
        if at is None or blocks[at].start > min(t.start for t in blocks if t.path[: len(path)] == tuple(path)):
            return None
        last = at
        while last + 1 < len(blocks) and blocks[last + 1].path[: len(path)] == tuple(path):
            last += 1
        if any(t.path[: len(path)] == tuple(path) for t in blocks[last + 1 :]):
            return None
        return blocks[at].start, blocks[last].content_end, False

    def source(self, path: Sequence[str]) -> str | None:
        """The text of the table at ``path`` as the file spells it (to give back byte for byte with
        :meth:`set_source`): its blocks, comments between them included, or its inline table; ``None``
        when it is not written whole in one place."""
        where = self._written_table(path)
        return None if where is None else self._text[where[0] : where[1]]

    def set_source(self, path: Sequence[str], text: str) -> None:
        """Put ``text`` (what :meth:`source` gave) in place of the table at ``path``, where it stands.

        Raises:
            DocumentError: the table is not written whole in one place, or ``text`` is not of its form
            (blocks for blocks, an inline table for an inline table) or not a table at ``path``.
        """
        where = self._written_table(path)
        if where is None:
            raise DocumentError(f"{toml_key(path)} is not written as a table in one place")
        start, end, inline = where
        if inline != text.lstrip().startswith("{"):
            raise DocumentError(f"{text[:40]!r} is not written as {toml_key(path)} is")
        try:
            parsed: Any = tomllib.loads(f"k = {text}")["k"] if inline else tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise DocumentError(f"{text[:40]!r} is not one TOML table ({error})") from error
        for step in () if inline else path:
            parsed = parsed.get(step) if isinstance(parsed, dict) else None
        if not isinstance(parsed, dict):
            raise DocumentError(f"{text[:40]!r} is not the table {toml_key(path)}")
        if not inline and not text.endswith("\n") and self._text[:end].endswith("\n"):
            text += self._newline  # it was the last line of a text without a final newline, and is no longer
        self._replace(start, end, text, _with(self._value, path, parsed))

    def replace_table(self, path: Sequence[str], leaves: Mapping[str, Any]) -> None:
        """The table at ``path`` becomes ``leaves`` where it stands, in the form it is written in (its
        ``[path]`` blocks, or an inline table); spelled otherwise, it is removed and ``[path]`` appended."""
        where = self._written_table(path)
        if where is None:
            self.remove(path)
            self.add_table(path, leaves)
            return
        start, end, inline = where
        text = _inline_table(leaves) if inline else _table_block(path, leaves, self._newline)
        if not inline and not self._text[:end].endswith("\n"):  # the last line, without a final newline
            text = text[: -len(self._newline)]
        self._replace(start, end, text, _with(self._value, path, dict(leaves)))

    def add_table(self, path: Sequence[str], leaves: Mapping[str, Any]) -> None:
        """Append ``[path]`` with ``leaves`` at the end, after a blank line (a text without a final
        newline keeps none); inside an inline table, add it there as a member ``key = { … }``."""
        inline = self._inline_above((*path, ""))
        if inline is not None:  # a table inside an inline table: one more member, itself inline
            body = ", ".join(f"{toml_key([k])} = {toml_value(v)}" for k, v in leaves.items())
            self._add_member(inline, path, "{ " + body + " }" if body else "{}", _with(self._value, path, dict(leaves)))
            return
        nl = self._newline
        block = _table_block(path, leaves, nl)
        text = self._text
        if not text:
            addition = block
        elif text.endswith("\n"):
            addition = nl + block
        else:
            addition = nl + nl + block[: -len(nl)]
        self._replace(len(text), len(text), addition, _with(self._value, path, dict(leaves)))

    def _without(self, path: Sequence[str]) -> Any:
        """The document without ``path``, and without the parents that only it had made (a table
        never written with a header of its own or a key line disappears with its last sub-table)."""
        parent = self.get(path[:-1])
        kept = {k: v for k, v in parent.items() if k != path[-1]}
        written = (
            self._table(path[:-1]) is not None
            or self._entry(path[:-1]) is not None
            or self._member(path[:-1]) is not None
        )
        if kept or not path[:-1] or written:
            return _with(self._value, path[:-1], kept) if path[:-1] else kept
        return self._without(path[:-1])

    def keys_under(self, table: Sequence[str]) -> list[tuple[str, ...]]:
        """The keys written on lines under the ``[table]`` header (``()``: the top level, before any
        header), relative to it and in order; a dotted key gives all its parts."""
        found = self._table(table) if table else self._tables[0]
        return [entry.path[len(found.path) :] for entry in found.entries] if found else []

    def move_line(self, path: Sequence[str], table: Sequence[str]) -> None:
        """Move the key line of ``path`` (as written, comment and all) to the end of ``[table]``'s
        lines (``()``: the top level); its key, relative to the table it stood in, is then read
        under ``table``."""
        entry = self._entry(path)
        source = next((t for t in self._tables if entry in t.entries), None)
        target = self._table(table) if table else self._tables[0]
        if entry is None or source is None or target is None:
            raise DocumentError(f"{toml_key(path)} is not a key line that can be moved under [{toml_key(table)}]")
        relative = entry.path[len(source.path) :]
        expected = _with(self._without(path), (*table, *relative), self.get(path))
        text, nl = self._text, self._newline
        line = text[entry.start : entry.end]
        start = entry.start
        if not line.endswith("\n"):  # the last line of a text without a final newline: it keeps none
            line += nl
            start -= len(nl) if start > 0 else 0
        at = target.content_end
        if at > entry.start:
            at -= entry.end - start
        without = text[:start] + text[entry.end :]
        self._accept(without[:at] + line + without[at:], expected)

    def remove(self, path: Sequence[str | int]) -> None:
        """Remove one leaf's key line, an item of a list (``path`` ends with its index), or a ``[table]``
        (with its sub-tables) and the blank line that came before it."""
        if self.get(path) is MISSING:
            return
        if isinstance(path[-1], int):
            self._remove_item([str(step) for step in path[:-1]], path[-1])
            return
        keys = [str(step) for step in path]
        expected = self._without(keys)
        entry = self._entry(keys)
        if entry is not None:
            start = entry.start
            if entry.end == len(self._text) and not self._text.endswith("\n") and start > 0:
                start -= len(self._newline)  # the last line of a text without a final newline: it keeps none
            self._replace(start, entry.end, "", expected)
            return
        member = self._member(keys)
        if member is not None:
            inline, index = member
            members = inline.members
            if index > 0:  # with the separator before it
                start, end = members[index - 1].value_end, members[index].value_end
            elif len(members) > 1:  # with the separator after it
                start, end = members[0].start, members[1].start
            else:
                start, end = members[0].start, members[0].value_end
            self._replace(start, end, "", expected)
            return
        inner = [m.path for i in self._inlines for m in i.members if m.path[: len(keys)] == tuple(keys)]
        if inner:  # written as dotted members of an inline table: each goes
            for member_path in inner:
                self.remove(member_path)
            return
        blocks = [t for t in self._tables if t.path[: len(keys)] == tuple(keys) and t.path]
        if not blocks:
            raise DocumentError(f"{toml_key(keys)} is not written as a table or a key line")
        self._accept(self._cut_blocks(self._text, [(b.start, b.content_end) for b in blocks]), expected)
