"""Surgical edits to a user's YAML file (Hermes Agent's ``config.yaml``): text inserted and removed where
ruamel.yaml's parser locates it, never re-serialised, so the user's comments, order, quoting and
indentation stay as they are.

A key added to a block mapping goes on lines of its own after the mapping's last line, at its keys'
column, in the file's indentation step and newlines; in a flow mapping (``{}``) it is one more member
on the mapping's line; a whole document that is empty or only comments gets it at the end. What a set
or a removal takes out is exactly the text the matching addition brought, so adding and removing gives
back the text byte for byte. Our own values are written with strings double-quoted and lists in flow
style, as Hermes documents its entries. Every edit is checked by parsing the result as Hermes does
(YAML 1.1, safe): it must equal the old document with exactly that change, or the edit raises
:class:`DocumentError` and the text is not changed. A path through an anchor, an alias or a merge key,
or a key not alone at the start of its line, is refused.
"""

import io
from collections.abc import Mapping, Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from ._jsonedit import MISSING, DocumentError, _value_at, _with

__all__ = ["YamlDocument", "yaml_text", "yaml_value"]


def yaml_value(text: str) -> Any:
    """The value of a YAML text as Hermes reads it (PyYAML's ``safe_load``: YAML 1.1, one document);
    an empty text, or one of comments only, is an empty mapping.

    Raises:
        DocumentError: the text is not one YAML document.
    """
    loader = YAML(typ="safe", pure=True)
    loader.version = (1, 1)
    try:
        value = loader.load(text)
    except (YAMLError, ValueError, RecursionError) as error:
        raise DocumentError(_reason(error)) from error
    return {} if value is None else value


def _reason(error: BaseException) -> str:
    """A parser error in one line."""
    return " ".join(str(error).split()) or type(error).__name__


def _styled(value: Any) -> Any:
    """``value`` as ruamel.yaml writes our entries: strings double-quoted, lists in flow style."""
    if isinstance(value, str):
        return DoubleQuotedScalarString(value)
    if isinstance(value, Mapping):
        styled = CommentedMap()
        for key, inner in value.items():
            styled[key] = _styled(inner)
        return styled
    if isinstance(value, list | tuple):
        items = CommentedSeq(_styled(item) for item in value)
        items.fa.set_flow_style()
        return items
    return value


def _dump(data: Mapping[str, Any], step: int, *, flow: bool) -> str:
    writer = YAML(typ="rt")
    writer.indent(mapping=step, sequence=step + 2, offset=step)
    writer.width = 1 << 30  # never folded
    writer.default_flow_style = flow
    stream = io.StringIO()
    writer.dump(_styled(data) if not flow else dict(data), stream)
    return stream.getvalue()


def yaml_text(data: Mapping[str, Any], step: int = 2) -> str:
    """``data`` as install writes it into a file that has none of it (block mappings, ``step`` spaces)."""
    return _dump(data, step, flow=False)


def _flow_member(key: str, value: Any) -> str:
    """``key: value`` as one member of a flow mapping."""
    styled = CommentedMap()
    styled[key] = _styled(value)
    styled.fa.set_flow_style()
    for inner in _flow_containers(styled):
        inner.fa.set_flow_style()
    text = _dump(styled, 2, flow=True).strip()
    return text[1:-1].strip()


def _flow_containers(value: Any) -> list[Any]:
    found: list[Any] = []
    if isinstance(value, CommentedMap):
        for inner in value.values():
            found += [inner, *_flow_containers(inner)] if isinstance(inner, CommentedMap | CommentedSeq) else []
    elif isinstance(value, CommentedSeq):
        for inner in value:
            found += [inner, *_flow_containers(inner)] if isinstance(inner, CommentedMap | CommentedSeq) else []
    return found


class YamlDocument:
    """A YAML text and surgical edits to our keys in its mappings."""

    def __init__(self, text: str) -> None:
        self._newline = "\r\n" if "\r\n" in text else "\n"
        self._load(text)

    def _load(self, text: str) -> None:
        value = yaml_value(text)
        try:
            root = YAML(typ="rt").compose(text)
        except (YAMLError, ValueError, RecursionError) as error:
            raise DocumentError(_reason(error)) from error
        if root is not None and not isinstance(value, dict):
            raise DocumentError("the document is not a mapping")
        self._text, self._value, self._root = text, value, root

    @property
    def text(self) -> str:
        return self._text

    @property
    def value(self) -> dict[str, Any]:
        return self._value  # type: ignore[no-any-return]

    def get(self, path: Sequence[str | int]) -> Any:
        """The value at ``path`` (keys, and indexes into lists), or :data:`MISSING`."""
        return _value_at(self._value, path)

    # Where things are.

    def _mapping(self, path: Sequence[str]) -> MappingNode | None:
        """The mapping node at ``path`` (``None`` for an empty document's root)."""
        node: Node | None = self._root
        for depth in range(len(path) + 1):
            if node is not None and (getattr(node, "anchor", None) or _has_merge(node)):
                where = ".".join(path[:depth]) or "the document"
                raise DocumentError(f"{where} uses an anchor, an alias or a merge key: Link does not edit through one")
            if depth == len(path):
                break
            found = self._pair(node, path[depth]) if isinstance(node, MappingNode) else None
            if found is None:
                raise DocumentError(f"{'.'.join(path[: depth + 1])} is not a mapping here")
            node = found[1]
        if node is not None and not isinstance(node, MappingNode):
            raise DocumentError(f"{'.'.join(path) or 'the document'} is not a mapping here")
        return node

    @staticmethod
    def _pair(mapping: MappingNode, key: str) -> tuple[Node, Node] | None:
        for key_node, value_node in mapping.value:
            if isinstance(key_node, ScalarNode) and key_node.value == key:
                return key_node, value_node
        return None

    def _content_end(self, node: Node) -> int:
        """After the last character of ``node``'s own text (a block collection's last item; a block
        scalar without the blank lines after it)."""
        if isinstance(node, MappingNode | SequenceNode) and not node.flow_style and node.value:
            last = node.value[-1]
            return max(self._content_end(part) for part in (last if isinstance(last, tuple) else (last,)))
        end: int = node.end_mark.index
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            end = len(self._text[:end].rstrip(" \t\r\n"))
        return end

    def _line_end(self, at: int) -> int:
        """After the newline of the line ``at`` is on (or the end of the text)."""
        newline = self._text.find("\n", at)
        return len(self._text) if newline < 0 else newline + 1

    def _entry_span(self, mapping: MappingNode, key: str) -> tuple[int, int]:
        """Where ``key``'s entry is written: in a block mapping its whole lines, in a flow mapping the
        member (``key: value``)."""
        found = self._pair(mapping, key)
        assert found is not None
        key_node, value_node = found
        start = key_node.start_mark.index
        end = max(self._content_end(value_node), key_node.end_mark.index)
        if mapping.flow_style:
            return start, end
        line_start = self._text.rfind("\n", 0, start) + 1
        if self._text[line_start:start].strip(" "):
            raise DocumentError(f"{key} does not start its own line: Link does not edit that layout")
        return line_start, self._line_end(end)

    def _step(self) -> int:
        """The file's indentation step: how far a nested block mapping's keys stand in (else 2)."""
        stack: list[Node] = [self._root] if self._root is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, MappingNode):
                for key_node, value_node in node.value:
                    if isinstance(value_node, MappingNode) and not value_node.flow_style and value_node.value:
                        step: int = value_node.start_mark.column - key_node.start_mark.column
                        if step > 0:
                            return step
                    stack.append(value_node)
            elif isinstance(node, SequenceNode):
                stack.extend(node.value)
        return 2

    # Editing.

    def _accept(self, text: str, expected: Any) -> None:
        """Take ``text`` as the document if it parses to exactly ``expected``; otherwise raise."""
        try:
            value = yaml_value(text)
        except DocumentError as error:
            raise DocumentError(f"an edit would not give valid YAML ({error})") from error
        if value != expected:
            raise DocumentError("an edit would change more than it should")
        self._load(text)

    def _splice(self, start: int, end: int, new: str, expected: Any) -> None:
        self._accept(self._text[:start] + new + self._text[end:], expected)

    def _block(self, column: int, key: str, value: Any) -> str:
        """``key: value`` as lines at ``column``, in the file's step and newlines."""
        lines = yaml_text({key: value}, self._step()).splitlines()
        return "".join(" " * column + line + self._newline for line in lines)

    def set(self, path: Sequence[str | int], value: Any) -> None:
        """Set ``path`` to ``value``: its entry rewritten where it stands, or added to the deepest mapping
        on ``path`` that exists (the keys still missing made as mappings).

        Raises:
            DocumentError: a mapping on the way is not one, is written through an anchor or in a layout
            Link does not edit, or the edit would change anything else (nothing is changed).
        """
        keys = [str(step) for step in path]
        expected = _with(self._value, keys, value)
        top = next((i for i in range(len(keys)) if self.get(keys[: i + 1]) is MISSING), None)
        if top is None:  # it is there: its entry is written anew where it stands
            mapping = self._mapping(keys[:-1])
            assert mapping is not None
            start, end = self._entry_span(mapping, keys[-1])
            if mapping.flow_style:
                self._splice(start, end, _flow_member(keys[-1], value), expected)
            else:
                found = self._pair(mapping, keys[-1])
                assert found is not None
                self._splice(start, end, self._block(found[0].start_mark.column, keys[-1], value), expected)
            return
        nested: Any = value
        for key in reversed(keys[top + 1 :]):
            nested = {key: nested}
        mapping = self._mapping(keys[:top])
        text = self._text
        if mapping is None:  # an empty document: the key at the end
            at, column = len(text), 0
        elif mapping.flow_style:
            close = mapping.end_mark.index - 1
            member = _flow_member(keys[top], nested)
            if mapping.value:
                at = self._content_end(mapping.value[-1][1])
                self._splice(at, at, ", " + member, expected)
            else:
                self._splice(close, close, member, expected)
            return
        else:
            last_key, last_value = mapping.value[-1]
            at = self._line_end(max(self._content_end(last_value), last_key.end_mark.index))
            column = mapping.value[0][0].start_mark.column
        block = self._block(column, keys[top], nested)
        if at == len(text) and text and not text.endswith("\n"):  # the last line, without a final newline
            block = self._newline + block[: -len(self._newline)]
        self._splice(at, at, block, expected)

    def append(self, path: Sequence[str | int], item: Any) -> None:
        """Lists are not added to (no YAML host of Link's keeps a list of ours).

        Raises:
            DocumentError: always (nothing is changed).
        """
        raise DocumentError(f"{'.'.join(map(str, path))} is a YAML list: Link does not add to one")

    def _without(self, keys: Sequence[str]) -> tuple[list[str], Any]:
        """What removing ``keys`` takes out (a block mapping it alone made goes with it) and the value after."""
        while len(keys) > 1:
            parent = self._mapping(keys[:-1])
            if parent is None or parent.flow_style or len(parent.value) > 1:
                break
            keys = keys[:-1]
        outer = self.get(keys[:-1])
        kept = {k: v for k, v in outer.items() if k != keys[-1]}
        return list(keys), _with(self._value, keys[:-1], kept) if keys[:-1] else kept

    def remove(self, path: Sequence[str | int]) -> None:
        """Remove ``path``'s entry with exactly the text :meth:`set` gave it: its lines in a block mapping
        (with the mapping, when it was the mapping's only key), or the member and its separator in a flow
        mapping.

        Raises:
            DocumentError: ``path`` ends in a list's item, or is written through an anchor or in a layout
            Link does not edit (nothing is changed).
        """
        if self.get(path) is MISSING:
            return
        if any(isinstance(step, int) for step in path):
            raise DocumentError("Link does not take items out of a YAML list")
        keys, expected = self._without([str(step) for step in path])
        mapping = self._mapping(keys[:-1])
        assert mapping is not None
        start, end = self._entry_span(mapping, keys[-1])
        text = self._text
        if mapping.flow_style:
            pairs = mapping.value
            index = next(i for i, (k, _) in enumerate(pairs) if isinstance(k, ScalarNode) and k.value == keys[-1])
            if index > 0:  # with the separator before it
                start = self._content_end(mapping.value[index - 1][1])
            elif len(mapping.value) > 1:  # with the separator after it
                end = mapping.value[1][0].start_mark.index
            self._splice(start, end, "", expected)
            return
        if end == len(text) and not text.endswith("\n") and start > 0:
            start -= len(self._newline)  # the last line of a text without a final newline: it keeps none
        self._splice(start, end, "", expected)

    def source(self, path: Sequence[str]) -> str | None:
        """The text of ``path``'s entry as the file spells it (to give back byte for byte with
        :meth:`set_source`); ``None`` when it is not there or not in a layout Link edits."""
        keys = [str(step) for step in path]
        if not keys or self.get(keys) is MISSING:
            return None
        try:
            mapping = self._mapping(keys[:-1])
            assert mapping is not None
            start, end = self._entry_span(mapping, keys[-1])
        except DocumentError:
            return None
        return self._text[start:end]

    def set_source(self, path: Sequence[str], text: str) -> None:
        """Put ``text`` (what :meth:`source` gave) in place of ``path``'s entry, where it stands.

        Raises:
            DocumentError: ``path`` is not there, or ``text`` would change anything but ``path``.
        """
        keys = [str(step) for step in path]
        if not keys or self.get(keys) is MISSING:
            raise DocumentError(f"{'.'.join(keys)} is not there to put back")
        mapping = self._mapping(keys[:-1])
        assert mapping is not None
        start, end = self._entry_span(mapping, keys[-1])
        new = self._text[:start] + text + self._text[end:]
        try:
            value = yaml_value(new)
        except DocumentError as error:
            raise DocumentError(f"{text[:40]!r} is not {'.'.join(keys)} as written ({error})") from error
        self._accept(new, _with(self._value, keys, _at(value, keys)))


def _at(value: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        value = value.get(key, MISSING) if isinstance(value, dict) else MISSING
    return value


def _has_merge(node: Node) -> bool:
    """Whether a mapping holds a merge key (``<<``)."""
    return isinstance(node, MappingNode) and any(
        isinstance(key, ScalarNode) and key.value == "<<" and not key.style for key, _ in node.value
    )
