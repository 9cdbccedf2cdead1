"""What an install by Herdr Link 0.1.0 did wrong in Codex's ``config.toml``, found so that install
can put it right (with ``--yes``) and the doctor can warn of it.

0.1.0 re-serialised the file with tomlkit, which put our new table between a dotted key and the
keys after it: those keys (``model = "gpt-5"``) then belonged to our ``[mcp_servers.herdr_link]`` or
to our ``[hooks.state."…"]`` table, where Codex does not read them. And it always wrote the trust
of our hint hook for the first handler (``…:session_start:0:0``), which is the user's own hook when
``hooks.json`` had one: that entry holds our hook's hash, so Codex takes the user's hook as modified
and skips it. Both are recognised by what they are, never by a guess: a key Codex does not read in a
table of ours, and a trust entry holding our hook's hash at a place that is not our hook's.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from herdr_link_control.userfiles import DocumentError, TomlDocument, real_file, toml_key

from ._claims import OUR_ENTRY_KEYS, find_hook, is_our_entry
from ._clients import DEFAULT_NAMESPACE
from ._codex import HOOK_STATE_KEYS, SERVER_KEYS, SESSION_START, session_start_hash
from ._wiring import codex_session_start

__all__ = ["Damage", "codex_damage", "codex_damage_at"]


@dataclass(frozen=True)
class Damage:
    """One thing 0.1.0 left wrong: a key line ``moved`` into a table of ours (it goes back to the top
    level), or a ``stray`` trust entry (it is taken out)."""

    kind: Literal["moved", "stray"]
    path: tuple[str, ...]
    problem: str
    fix: str


def _our_hook(groups: object) -> tuple[tuple[int, int], str | None] | None:
    """Where our hint hook is in the SessionStart groups, and the hash Codex computes for it."""
    found = find_hook(groups)
    if found is None or not isinstance(groups, list):
        return None
    group, handler = found
    if handler is None:
        return None  # Codex's groups always hold their handlers under "hooks"
    return (group, handler), session_start_hash(groups[group], groups[group]["hooks"][handler])


def _moved(document: TomlDocument, table: tuple[str, ...], readable: frozenset[str]) -> list[Damage]:
    where = f"[{toml_key(table)}]"
    return [
        Damage(
            "moved",
            (*table, *key),
            f"{toml_key(key)} sits in {where}, where Codex does not read it (Herdr Link 0.1.0 moved it there)",
            f"move {toml_key(key)} back to the top level, where it was",
        )
        for key in document.keys_under(table)
        if key[0] not in readable
    ]


def codex_damage(document: TomlDocument, hooks_file: Path, groups: object) -> list[Damage]:
    """What 0.1.0 left wrong in Codex's ``config.toml`` (``document``), given the SessionStart
    ``groups`` of the ``hooks.json`` at ``hooks_file``: moved keys first, then stray trust entries."""
    damage: list[Damage] = []
    server = ("mcp_servers", DEFAULT_NAMESPACE)
    if is_our_entry(document.get(server)):
        damage += _moved(document, server, SERVER_KEYS | OUR_ENTRY_KEYS)
    ours = _our_hook(groups)
    state = document.get(("hooks", "state"))
    if ours is None or not isinstance(state, Mapping):
        return damage
    (group, handler), our_hash = ours
    prefix = f"{os.path.abspath(hooks_file)}:{SESSION_START}:"
    stray: list[Damage] = []
    for key, entry in state.items():
        if not key.startswith(prefix) or not isinstance(entry, Mapping) or entry.get("trusted_hash") != our_hash:
            continue
        damage += _moved(document, ("hooks", "state", key), HOOK_STATE_KEYS)
        if key != f"{prefix}{group}:{handler}":
            where = key[len(prefix) :].replace(":", ", handler ")
            stray.append(
                Damage(
                    "stray",
                    ("hooks", "state", key),
                    f"the trust entry for SessionStart group {where} holds Herdr Link's hash, not that hook's "
                    "(Herdr Link 0.1.0 wrote it there): Codex skips the hook it names",
                    f'take out [hooks.state."{key}"] (Codex asks you to trust that hook again in /hooks)',
                )
            )
    return damage + stray


def codex_damage_at(config_file: Path, hooks_file: Path) -> list[Damage]:
    """:func:`codex_damage` of the ``config.toml`` at ``config_file`` and Codex's hook file at ``hooks_file``
    (its place in the host table; nothing when the config is missing, unreadable or not TOML: other checks
    say so)."""
    try:
        document = TomlDocument(real_file(config_file).read_bytes().decode("utf-8", errors="surrogateescape"))
    except (OSError, DocumentError):
        return []
    return codex_damage(document, hooks_file, codex_session_start(hooks_file))
