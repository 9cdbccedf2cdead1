"""Host wiring: ready-to-paste registration for each host (the hint itself is in ``_hint``).

Everything printed here is generated: the hint text comes from ``herdr_link_protocol``, the
commands point at this environment's ``herdr-link-mcp``, and the namespace is always ``herdr_link``.
"""

import json
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from herdr_link_control.userfiles import config_dir
from herdr_link_protocol import tier0_hint

from ._codex import SESSION_START, codex_home, command_hook_hash, hook_trust_key
from ._hosts import DEFAULT_NAMESPACE, WIRING_FORMS, WIRING_HOSTS

__all__ = ["FORWARDED_VARIABLES", "Wiring", "WiringFile", "claude_hint_file", "server_command", "wiring"]

FORWARDED_VARIABLES: Final = ("HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID", "HERDR_SOCKET_PATH")
"""What a host must pass to the server: the gate's three variables and the socket the CLI needs."""


def claude_hint_file(environ: Mapping[str, str], home: Path) -> Path:
    """Where the Claude Code wiring keeps the Tier 0 hint its launcher flag reads: beside ``bridge.json``
    in Herdr Link's config directory (the doctor checks the same file)."""
    return config_dir(environ, home) / "claude-hint.txt"


def server_command() -> list[str]:
    """This environment's server command: the ``herdr-link-mcp`` script beside Python, else ``-m``."""
    script = Path(sys.executable).parent / "herdr-link-mcp"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "herdr_link_mcp"]


def _hint_command(host: str) -> str:
    """The hook command for ``host``: ``herdr-link-mcp hint --host HOST``. In a Herdr pane it writes the
    hook's JSON to stdout and nothing to stderr; outside one it writes the host's "no hint" answer to
    stdout (nothing for Codex, ``{}`` for Gemini CLI and AGY) and one line to stderr saying that it is
    not in a Herdr pane. It always exits 0, so a hook never fails a session."""
    return shlex.join([*server_command(), "hint", "--host", host])


@dataclass(frozen=True)
class WiringFile:
    """One file to create or merge into."""

    path: str
    format: Literal["json", "toml", "text"]
    content: str
    note: str = ""


@dataclass(frozen=True)
class Wiring:
    """Registration for one host: files, launcher flags and notes."""

    host: str
    files: list[WiringFile] = field(default_factory=list)
    launcher: str = ""
    notes: list[str] = field(default_factory=list)

    def render(self) -> str:
        """Human-readable, ready to paste."""
        parts = [f"# Herdr Link wiring for {self.host}"]
        for item in self.files:
            parts.append(f"\n## {item.path}" + (f"  ({item.note})" if item.note else ""))
            parts.append(item.content.rstrip("\n"))
        if self.launcher:
            parts.append("\n## launch\n" + self.launcher)
        if self.notes:
            parts.append("\n" + "\n".join(f"- {note}" for note in self.notes))
        return "\n".join(parts) + "\n"

    def to_json(self) -> str:
        """Machine-readable: ``{"host", "files": [{"path", "format", "content", "note"}], "launcher", "notes"}``."""
        files = [item.__dict__ for item in self.files]
        return json.dumps({"host": self.host, "files": files, "launcher": self.launcher, "notes": self.notes}, indent=2)


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


CODEX_HINT_TIMEOUT: Final = 10
"""Seconds Codex gives the SessionStart hint hook."""
CODEX_STARTUP_TIMEOUT: Final = 30
"""Seconds Codex waits for the (required) server to answer ``initialize``."""


def _codex_wiring(command: str, args: list[str]) -> Wiring:
    ns = DEFAULT_NAMESPACE
    configured = os.environ.get("CODEX_HOME")
    folder = codex_home(os.environ, Path.home())
    shown = str(folder) if configured else "~/.codex"
    hint = _hint_command("codex")
    trust_key = hook_trust_key(folder / "hooks.json", SESSION_START)
    config = (
        f"[mcp_servers.{ns}]\ncommand = {json.dumps(command)}\nargs = {_toml_list(args)}\n"
        f"env_vars = {_toml_list(list(FORWARDED_VARIABLES))}\n"
        'default_tools_approval_mode = "approve"\n'
        f"required = true\nstartup_timeout_sec = {CODEX_STARTUP_TIMEOUT}\n\n"
        f"[hooks.state.{json.dumps(trust_key)}]\n"
        f"trusted_hash = {json.dumps(command_hook_hash(SESSION_START, hint, CODEX_HINT_TIMEOUT))}\n"
    )
    handler = {"type": "command", "command": hint, "timeout": CODEX_HINT_TIMEOUT}
    hooks = {"hooks": {"SessionStart": [{"hooks": [handler]}]}}
    return Wiring(
        "codex",
        [
            WiringFile(f"{shown}/config.toml", "toml", config, "merge into your config"),
            WiringFile(f"{shown}/hooks.json", "json", _json(hooks), "the SessionStart hook adds the Tier 0 hint"),
        ],
        notes=[
            "Codex passes no HERDR_* variables to MCP servers unless env_vars lists them; without them the "
            "server sees no Herdr and lists no tools.",
            'default_tools_approval_mode = "approve" lets the tools run under approval_policy = "never".',
            "required = true makes Codex wait for the server before its first model request (otherwise a "
            "server still starting is left out of the session). The cost: if herdr-link-mcp cannot start "
            "(uninstalled, broken environment), Codex refuses to start any session until it can or the entry "
            "is removed. Outside Herdr the server starts and lists nothing, so plain Codex sessions are unaffected.",
            "The [hooks.state] entry trusts exactly this hint hook (Codex skips untrusted hooks silently); it is "
            "the hash Codex's /hooks review would record. Edit the hook and Codex treats it as modified and skips "
            "it until you review it there. The entry names the hook by its place, the first SessionStart group of "
            "hooks.json: keep ours first there, or trust it in /hooks instead. Outside Herdr the hook writes "
            "nothing to stdout (no hint is added) and one line to stderr that says why.",
            "Codex never re-lists tools after activation: the model keeps using the gateway's action dispatch.",
            "Restart Codex completely after changing either file.",
        ],
    )


def wiring(host: str) -> Wiring:
    """Registration for ``host`` with this environment's commands.

    Raises:
        ValueError: for an unknown host.
    """
    command, *args = server_command()
    ns = DEFAULT_NAMESPACE
    if host == "claude":
        hint_path = claude_hint_file(os.environ, Path.home())
        hint_file = str(hint_path)
        return Wiring(
            host,
            [
                WiringFile(
                    ".mcp.json",
                    "json",
                    _json({"mcpServers": {ns: {"type": "stdio", "command": command, "args": args}}}),
                    "project registration; or pass it with --mcp-config",
                ),
                WiringFile(
                    hint_file,
                    "text",
                    tier0_hint(WIRING_FORMS["claude"], ns) + "\n",
                    f"write it with: mkdir -p {shlex.quote(str(hint_path.parent))} && "
                    f"{_hint_command('claude')} > {shlex.quote(hint_file)}",
                ),
            ],
            launcher=shlex.join(
                [
                    "claude",
                    "--mcp-config",
                    ".mcp.json",
                    "--allowedTools",
                    f"mcp__{ns}__*",
                    "--append-system-prompt-file",
                    hint_file,
                ]
            ),
            notes=[
                f'Without --allowedTools "mcp__{ns}__*" every Herdr Link call waits for a permission prompt.',
                "Claude Code defers MCP tools behind its tool search; the hint says how to load the gateway.",
                "Add the hint file only for sessions launched inside Herdr.",
            ],
        )
    if host == "codex":
        return _codex_wiring(command, args)
    if host == "agy":
        agy_hooks = {
            "herdr-link": {"PreInvocation": [{"type": "command", "command": _hint_command("agy"), "timeout": 10}]}
        }
        return Wiring(
            host,
            [
                WiringFile(
                    "~/.gemini/config/mcp_config.json",
                    "json",
                    _json({"mcpServers": {ns: {"command": command, "args": args}}}),
                ),
                WiringFile(
                    ".agents/hooks.json",
                    "json",
                    _json(agy_hooks),
                    "in the project's customization root; a group of its own, PreInvocation handlers directly "
                    "in the event list",
                ),
            ],
            notes=[
                "AGY calls MCP tools through call_mcp_tool with ServerName and ToolName.",
                "agy reads hooks.json from a customization root (.agents/ of the project) or from an installed "
                "plugin, depending on its release; its debug log says how many hooks it loaded. Not run against "
                "a real agy here.",
            ],
        )
    if host == "gemini":
        server = {"command": command, "args": args, "trust": True}
        hook = {
            "matcher": "startup",
            "hooks": [{"name": "herdr-link-hint", "type": "command", "command": _hint_command("gemini")}],
        }
        settings = {"mcpServers": {ns: server}, "hooks": {"SessionStart": [hook]}}
        return Wiring(
            host,
            [WiringFile("~/.gemini/settings.json", "json", _json(settings), "merge into your settings")],
            notes=['Gemini CLI offers an MCP server\'s tools only when it has "trust": true.'],
        )
    if host == "pi":
        server = {"command": command, "args": args, "exposure": "direct"}
        return Wiring(
            host,
            [
                WiringFile(
                    "~/.pi/agent/mcp.json", "json", _json({"mcpServers": {ns: server}}), "or .pi/mcp.json per project"
                )
            ],
            notes=[
                'Pi\'s default exposure ("codemode") hides MCP tools from the model: keep "exposure": "direct".',
                "The native extension (herdr-link-pi-bridge) is the alternative to Pi's built-in MCP.",
            ],
        )
    raise ValueError(f"unknown host {host!r}; choose one of {', '.join(WIRING_HOSTS)}")
