"""``herdr-link-mcp install``: write a host's wiring into the files the user already has.

The same install core as the OpenCode and Pi installers (``herdr_link_control.userfiles``): the plan
is shown first, every file is merged without touching keys that are not ours, what it replaces is
backed up, the new file appears whole (one ``os.replace``), a failure puts back what was there, and
the last line (``state:``) says what each file is now. ``--uninstall`` takes out exactly what install
put in.

What is ours in a file: the server entry named ``herdr_link`` (replaced whole, but one that does not
run ``herdr-link-mcp`` is another's and is replaced only when confirmed), our hint hook in a hook
list (found by its ``herdr-link-mcp … hint --host`` command), our permission rule, Codex's trust of
our hook, and the folder-trust entries the user asked for. A different value already at one of our
places that is not ours (a folder marked *not* trusted, a foreign server entry) needs confirmation.
"""

import json
import os
import sys
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from herdr_link_control.userfiles import back_up, config_dir, roll_back, write_complete

from ._hosts import DEFAULT_NAMESPACE
from ._wiring import TRUST_HOSTS, Wiring, WiringFile

__all__ = ["FilePlan", "InstallError", "InstallPlan", "apply", "plan"]

OUR_COMMANDS: Final = ("herdr-link-mcp", "herdr_link_mcp")
"""A server entry or hook whose text names one of these runs our program."""
OUR_LEAVES: Final = frozenset({"trusted_hash"})
"""Leaf keys whose value is ours to replace (Codex's trust of our own hook)."""


class InstallError(Exception):
    """The install cannot go ahead; the message says why, and nothing was changed."""


def _names_ours(text: str) -> bool:
    return any(name in text for name in OUR_COMMANDS)


def _ours(value: object) -> bool:
    """A value (a server entry) that runs our program."""
    return _names_ours(json.dumps(value, default=str))


def _ours_item(item: object) -> bool:
    """A hook list item that is our hint hook (any version, any path)."""
    if not isinstance(item, Mapping):
        return False
    text = json.dumps(item, default=str)
    return _names_ours(text) and " hint --host " in text


@dataclass
class _Merge:
    changes: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def _merge(existing: MutableMapping[str, Any], ours: Mapping[str, Any], into: _Merge, where: str = "") -> None:
    for key, value in ours.items():
        path = f"{where}.{key}" if where else key
        current = existing.get(key)
        if key == DEFAULT_NAMESPACE or not isinstance(value, Mapping | list):
            if current == value:
                continue
            if current is not None and key not in OUR_LEAVES and not (key == DEFAULT_NAMESPACE and _ours(current)):
                into.conflicts.append(f"{path} is {json.dumps(current, default=str)[:120]}, would become ours")
            existing[key] = value
            into.changes.append(f"set {path}")
        elif isinstance(value, Mapping):
            if current is None:
                existing[key] = {}
            elif not isinstance(current, MutableMapping):
                raise InstallError(f"{path} is not a table/object here, so nothing of ours can go in it")
            _merge(existing[key], value, into, path)
        else:
            if current is None:
                existing[key] = []
            elif not isinstance(current, list):
                raise InstallError(f"{path} is not a list here, so nothing of ours can go in it")
            items = existing[key]
            for item in value:
                if item in items:
                    continue
                hook = _ours_item(item)
                stale = [i for i, old in enumerate(items) if hook and _ours_item(old)]
                if stale:
                    items[stale[0]] = item
                    into.changes.append(f"replace our entry in {path}")
                else:
                    items.append(item)
                    label = "our hint hook" if hook else json.dumps(item, default=str)[:80]
                    into.changes.append(f"add to {path}: {label}")


def _unmerge(existing: MutableMapping[str, Any], ours: Mapping[str, Any], into: _Merge, where: str = "") -> None:
    for key, value in ours.items():
        path = f"{where}.{key}" if where else key
        if key not in existing:
            continue
        current = existing[key]
        if key == DEFAULT_NAMESPACE:
            if _ours(current):
                del existing[key]
                into.changes.append(f"remove {path}")
            else:
                into.kept.append(f"{path} does not run herdr-link-mcp: left alone")
        elif isinstance(value, Mapping) and isinstance(current, MutableMapping):
            _unmerge(current, value, into, path)
            if not current:
                del existing[key]
        elif isinstance(value, list) and isinstance(current, list):
            keep = [item for item in current if item not in value and not _ours_item(item)]
            if len(keep) != len(current):
                into.changes.append(f"remove ours from {path}")
                if keep:
                    current[:] = keep
                else:
                    del existing[key]
        elif current == value or key in OUR_LEAVES:
            del existing[key]
            into.changes.append(f"remove {path}")


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


@dataclass
class InstallPlan:
    """Every file a run touches, decided before anything is written."""

    host: str
    uninstall: bool
    files: list[FilePlan]
    trust: bool = False
    """Whether folders to trust (or, uninstalling, to take out of the trust list) were named."""

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
            lines.append(f"  {item.shown}: {item.action}")
            lines += [f"    - {change}" for change in item.changes]
            lines += [f"    ! {conflict}" for conflict in item.conflicts]
            lines += [f"    = {kept}" for kept in item.kept]
        if self.uninstall and self.host in TRUST_HOSTS and not self.trust:
            lines.append("  folder trust is left as it is (it is yours); --trust DIR with --uninstall takes DIR's out")
        return lines


def _expand(shown: str, home: Path, cwd: Path) -> Path:
    if shown.startswith("~/"):
        return home / shown[2:]
    path = Path(shown)
    return path if path.is_absolute() else cwd / path


def _load(path: Path, kind: str) -> tuple[bytes | None, MutableMapping[str, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as error:
        raise InstallError(f"{path} cannot be read: {error.strerror}; nothing was changed") from error
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        return raw, {}
    try:
        if kind == "toml":
            import tomlkit

            return raw, tomlkit.parse(text)
        value = json.loads(text)
    except ValueError as error:
        raise InstallError(
            f"{path} is not valid {kind.upper()} ({error}): fix it first; nothing was changed"
        ) from error
    if not isinstance(value, dict):
        raise InstallError(f"{path} does not hold a JSON object: fix it first; nothing was changed")
    return raw, value


def _dump(value: MutableMapping[str, Any], kind: str) -> bytes:
    if kind == "toml":
        import tomlkit

        return (tomlkit.dumps(value).rstrip() + "\n").encode()
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


def _plan_file(item: WiringFile, home: Path, cwd: Path, uninstall: bool) -> FilePlan:
    path = _expand(item.path, home, cwd)
    if item.format == "text":
        raise InstallError(f"{item.path}: a text file is not merged")
    before, document = _load(path, item.format)
    merge = _Merge()
    (_unmerge if uninstall else _merge)(document, item.data, merge)
    after = _dump(document, item.format) if document else None
    if not merge.changes:
        action, after = "unchanged", before
    elif before is None:
        action = "create"
    elif after is None:
        action = "remove"
    else:
        action = "update"
    return FilePlan(path, item.path, action, before, after, merge.changes, merge.conflicts, merge.kept, item.private)


def plan(wiring: Wiring, home: Path, cwd: Path, *, uninstall: bool = False) -> InstallPlan:
    """Decide what installing (or uninstalling) ``wiring`` does to each of its files.

    Raises:
        InstallError: a file cannot be read or parsed, or holds something else where ours goes.
    """
    files = [_plan_file(f, home, cwd, uninstall) for f in wiring.files]
    return InstallPlan(wiring.host, uninstall, files, trust=wiring.trusted)


@dataclass
class _Done:
    item: FilePlan
    backup: Path | None


def _write(item: FilePlan, backups: Path) -> _Done:
    current = item.path.read_bytes() if item.path.exists() else None
    if current != item.before:
        raise InstallError(f"{item.shown} changed while this run was planning (a running host wrote it): run again")
    backup = back_up(item.path, backups) if current is not None else None
    done = _Done(item, backup)
    if item.after is None:
        item.path.unlink()
        return done
    item.path.parent.mkdir(parents=True, exist_ok=True)
    mode = (item.path.stat().st_mode & 0o777) if current is not None else (0o600 if item.private else None)

    def keep_mode(partial: Path) -> None:
        if mode is not None:
            os.chmod(partial, mode)

    write_complete(
        item.path, item.after, partial=item.path.with_name(item.path.name + ".herdr-link.partial"), verify=keep_mode
    )
    return done


DONE_WORDS: Final = {"create": "created", "update": "updated", "remove": "removed"}


def _state(plan: InstallPlan, done: list[_Done], stuck: list[FilePlan]) -> str:
    written = {d.item.path: d for d in done}
    parts = []
    for item in plan.files:
        if item in stuck:
            parts.append(f"{item.shown} holds what this run wrote (its rollback failed)")
        elif item.path in written:
            backup = written[item.path].backup
            parts.append(f"{item.shown} {DONE_WORDS[item.action]}" + (f" (backup {backup})" if backup else ""))
        else:
            parts.append(f"{item.shown} unchanged")
    return "state: " + "; ".join(parts)


def apply(plan: InstallPlan, environ: Mapping[str, str], home: Path, say: Callable[[str], None]) -> int:
    """Write the plan's files (backup, whole-file replace; on failure, put back what was written).
    Says each step and ends with the ``state:`` line; returns the exit status (0 done, 1 failed)."""
    backups = config_dir(environ, home) / "backups" / plan.host
    done: list[_Done] = []
    try:
        for item in plan.changed:
            done.append(_write(item, backups))
            say(f"{DONE_WORDS[item.action]}: {item.shown}")
    except (OSError, InstallError) as error:
        reason = error if isinstance(error, InstallError) else f"{error.strerror or error}: {error.filename or ''}"
        sys.stderr.write(f"herdr-link-mcp install: {reason}\n")
        stuck = []
        for step in reversed(done):
            scratch = step.item.path.with_name(step.item.path.name + ".herdr-link.restore")
            try:
                say(f"{step.item.shown}: {roll_back(step.item.path, step.backup, scratch)}")
            except OSError:
                stuck.append(step.item)
        say(_state(plan, [], stuck))
        return 1
    say(_state(plan, done, []))
    return 0
