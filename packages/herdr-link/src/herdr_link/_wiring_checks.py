"""The doctor's wiring check, one per MCP host in the host table: configured, misconfigured (with the
fix) or not configured. Each reads the host's files where its record says, as the host parses them
(JSONC where the host strips comments), and nothing else."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from herdr_link_control import read_host_file
from herdr_link_control.hosts import Host, Place, hosts_with, place_path
from herdr_link_mcp import UV_INSTALL, codex_damage_at, is_our_entry, is_typescript_entry

from ._check import Check

if TYPE_CHECKING:
    from herdr_link_control.hosts import Scope

__all__ = ["allowed_by", "check_wiring", "place_paths", "runnable", "wiring_checks"]


def runnable(command: object) -> bool:
    """Whether ``command`` names a program that can be run (a path, or a name on ``PATH``)."""
    if not isinstance(command, str) or not command:
        return False
    return os.access(command, os.X_OK) if os.sep in command else shutil.which(command) is not None


def place_paths(place: Place, scopes: tuple[Scope, ...], home: Path, cwd: Path, project_reads: tuple[str, ...] = ()
                ) -> list[Path]:  # fmt: skip
    """The files of ``place`` at each of ``scopes`` (project files first where ``project_reads`` adds
    some), without repeats and without a project file the place does not have."""
    paths = [cwd / extra for extra in project_reads] if "project" in scopes else []
    for scope in scopes:
        if scope == "project" and place.project is None:
            continue
        paths.append(place_path(place, scope, os.environ, home, cwd))
    return list(dict.fromkeys(paths))


def _server_entry(host: Host, home: Path, cwd: Path) -> tuple[Check | None, dict[str, Any], Path]:
    """Find our server in the first file of the host's lookup that has one; a Check when that decides."""
    assert host.servers is not None
    servers, name, ns = host.servers, host.title, host.servers.name
    sources = place_paths(servers.place, servers.lookup, home, cwd)
    for path in sources:
        config, problem = read_host_file(path, servers.place.format)
        if problem:
            return Check(name, "FAIL", problem, "fix the file's syntax"), {}, path
        table = (config or {}).get(servers.table)
        if not isinstance(table, dict):
            continue
        if ns in table and isinstance(table[ns], dict):
            entry: dict[str, Any] = table[ns]
            install = f"herdr-link-mcp install --host {host.name}"
            command, args = servers.command_of(entry)
            if is_typescript_entry(entry):
                line = " ".join(str(word) for word in [command, *args])
                detail = f"{path}: {ns} runs the TypeScript Herdr Link ({line}), not herdr-link-mcp"
                fix = f"{install} --yes (the entry is backed up, and --uninstall puts it back)"
                return Check(name, "WARN", detail, fix), entry, path
            if not runnable(command):
                detail = f"{path}: command {command!r} cannot be run"
                fix = install if is_our_entry(entry) else f"{install} --yes (the entry is backed up)"
                if command == "uvx":
                    detail += " (no uvx on PATH: uv is not installed)"
                    fix += f" (the installed server), or install uv, which brings uvx: {UV_INSTALL}"
                return Check(name, "FAIL", detail, fix), entry, path
            return None, entry, path
        for other in table:
            if other != ns and str(other).replace("-", "_") == ns.replace("-", "_"):
                fix = f'rename the entry to "{ns}" (tools are then named after it)'
                return Check(name, "FAIL", f'{path} registers the server as "{other}"', fix), {}, path
    return Check(name, "SKIP", f"not configured (looked in {', '.join(map(str, sources))})"), {}, sources[0]


def allowed_by(host: Host, home: Path, cwd: Path) -> Path | None:
    """The settings file whose permission rule lets our tools run without a prompt, if any."""
    assert host.allow is not None
    allow = host.allow
    for path in place_paths(allow.place, ("project", "user"), home, cwd, allow.project_reads):
        config, _ = read_host_file(path, allow.place.format)
        rules: Any = config or {}
        for level in allow.key:
            rules = rules.get(level) if isinstance(rules, dict) else None
        if isinstance(rules, list) and allow.found_in(rules):
            return path
    return None


def check_wiring(host: Host, home: Path, cwd: Path) -> Check:
    """The wiring check of one MCP host, from its record."""
    assert host.servers is not None
    servers, name, ns = host.servers, host.title, host.servers.name
    found, entry, path = _server_entry(host, home, cwd)
    if found:
        return found
    for requirement in servers.requirements:
        missing = requirement.missing(entry)
        if missing is not None:
            problem = requirement.problem.format(path=path, ns=ns, missing=", ".join(missing))
            install = f"herdr-link-mcp install --host {host.name}" + ("" if is_our_entry(entry) else " --yes")
            return Check(name, "FAIL", problem, f"{install} ({requirement.fix.format(ns=ns)})")
    fix = f"herdr-link-mcp install --host {host.name}"
    allowed = allowed_by(host, home, cwd) if host.allow is not None else None
    if host.allow is not None and allowed is None:
        detail = (
            f"{path} registers {ns}, but no settings file allows its tools: every call waits for a permission prompt"
        )
        return Check(name, "FAIL", detail, fix)
    user = place_path(servers.place, "user", os.environ, home, cwd)
    if servers.project_question and path != user:
        detail = f"{path} registers {ns} for this project only: {servers.project_question}"
        return Check(name, "WARN", detail, f"{fix} (user scope: every folder, no question)")
    hooks = place_path(host.hook.place, "user", os.environ, home, cwd) if host.hook is not None else None
    damage = codex_damage_at(path, hooks) if servers.repairs and hooks is not None else []
    if damage:
        fix = f"{fix} --yes (it puts this right; run it without --yes first to see each change)"
        return Check(name, "WARN", f"{path}: " + "; ".join(d.problem for d in damage), fix)
    # Not required is the default: the server answers a host's first requests before its SDK loads.
    required = f" (required: {name} waits for it)" if servers.required_entry and entry.get("required") is True else ""
    allows = f"; {allowed} holds its allow rule" if allowed is not None else ""
    return Check(name, "PASS", f"{path} registers {ns}{required}{servers.registered}{allows}")


def wiring_checks(home: Path, cwd: Path) -> list[Check]:
    """Every MCP host's wiring check, in the host table's order."""
    return [check_wiring(host, home, cwd) for host in hosts_with("servers")]
