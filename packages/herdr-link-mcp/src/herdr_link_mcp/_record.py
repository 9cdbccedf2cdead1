"""The install record: what ``herdr-link-mcp install`` added to each file and what it replaced, so that
``--uninstall`` takes out only that and puts back what was there.

One file per user, ``<Herdr Link's config directory>/installed.json`` (``~/.config/herdr-link/``),
readable by its owner only, keyed by each file's absolute path as named. Per file:

- ``existed``: whether the file was there before the first install (a file install created and
  emptied again is removed; one that was there stays, even empty); ``blank``: its text when it held
  only whitespace; ``folders``: the folders install made for a file it created (taken out with it
  when they are empty again);
- ``created``: paths install added (a key, with the containers it had to make), and ``inner``: what
  the container it went into held while empty (given back when it is emptied again);
- ``entries``: for our server entry, the ``keys`` install wrote in it (a key the user adds later is
  theirs, and stays when a later wiring no longer writes a key of that name);
- ``items``: list items install appended (the permission rule, a hook group);
- ``taken_out``: what uninstall took out (path and value), so that the same value back at that place
  (a running host that rewrote the file from a copy read just before the uninstall) is still known as
  ours, not the user's;
- ``replaced``: a user's value install replaced (only with ``--yes``): ``before`` and ``wrote``, so
  uninstall restores ``before`` while the key still holds exactly ``wrote`` (as it was spelled,
  ``before_text``: a JSON value, or a TOML table written in one place);
- ``set_aside``: an event list install took the TypeScript Herdr Link's hint hook out of (only with
  ``--yes``): ``before``, ``before_text`` and ``after``, so uninstall gives the list back as it was
  spelled while it still holds exactly ``after``.

Without a record file (an install made by 0.1.0), uninstall removes what is recognisably ours and
keeps every container, and install adopts what is recognisably ours as its own.
"""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

__all__ = ["RECORD_NAME", "FileRecord", "dump_record", "load_record"]

RECORD_NAME: Final = "installed.json"

FileRecord = dict[str, Any]


def empty_record(existed: bool, blank: str | None) -> FileRecord:
    return {"existed": existed, "blank": blank, "created": [], "items": [], "replaced": []}


def load_record(path: Path) -> tuple[bytes | None, dict[str, FileRecord]]:
    """The record's bytes as read (to compare before it is replaced) and its files; a record that
    cannot be read counts as none (uninstall then falls back to what is recognisably ours)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    try:
        body = json.loads(raw)
    except ValueError:
        return raw, {}
    files = body.get("files") if isinstance(body, dict) else None
    return raw, {k: v for k, v in files.items() if isinstance(v, dict)} if isinstance(files, dict) else {}


def dump_record(files: Mapping[str, FileRecord]) -> bytes:
    """The record's bytes. Kept even when it records nothing: its presence says that every file
    without an entry holds nothing install added (without it, files are taken as 0.1.0 left them)."""
    kept = {path: entry for path, entry in sorted(files.items()) if entry.get("created") or entry.get("items")
            or entry.get("replaced") or entry.get("taken_out") or entry.get("set_aside")}  # fmt: skip
    return (json.dumps({"version": 1, "files": kept}, indent=2, ensure_ascii=False) + "\n").encode()


def covers(entry: FileRecord | None, path: tuple[str, ...]) -> bool:
    """Whether install created ``path`` or a container above it."""
    return entry is not None and any(tuple(c["path"]) == path[: len(c["path"])] for c in entry["created"])


def inner_of(entry: FileRecord | None, path: tuple[str, ...]) -> str:
    """What the container of ``path`` held while empty, before install added ``path``."""
    for created in entry["created"] if entry else ():
        if tuple(created["path"]) == path:
            return str(created.get("inner") or "")
    for item in entry["items"] if entry else ():
        if tuple(item["path"]) == path[:-1]:
            return str(item.get("inner") or "")
    return ""


def replaced_at(entry: FileRecord | None, path: tuple[str, ...]) -> dict[str, Any] | None:
    for replaced in entry["replaced"] if entry else ():
        if tuple(replaced["path"]) == path:
            return dict(replaced)
    return None


def set_aside_at(entry: FileRecord | None, path: tuple[str, ...]) -> dict[str, Any] | None:
    """What install took out of the event list at ``path`` (the TypeScript Herdr Link's hint hook)."""
    for aside in (entry or {}).get("set_aside", []):
        if tuple(aside["path"]) == path:
            return dict(aside)
    return None


def appended(entry: FileRecord | None, path: tuple[str, ...], value: Any) -> bool:
    return entry is not None and any(tuple(i["path"]) == path and i["value"] == value for i in entry["items"])


def entry_keys(entry: FileRecord | None, path: tuple[str, ...]) -> set[str] | None:
    """The keys install wrote in the server entry at ``path``; ``None`` when the record does not say."""
    for written in entry.get("entries", []) if entry else ():
        if tuple(written["path"]) == path:
            return set(written["keys"])
    return None


def note_entry_keys(entry: FileRecord, path: tuple[str, ...], keys: list[str]) -> None:
    """Record ``keys`` as what install wrote in the server entry at ``path``."""
    entries = [e for e in entry.get("entries", []) if tuple(e["path"]) != path]
    entry["entries"] = [*entries, {"path": list(path), "keys": keys}]


def taken_out(entry: FileRecord | None, path: tuple[str, ...], value: Any) -> bool:
    """Whether uninstall took exactly ``value`` out of ``path`` (it is ours, put back by another program)."""
    return any(tuple(t["path"]) == path and t["value"] == value for t in (entry or {}).get("taken_out", []))
