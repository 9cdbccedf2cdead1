"""Folder trust as each host records it: would a host started in a folder stop at its trust question?

The rule is the host record's (``Trust.rule`` in ``herdr_link_control.hosts``); the files are read here, as
the host reads them (JSONC where the host strips comments). The doctor asks it today; a start or a
send can ask it without reading the pane (spec §8).
"""

import hashlib
import os
import re
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, assert_never

from ..userfiles import json_value
from ._places import place_path
from ._repo_config import grok_repo_config
from ._table import Host, Place, Trust

__all__ = [
    "NotPredicted",
    "folder_trust",
    "git_root",
    "grok_workspace",
    "read_host_file",
    "trust_command",
    "trust_record",
]


def git_root(folder: Path) -> Path | None:
    """The git repository ``folder`` is in (the nearest folder holding ``.git``), or ``None``."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


HOST_FILE_BYTES: Final = 64 * 1024 * 1024
"""The largest host file read (a long-used ``~/.claude.json`` holds a few megabytes)."""
HOST_FILE_DEPTH: Final = 64
"""The deepest nesting read: a host's settings are a few levels deep; deeper is not read (never a crash)."""


def _bounded_text(path: Path) -> str:
    """The text of the regular file at ``path`` (or where its links lead), read without waiting on a FIFO,
    a device or a link to one, and refused past :data:`HOST_FILE_BYTES`.

    Raises:
        OSError: it cannot be opened or read, or is not a regular file, or is too large.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(target, flags)  # non-blocking: opening a FIFO never waits for a writer
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise OSError(f"{path} is not a regular file")
        if found.st_size > HOST_FILE_BYTES:
            raise OSError(f"{path} is larger than {HOST_FILE_BYTES} bytes")
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read(HOST_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > HOST_FILE_BYTES:
        raise OSError(f"{path} is larger than {HOST_FILE_BYTES} bytes")
    return data.decode("utf-8")


def _depth(text: str) -> int:
    """How deeply JSON (or JSONC) text nests its arrays and objects, strings skipped."""
    deepest = level = 0
    quoted = escaped = False
    for char in text:
        if quoted:
            escaped, quoted = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            quoted = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def read_host_file(path: Path, file_format: str) -> tuple[dict[str, Any] | None, str]:
    """A host's file parsed as the host parses it, or ``None`` and why (a missing file: no reason).

    Bounded: only a regular file (a FIFO, a device or a link to one is a reason, never a wait), at most
    :data:`HOST_FILE_BYTES`, nested at most :data:`HOST_FILE_DEPTH` deep.
    """
    try:
        text = _bounded_text(path)
    except FileNotFoundError:
        return None, ""
    except (OSError, UnicodeDecodeError) as error:
        return None, f"{path} cannot be read: {getattr(error, 'strerror', None) or error}"
    if file_format not in ("toml", "yaml") and _depth(text) > HOST_FILE_DEPTH:
        return None, f"{path} nests deeper than {HOST_FILE_DEPTH} levels: not read"
    try:
        if file_format == "yaml":
            from ..userfiles import yaml_value  # ruamel.yaml, loaded only for a YAML file

            value = yaml_value(text)
        else:
            value = tomllib.loads(text) if file_format == "toml" else json_value(text, jsonc=file_format == "jsonc")
    except (ValueError, RecursionError) as error:
        kind = {"toml": "TOML", "yaml": "YAML"}.get(file_format, "JSON")
        return None, f"{path} is not valid {kind}: {error}"
    return (value, "") if isinstance(value, dict) else (None, f"{path} does not hold an object")


class NotPredicted(Exception):
    """The host's files cannot say: none of them exists (``absent``: the host never ran as this user),
    one cannot be read or parsed, or the host's version is not one the rule was read from. The message
    says which, for the operator log."""

    def __init__(self, message: str, *, absent: bool) -> None:
        super().__init__(message)
        self.absent = absent


def _read(place: Place, environ: Mapping[str, str], home: Path) -> tuple[Path, dict[str, Any] | None, str]:
    """Where the host keeps the file, its object (``None``: missing or unreadable), and why unreadable."""
    path = place_path(place, "user", environ, home, home)
    return (path, *read_host_file(path, place.format))


def trust_command(host: Host, folder: Path, root: Path | None) -> str:
    """The command that records, for the user, the trust ``host`` asks for in ``folder`` (``root``: its
    git repository, named instead where the host looks trust up there)."""
    assert host.trust is not None
    at = root if host.trust.fix_at == "root" and root is not None else folder
    return f"herdr-link-mcp install --host {host.name} --trust {at}"


def dig(value: object, *keys: str) -> object:
    """``value[k1][k2]…``, or ``None`` where a level is missing or not an object."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _projects(state: dict[str, Any], folder: Path, root: Path | None) -> bool | None:
    """Claude Code 2.1: the folder and its parents, inside a git repository no higher than its root."""
    projects = state.get("projects")
    if not isinstance(projects, dict):
        return None
    for candidate in (folder, *folder.parents):
        entry = projects.get(str(candidate))
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return True
        if root is not None and candidate == root:
            return None
    return None


def _trust_level(config: dict[str, Any], folder: Path, root: Path | None) -> bool | None:
    """Codex 0.171: ``[projects]`` at the folder or its repository's root; it asks only in a repository,
    only until either answer is recorded, and (in the releases whose ``should_show_trust_screen`` says
    so, ``codex-rs/tui/src/lib.rs``) not when the user set ``approval_policy`` or ``sandbox_mode``."""
    if "approval_policy" in config or "sandbox_mode" in config:
        return True
    projects = config.get("projects") or {}
    for candidate in (folder, root):
        entry = projects.get(str(candidate)) if candidate is not None and isinstance(projects, dict) else None
        if isinstance(entry, dict) and "trust_level" in entry:
            return bool(entry["trust_level"] == "trusted")  # answered: "untrusted" runs, without asking
    return True if root is None else None


def _folders(rules: dict[str, Any], folder: Path) -> bool | None:
    """Gemini CLI 0.61: the longest matching rule wins; ``TRUST_PARENT`` covers the rule's parent."""
    best, verdict = -1, None
    for rule, level in rules.items():
        base = Path(rule).parent if level == "TRUST_PARENT" else Path(rule)
        if (folder == base or base in folder.parents) and len(rule) > best:
            best, verdict = len(rule), level
    return None if verdict is None else verdict != "DO_NOT_TRUST"


def _trusted_list(folders: object, folder: Path) -> bool | None:
    """GitHub Copilot CLI 1.0: a folder on the list, or below one on it, is trusted; no answer is "no"."""
    listed = [Path(item) for item in folders if isinstance(item, str)] if isinstance(folders, list) else []
    return True if any(folder == base or base in folder.parents for base in listed) else None


def _trusted_at(folders: object, folder: Path) -> bool | None:
    """Factory Droid 0.225: the folder's own entry, with the time it was trusted (no parent covers a child,
    as far as it was seen: the prediction errs towards the question)."""
    entry = folders.get(str(folder)) if isinstance(folders, dict) else None
    return True if isinstance(entry, dict) and entry.get("trustedAt") else None


def _folder_records(records: object, key: Path) -> bool:
    """Grok Build 1.0.41: the workspace's own record, ``trusted = true`` (a record for a folder above it was
    seen not to cover it, though the 19d42e35 source reads the longest recorded folder above); one record
    without a boolean ``trusted`` makes it read the whole file as empty (``TrustStore``, ``trust.rs``)."""
    if not isinstance(records, dict):
        return False
    if not all(isinstance(entry, dict) and isinstance(entry.get("trusted"), bool) for entry in records.values()):
        return False
    entry = records.get(str(key))
    return isinstance(entry, dict) and entry["trusted"] is True


def grok_workspace(folder: Path, home: Path, root: Path | None) -> Path | None:
    """The folder Grok Build keys ``folder``'s trust by (its repository's ``root``, not the home folder or
    ``/``, else the folder itself), or ``None`` where that is ``/`` or the home folder, which it never gates
    (``decide``, ``xai-grok-workspace/src/folder_trust.rs`` @ 19d42e35)."""
    home = Path(os.path.realpath(home))
    key = root if root is not None and root != home and root.parent != root else folder
    return None if key == home or key.parent == key else key


def _grok(recorded: dict[str, Any], folder: Path, home: Path, user_config: Path) -> bool | None:
    """Grok Build 1.0 asks where its scan finds configuration that runs commands, unless the folder's
    workspace (:func:`grok_workspace`) is recorded trusted or never gated (the 1.0.41 binary as seen)."""
    root = git_root(folder)
    key = grok_workspace(folder, home, root)
    if key is None or _folder_records(recorded.get("folders"), key):
        return True
    return None if grok_repo_config(folder, root, Path(os.path.realpath(home)), user_config) else True


def _record_name(folder: str) -> str:
    """The name Kimi Code 2.1 gives a folder's record (``encodeWorkDirKey``, ``workdir-slug.ts``): ``wd_``,
    the folder's name lowered with each run of other characters than ``a-z0-9._-`` a hyphen (at most 40, no
    hyphen at either end, ``workspace`` when nothing is left), ``_`` and the first 12 hex digits of the
    SHA-256 of its path (forward slashes, no trailing one)."""
    path = folder.replace("\\", "/").rstrip("/")
    slug = re.sub(r"[^a-z0-9._-]+", "-", path.rsplit("/", 1)[-1].lower()).strip("-")[:40].strip("-")
    slug = "workspace" if slug in ("", ".", "..") else slug
    return f"wd_{slug}_{hashlib.sha256(path.encode()).hexdigest()[:12]}"


def trust_record(trust: Trust, folder: str) -> Place:
    """The file that records ``folder`` (absolute, resolved) as trusted, for a host that keeps one file per
    folder (``record_files``: :attr:`Trust.place` is the folder holding them)."""
    store, name = trust.place, _record_name(folder)
    return Place(f"{store.user}/{name}", variable=store.variable, under_variable=f"{store.under_variable}/{name}",
                 private=True, user_note=store.user_note)  # fmt: skip


def _record_file(trust: Trust, folder: Path, environ: Mapping[str, str], home: Path, strict: bool) -> bool | None:
    """Kimi Code 2.1: the folder's own record (a file holding JSON; no folder above it covers it)."""
    store = place_path(trust.place, "user", environ, home, home)
    if strict and not store.parent.is_dir():
        raise NotPredicted(f"{store.parent}: none exists", absent=True)
    path, value, problem = _read(trust_record(trust, str(folder)), environ, home)
    if problem and strict and not problem.endswith("does not hold an object"):
        raise NotPredicted(problem, absent=False)
    return True if value is not None or problem.endswith("does not hold an object") else None


_SWITCHES: Final = {"1": True, "true": True, "yes": True, "on": True, "enabled": True, "0": False, "false": False,
                    "no": False, "off": False, "disabled": False}  # fmt: skip
"""How Grok Build reads a switch in the environment (``env_bool``); anything else leaves it unset."""


def folder_trust(
    host: Host, folder: Path, environ: Mapping[str, str] | None = None, home: Path | None = None, *,
    strict: bool = False,
) -> bool | None:  # fmt: skip
    """Whether ``host``, started in ``folder``, goes straight to its composer (``True``), runs there
    distrusted (``False``: the host's file marks the folder not trusted, or the user answered no) or
    first asks its trust question (``None``). A host without folder trust is ``True``.

    Raises:
        NotPredicted: with ``strict``, when none of the host's files exists or one cannot be read (without
            it, a missing or unreadable file counts as empty, as the doctor reads it).
    """
    trust = host.trust
    if trust is None:
        return True
    environ = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    folder = folder.resolve()
    if trust.rule == "record_files":
        return _record_file(trust, folder, environ, home, strict)
    read = [_read(place, environ, home) for place in (trust.place, trust.settings) if place is not None]
    if strict:
        unreadable = [problem for _, _, problem in read if problem]
        if unreadable:
            raise NotPredicted("; ".join(unreadable), absent=False)
        if all(value is None for _, value, _ in read):
            raise NotPredicted(f"{' and '.join(str(path) for path, _, _ in read)}: none exists", absent=True)
    recorded = read[0][1] or {}
    settings = (read[1][1] or {}) if len(read) > 1 else {}
    switched = _SWITCHES.get(environ.get(trust.switched_by, "").strip().lower()) if trust.switched_by else None
    if (dig(settings, *trust.switch) if switched is None else switched) is False:
        return True
    if trust.granted_by and environ.get(trust.granted_by, "").lower() == "true":
        return True
    if trust.rule == "projects":
        return _projects(recorded, folder, git_root(folder))
    if trust.rule == "trust_level":
        return _trust_level(recorded, folder, git_root(folder))
    if trust.rule == "folders":
        return _folders(recorded, folder)
    if trust.rule == "trusted_list":
        return _trusted_list(recorded.get("trustedFolders"), folder)
    if trust.rule == "trusted_at":
        return _trusted_at(recorded.get("trustedFolders"), folder)
    if trust.rule == "folder_records":
        return _grok(recorded, folder, home, read[-1][0])
    if trust.rule == "record_files":  # read above: its place is a folder
        raise AssertionError(trust.rule)
    assert_never(trust.rule)
