"""Surgical edits to a user's TOML file (Codex's ``config.toml``): text inserted and removed, never
re-serialised, so no key of the user's moves (tomlkit puts a new table between a dotted key and the
keys after it, which then belong to the new table).

A new table is appended at the end, after a blank line; a key is set where it stands or added after
the last key of its table; a table is removed with the blank line that came with it. Every edit is
checked by parsing the result with ``tomllib``: it must equal the old document with exactly that
change, or the edit raises :class:`DocumentError` and the text is not changed.
"""

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._jsonedit import MISSING, DocumentError, _with

__all__ = ["TomlDocument", "toml_key", "toml_value"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_QUOTED_KEY = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


def toml_key(path: Sequence[str]) -> str:
    """A dotted key, each part bare where TOML allows it and quoted otherwise."""
    return ".".join(part if _BARE_KEY.fullmatch(part) else toml_value(part) for part in path)


def toml_value(value: Any) -> str:
    """One value as TOML (strings, booleans, integers and lists of them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")  # a valid TOML basic string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
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


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

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

    def value(self) -> None:
        """Move past one value: strings (all four kinds), arrays and inline tables (nested, over lines)."""
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
            self.at += 1
            while True:
                self.skip_space_and_comments()
                if text.startswith(close, self.at):
                    self.at += 1
                    return
                if text.startswith(",", self.at):
                    self.at += 1
                    continue
                if close == "}":
                    self.key()
                    self.skip_blank()
                    self.at += 1  # "="
                    self.skip_blank()
                self.value()
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


def _scan(text: str) -> list[_Table]:
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
        scanner.value()
        value_end = scanner.at
        scanner.at = scanner.rest_of_line()
        table = tables[-1]
        table.entries.append(_Entry(table.path + key, line_start, value_start, value_end, scanner.at))
    return tables


class TomlDocument:
    """A TOML text and surgical edits to it. Only tables with a ``[header]`` are added to; a path
    written with dotted keys or as an inline table is edited where its key line stands."""

    def __init__(self, text: str) -> None:
        self._text = text
        try:
            self._value = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise DocumentError(str(error)) from error
        self._tables = _scan(text)
        self._newline = "\r\n" if "\r\n" in text else "\n"

    @property
    def text(self) -> str:
        return self._text

    @property
    def value(self) -> dict[str, Any]:
        return self._value

    def get(self, path: Sequence[str]) -> Any:
        node: Any = self._value
        for step in path:
            if not isinstance(node, Mapping) or step not in node:
                return MISSING
            node = node[step]
        return node

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
        self._text, self._value, self._tables = text, value, _scan(text)

    def _table(self, path: Sequence[str]) -> _Table | None:
        found = [t for t in self._tables if t.path == tuple(path) and not t.array]
        return found[0] if found else None

    def _entry(self, path: Sequence[str]) -> _Entry | None:
        for table in self._tables:
            for entry in table.entries:
                if entry.path == tuple(path):
                    return entry
        return None

    def set(self, path: Sequence[str], value: Any) -> None:
        """Set one leaf: its value replaced where it stands, or a ``key = value`` line added to its
        table, or its table appended (``[table]``) when the document has no such table yet."""
        expected = _with(self._value, path, value)
        entry = self._entry(path)
        if entry is not None:
            self._replace(entry.value_start, entry.value_end, toml_value(value), expected)
            return
        table = self._table(path[:-1])
        if table is not None:
            line = f"{toml_key(path[-1:])} = {toml_value(value)}"
            at = table.content_end
            if self._text[:at].endswith("\n") or at == 0:
                line += self._newline
            else:  # the last line of a text without a final newline: it keeps none
                line = self._newline + line
            self._replace(at, at, line, expected)
            return
        if self.get(path[:-1]) is not MISSING:
            raise DocumentError(
                f"{toml_key(path[:-1])} is written with dotted keys or as an inline table, where a key cannot be "
                f"added without rewriting it: add {toml_key(path[-1:])} = {toml_value(value)} there yourself"
            )
        self.add_table(path[:-1], {path[-1]: value})

    def add_table(self, path: Sequence[str], leaves: Mapping[str, Any]) -> None:
        """Append ``[path]`` with ``leaves`` at the end, after a blank line (a text without a final
        newline keeps none)."""
        nl = self._newline
        block = f"[{toml_key(path)}]{nl}" + "".join(f"{toml_key([k])} = {toml_value(v)}{nl}" for k, v in leaves.items())
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
        if kept or not path[:-1] or self._table(path[:-1]) is not None or self._entry(path[:-1]) is not None:
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

    def remove(self, path: Sequence[str]) -> None:
        """Remove one leaf's key line, or a ``[table]`` (with its sub-tables) and the blank line that
        came before it."""
        if self.get(path) is MISSING:
            return
        expected = self._without(path)
        entry = self._entry(path)
        if entry is not None:
            start = entry.start
            if entry.end == len(self._text) and not self._text.endswith("\n") and start > 0:
                start -= len(self._newline)  # the last line of a text without a final newline: it keeps none
            self._replace(start, entry.end, "", expected)
            return
        blocks = [t for t in self._tables if t.path[: len(path)] == tuple(path) and t.path]
        if not blocks:
            raise DocumentError(f"{toml_key(path)} is not written as a table or a key line")
        text = self._text
        for block in sorted(blocks, key=lambda t: t.start, reverse=True):
            start, end = block.start, block.content_end
            if text[:start].endswith(("\n\n", "\r\n\r\n")):  # the blank line an added table comes after
                start -= len(self._newline)
                if not text[start:end].endswith("\n"):  # and the newline added to a text without a final one
                    start -= len(self._newline)
            text = text[:start] + text[end:]
        self._accept(text, expected)
