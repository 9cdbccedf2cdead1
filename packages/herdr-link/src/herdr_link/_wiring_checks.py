"""Wiring checks, one per host, for ``herdr-link doctor``: configured, misconfigured (with the fix) or not
configured. They only read files."""

import json
import os
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from herdr_link_mcp import (
    ALLOW_RULE,
    DEFAULT_NAMESPACE,
    FORWARDED_VARIABLES,
    claude_config_dir,
    claude_user_config,
    codex_damage_at,
    codex_home,
)

from ._check import Check

__all__ = ["WIRING_CHECKS", "wiring_checks"]

NS: Final = DEFAULT_NAMESPACE


def _load(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The parsed file, or ``None`` and why (missing files give ``None`` and an empty reason)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, ""
    except OSError as error:
        return None, f"{path} cannot be read: {error.strerror}"
    try:
        value = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        return None, f"{path} is not valid {path.suffix.lstrip('.').upper()}: {error}"
    return (value, "") if isinstance(value, dict) else (None, f"{path} does not hold an object")


def _runnable(command: object) -> bool:
    if not isinstance(command, str) or not command:
        return False
    return os.access(command, os.X_OK) if os.sep in command else shutil.which(command) is not None


def _server_entry(name: str, sources: list[Path], table: str, host: str) -> tuple[Check | None, dict[str, Any], Path]:
    """Find our server in ``table`` of the first source that has one; a Check when that already decides."""
    for path in sources:
        config, problem = _load(path)
        if problem:
            return Check(name, "FAIL", problem, "fix the file's syntax"), {}, path
        servers = (config or {}).get(table)
        if not isinstance(servers, dict):
            continue
        if NS in servers and isinstance(servers[NS], dict):
            entry: dict[str, Any] = servers[NS]
            if not _runnable(entry.get("command")):
                fix = f"point command at herdr-link-mcp (herdr-link-mcp wiring --host {host})"
                return Check(name, "FAIL", f"{path}: command {entry.get('command')!r} cannot be run", fix), entry, path
            return None, entry, path
        for other in servers:
            if str(other).replace("-", "_") == NS:
                fix = f'rename the entry to "{NS}" (tools are then named after it)'
                return Check(name, "FAIL", f'{path} registers the server as "{other}"', fix), {}, path
    return Check(name, "SKIP", f"not configured (looked in {', '.join(map(str, sources))})"), {}, sources[0]


CLAUDE_ALLOW_RULES: Final = (ALLOW_RULE, f"{ALLOW_RULE}__*")
"""Claude Code permission rules that allow every tool of our server."""


def claude_settings(home: Path, cwd: Path) -> list[Path]:
    """Claude Code's settings files that a session in ``cwd`` reads, the project's first."""
    return [
        cwd / ".claude" / "settings.local.json",
        cwd / ".claude" / "settings.json",
        claude_config_dir(os.environ, home) / "settings.json",
    ]


def claude_allows(home: Path, cwd: Path) -> Path | None:
    """The settings file whose ``permissions.allow`` lets our tools run without a prompt, if any."""
    for path in claude_settings(home, cwd):
        config, _ = _load(path)
        allow = ((config or {}).get("permissions") or {}).get("allow")
        if isinstance(allow, list) and any(rule in allow for rule in CLAUDE_ALLOW_RULES):
            return path
    return None


def check_claude(home: Path, cwd: Path) -> Check:
    name = "Claude Code"
    user = claude_user_config(os.environ, home)
    found, _, path = _server_entry(name, [user, cwd / ".mcp.json"], "mcpServers", "claude")
    if found:
        return found
    fix = "herdr-link-mcp install --host claude"
    allowed = claude_allows(home, cwd)
    if allowed is None:
        detail = (
            f"{path} registers {NS}, but no settings file allows its tools: every call waits for a permission prompt"
        )
        return Check(name, "FAIL", detail, fix)
    if path != user:
        detail = f"{path} registers {NS} for this project only: Claude Code asks once per project to use it"
        return Check(name, "WARN", detail, f"{fix} (user scope: every folder, no question)")
    return Check(name, "PASS", f"{path} registers {NS} for every folder; {allowed} allows its tools")


def check_codex(home: Path, cwd: Path) -> Check:
    name = "Codex"
    found, entry, path = _server_entry(name, [codex_home(os.environ, home) / "config.toml"], "mcp_servers", "codex")
    if found:
        return found
    missing = [v for v in FORWARDED_VARIABLES if v not in (entry.get("env_vars") or [])]
    if missing:
        fix = f"add env_vars = {json.dumps(list(FORWARDED_VARIABLES))} to [mcp_servers.{NS}]"
        return Check(name, "FAIL", f"{path} does not forward {', '.join(missing)}: the server will see no Herdr", fix)
    if entry.get("default_tools_approval_mode") != "approve":
        fix = f'add default_tools_approval_mode = "approve" to [mcp_servers.{NS}]'
        return Check(name, "FAIL", 'tools other than peers are refused under approval_policy = "never"', fix)
    damage = codex_damage_at(path)
    if damage:
        fix = "herdr-link-mcp install --host codex --yes puts it right (run it without --yes first to see each change)"
        return Check(name, "WARN", f"{path}: " + "; ".join(d.problem for d in damage), fix)
    # Not required is the default: the server answers Codex's first requests before its SDK loads.
    required = " (required: Codex waits for it)" if entry.get("required") is True else ""
    return Check(name, "PASS", f"{path} registers {NS}{required} and forwards the Herdr variables")


def check_agy(home: Path, cwd: Path) -> Check:
    found, _, path = _server_entry("AGY", [home / ".gemini" / "config" / "mcp_config.json"], "mcpServers", "agy")
    return found or Check("AGY", "PASS", f"{path} registers {NS}")


def check_gemini(home: Path, cwd: Path) -> Check:
    name = "Gemini CLI"
    found, entry, path = _server_entry(
        name, [cwd / ".gemini" / "settings.json", home / ".gemini" / "settings.json"], "mcpServers", "gemini"
    )
    if found:
        return found
    if entry.get("trust") is not True:
        return Check(
            name,
            "FAIL",
            f"{path}: {NS} is not trusted, so its tools are never offered",
            f'add "trust": true to mcpServers.{NS}',
        )
    return Check(name, "PASS", f"{path} registers {NS} as trusted")


def check_pi(home: Path, cwd: Path) -> Check:
    name = "Pi (built-in MCP)"
    found, entry, path = _server_entry(
        name, [cwd / ".pi" / "mcp.json", home / ".pi" / "agent" / "mcp.json"], "mcpServers", "pi"
    )
    if found:
        return found
    if entry.get("exposure", entry.get("toolExposure")) != "direct":
        return Check(
            name,
            "FAIL",
            f'{path}: the tools stay hidden from the model (exposure is not "direct")',
            f'add "exposure": "direct" to mcpServers.{NS}',
        )
    return Check(name, "PASS", f"{path} registers {NS} with direct exposure")


WIRING_CHECKS: Final[tuple[Callable[[Path, Path], Check], ...]] = (
    check_claude,
    check_codex,
    check_agy,
    check_gemini,
    check_pi,
)
"""Every MCP host's check, in order; each takes the home and the current directory."""


def wiring_checks(home: Path, cwd: Path) -> list[Check]:
    """Run every host's check."""
    return [check(home, cwd) for check in WIRING_CHECKS]
