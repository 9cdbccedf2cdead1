"""Surgical edits to a user's JSON (or JSONC) file: the bytes we do not edit stay as they are.

A user's ``settings.json`` is re-serialised by no one but its owner: this module parses the text
into spans (where each member, key and value starts and ends), and each edit replaces one span with
text in the file's own style (its indentation, line ending, separators). Comments are kept where the
host reads them (``jsonc=True``): Gemini CLI strips comments, then ``JSON.parse``s (strip-json-comments'
defaults), so a trailing comma or a byte-order mark is a file it cannot read, and is refused here too.
Every edit is checked by parsing the result again: the new document must equal the old one with
exactly that change, or the edit raises :class:`DocumentError` and the text is not changed.

Text is decoded with ``surrogateescape``, so bytes that are not UTF-8 survive untouched.
"""

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["MISSING", "DocumentError", "JsonDocument", "json_value"]

MISSING: Final[Any] = object()
"""What :meth:`JsonDocument.get` returns for a path that is not there."""

_WHITESPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS: Final = {"true": True, "false": False, "null": None}


class DocumentError(ValueError):
    """The text is not a document we can edit, or an edit would not give the intended document."""


@dataclass
class _Node:
    """One value and where it stands in the text."""

    start: int
    end: int
    value: Any
    members: list["_Member"] = field(default_factory=list)  # objects: in text order, duplicates kept
    items: list["_Node"] = field(default_factory=list)  # arrays
    kind: str = "scalar"  # "object", "array" or "scalar"


@dataclass
class _Member:
    key: str
    key_start: int
    key_end: int
    node: _Node


class _Parser:
    def __init__(self, text: str, jsonc: bool) -> None:
        self.text = text
        self.jsonc = jsonc
        self.at = 0

    def fail(self, what: str, at: int | None = None) -> DocumentError:
        at = self.at if at is None else at
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return DocumentError(f"{what} at line {line}, column {column}")

    def skip(self) -> None:
        """Skip whitespace, and comments where the host reads them."""
        text = self.text
        while True:
            self.at = _WHITESPACE.match(text, self.at).end()  # type: ignore[union-attr]
            if not self.jsonc or not text.startswith("/", self.at):
                return
            if text.startswith("//", self.at):
                newline = text.find("\n", self.at)
                self.at = len(text) if newline < 0 else newline
            elif text.startswith("/*", self.at):
                close = text.find("*/", self.at + 2)
                if close < 0:
                    raise self.fail("an unclosed comment")
                self.at = close + 2
            else:
                return

    def value(self) -> _Node:
        self.skip()
        text, start = self.text, self.at
        char = text[start : start + 1]
        if char == "{":
            return self.container(start, "object")
        if char == "[":
            return self.container(start, "array")
        if char == '"':
            found = _STRING.match(text, start)
            if found is None:
                raise self.fail("an invalid string")
            self.at = found.end()
            return _Node(start, self.at, json.loads(found.group()))
        found = _NUMBER.match(text, start)
        if found is not None and found.end() > start:
            self.at = found.end()
            number = json.loads(found.group())
            if isinstance(number, float) and math.isinf(number):
                number = float(found.group())  # 1e400: kept as spelled; compared as infinity
            return _Node(start, self.at, number)
        for word, literal in _LITERALS.items():
            if text.startswith(word, start):
                self.at = start + len(word)
                return _Node(start, self.at, literal)
        raise self.fail("an unexpected character" if char else "an unexpected end")

    def container(self, start: int, kind: str) -> _Node:
        close = "}" if kind == "object" else "]"
        node = _Node(start, start, {} if kind == "object" else [], kind=kind)
        self.at = start + 1
        while True:
            self.skip()
            if self.text.startswith(close, self.at):
                break
            if kind == "object":
                key_start = self.at
                key = self.value()
                if not isinstance(key.value, str) or key.kind != "scalar" or self.text[key_start] != '"':
                    raise self.fail("a member name that is not a string", key_start)
                self.skip()
                if not self.text.startswith(":", self.at):
                    raise self.fail("a missing ':'")
                self.at += 1
                child = self.value()
                node.members.append(_Member(key.value, key_start, key.end, child))
                node.value[key.value] = child.value
            else:
                child = self.value()
                node.items.append(child)
                node.value.append(child.value)
            self.skip()
            if self.text.startswith(",", self.at):
                self.at += 1
                self.skip()
                if self.text.startswith(close, self.at):  # JSON.parse refuses it, after comments too
                    raise self.fail("a trailing comma")
                continue
            if not self.text.startswith(close, self.at):
                raise self.fail(f"a missing ',' or '{close}'")
            break
        self.at += 1
        node.end = self.at
        return node


def _parse(text: str, jsonc: bool) -> _Node:
    parser = _Parser(text, jsonc)
    root = parser.value()
    parser.skip()
    if parser.at != len(text):
        raise parser.fail("text after the document")
    return root


def _line_indent(text: str, at: int) -> str:
    """The whitespace that starts the line ``at`` stands on."""
    line = text.rfind("\n", 0, at) + 1
    return _WHITESPACE.match(text, line).group().replace("\n", "").replace("\r", "")  # type: ignore[union-attr]


@dataclass
class _Style:
    newline: str
    unit: str  # one level of indentation; "" for a file on one line


def _style(text: str) -> _Style:
    newline = "\r\n" if "\r\n" in text else "\n"
    if "\n" not in text.strip():
        return _Style(newline, "")
    found = re.search(r"\n([ \t]+)\S", text)
    return _Style(newline, found.group(1) if found else "  ")


class JsonDocument:
    """A JSON text and surgical edits to it. ``path`` is a sequence of member names and array indexes."""

    def __init__(self, text: str, *, jsonc: bool = False) -> None:
        self.jsonc = jsonc
        if jsonc and text.startswith("\ufeff"):
            raise DocumentError("a byte-order mark, which the host (stripping comments, then JSON.parse) cannot read")
        self._bom = "\ufeff" if text.startswith("\ufeff") else ""
        self._blank = text[len(self._bom) :] if not text[len(self._bom) :].strip() else None
        # A blank file holds an empty object, as the hosts read it; ours is written in their style.
        self._body = "{}\n" if self._blank is not None else text[len(self._bom) :]
        self._root = _parse(self._body, jsonc)
        self._style = _Style("\n", "  ") if self._blank is not None else _style(self._body)

    @property
    def text(self) -> str:
        """The document as text: exactly as read wherever nothing was edited (a blank file emptied again
        is blank again)."""
        if self._blank is not None and not self._root.members:
            return self._bom + self._blank
        return self._bom + self._body

    @property
    def value(self) -> Any:
        return self._root.value

    def _find(self, path: Sequence[str | int]) -> _Node | None:
        node = self._root
        for depth, step in enumerate(path):
            if node.kind == "object" and isinstance(step, str):
                found = [m for m in node.members if m.key == step]
                if len(found) > 1:
                    where = ".".join(map(str, path[: depth + 1]))
                    raise DocumentError(f"the key {where} is there {len(found)} times")
                if not found:
                    return None
                node = found[0].node
            elif node.kind == "array" and isinstance(step, int) and 0 <= step < len(node.items):
                node = node.items[step]
            else:
                return None
        return node

    def get(self, path: Sequence[str | int]) -> Any:
        """The value at ``path``, or :data:`MISSING`."""
        node = self._find(path)
        return MISSING if node is None else node.value

    def source(self, path: Sequence[str | int]) -> str | None:
        """The text of the value at ``path`` as the file spells it (to give back byte for byte), or
        ``None`` when there is none."""
        node = self._find(path)
        return None if node is None else self._body[node.start : node.end]

    def set_source(self, path: Sequence[str | int], text: str) -> None:
        """Put ``text`` (what :meth:`source` gave) in place of the value at ``path``, as written.

        Raises:
            DocumentError: there is no value at ``path``, or ``text`` is not one value.
        """
        node = self._find(path)
        if node is None:
            raise DocumentError(f"{'.'.join(map(str, path))} is not there")
        try:
            value = json_value(text, jsonc=self.jsonc)
        except ValueError as error:
            raise DocumentError(f"{text[:40]!r} is not one JSON value ({error})") from error
        self._replace(node.start, node.end, text, _with(self.value, path, value))

    def inner(self, path: Sequence[str | int]) -> str:
        """The text between an empty container's brackets (to give back when it is emptied again)."""
        node = self._find(path)
        return "" if node is None else self._body[node.start + 1 : node.end - 1]

    # Rendering in the file's style.

    def _render(self, value: Any, indent: str) -> str:
        style = self._style
        if not style.unit or not isinstance(value, dict | list) or not value:
            separators = (", ", ": ") if style.unit or re.search(r'":\s', self._body) else (",", ":")
            return json.dumps(value, ensure_ascii=False, separators=separators)
        lines = json.dumps(value, ensure_ascii=False, indent=style.unit).split("\n")
        return (style.newline + indent).join(lines)

    # Edits: each replaces one span, then checks the result.

    def _replace(self, start: int, end: int, new: str, expected: Any) -> None:
        body = self._body[:start] + new + self._body[end:]
        try:
            root = _parse(body, self.jsonc)
        except DocumentError as error:
            raise DocumentError(f"an edit would not give valid JSON ({error})") from error
        if root.value != expected:
            raise DocumentError("an edit would change more than it should")
        self._body, self._root = body, root

    def set(self, path: Sequence[str | int], value: Any) -> None:
        """Set the member at ``path`` (its parents must exist and be objects): its value's span is
        replaced, or the member is added after the object's last member, in the object's style."""
        expected = _with(self.value, path, value)
        node = self._find(path)
        if node is not None:
            self._replace(node.start, node.end, self._render(value, _line_indent(self._body, node.start)), expected)
            return
        parent = self._find(path[:-1])
        if parent is None or parent.kind != "object":
            raise DocumentError(f"{'.'.join(map(str, path[:-1])) or 'the document'} is not an object")
        self._add(parent, [m.key_start for m in parent.members], json.dumps(path[-1], ensure_ascii=False), value,
                  expected)  # fmt: skip

    def append(self, path: Sequence[str | int], item: Any) -> None:
        """Append ``item`` to the array at ``path``, in the array's style."""
        parent = self._find(path)
        if parent is None or parent.kind != "array":
            raise DocumentError(f"{'.'.join(map(str, path))} is not a list")
        expected = _with(self.value, path, [*parent.value, item])
        self._add(parent, [i.start for i in parent.items], None, item, expected)

    def _add(self, parent: _Node, starts: list[int], key: str | None, value: Any, expected: Any) -> None:
        body, style = self._body, self._style
        if starts:
            last = parent.members[-1].node if parent.kind == "object" else parent.items[-1]
            before = body[: starts[-1]]
            gap = before[len(before.rstrip(" \t\r\n")) :]  # the whitespace before the last element
            colon = body[parent.members[-1].key_end : last.start] if key is not None else ""
            colon = colon if colon.strip() == ":" else ": "
            indent = _line_indent(body, starts[-1])
            member = (key + colon if key is not None else "") + self._render(value, indent)
            self._replace(last.end, last.end, "," + gap + member, expected)
            return
        outer = _line_indent(body, parent.start)
        colon = ": " if style.unit or re.search(r'":\s', body) else ":"
        member = (key + colon if key is not None else "") + self._render(value, outer + style.unit)
        inner = body[parent.start + 1 : parent.end - 1]
        if style.unit and not inner.strip():
            new = style.newline + outer + style.unit + member + style.newline + outer
            self._replace(parent.start + 1, parent.end - 1, new, expected)
        else:
            self._replace(parent.start + 1, parent.start + 1, member, expected)

    def remove(self, path: Sequence[str | int], *, inner: str = "") -> None:
        """Remove the member or item at ``path`` with the separator that came with it; a container left
        empty gets ``inner`` between its brackets (what it held before it was filled)."""
        node = self._find(path)
        parent = self._find(path[:-1])
        if node is None or parent is None:
            return
        if parent.kind == "object":
            key = path[-1]
            index = next(i for i, m in enumerate(parent.members) if m.key == key)
            starts = [m.key_start for m in parent.members]
            nodes = [m.node for m in parent.members]
            expected_parent: Any = {k: v for k, v in parent.value.items() if k != key}
        else:
            index = int(path[-1])
            starts = [i.start for i in parent.items]
            nodes = parent.items
            expected_parent = [v for i, v in enumerate(parent.value) if i != index]
        expected = _with(self.value, path[:-1], expected_parent)
        body = self._body
        if len(nodes) == 1:
            around = body[parent.start + 1 : starts[0]] + body[node.end : parent.end - 1]
            if not around.replace(",", "").strip():  # nothing but whitespace (and a trailing comma) around it
                self._replace(parent.start + 1, parent.end - 1, inner, expected)
            else:  # a comment of the user's stays
                after = body[node.end :]
                comma = after[: len(after) - len(after.lstrip(" \t"))]
                end = node.end + len(comma) + 1 if after.lstrip(" \t").startswith(",") else node.end
                self._replace(starts[0], end, "", expected)
        elif index == len(nodes) - 1:
            self._replace(nodes[index - 1].end, node.end, "", expected)
        else:
            self._replace(starts[index], starts[index + 1], "", expected)


def _value_at(document: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` in a parsed document (keys, and indexes into lists), or :data:`MISSING`."""
    node = document
    for step in path:
        if isinstance(node, Mapping) and isinstance(step, str) and step in node:
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return MISSING
    return node


def _with(document: Any, path: Sequence[str | int], value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``path`` (the parents exist or are made as objects)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(document, list) and isinstance(head, int):
        copy = list(document)
        copy[head] = _with(copy[head], rest, value)
        return copy
    copy_object = dict(document) if isinstance(document, dict) else {}
    copy_object[head] = _with(copy_object.get(head, {}), rest, value)
    return copy_object


def json_value(text: str, *, jsonc: bool = False) -> Any:
    """The value of a JSON (or JSONC) file's text, only to read it: as :attr:`JsonDocument.value` gives
    it (a blank file is an empty object, a byte-order mark is skipped), but plain JSON goes through the
    standard library's C parser, as fast on a 5 MB ``~/.claude.json`` as the host's own read.

    Raises:
        ValueError: the text is not valid JSON (or JSONC).
    """
    body = text if jsonc else text.removeprefix("\ufeff")
    if not body.strip():
        return {}
    return JsonDocument(body, jsonc=True).value if jsonc else json.loads(body)
