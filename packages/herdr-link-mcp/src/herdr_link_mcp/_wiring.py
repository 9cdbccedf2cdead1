"""Host wiring: ready-to-paste registration for each host (the hint itself is in ``_hint``).

Everything printed here is generated from the host's record in the host table
(``herdr_link_control.hosts``): its files and their formats, our server's entry, the hint hook in the
host's form, the permission rule and folder trust as the host records them. The hint text comes from
``herdr_link_protocol``, the commands point at this environment's ``herdr-link-mcp``, and the
namespace is always ``herdr_link``. Each file carries its content twice: as text to paste, and as the
structure ``install`` merges into the file a user already has (``_install``); a test holds the two equal.

The default scope is the user's: a host started in any folder of that user (by Link, the user or
Herdr's UI) reads it. ``scope="project"`` prints the files for one project instead. Folder trust is
never changed unless asked for (``trust``), and then only for the folders named.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, assert_never

from herdr_link_control.hosts import (
    ARGS,
    ARGV,
    COMMAND,
    Approval,
    Hook,
    Host,
    Place,
    find_host,
    git_root,
    grok_workspace,
    hosts_with,
    place_path,
    shown_path,
    trust_record,
)

if TYPE_CHECKING:
    from herdr_link_control.hosts import Scope, TrustRule

from ._claims import find_hook, without_typescript_hooks
from ._clients import DEFAULT_NAMESPACE
from ._codex import command_hook_hash, event_label, hook_trust_key
from ._version import __version__

__all__ = [
    "ALLOW_ANSWER",
    "ALLOW_RULE",
    "SCOPES",
    "HookFile",
    "UV_INSTALL",
    "Wiring",
    "WiringFile",
    "codex_session_start",
    "off_hosts",
    "required_hosts",
    "server_command",
    "session_start",
    "trust_hosts",
    "wiring",
    "wiring_hosts",
]

SCOPES: Final = ("user", "project")
"""Where a registration lives: the user's own files (default) or one project's."""
HOOK_TIMEOUT: Final = 10
"""Seconds a host gives the hint hook."""
LAUNCHERS: Final = ("script", "uvx")
"""How hosts start the server: the installed console script, or ``uvx`` with nothing installed."""
UV_INSTALL: Final = (
    "pipx install uv (as uv's own documentation says for a system Python; pipx comes from sudo apt install "
    "pipx on Debian and Ubuntu, brew install pipx on macOS; pipx ensurepath puts uvx on PATH)"
)
"""How to get ``uvx`` where ``pip install --user`` is refused (an externally managed Python, PEP 668:
Debian 12's and Ubuntu's own): every remedy that names uv says this."""
ALLOW_RULE: Final = f"mcp__{DEFAULT_NAMESPACE}"
"""Claude Code's permission rule that allows every tool of our server without a prompt."""
ALLOW_ANSWER: Final = """echo '{"behavior":"allow"}'"""
"""The command of a ``permissionRequest`` hook that allows the call it is asked about (GitHub Copilot CLI's
decision, on stdout): the hook's matcher alone chooses which calls, so it starts no Python."""


def wiring_hosts() -> tuple[str, ...]:
    """Hosts ``wiring --host`` and ``install --host`` take: those the table says register MCP servers."""
    return tuple(host.name for host in hosts_with("servers"))


def trust_hosts() -> tuple[str, ...]:
    """Hosts with a folder-trust feature that ``--trust DIR`` can record a folder in."""
    return tuple(host.name for host in hosts_with("servers") if host.trust is not None)


def off_hosts() -> tuple[str, ...]:
    """Hosts whose shared background process install can be asked to keep out of (``--no-shared-daemon``)."""
    return tuple(host.name for host in hosts_with("servers") if host.shared is not None and host.shared.off)


def required_hosts() -> tuple[str, ...]:
    """Hosts that can be told to wait for the server before their first model request (``--required``)."""
    return tuple(host.name for host in hosts_with("servers") if host.servers and host.servers.required_entry)


def server_command(launcher: str = "script", find_links: Sequence[str] = ()) -> list[str]:
    """The server's command.

    Args:
        launcher: ``script`` (default): this environment's ``herdr-link-mcp`` script beside Python, else
            ``python -m herdr_link_mcp``; ``uvx``: ``uvx --compile-bytecode herdr-link-mcp@<this version>``,
            which needs no install (uv fetches, compiles and caches it on first use).
        find_links: for ``uvx``, folders of wheels to look in as well as the index (a wheelhouse).
    """
    if launcher not in LAUNCHERS:
        raise ValueError(f"unknown launcher {launcher!r}; choose one of {', '.join(LAUNCHERS)}")
    if find_links and launcher != "uvx":
        raise ValueError("--find-links applies to --launcher uvx only")
    if launcher == "uvx":
        links = [arg for folder in find_links for arg in ("--find-links", str(Path(folder).resolve()))]
        # Compiled once when uv installs it into its cache: the first start is as fast as the later ones.
        return ["uvx", "--compile-bytecode", *links, f"herdr-link-mcp@{__version__}"]
    script = Path(sys.executable).parent / "herdr-link-mcp"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "herdr_link_mcp"]


def _hint_command(host: str, server: Sequence[str]) -> str:
    """The hook command for ``host``: ``herdr-link-mcp hint --host HOST``. In a Herdr pane it writes the
    hook's JSON to stdout and nothing to stderr; outside one it writes the host's "no hint" answer to
    stdout (nothing for Claude Code and Codex, ``{}`` for Gemini CLI and AGY) and one line to stderr
    saying that it is not in a Herdr pane. It always exits 0, so a hook never fails a session."""
    return shlex.join([*server, "hint", "--host", host])


@dataclass(frozen=True)
class WiringFile:
    """One file to create or merge into: ``content`` to paste, ``data`` to merge (JSON or TOML)."""

    path: str
    format: Literal["json", "toml", "yaml", "text"]
    content: str
    note: str = ""
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    private: bool = False
    """Created readable by its owner only (the host does the same: state and trust files)."""
    jsonc: bool = False
    """The host reads comments and trailing commas in it (it strips them before parsing)."""
    repairs: bool = False
    """``install`` first puts right what Link 0.1.0 left wrong in it (``_repair``)."""
    owned: bool = False
    """A file Herdr Link owns whole (the host loads every file of its folder): ``install`` refuses to write
    into one of that name that is not Herdr Link's, and ``--uninstall`` leaves such a file alone."""
    consents: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Keys the user asked for by a flag of their own (``--no-shared-daemon``), each with what it costs:
    ``install`` shows them with ``!`` and ``--uninstall`` puts back only what the record says it wrote."""


@dataclass(frozen=True)
class Wiring:
    """Registration for one host: files, launcher flags and notes."""

    host: str
    files: list[WiringFile] = field(default_factory=list)
    launcher: str = ""
    notes: list[str] = field(default_factory=list)
    scope: str = "user"
    trusted: bool = False
    """Whether folder-trust entries were asked for (``trust``) and are among the files' data."""
    hook_file: HookFile | None = field(default=None, compare=False, repr=False)
    """For a host that trusts its hook by hash (Codex): its hook file, as read for the trust entry's key."""

    def render(self) -> str:
        """Human-readable, ready to paste."""
        parts = [f"# Herdr Link wiring for {self.host} ({self.scope} scope)"]
        for item in self.files:
            parts.append(f"\n## {item.path}" + (f"  ({item.note})" if item.note else ""))
            parts.append(item.content.rstrip("\n"))
        if self.launcher:
            parts.append("\n## launch\n" + self.launcher)
        if self.notes:
            parts.append("\n" + "\n".join(f"- {note}" for note in self.notes))
        install = f"herdr-link-mcp install --host {self.host}" + (" --scope project" if self.scope == "project" else "")
        parts.append(f"\nTo write these for you (plan first, backup, undo with --uninstall): {install}")
        return "\n".join(parts) + "\n"

    def to_json(self) -> str:
        """Machine-readable: ``{"host", "files": [{"path", "format", "content", "note"}], "launcher", "notes"}``."""
        files = [{"path": f.path, "format": f.format, "content": f.content, "note": f.note} for f in self.files]
        return json.dumps({"host": self.host, "files": files, "launcher": self.launcher, "notes": self.notes}, indent=2)


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _yaml(data: Mapping[str, Any]) -> str:
    """``data`` written as install writes it into a YAML file that has none of it."""
    from herdr_link_control.userfiles import yaml_text  # ruamel.yaml, loaded only for a YAML file

    return yaml_text(data)


def _toml(data: Mapping[str, Any]) -> str:
    """``data`` written as install writes it into a file that has none of it: one table per object
    whose values hold no object, a ``[[table]]`` block per object in a list."""
    from herdr_link_control.userfiles import TomlDocument  # here: the editors load only when TOML is wired

    printed = TomlDocument("")

    def tables(path: tuple[str, ...], value: Mapping[str, Any]) -> None:
        if any(isinstance(item, Mapping) for item in value.values()):
            for key, item in value.items():
                tables((*path, key), item)
            return
        arrays = {k: v for k, v in value.items() if isinstance(v, list) and v and isinstance(v[0], Mapping)}
        rest = {k: v for k, v in value.items() if k not in arrays}
        if rest or not arrays:
            printed.add_table(path, rest)
        for key, items in arrays.items():  # an array of tables: a [[path.key]] block each
            for element in items:
                printed.append((*path, key), element)

    tables((), data)
    return printed.text


def _merged(into: dict[str, Any], data: Mapping[str, Any]) -> None:
    """Merge ``data`` into ``into``, object by object (lists and values are taken whole)."""
    for key, value in data.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merged(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def _trusted(folders: Sequence[str]) -> list[str]:
    """The folders to trust, absolute and resolved (as the hosts key them)."""
    return [str(Path(folder).expanduser().resolve()) for folder in folders]


def _workspaces(folders: Sequence[str], home: Path) -> list[str]:
    """The folders as Grok Build keys its trust: each one's repository root (not the home folder), else the
    folder; ``/`` and the home folder, which it never gates nor records, are refused."""
    keys = []
    for folder in map(Path, folders):
        key = grok_workspace(folder, home, git_root(folder))
        if key is None:  # the folder itself is / or the home folder
            raise ValueError(
                f"Grok Build never records trust for {folder} (it asks nothing there); name a folder below it"
            )
        keys.append(str(key))
    return list(dict.fromkeys(keys))


def _hook_document(hook: Hook, command: str) -> dict[str, Any]:
    """Our hint hook in the host's form (``Hook.form``)."""
    handler: dict[str, Any] = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    if hook.form == "group":
        return {"hooks": {hook.event: [{"hooks": [handler]}]}}
    if hook.form == "matcher":
        named = {"name": "herdr-link-hint", "type": "command", "command": command}
        return {"hooks": {hook.event: [{"matcher": "startup", "hooks": [named]}]}}
    if hook.form == "named":
        return {"herdr-link": {hook.event: [handler]}}
    if hook.form == "versioned":
        events: dict[str, Any] = {hook.event: [{"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT}]}
        if hook.allows:
            events["permissionRequest"] = [
                {"type": "command", "matcher": hook.allows, "bash": ALLOW_ANSWER, "timeoutSec": HOOK_TIMEOUT}
            ]
        return {"version": 1, "hooks": events}
    assert_never(hook.form)


def _trust_document(rule: TrustRule, folders: Sequence[str]) -> dict[str, Any]:
    """Folder trust for ``folders`` as the host records it (``Trust.rule``)."""
    if rule == "projects":
        return {"projects": {folder: {"hasTrustDialogAccepted": True} for folder in folders}}
    if rule == "trust_level":
        return {"projects": {folder: {"trust_level": "trusted"} for folder in folders}}
    if rule == "folders":
        return dict.fromkeys(folders, "TRUST_FOLDER")
    if rule == "trusted_list":
        return {"trustedFolders": list(folders)}
    if rule == "trusted_at":
        return {"trustedFolders": {folder: {"trustedAt": TRUSTED_AT} for folder in folders}}
    if rule == "folder_records":
        return {"folders": {folder: {"trusted": True, "decided_at": DECIDED_AT} for folder in folders}}
    if rule == "record_files":  # one file per folder: see wiring
        raise ValueError(rule)
    assert_never(rule)


def session_start(document: object) -> object:
    """The SessionStart groups of a hook file's object (``None`` when it holds none)."""
    hooks = document.get("hooks") if isinstance(document, dict) else None
    return hooks.get("SessionStart") if isinstance(hooks, dict) else None


def codex_session_start(hooks_file: Path) -> object:
    """The SessionStart groups of a hook file as they are now; ``None`` when unreadable."""
    from herdr_link_control import read_host_file  # here: only a Codex wiring reads a file

    document, _ = read_host_file(hooks_file, "json")  # as the doctor reads it: through links, no exception
    return session_start(document)


@dataclass(frozen=True)
class HookFile:
    """A hash-trusting host's hook file as its wiring read it, once per install: the trust entry's key
    names a place in these bytes, ``install`` edits them and judges the config's trust entries by them."""

    path: Path
    raw: bytes | None
    """What it held (``None``: no file)."""
    readable: bool = True
    """``False``: it could not be read as one regular file (``install`` reads it again and says why)."""

    @property
    def groups(self) -> object:
        """Its SessionStart groups; ``None`` when it is missing, unreadable or not a JSON object."""
        if self.raw is None:
            return None
        from herdr_link_control.userfiles import json_value

        try:
            return session_start(json_value(self.raw.decode("utf-8", errors="surrogateescape"), jsonc=False))
        except (ValueError, RecursionError):
            return None


def _read_hook_file(path: Path) -> HookFile:
    from herdr_link_control.userfiles import regular_file  # stat first: a FIFO there is never opened

    try:
        return HookFile(path, regular_file(path).read_bytes())
    except FileNotFoundError:
        return HookFile(path, None)
    except OSError:
        return HookFile(path, None, readable=False)


def _hook_position(groups: object) -> tuple[int, int]:
    """Where our hook is in a hook file's SessionStart ``groups`` (group, handler), or will be once install
    appends its group after the user's: the place a hash-trusting host's trust entry names."""
    groups = without_typescript_hooks(groups)  # as install leaves the list
    found = find_hook(groups)
    if found is not None:
        return found[0], found[1] or 0
    return (len(groups) if isinstance(groups, list) else 0), 0


@dataclass
class _Draft:
    """One file of a wiring while its pieces are merged in."""

    place: Place
    """The place that first named it (its format)."""
    data: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    private: bool = False
    repairs: bool = False
    owned: bool = False
    consents: dict[str, str] = field(default_factory=dict)


class _Files:
    """The files of one wiring, in the order first named, each merged from its pieces."""

    def __init__(self, environ: Mapping[str, str], home: Path) -> None:
        self.environ, self.home = environ, home
        self.drafts: dict[str, _Draft] = {}

    def add(
        self, place: Place, scope: Scope, data: Mapping[str, Any], *, repairs: bool = False, consent: str = "",
        owned: bool = False,
    ) -> None:  # fmt: skip
        shown = shown_path(place, scope, self.environ, self.home)
        draft = self.drafts.setdefault(shown, _Draft(place))
        _merged(draft.data, data)
        if consent:
            draft.consents.update(dict.fromkeys(_leaves(data), consent))
        note = place.note(scope)
        if note and note not in draft.notes:
            draft.notes.append(note)
        draft.private |= place.private and (scope == "user" or place.project is None)  # the user's own file
        draft.repairs |= repairs
        draft.owned |= owned

    def files(self) -> list[WiringFile]:
        made = []
        for shown, draft in self.drafts.items():
            kind = draft.place.format if draft.place.format in ("toml", "yaml") else "json"
            content = {"toml": _toml, "yaml": _yaml}.get(kind, _json)(draft.data)
            made.append(
                WiringFile(shown, kind, content, "; ".join(draft.notes), draft.data,
                           draft.private, jsonc=draft.place.format == "jsonc", repairs=draft.repairs,
                           owned=draft.owned, consents=draft.consents)
            )  # fmt: skip
        return made


def _leaves(data: Mapping[str, Any], path: tuple[str, ...] = ()) -> list[str]:
    """The dotted paths of ``data``'s values (as the installer's claims show them)."""
    found = []
    for key, value in data.items():
        here = (*path, key)
        found += _leaves(value, here) if isinstance(value, Mapping) else [".".join(here)]
    return found


def _nested(path: Sequence[str], value: Any) -> dict[str, Any]:
    for key in reversed(path[1:]):
        value = {key: value}
    return {path[0]: value}


def _entry(host: Host, command: str, args: Sequence[str], required: bool) -> dict[str, Any]:
    """Our server's entry as the host's record writes it."""
    assert host.servers is not None
    stand_ins: dict[object, object] = {COMMAND: command, ARGS: list(args), ARGV: [command, *args]}

    def filled(value: object) -> object:
        if isinstance(value, str):
            return copy.deepcopy(stand_ins.get(value, value))
        if isinstance(value, Mapping):
            return {key: filled(inner) for key, inner in value.items()}
        return copy.deepcopy(value)

    entry = {key: filled(value) for key, value in host.servers.entry}
    return entry | (dict(host.servers.required_entry) if required else {})


TRUSTED_AT: Final = "2026-12-06T00:00:00.000Z"
"""The time ``--trust`` records for a host that keeps one with each trusted folder (fixed: a wiring is the
same every time it is made, so a second install finds nothing to change)."""


DECIDED_AT: Final = 1796515200
"""The time (Unix seconds, 2026-12-06) ``--trust`` records for Grok Build's trusted folders (fixed, as
:data:`TRUSTED_AT`)."""


def _approval(approval: Approval, command: str, args: Sequence[str]) -> dict[str, Any]:
    """The host's record that its user approved our tools, naming our server by its digest."""
    stand_ins: dict[object, object] = {COMMAND: command, ARGS: list(args)}
    launch = {
        key: stand_ins.get(value, value) if isinstance(value, str) else value for key, value in approval.identity_of
    }
    digest = hashlib.sha256(json.dumps(launch, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()[:32]
    return dict(approval.fields) | {approval.identity: digest}


def _scope(scope: str) -> Scope:
    """``scope`` as the host table's type, or ``ValueError``."""
    if scope == "user":
        return "user"
    if scope == "project":
        return "project"
    raise ValueError(f"unknown scope {scope!r}; choose one of {', '.join(SCOPES)}")


def _notes(host: Host, scope: Scope, required: bool) -> list[str]:
    notes = list(host.user_notes if scope == "user" else ())
    allow = host.allow.rules[0] if host.allow is not None else ALLOW_RULE
    notes += [note.replace("{allow}", allow) for note in host.notes]
    notes += host.project_notes if scope == "project" else ()
    if host.servers is not None and host.servers.required_entry:
        notes.append(host.servers.required_notes[0 if required else 1])
    return notes


def wiring(
    host: str,
    *,
    scope: str = "user",
    trust: Sequence[str] = (),
    required: bool = False,
    launcher: str = "script",
    find_links: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
    home: Path | None = None,
    shared_off: bool = False,
) -> Wiring:
    """Registration for ``host`` with this environment's commands, from its record in the host table.

    Args:
        scope: ``user`` (every folder of this user) or ``project`` (the current project's files).
        trust: folders to record as trusted in the host's own trust list (only :func:`trust_hosts`).
        required: make the host wait for the server before its first model request (only
            :func:`required_hosts`; the host then refuses to start a session while the server cannot).
        launcher, find_links: how the host starts the server and its hint hook (see :func:`server_command`).
        environ, home: the user's environment and home (default: this process's).
        shared_off: also set the host's own setting that keeps its panes' sessions out of its shared
            process (:attr:`~herdr_link_control.hosts.SharedProcess.off`; user scope), a consent of its own.

    Raises:
        ValueError: for an unknown host or scope, or a combination the host does not have.
    """
    environ = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    record = find_host(host)
    if record is None or record.servers is None:
        raise ValueError(f"unknown host {host!r}; choose one of {', '.join(wiring_hosts())}")
    servers = record.servers
    scope = _scope(scope)
    if trust and record.trust is None:
        raise ValueError(f"{host} has no folder trust to record; --trust applies to {', '.join(trust_hosts())}")
    if required and not servers.required_entry:
        raise ValueError(f"{host} has no required servers; --required applies to {', '.join(required_hosts())}")
    if scope not in servers.scopes:
        shown = shown_path(servers.place, "user", environ, home)
        raise ValueError(f"{host}: only the user scope is wired ({shown} applies to every folder)")
    command, *args = server_command(launcher, find_links)
    # uvx resolves the tool at every start (about a second when the index is asked), well past the
    # time a host that can wait for a server otherwise gives it: so such a host waits for it.
    required = required or (bool(servers.required_entry) and launcher == "uvx")
    folders = _trusted(trust)
    if folders and record.trust is not None and record.trust.rule == "folder_records":
        folders = _workspaces(folders, home)
    files = _Files(environ, home)
    if servers.name != DEFAULT_NAMESPACE:  # the host refuses our name: the server is told the one it has
        args = [*args, "--namespace", servers.name]
    entry = _entry(record, command, args, required)
    files.add(servers.place, scope, {servers.table: {servers.name: entry}}, repairs=servers.repairs)
    if servers.approval is not None:
        files.add(servers.place, scope, _nested(servers.approval.table, {servers.name: _approval(servers.approval,
                  command, args)}))  # fmt: skip
    if record.allow is not None:
        allowed: Any = [record.allow.item(record.allow.rules[0])]
        for level in reversed(record.allow.key):
            allowed = {level: allowed}
        files.add(record.allow.place, scope, allowed)
    hook, hook_file = record.hook, None
    if hook is not None:
        hint = _hint_command(record.name, [command, *args])
        files.add(hook.place, scope, _hook_document(hook, hint), owned=hook.form == "versioned")
        if hook.trusted_by_hash is not None:
            hook_file = _read_hook_file(place_path(hook.place, scope, environ, home, Path.cwd()))
            label = event_label(hook.event)
            key = hook_trust_key(hook_file.path, label, *_hook_position(hook_file.groups))
            trusted_hash = command_hook_hash(label, hint, HOOK_TIMEOUT)
            files.add(hook.trusted_by_hash, "user", {"hooks": {"state": {key: {"trusted_hash": trusted_hash}}}})
    if folders and record.trust is not None and record.trust.rule == "record_files":
        for folder in folders:  # a file of its own each; only its presence counts, the time is not read
            files.add(trust_record(record.trust, folder), "user", {"root": folder})
    elif folders and record.trust is not None:
        files.add(record.trust.place, "user", _trust_document(record.trust.rule, folders))
    off = record.shared.off if record.shared is not None else None
    if shared_off and off is None:
        raise ValueError(f"{host} shares no background process; --no-shared-daemon applies to {', '.join(off_hosts())}")
    if shared_off and off is not None:
        key = ".".join(off.key)
        consent = f"{key} = {str(off.value).lower()} (asked for by --no-shared-daemon): {off.costs}"
        files.add(servers.place, "user", _nested(off.key, off.value), consent=consent)
    return Wiring(record.name, files.files(), notes=_notes(record, scope, required), scope=scope, trusted=bool(folders),
                  hook_file=hook_file)  # fmt: skip
