"""``herdr-link-mcp install``: write a host's wiring into the files the user already has.

The same install core as the OpenCode and Pi installers (``herdr_link_control.userfiles``): the plan
is shown first; each file is edited in place, only at our own leaves (:mod:`._claims`), so every byte
around them stays as the user wrote it; what it replaces is backed up by its path; the new file
appears whole (one ``os.replace``, through a symlink to the file it names, never over a write this
run did not see); a failure puts back what was there; and the last line (``state:``) says what each
file is now. ``--uninstall`` takes out exactly what install put in (:mod:`._record`) and puts back
what it replaced.
"""

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from herdr_link_control.userfiles import (
    MISSING,
    ChangedMeanwhile,
    DocumentError,
    JsonDocument,
    NotAFileToEdit,
    Replaced,
    TomlDocument,
    YamlDocument,
    backups_root,
    clear_partials,
    config_dir,
    failure_reason,
    put_back,
    read_current,
    real_file,
    regular_file,
    replace_file,
)

from . import _record as record
from ._claims import OUR_ENTRY_KEYS, Claim, claims, find_hook, hook_of, is_our_entry, typescript_hook_places
from ._repair import Damage, codex_damage
from ._wiring import HookFile, Wiring, WiringFile, trust_hosts

__all__ = ["FilePlan", "InstallError", "InstallPlan", "apply", "plan"]


class InstallError(Exception):
    """The install cannot go ahead; the message says why, and nothing was changed."""


def _short(value: object, limit: int = 120) -> str:
    """``value`` as JSON, cut past ``limit`` characters after a whole element or word, with an ellipsis."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    if len(text) <= limit:
        return text
    head = text[:limit]
    for mark in (", ", " "):  # after a whole element, else after a whole word
        cut = head.rfind(mark)
        if cut >= limit // 2:
            return head[: cut + len(mark)] + "…"
    return head + "…"


Document = JsonDocument | TomlDocument | YamlDocument


@dataclass
class _Editor:
    """One file's claims applied to its document, with what the record must say afterwards."""

    document: Document
    entry: record.FileRecord | None  # the record of this file before this run (None: it records nothing)
    new: record.FileRecord
    legacy: bool = False
    """No record at all: files as an install by 0.1.0 left them. Uninstall then removes what is
    recognisably ours; install adopts what is recognisably ours as its own."""
    yes_needed: list[str] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    """What this uninstall took out (path and value), for the record's ``taken_out``."""
    changes: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    hook_was_there: bool = False
    consents: Mapping[str, str] = field(default_factory=dict)
    """Claims the user asked for by a flag of their own, with what each costs (shown with ``!``)."""

    # Editing, in either format.

    def _empty_inner(self, path: tuple[str, ...]) -> str | None:
        document = self.document
        if isinstance(document, JsonDocument):
            value = document.get(path)
            return document.inner(path) if isinstance(value, dict | list) and not value else None
        return None

    def _create(self, path: tuple[str, ...], value: Any, *, table: bool = False) -> None:
        """Set ``path`` to ``value``, making its missing containers; recorded as created."""
        document = self.document
        top = next(i for i in range(len(path)) if document.get(path[: i + 1]) is MISSING)
        if top and not isinstance(document.get(path[:top]), Mapping):
            raise DocumentError(f"{'.'.join(path[:top])} is not a table here, so nothing of ours can go in it")
        nested: Any = value
        for key in reversed(path[top + 1 :]):
            nested = {key: nested}
        if isinstance(document, TomlDocument):
            if isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
                for item in value:  # an array of tables: a [[path]] block each
                    document.append(path, item)
            elif table and isinstance(value, Mapping):
                document.add_table(path, value)
            else:
                document.set(path, value)
            self.new["created"].append({"path": list(path[: top + 1])})
            return
        inner = self._empty_inner(path[:top])
        document.set(path[: top + 1], nested)
        self.new["created"].append({"path": list(path[: top + 1]), "inner": inner})

    def _remove(self, path: tuple[str, ...]) -> None:
        document = self.document
        if isinstance(document, JsonDocument):
            document.remove(path, inner=record.inner_of(self.entry, path))
        else:
            document.remove(path)

    def _set(self, path: tuple[str | int, ...], value: Any) -> None:
        document = self.document
        if isinstance(document, TomlDocument):
            keys = [str(step) for step in path]
            if isinstance(value, Mapping):  # a whole table in place of another's (the TypeScript Herdr Link's
                document.replace_table(keys, value)  # server entry, a table or an inline table), where it stood
            else:
                document.set(keys, value)
        else:
            document.set(path, value)

    def _source(self, path: tuple[str, ...]) -> str | None:
        """The value at ``path`` as the file spells it (in a TOML file: a table written whole in one place)."""
        document = self.document
        if isinstance(document, JsonDocument):
            return document.source(path)
        return document.source(path) if isinstance(document.get(path), Mapping) else None

    def _put_source(self, path: tuple[str, ...], spelled: str) -> bool:
        """Put ``spelled`` back at ``path``, byte for byte where it stood; ``False`` when the file now
        writes that place in another form (a TOML table the user rewrote inline): then by value."""
        try:
            self.document.set_source(path, spelled)
        except DocumentError:
            if isinstance(self.document, JsonDocument):
                raise
            return False
        return True

    def repair(self, damage: Damage) -> None:
        """Put right what an install by 0.1.0 left wrong (shown with ``!``: it changes the user's keys)."""
        assert isinstance(self.document, TomlDocument), "only Codex's config.toml has such damage"
        if damage.kind == "moved":
            self.document.move_line(damage.path, ())
        else:
            self.document.remove(damage.path)
        self.yes_needed.append(damage.problem)
        self.changes.append(damage.fix)

    # Installing.

    def install(self, claim: Claim) -> None:
        current = self.document.get(claim.path)
        consent = self.consents.get(claim.shown)
        if consent is not None and current != claim.value:
            self.yes_needed.append(consent)
        if claim.kind == "hook" and isinstance(self.document, JsonDocument):
            aside = self._take_out_typescript_hooks(claim, current)
            self._install_element(claim, self.document.get(claim.path))
            if aside is not None:
                others = [a for a in self.new.get("set_aside", []) if tuple(a["path"]) != claim.path]
                self.new["set_aside"] = [*others, aside | {"after": self.document.get(claim.path)}]
            return
        if claim.kind in ("item", "hook"):
            self._install_element(claim, current)
            return
        if current is MISSING:
            self._create(claim.path, claim.value, table=claim.kind == "entry")
            if claim.kind == "entry":
                record.note_entry_keys(self.new, claim.path, list(claim.value))
            self.changes.append(f"add {claim.said}")
        elif current == claim.value:
            self._adopt(claim)
            if claim.kind == "entry":
                record.note_entry_keys(self.new, claim.path, list(claim.value))
        elif claim.kind == "entry" and is_our_entry(current):
            self._adopt(claim)
            self._update_entry(claim, current)
        elif claim.kind == "value" and claim.path[-1] == "trusted_hash" and self.hook_was_there:
            self._set(claim.path, claim.value)  # Codex's trust of our own hook, changed with it
            self.changes.append(f"set {claim.said}")
        else:
            self.yes_needed.append(f"{claim.said} is {_short(current)}, would become ours")
            spelled = self._source(claim.path)
            self._set(claim.path, claim.value)
            self.changes.append(f"replace {claim.said}")
            if record.replaced_at(self.entry, claim.path) is None:
                replaced = {"path": list(claim.path), "before": current, "wrote": self.document.get(claim.path)}
                self.new["replaced"].append(replaced | ({"before_text": spelled} if spelled is not None else {}))

    def _adopt(self, claim: Claim, value: Any = None) -> None:
        """With no record yet, what only Herdr Link writes (our server entry, our hint hook) and finds
        already there (an install by 0.1.0) becomes ours; a rule or trust the user may have set
        themselves does not."""
        hook_trust = claim.kind == "value" and claim.path[-1] == "trusted_hash"  # our hook's hash: only we write it
        current = self.document.get(claim.path)
        if record.taken_out(self.entry, claim.path, current) and not record.covers(self.new, claim.path):
            self.new["created"].append({"path": list(claim.path)})  # ours, put back by another program
            self.new["taken_out"] = [t for t in self.new.get("taken_out", []) if tuple(t["path"]) != claim.path]
            return
        if not self.legacy or claim.kind == "item" or (claim.kind == "value" and not hook_trust):
            return
        if claim.kind == "hook":
            self.new["items"].append({"path": list(claim.path), "value": value, "inner": None})
        elif not record.covers(self.new, claim.path):
            alone = hook_trust and self.document.get(claim.path[:-1]) == {claim.path[-1]: claim.value}
            self.new["created"].append({"path": list(claim.path[:-1] if alone else claim.path)})

    def _update_entry(self, claim: Claim, current: Mapping[str, Any]) -> None:
        for key, value in claim.value.items():
            mine = current.get(key, MISSING)
            if isinstance(value, Mapping) and isinstance(mine, Mapping):
                for inner_key, inner_value in value.items():  # e.g. env: the user's variables stay
                    if mine.get(inner_key, MISSING) != inner_value:
                        self._set((*claim.path, key, inner_key), inner_value)
                        self.changes.append(f"set {claim.said}.{key}.{inner_key}")
            elif mine != value:
                self._set((*claim.path, key), value)
                self.changes.append(f"set {claim.said}.{key}")
        record.note_entry_keys(self.new, claim.path, list(claim.value))
        wrote = record.entry_keys(self.entry, claim.path)  # None: an earlier release wrote the entry
        for key in current:
            if key in OUR_ENTRY_KEYS and key not in claim.value and (wrote is None or key in wrote):
                self._remove((*claim.path, key))
                self.changes.append(f"remove {claim.said}.{key} (no longer wired)")

    def _install_element(self, claim: Claim, current: Any) -> None:
        if current is MISSING:
            self._create(claim.path, [claim.value])
            self.changes.append(f"add {claim.said}: {self._label(claim)}")
            return
        if not isinstance(current, list):
            raise DocumentError(f"{claim.said} is not a list here, so nothing of ours can go in it")
        if claim.kind == "hook":
            found = find_hook(current)
            if found is not None:
                group, item = found
                where: tuple[str | int, ...] = (
                    (*claim.path, group) if item is None else (*claim.path, group, "hooks", item)
                )
                ours = hook_of(claim.value)
                self._adopt(claim, current[group])
                if self.document.get(where) != ours:
                    self._set(where, ours)
                    self.changes.append(f"replace our hint hook in {claim.said}")
                return
        elif claim.value in current:
            self._adopt(claim, claim.value)
            return
        inner = self._empty_inner(claim.path)
        self.document.append(claim.path, claim.value)
        self.new["items"].append({"path": list(claim.path), "value": claim.value, "inner": inner})
        self.changes.append(f"add to {claim.said}: {self._label(claim)}")

    def _take_out_typescript_hooks(self, claim: Claim, current: Any) -> dict[str, Any] | None:
        """Take the TypeScript Herdr Link's hint hooks out of the event list ``current`` (shown with ``!``:
        a session would be told twice), keeping the list as the file spelled it for ``--uninstall``."""
        assert isinstance(self.document, JsonDocument)
        if not isinstance(current, list):
            return None
        earlier = record.set_aside_at(self.entry, claim.path)
        places = typescript_hook_places(current)
        if not places:
            return earlier
        spelled = self.document.source(claim.path)
        for place in reversed(places):
            self._remove((*claim.path, *place))
        self.yes_needed.append(f"{claim.said} runs the TypeScript Herdr Link's hint hook: taken out, or a session "
                               "is told twice")  # fmt: skip
        self.changes.append(f"take the TypeScript Herdr Link's hint hook out of {claim.said}")
        return earlier or {"path": list(claim.path), "before": current, "before_text": spelled}

    @staticmethod
    def _label(claim: Claim) -> str:
        if claim.kind == "hook":
            return "our hint hook"
        if claim.kind == "item" and claim.path[-1] in ("allow", "rules"):  # a host's permission rules
            return f"{_short(claim.value)}, the rule that lets Herdr Link's tools run without asking"
        return _short(claim.value)

    # Uninstalling.

    def uninstall(self, claim: Claim) -> None:
        current = self.document.get(claim.path)
        if current is MISSING:
            return
        aside = record.set_aside_at(self.entry, claim.path) if claim.kind == "hook" else None
        if aside is not None and isinstance(self.document, JsonDocument):
            if current == aside["after"]:  # as install left it: the list goes back as the file spelled it
                self.document.set_source(claim.path, aside["before_text"])
                self.changes.append(f"put back {claim.said} as it was, with the TypeScript Herdr Link's hint hook")
                return
            self.kept.append(f"{claim.said} changed since install: the TypeScript Herdr Link's hint hook stays out "
                             "(the backup of this file holds it)")  # fmt: skip
        if claim.kind in ("item", "hook"):
            self._uninstall_element(claim, current)
            return
        replaced = record.replaced_at(self.entry, claim.path)
        if claim.shown in self.consents and replaced is None and not record.covers(self.entry, claim.path):
            return  # asked for by its own flag, and not written by an install: the user's own setting
        ours_now = current == claim.value or (claim.kind == "entry" and is_our_entry(current))
        if replaced is not None:
            spelled = replaced.get("before_text")
            if current == replaced["wrote"] and spelled is not None and self._put_source(claim.path, spelled):
                self.changes.append(f"put back {claim.said} as it was before install: {_short(replaced['before'])}")
            elif current == replaced["wrote"] or (claim.kind == "entry" and is_our_entry(current)):
                self._set(claim.path, replaced["before"])
                self.changes.append(f"put back {claim.said} as it was before install: {_short(replaced['before'])}")
            else:
                self.kept.append(f"{claim.said} changed since install: left as it is")
        elif not ours_now:
            what = "does not run herdr-link-mcp" if claim.kind == "entry" else f"is {_short(current)}, not ours"
            self.kept.append(f"{claim.said} {what}: left alone")
        elif self.legacy or record.covers(self.entry, claim.path) or record.taken_out(self.entry, claim.path, current):
            self._remove(claim.path)
            self.removed.append({"path": list(claim.path), "value": current})
            self.changes.append(f"remove {claim.said}")
        else:
            self.kept.append(f"{claim.said} was there before install: kept")

    def _uninstall_element(self, claim: Claim, current: Any) -> None:
        if not isinstance(current, list):
            return
        if claim.kind == "item":
            if claim.value not in current:
                return
            if (
                self.legacy
                or record.covers(self.entry, claim.path)
                or record.appended(self.entry, claim.path, claim.value)
            ):
                self._remove((*claim.path, current.index(claim.value)))  # type: ignore[arg-type]
                self.changes.append(f"remove ours from {claim.said}: {self._label(claim)}")
            else:
                self.kept.append(f"{claim.said} held {_short(claim.value)} before install: kept")
            return
        found = find_hook(current)
        if found is None:
            return
        ours = (
            self.legacy
            or record.covers(self.entry, claim.path)
            or any(
                tuple(i["path"]) == claim.path and find_hook([i["value"]]) for i in (self.entry or {}).get("items", [])
            )
        )
        if not ours:
            self.kept.append(f"our hint hook in {claim.said} was there before install: kept")
            return
        group, item = found
        rest = dict(current[group]) if item is not None else {}
        if item is not None:
            rest["hooks"] = [h for i, h in enumerate(current[group]["hooks"]) if i != item]
        our_group = {k: v for k, v in claim.value.items() if k != "hooks"}
        only_ours = item is None or (not rest["hooks"] and {k: v for k, v in rest.items() if k != "hooks"} == our_group)
        if only_ours:
            self._remove((*claim.path, group))  # type: ignore[arg-type]
        else:
            self._remove((*claim.path, group, "hooks", item))  # type: ignore[arg-type]
        self.changes.append(f"remove our hint hook from {claim.said}")

    def clean_up(self) -> None:
        """Containers install made (or an earlier uninstall took out, put back by another program) that
        hold nothing but empty containers now are removed, deepest first."""
        made = [c["path"] for c in (self.entry or {}).get("created", [])]
        made += [t["path"] for t in (self.entry or {}).get("taken_out", []) if _hollow(t["value"])]
        for path in sorted({tuple(p) for p in made}, key=lambda p: -len(p)):
            current = self.document.get(path)
            if current is not MISSING and isinstance(current, dict | list) and _hollow(current):
                self._remove(path)
                self.removed.append({"path": list(path), "value": current})


def _hollow(value: Any) -> bool:
    """A container that holds nothing but empty containers."""
    if isinstance(value, dict):
        return all(map(_hollow, value.values()))
    return isinstance(value, list) and all(map(_hollow, value))


@dataclass
class FilePlan:
    """What one run does to one file."""

    path: Path
    shown: str
    action: str  # "create", "update", "remove", "unchanged"
    before: bytes | None
    after: bytes | None
    changes: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    private: bool = False
    recorded: record.FileRecord | None = None
    """What the install record says of this file after the run (``None``: nothing)."""
    folders: list[Path] = field(default_factory=list)
    """Folders an install made for this file, which this uninstall takes out with it when left empty."""


@dataclass
class InstallPlan:
    """Every file a run touches, decided before anything is written."""

    host: str
    uninstall: bool
    files: list[FilePlan]
    trust: bool = False
    """Whether folders to trust (or, uninstalling, to take out of the trust list) were named."""
    record_path: Path | None = None
    record_before: bytes | None = None
    record_after: bytes | None = None

    @property
    def conflicts(self) -> list[str]:
        return [f"{item.shown}: {conflict}" for item in self.files for conflict in item.conflicts]

    @property
    def changed(self) -> list[FilePlan]:
        return [item for item in self.files if item.action != "unchanged"]

    def describe(self) -> list[str]:
        """The plan, one line per file and one per change."""
        verb = "uninstall" if self.uninstall else "install"
        lines = [f"plan ({verb} Herdr Link for {self.host}):"]
        for item in self.files:
            link = f" (a link: written through to {real_file(item.path)})" if item.path.is_symlink() else ""
            lines.append(f"  {item.shown}: {item.action}{link}")
            lines += [f"    - {change}" for change in item.changes]
            lines += [f"    ! {conflict}" for conflict in item.conflicts]
            lines += [f"    = {kept}" for kept in item.kept]
        if self.uninstall and self.host in trust_hosts() and not self.trust:
            lines.append("  folder trust is left as it is (it is yours); --trust DIR with --uninstall takes DIR's out")
        return lines


def _expand(shown: str, home: Path, cwd: Path) -> Path:
    if shown.startswith("~/"):
        return home / shown[2:]
    path = Path(shown)
    return path if path.is_absolute() else cwd / path


def _read(path: Path) -> bytes | None:
    try:
        return regular_file(path).read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as error:
        raise InstallError(f"{path} is a folder, not a file: nothing was changed") from error
    except NotAFileToEdit as error:
        raise InstallError(f"{error}; nothing was changed") from error
    except OSError as error:
        raise InstallError(f"{path} cannot be read: {error.strerror or error}; nothing was changed") from error


def _document(path: Path, raw: bytes | None, kind: str, jsonc: bool) -> Document:
    text = "" if raw is None else raw.decode("utf-8", errors="surrogateescape")
    try:
        if kind == "toml":
            return TomlDocument(text)
        if kind == "yaml":
            return YamlDocument(text)
        return JsonDocument(text, jsonc=jsonc)
    except DocumentError as error:
        what = {"toml": "TOML", "yaml": "YAML"}.get(kind, "JSON")
        raise InstallError(f"{path} is not valid {what} ({error}): fix it first; nothing was changed") from error


def _plan_file(
    item: WiringFile, home: Path, cwd: Path, uninstall: bool, entries: dict[str, record.FileRecord], legacy: bool,
    hook_file: HookFile | None,
) -> FilePlan:  # fmt: skip
    path = _expand(item.path, home, cwd)
    if item.format == "text":
        raise InstallError(f"{item.path}: a text file is not merged")
    seen = hook_file is not None and hook_file.readable and os.path.abspath(hook_file.path) == os.path.abspath(path)
    before = hook_file.raw if seen and hook_file is not None else _read(path)  # the hook file: as the wiring read it
    document = _document(path, before, item.format, item.jsonc)
    if not uninstall and isinstance(document, JsonDocument) and not isinstance(document.value, dict):
        raise InstallError(f"{path} does not hold a JSON object: fix it first; nothing was changed")
    key = os.path.abspath(path)
    entry = entries.get(key)
    installed = entry is not None and bool(entry["created"] or entry["items"])  # what an install put there is in it
    if item.owned and before is not None and not installed and not _holds_our_hook(document):
        if not uninstall:
            raise InstallError(
                f"{path} is not Herdr Link's (it runs no herdr-link-mcp hint hook), and Herdr Link writes a file of "
                "that name whole: rename or remove it, then run again; nothing was changed"
            )
        kept = ["not Herdr Link's (it runs no herdr-link-mcp hint hook): left alone"]
        return FilePlan(path, item.path, "unchanged", before, before, kept=kept, private=item.private)
    blank = None if before is None or before.strip() else before.decode("utf-8", "surrogateescape")
    new = entry if entry is not None else record.empty_record(before is not None, blank)
    new = json.loads(json.dumps(new))  # a copy this run may add to
    editor = _Editor(document, entry, new, legacy=legacy, consents=item.consents)
    groups = hook_file.groups if hook_file is not None else None
    # its trust entry is ours to change with our hook when the hook file held that hook before this run
    editor.hook_was_there = bool(item.data.get("hooks", {}).get("state")) and find_hook(groups) is not None
    try:
        if item.repairs and hook_file is not None and isinstance(document, TomlDocument):  # what 0.1.0 left wrong
            for damage in codex_damage(document, hook_file.path, groups):
                editor.repair(damage)
        for claim in claims(item.data):
            (editor.uninstall if uninstall else editor.install)(claim)
        if uninstall:
            editor.clean_up()
    except DocumentError as error:
        raise InstallError(f"{path}: {error}; nothing was changed") from error
    after_text = document.text
    if uninstall and entry is not None and not document.value and entry.get("blank") is not None:
        after_text = entry["blank"]
    after: bytes | None = after_text.encode("utf-8", errors="surrogateescape")
    if uninstall and entry is not None and not entry.get("existed", True) and not document.value:
        after = None  # the file install created, empty again
    if editor.changes and before is not None:
        mode = real_file(path).stat().st_mode & 0o777
        if not mode & 0o222:  # the user made it read-only: replaced (keeping that mode) only if confirmed
            editor.yes_needed.append(f"{item.path} is read-only (mode {mode:04o}): replaced, keeping its mode")
    if not editor.changes:
        action, after = "unchanged", before
    elif before is None:
        action = "create"
    elif after is None:
        action = "remove"
    else:
        action = "update"
    file_record = _still_there(entry, document, editor.removed) if uninstall else new
    if action == "create":  # the folders this run makes for it, to take out with it (deepest first)
        new["folders"] = [str(p) for p in path.parents if not p.exists() and (home in p.parents or cwd in p.parents)]
    folders = [Path(f) for f in (entry or {}).get("folders", [])] if action == "remove" else []
    entries.pop(key, None)
    if file_record is not None:
        entries[key] = file_record
    return FilePlan(path, item.path, action, before, after, editor.changes, editor.yes_needed, editor.kept,
                    item.private, file_record, folders)  # fmt: skip


def _holds_our_hook(document: Document) -> bool:
    """Whether a hook file runs our hint hook in any of its event lists."""
    hooks = document.get(("hooks",))
    return isinstance(hooks, dict) and any(find_hook(groups) is not None for groups in hooks.values())


def _still_there(
    entry: record.FileRecord | None, document: Document, removed: list[dict[str, Any]]
) -> record.FileRecord | None:
    """After an uninstall, what the record keeps of a file: what install added that is still there
    (folder trust, when no ``--trust`` asked to take it out), values not yet put back, and what this
    uninstall took out (``taken_out``)."""
    if entry is None and not removed:
        return None
    entry = entry or record.empty_record(True, None)
    kept = dict(entry)
    earlier = [t for t in entry.get("taken_out", []) if t["path"] not in [r["path"] for r in removed]]
    kept["taken_out"] = [*earlier, *removed]
    kept["created"] = [c for c in entry["created"] if document.get(tuple(c["path"])) is not MISSING]
    kept["entries"] = [e for e in entry.get("entries", []) if document.get(tuple(e["path"])) is not MISSING]
    kept["items"] = [
        i for i in entry["items"]
        if isinstance(document.get(tuple(i["path"])), list) and (
            i["value"] in document.get(tuple(i["path"])) or find_hook(document.get(tuple(i["path"]))) is not None)
    ]  # fmt: skip
    kept["replaced"] = [r for r in entry["replaced"] if document.get(tuple(r["path"])) == r["wrote"]]
    kept["set_aside"] = [a for a in entry.get("set_aside", []) if document.get(tuple(a["path"])) == a["after"]]
    if not kept["set_aside"]:
        del kept["set_aside"]
    held = kept["created"] or kept["items"] or kept["replaced"] or kept["taken_out"] or kept.get("set_aside")
    return kept if held else None


def plan(wiring: Wiring, home: Path, cwd: Path, *, uninstall: bool = False, environ: Mapping[str, str] | None = None
         ) -> InstallPlan:  # fmt: skip
    """Decide what installing (or uninstalling) ``wiring`` does to each of its files.

    Raises:
        InstallError: a file cannot be read or parsed, or holds something else where ours goes.
    """
    environ = os.environ if environ is None else environ
    record_path = config_dir(environ, home) / record.RECORD_NAME
    try:
        record_before, entries = record.load_record(record_path)
    except OSError as error:  # a folder at its name, or a file another user (a `sudo install`) left
        raise InstallError(
            f"{record_path} (Herdr Link's install record) cannot be read: {error.strerror or error}; "
            "nothing was changed (remove it, or give it back to you, and run again)"
        ) from error
    legacy = record_before is None
    files = [_plan_file(f, home, cwd, uninstall, entries, legacy, wiring.hook_file) for f in wiring.files]
    record_after = record.dump_record(entries) if any(f.action != "unchanged" for f in files) else record_before
    return InstallPlan(wiring.host, uninstall, files, wiring.trusted, record_path, record_before, record_after)


DONE_WORDS: Final = {"create": "created", "update": "updated", "remove": "removed"}


def _state(plan: InstallPlan, done: list[Replaced], stuck: list[str]) -> str:
    written = {d.path: d for d in done}
    parts = []
    for item in plan.files:
        if item.shown in stuck:
            parts.append(f"{item.shown} holds what this run wrote (its rollback failed)")
        elif item.path in written:
            backup = written[item.path].backup
            parts.append(f"{item.shown} {DONE_WORDS[item.action]}" + (f" (backup {backup})" if backup else ""))
        else:
            parts.append(f"{item.shown} unchanged")
    return "state: " + "; ".join(parts)


def clear_leftovers(plan: InstallPlan, environ: Mapping[str, str], home: Path) -> list[Path]:
    """Remove the partial copies a killed run left for the plan's files and the record."""
    backups = backups_root(environ, home)
    paths = [item.path for item in plan.files] + ([plan.record_path] if plan.record_path else [])
    return [removed for path in paths for removed in clear_partials(path, backups=backups)]


def apply(
    plan: InstallPlan,
    environ: Mapping[str, str],
    home: Path,
    say: Callable[[str], None],
    then: Callable[[], str] | None = None,
) -> int:
    """Write the plan's files (backup, whole-file replace, never over a write this run did not see;
    on failure, put back what was written). Says each step and ends with the ``state:`` line;
    returns the exit status (0 done, 1 failed). ``then``: run once every file is written, before that
    line; what it returns is said and ends the state line too."""
    backups = backups_root(environ, home)
    clear_leftovers(plan, environ, home)
    done: list[Replaced] = []
    try:
        for item in plan.changed:
            done.append(replace_file(item.path, item.before, item.after, backups=backups, private=item.private))
            say(f"{DONE_WORDS[item.action]}: {item.shown}")
        if plan.record_path is not None and plan.record_after != plan.record_before:
            done.append(
                replace_file(plan.record_path, plan.record_before, plan.record_after, backups=backups, private=True)
            )
    except (OSError, InstallError) as error:
        reason = failure_reason(error) if isinstance(error, OSError) else str(error)
        sys.stderr.write(f"herdr-link-mcp install: {reason}\n")
        stuck = []
        shown = {item.path: item.shown for item in plan.files}
        for step in reversed(done):
            name = shown.get(step.path, str(step.path))
            try:
                say(f"{name}: {put_back(step)}")
            except ChangedMeanwhile as changed:
                say(f"{name}: {changed}")
                stuck.append(name)
            except OSError:
                stuck.append(name)
        if stuck and plan.record_path is not None and plan.record_after != plan.record_before:
            # A file that keeps what this run added must be in the record, or uninstall would take
            # our entry for the user's (what the record does not name was there before install).
            try:
                replace_file(plan.record_path, read_current(plan.record_path), plan.record_after, backups=backups,
                             private=True)  # fmt: skip
                say(f"the install record names what this run added to {', '.join(stuck)}, for --uninstall")
            except OSError as error:
                say(f"the install record could not note it ({error.strerror or error}): --uninstall keeps it")
        say(_state(plan, [], stuck))
        return 1
    for item in plan.files:
        for folder in item.folders:  # deepest first; one that holds anything stays
            try:
                folder.rmdir()
            except OSError:
                break
            named = f"~/{folder.relative_to(home)}" if home in folder.parents else str(folder)
            say(f"removed: {named} (empty; the install had made it)")
    state = _state(plan, [d for d in done if d.path != plan.record_path], [])
    if then is not None:
        after = then()
        say(after)
        state += f"; {after}"
    say(state)
    return 0
