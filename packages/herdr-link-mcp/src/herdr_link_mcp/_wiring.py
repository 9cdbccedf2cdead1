"""Host wiring: ready-to-paste registration for each host (the hint itself is in ``_hint``).

Everything printed here is generated: the hint text comes from ``herdr_link_protocol``, the
commands point at this environment's ``herdr-link-mcp``, and the namespace is always ``herdr_link``.
Each file carries its content twice: as text to paste, and as the structure ``install`` merges into
the file a user already has (``_install``); a test holds the two equal.

The default scope is the user's: a host started in any folder of that user (by Link, the user or
Herdr's UI) reads it. ``scope="project"`` prints the files for one project instead. Folder trust is
never changed unless asked for (``trust``), and then only for the folders named.
"""

import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal

from herdr_link_control.userfiles import real_file

from ._claims import find_hook
from ._codex import SESSION_START, codex_home, command_hook_hash, hook_trust_key
from ._hosts import DEFAULT_NAMESPACE, WIRING_HOSTS
from ._version import __version__

__all__ = [
    "ALLOW_RULE",
    "FORWARDED_VARIABLES",
    "SCOPES",
    "TRUST_HOSTS",
    "Wiring",
    "WiringFile",
    "claude_config_dir",
    "claude_user_config",
    "codex_session_start",
    "server_command",
    "wiring",
]

FORWARDED_VARIABLES: Final = ("HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID", "HERDR_SOCKET_PATH")
"""What a host must pass to the server: the gate's three variables and the socket the CLI needs."""
SCOPES: Final = ("user", "project")
"""Where a registration lives: the user's own files (default) or one project's."""
TRUST_HOSTS: Final = ("claude", "codex", "gemini")
"""Hosts with a folder-trust feature that ``--trust DIR`` can record a folder in."""
HOOK_TIMEOUT: Final = 10
"""Seconds a host gives the hint hook."""
CODEX_STARTUP_TIMEOUT: Final = 30
"""Seconds Codex waits for the server to answer ``initialize`` when it is wired with ``required``."""
LAUNCHERS: Final = ("script", "uvx")
"""How hosts start the server: the installed console script, or ``uvx`` with nothing installed."""
REQUIRED_HOSTS: Final = ("codex",)
"""Hosts that can be told to wait for the server before their first model request (``--required``)."""
ALLOW_RULE: Final = f"mcp__{DEFAULT_NAMESPACE}"
"""Claude Code's permission rule that allows every tool of our server without a prompt."""


def server_command(launcher: str = "script", find_links: Sequence[str] = ()) -> list[str]:
    """The server's command.

    Args:
        launcher: ``script`` (default): this environment's ``herdr-link-mcp`` script beside Python, else
            ``python -m herdr_link_mcp``; ``uvx``: ``uvx herdr-link-mcp@<this version>``, which needs no
            install (uv fetches and caches it on first use).
        find_links: for ``uvx``, folders of wheels to look in as well as the index (a wheelhouse).
    """
    if launcher not in LAUNCHERS:
        raise ValueError(f"unknown launcher {launcher!r}; choose one of {', '.join(LAUNCHERS)}")
    if find_links and launcher != "uvx":
        raise ValueError("--find-links applies to --launcher uvx only")
    if launcher == "uvx":
        links = [arg for folder in find_links for arg in ("--find-links", str(Path(folder).resolve()))]
        return ["uvx", *links, f"herdr-link-mcp@{__version__}"]
    script = Path(sys.executable).parent / "herdr-link-mcp"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "herdr_link_mcp"]


def claude_config_dir(environ: Mapping[str, str], home: Path) -> Path:
    """Claude Code's settings directory: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else home / ".claude"


def claude_user_config(environ: Mapping[str, str], home: Path) -> Path:
    """Claude Code's own state file, which holds user-scope MCP servers and trusted folders:
    ``$CLAUDE_CONFIG_DIR/.claude.json``, else ``~/.claude.json``."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) / ".claude.json" if configured else home / ".claude.json"


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
    format: Literal["json", "toml", "text"]
    content: str
    note: str = ""
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    private: bool = False
    """Created readable by its owner only (the host does the same: state and trust files)."""


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


def _json_file(path: str, data: dict[str, Any], note: str = "", *, private: bool = False) -> WiringFile:
    return WiringFile(path, "json", _json(data), note, data, private)


def _shown(path: Path, home: Path) -> str:
    """``path`` as printed: ``~/…`` under the home directory, else absolute."""
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def _trusted(folders: Sequence[str]) -> list[str]:
    """The folders to trust, absolute and resolved (as the hosts key them)."""
    return [str(Path(folder).expanduser().resolve()) for folder in folders]


def _hook_group(host: str, server: Sequence[str]) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": _hint_command(host, server), "timeout": HOOK_TIMEOUT}]}


def _claude(
    scope: str, command: str, args: list[str], trust: list[str], environ: Mapping[str, str], home: Path
) -> Wiring:
    ns = DEFAULT_NAMESPACE
    server = {"type": "stdio", "command": command, "args": args, "env": {}}
    hook = _hook_group("claude", [command, *args])
    settings = {"permissions": {"allow": [ALLOW_RULE]}, "hooks": {"SessionStart": [hook]}}
    state = claude_user_config(environ, home)
    trusted = {"projects": {folder: {"hasTrustDialogAccepted": True} for folder in trust}} if trust else {}
    notes = [
        f'permissions.allow "{ALLOW_RULE}" lets every Herdr Link tool run without a permission prompt, in every '
        "permission mode (auto mode included).",
        "The SessionStart hook adds the Tier 0 hint in Herdr panes only (interactive and -p sessions alike); "
        "elsewhere it adds nothing.",
        "Claude Code defers MCP tools behind its tool search; the hint says how to load the gateway.",
        "Claude Code asks once per folder whether you trust it, before it reads anything there. A worker "
        "started in a folder you have not trusted waits at that question: answer it in the worker's pane, or "
        "trust the folders you start workers in ahead of time with --trust DIR (it covers the folders below "
        "DIR, except inside a git repository, which Claude Code trusts by its root).",
    ]
    if scope == "project":
        files = [
            _json_file(".mcp.json", {"mcpServers": {ns: server}}, "project registration"),
            _json_file(".claude/settings.json", settings, "the project's settings: tools allowed, the hint hook"),
        ]
        notes.append("Claude Code asks once per project whether to use a server from .mcp.json.")
        if trusted:
            files.append(
                _json_file(_shown(state, home), trusted, "folder trust, as Claude Code records it", private=True)
            )
        return Wiring("claude", files, notes=notes, scope=scope)
    registration: dict[str, Any] = {"mcpServers": {ns: server}, **trusted}
    note = "user-scope server, as `claude mcp add --scope user` records it" + (
        "; folder trust as Claude Code records it" if trust else ""
    )
    files = [
        _json_file(_shown(state, home), registration, note, private=True),
        _json_file(
            _shown(claude_config_dir(environ, home) / "settings.json", home),
            settings,
            "your user settings: tools allowed, the hint hook",
        ),
    ]
    notes.insert(0, "Claude Code rewrites ~/.claude.json while it runs; install merges into it as its own CLI does.")
    return Wiring("claude", files, notes=notes, scope=scope)


def codex_session_start(hooks_file: Path) -> object:
    """The SessionStart groups of Codex's ``hooks.json`` as they are now; ``None`` when unreadable."""
    try:
        document = json.loads(real_file(hooks_file).read_bytes())
    except (OSError, ValueError):
        return None
    return (document.get("hooks") or {}).get("SessionStart") if isinstance(document, dict) else None


def _hook_position(hooks_file: Path) -> tuple[int, int]:
    """Where our SessionStart hook is in Codex's ``hooks.json`` (group, handler), or will be once
    install appends its group after the user's: the place Codex's trust entry names."""
    groups = codex_session_start(hooks_file)
    found = find_hook(groups)
    if found is not None:
        return found[0], found[1] or 0
    return (len(groups) if isinstance(groups, list) else 0), 0


def _codex(
    command: str, args: list[str], trust: list[str], environ: Mapping[str, str], home: Path, required: bool
) -> Wiring:
    ns = DEFAULT_NAMESPACE
    folder = codex_home(environ, home)
    shown = _shown(folder, home)
    hint = _hint_command("codex", [command, *args])
    trust_key = hook_trust_key(folder / "hooks.json", SESSION_START, *_hook_position(folder / "hooks.json"))
    trusted_hash = command_hook_hash(SESSION_START, hint, HOOK_TIMEOUT)
    server: dict[str, Any] = {
        "command": command,
        "args": args,
        "env_vars": list(FORWARDED_VARIABLES),
        "default_tools_approval_mode": "approve",
    }
    if required:
        server |= {"required": True, "startup_timeout_sec": CODEX_STARTUP_TIMEOUT}
    data: dict[str, Any] = {
        "mcp_servers": {ns: server},
        "hooks": {"state": {trust_key: {"trusted_hash": trusted_hash}}},
    }
    if trust:
        data["projects"] = {path: {"trust_level": "trusted"} for path in trust}
    from herdr_link_control.userfiles import TomlDocument  # here: the editors load only when Codex is wired

    printed = TomlDocument("")  # written as install writes it into a file that has none of it
    printed.add_table(("mcp_servers", ns), server)
    printed.add_table(("hooks", "state", trust_key), {"trusted_hash": trusted_hash})
    for path in trust:
        printed.add_table(("projects", path), {"trust_level": "trusted"})
    config = printed.text
    hooks = {"hooks": {"SessionStart": [_hook_group("codex", [command, *args])]}}
    notes = [
        "Codex passes no HERDR_* variables to MCP servers unless env_vars lists them; without them the "
        "server sees no Herdr and lists no tools.",
        'default_tools_approval_mode = "approve" lets the tools run under approval_policy = "never".',
        (
            "required = true (--required, and always with --launcher uvx, whose start takes longer than Codex "
            "waits otherwise) makes Codex wait for the server before its first model request. The cost: if "
            "herdr-link-mcp cannot start (uninstalled, broken environment, no uv), Codex refuses to start any "
            "session until it can or the entry is removed."
            if required
            else "Not required: Codex sends its first model request without waiting for the server, and the "
            "server answers Codex's first requests before its MCP SDK has loaded (about 0.1 s), well inside "
            "the time Codex takes to send it; --required makes Codex wait (and refuse to start without it)."
        ),
        "The [hooks.state] entry trusts exactly this hint hook (Codex skips untrusted hooks silently); it is "
        "the hash Codex's /hooks review would record. Edit the hook and Codex treats it as modified and skips "
        "it until you review it there. The entry names the hook by its place in hooks.json (group and handler, "
        "as install leaves it): if you move it, trust it again in /hooks. Outside Herdr the hook writes "
        "nothing to stdout (no hint is added) and one line to stderr that says why.",
        "Codex never re-lists tools after activation: the model keeps using the gateway's action dispatch.",
        "Codex reads both files in every folder. In a git repository it has not been told to trust it asks "
        "first; --trust DIR records that trust ([projects]) for the folders you name.",
        "Restart Codex completely after changing either file.",
    ]
    return Wiring(
        "codex",
        [
            WiringFile(f"{shown}/config.toml", "toml", config, "merge into your config", data),
            _json_file(f"{shown}/hooks.json", hooks, "the SessionStart hook adds the Tier 0 hint"),
        ],
        notes=notes,
    )


def _gemini(scope: str, command: str, args: list[str], trust: list[str]) -> Wiring:
    ns = DEFAULT_NAMESPACE
    server = {"command": command, "args": args, "trust": True}
    hook = {
        "matcher": "startup",
        "hooks": [{"name": "herdr-link-hint", "type": "command", "command": _hint_command("gemini", [command, *args])}],
    }
    settings = {"mcpServers": {ns: server}, "hooks": {"SessionStart": [hook]}}
    where = ".gemini/settings.json" if scope == "project" else "~/.gemini/settings.json"
    files = [_json_file(where, settings, "merge into your settings")]
    if trust:
        folders = dict.fromkeys(trust, "TRUST_FOLDER")
        files.append(
            _json_file("~/.gemini/trustedFolders.json", folders, "folder trust, as Gemini CLI records it", private=True)
        )
    notes = [
        'Gemini CLI offers an MCP server\'s tools only when it has "trust": true.',
        "Gemini CLI asks once per folder whether you trust it (and, headless, refuses to run in a folder it does "
        "not trust). A worker started in such a folder sits at that question: --trust DIR records TRUST_FOLDER "
        "for the folders you name (and the folders below them).",
    ]
    if scope == "project":
        notes.append("A project's settings apply only once Gemini CLI trusts the project's folder.")
    return Wiring("gemini", files, notes=notes, scope=scope)


def _agy(scope: str, command: str, args: list[str]) -> Wiring:
    ns = DEFAULT_NAMESPACE
    handler = {"type": "command", "command": _hint_command("agy", [command, *args]), "timeout": HOOK_TIMEOUT}
    hooks = {"herdr-link": {"PreInvocation": [handler]}}
    hooks_path = ".agents/hooks.json" if scope == "project" else "~/.gemini/antigravity-cli/hooks.json"
    return Wiring(
        "agy",
        [
            _json_file("~/.gemini/config/mcp_config.json", {"mcpServers": {ns: {"command": command, "args": args}}}),
            _json_file(
                hooks_path,
                hooks,
                "a group of its own, PreInvocation handlers directly in the event list",
            ),
        ],
        notes=[
            "AGY calls MCP tools through call_mcp_tool with ServerName and ToolName.",
            "agy reads hooks.json from its user directory (~/.gemini/antigravity-cli/) and from a project's "
            "customization root (.agents/), as its documentation describes; its debug log says how many hooks "
            "it loaded. Not run against a real agy here.",
        ],
        scope=scope,
    )


def _pi(scope: str, command: str, args: list[str]) -> Wiring:
    server = {"command": command, "args": args, "exposure": "direct"}
    where = ".pi/mcp.json" if scope == "project" else "~/.pi/agent/mcp.json"
    return Wiring(
        "pi",
        [_json_file(where, {"mcpServers": {DEFAULT_NAMESPACE: server}})],
        notes=[
            'Pi\'s default exposure ("codemode") hides MCP tools from the model: keep "exposure": "direct".',
            "Pi has no hook for the Tier 0 hint: the native extension (pip install herdr-link-pi-bridge, then "
            "herdr-link-pi-bridge install) gives it, and is the recommended way to wire Pi.",
        ],
        scope=scope,
    )


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
) -> Wiring:
    """Registration for ``host`` with this environment's commands.

    Args:
        scope: ``user`` (every folder of this user) or ``project`` (the current project's files).
        trust: folders to record as trusted in the host's own trust list (only for :data:`TRUST_HOSTS`).
        required: make the host wait for the server before its first model request (only
            :data:`REQUIRED_HOSTS`; the host then refuses to start a session while the server cannot).
        launcher, find_links: how the host starts the server and its hint hook (see :func:`server_command`).
        environ, home: the user's environment and home (default: this process's).

    Raises:
        ValueError: for an unknown host or scope, or a combination the host does not have.
    """
    environ = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    if host not in WIRING_HOSTS:
        raise ValueError(f"unknown host {host!r}; choose one of {', '.join(WIRING_HOSTS)}")
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; choose one of {', '.join(SCOPES)}")
    if trust and host not in TRUST_HOSTS:
        raise ValueError(f"{host} has no folder trust to record; --trust applies to {', '.join(TRUST_HOSTS)}")
    if required and host not in REQUIRED_HOSTS:
        raise ValueError(f"{host} has no required servers; --required applies to {', '.join(REQUIRED_HOSTS)}")
    if host == "codex" and scope == "project":
        raise ValueError("codex: only the user scope is wired ($CODEX_HOME or ~/.codex applies to every folder)")
    command, *args = server_command(launcher, find_links)
    # uvx resolves the tool at every start (about a second when the index is asked), well past the
    # time Codex waits for a server that is not required: so Codex waits for it.
    required = required or (host == "codex" and launcher == "uvx")
    folders = _trusted(trust)
    if host == "claude":
        result = _claude(scope, command, args, folders, environ, home)
    elif host == "codex":
        result = _codex(command, args, folders, environ, home, required)
    elif host == "gemini":
        result = _gemini(scope, command, args, folders)
    elif host == "agy":
        result = _agy(scope, command, args)
    else:
        result = _pi(scope, command, args)
    return replace(result, trusted=bool(folders))
