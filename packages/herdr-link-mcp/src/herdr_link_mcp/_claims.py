"""What Herdr Link owns in a host's file: leaves, never the containers around them.

A wiring's data is read as claims, each recognised by what it is: the server entry named
``herdr_link`` (ours when it runs ``herdr-link-mcp``; its keys we write are ours, a key the user
added to it stays), an item of a list (a permission rule, or a hook handler known by its value),
our hint hook (the hook item, not the group around it), and a value (a folder's trust, Codex's
trust of our hook). Installing sets each claim; a user's different value at a claim's place is
foreign: shown, changed only when confirmed, and recorded (:mod:`._record`) so that uninstalling puts it back.
"""

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from herdr_link_control.hosts import HOSTS

from ._clients import DEFAULT_NAMESPACE

__all__ = [
    "OUR_COMMANDS",
    "OUR_ENTRY_KEYS",
    "Claim",
    "claims",
    "find_hook",
    "is_our_entry",
    "is_our_hook",
    "is_typescript_entry",
    "is_typescript_hook",
    "typescript_hook_places",
    "without_typescript_hooks",
]

OUR_COMMANDS: Final = ("herdr-link-mcp", "herdr_link_mcp")
"""A server entry or hook whose text names one of these runs our program."""
OUR_ENTRY_KEYS: Final = frozenset(
    {"type", "command", "args", "env", "env_vars", "default_tools_approval_mode", "required",
     "startup_timeout_sec", "trust", "exposure", "tools", "transport", "enabled", "disabled", "always_load"}
)  # fmt: skip
"""Keys some wiring writes (or an earlier release wrote) in our server entry: in an entry an earlier
release wrote, one our wiring no longer writes is taken out; any other key, and any key the user adds
to an entry this installer wrote (the install record says which), is the user's and stays."""

_ENTRY_NAMES: Final = frozenset({DEFAULT_NAMESPACE, *(host.servers.name for host in HOSTS if host.servers)})
"""The keys our server's entry is written under (a host that refuses ``herdr_link`` has its own)."""


def _names_ours(text: str) -> bool:
    return any(name in text for name in OUR_COMMANDS)


def is_our_entry(value: object) -> bool:
    """A server entry that runs our program."""
    return isinstance(value, Mapping) and _names_ours(json.dumps(value, default=str))


TYPESCRIPT_PACKAGE: Final = "herdr-link"
"""The TypeScript Herdr Link's npm package: its README and ``docs/mcp-wiring.md`` register its server as
``npx -y herdr-link`` (or ``node <checkout>/dist/herdr-link.mcp.js``)."""
TYPESCRIPT_HINT_SCRIPTS: Final = (
    "herdr-link-codex-tier0-hint.sh",
    "herdr-link-agy-tier0-hint.sh",
    "herdr-link-cc-tier0-hint",
)
"""The hint scripts the TypeScript Herdr Link's ``docs/mcp-wiring.md`` has users write and hook in."""


def is_typescript_entry(value: object) -> bool:
    """A server entry that runs the TypeScript Herdr Link (its npm package, or its bundle)."""
    if not isinstance(value, Mapping) or is_our_entry(value):
        return False
    words = [value.get("command"), *(value.get("args") or [])] if isinstance(value.get("args") or [], list) else []
    named = [w for w in words if isinstance(w, str)]
    package = any(w == TYPESCRIPT_PACKAGE or w.startswith(TYPESCRIPT_PACKAGE + "@") for w in named)
    return package or any(w.endswith("herdr-link.mcp.js") for w in named)


def is_typescript_hook(item: object) -> bool:
    """A hook handler that runs one of the TypeScript Herdr Link's hint scripts."""
    if not isinstance(item, Mapping) or isinstance(item.get("hooks"), list):
        return False
    text = json.dumps(item, default=str)
    return any(script in text for script in TYPESCRIPT_HINT_SCRIPTS)


def typescript_hook_places(groups: object) -> list[tuple[int] | tuple[int, str, int]]:
    """Where the TypeScript Herdr Link's hint hooks are in an event list: a whole group (or a handler
    directly in the list, AGY's form) as ``(index,)``, a handler among others as ``(index, "hooks", i)``."""
    places: list[tuple[int] | tuple[int, str, int]] = []
    for index, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, Mapping) else None
        if is_typescript_hook(group) or (
            isinstance(handlers, list) and handlers and all(map(is_typescript_hook, handlers))
        ):
            places.append((index,))
        elif isinstance(handlers, list):
            places += [(index, "hooks", i) for i, handler in enumerate(handlers) if is_typescript_hook(handler)]
    return places


def without_typescript_hooks(groups: object) -> object:
    """An event list as install leaves it: the TypeScript Herdr Link's hint hooks taken out."""
    if not isinstance(groups, list):
        return groups
    places = typescript_hook_places(groups)
    whole = {place[0] for place in places if len(place) == 1}
    kept: list[Any] = []
    for index, group in enumerate(groups):
        if index in whole:
            continue
        gone = {place[2] for place in places if len(place) == 3 and place[0] == index}
        if gone:
            group = dict(group) | {"hooks": [h for i, h in enumerate(group["hooks"]) if i not in gone]}
        kept.append(group)
    return kept


def is_our_hook(item: object) -> bool:
    """A hook item (a handler, not a group of them) that is our hint hook, of any version and path."""
    if not isinstance(item, Mapping) or isinstance(item.get("hooks"), list):
        return False
    text = json.dumps(item, default=str)
    return _names_ours(text) and " hint --host " in text


def find_hook(groups: object) -> tuple[int, int | None] | None:
    """Where our hook is in a list of hook groups: ``(group, item)``, or ``(index, None)`` when the
    list holds handlers directly (AGY); ``None`` when it is not there."""
    if not isinstance(groups, list):
        return None
    for index, group in enumerate(groups):
        if is_our_hook(group):
            return index, None
        hooks = group.get("hooks") if isinstance(group, Mapping) else None
        if isinstance(hooks, list):
            for position, item in enumerate(hooks):
                if is_our_hook(item):
                    return index, position
    return None


def hook_of(group: Mapping[str, Any]) -> Mapping[str, Any]:
    """Our hook item in a group as our wiring writes it (the group itself when it is a handler)."""
    if is_our_hook(group):
        return group
    return next(item for item in group["hooks"] if is_our_hook(item))


@dataclass(frozen=True)
class Claim:
    """One thing of ours at ``path``: a server ``entry``, an ``item`` of a list, a ``hook`` group
    appended to a list of groups, or a ``value``."""

    kind: Literal["entry", "item", "hook", "value"]
    path: tuple[str, ...]
    value: Any

    @property
    def shown(self) -> str:
        return ".".join(self.path)

    @property
    def said(self) -> str:
        """How a plan names it: the key path, or in words where the path says little to a reader (Codex's
        trust of our hook is keyed by the hooks file's absolute path and the hook's place in it)."""
        if self.kind == "value" and self.path[:2] == ("hooks", "state") and self.path[-1] == "trusted_hash":
            return "Codex's trust of our hint hook in [hooks.state]"
        return self.shown


def claims(data: Mapping[str, Any], path: tuple[str, ...] = ()) -> Iterator[Claim]:
    """The claims a wiring's ``data`` makes, in order."""
    for key, value in data.items():
        here = (*path, key)
        if key in _ENTRY_NAMES:
            yield Claim("entry", here, value)
        elif isinstance(value, Mapping):
            yield from claims(value, here)
        elif isinstance(value, list):
            for element in value:  # a handler that is not our hint hook is an item, known by its value
                yield Claim("hook" if find_hook([element]) is not None else "item", here, element)
        else:
            yield Claim("value", here, value)
