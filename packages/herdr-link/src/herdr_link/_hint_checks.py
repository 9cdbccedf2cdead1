"""The doctor's check of each host's Tier 0 hint hook, as ``wiring`` writes it where the host table says.
Without the hint a dormant model is never told the gateway exists. They only read files."""

import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from herdr_link_control import read_host_file
from herdr_link_control.hosts import Host, hosts_with, place_path
from herdr_link_mcp import event_label, hook_trust_key, is_typescript_hook, session_start_hash

from ._check import Check
from ._wiring_checks import check_wiring, place_paths, runnable

__all__ = ["check_hint", "hint_checks"]


COMMAND_KEYS = ("command", "bash")
"""Where a hook handler holds its command line (``bash``: GitHub Copilot CLI's)."""


def _command(handler: dict[str, Any]) -> str:
    return next(str(handler[key]) for key in COMMAND_KEYS if isinstance(handler.get(key), str))


def _commands(value: Any) -> Iterator[str]:
    """Every handler's command string anywhere in a document."""
    return (_command(handler) for handler in _handlers(value))


def _handlers(value: Any) -> Iterator[dict[str, Any]]:
    """Every object with a command string anywhere in a document (a hook's handler)."""
    if isinstance(value, dict):
        if any(isinstance(value.get(key), str) for key in COMMAND_KEYS):
            yield value
        for item in value.values():
            yield from _handlers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _handlers(item)


def _program_runnable(command: str) -> bool:
    """Whether a hook's command line starts with a program that can be run (the wiring checks' rule)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return bool(words) and runnable(words[0])


def _untrusted(host: Host, hooks_file: Path, document: dict[str, Any], home: Path) -> str | None:
    """Why a host that runs only hooks whose hash it recorded would skip ours, or ``None`` when trusted."""
    assert host.hook is not None and host.hook.trusted_by_hash is not None
    place = host.hook.trusted_by_hash
    config_file = place_path(place, "user", os.environ, home, home)
    config, _ = read_host_file(config_file, place.format)
    state = ((config or {}).get("hooks") or {}).get("state") or {}
    groups = (document.get("hooks") or {}).get(host.hook.event)
    label = event_label(host.hook.event)
    for group_index, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else []):
            command = handler.get("command") if isinstance(handler, dict) else None
            if not isinstance(command, str) or f"hint --host {host.name}" not in command:
                continue
            current = session_start_hash(group, handler)
            key = hook_trust_key(hooks_file, label, group_index, handler_index)
            trusted = state.get(key, {}).get("trusted_hash") if isinstance(state.get(key), dict) else None
            if trusted == current:
                return None
            if trusted is None:
                return f'{host.title} skips it silently: {config_file} does not trust it ([hooks.state."{key}"])'
            return f'{host.title} skips it silently: it changed since it was trusted ([hooks.state."{key}"])'
    return None


def check_hint(host: Host, home: Path, cwd: Path, wiring: Check | None = None) -> Check:
    """The host's hint hook in the first of its hook files that has it (else the user's), and, for a host
    that runs only hooks it recorded a hash of, that record."""
    assert host.hook is not None
    hook, name = host.hook, f"{host.title} hint hook"
    wired = (wiring or check_wiring(host, home, cwd)).status != "SKIP"
    paths = place_paths(hook.place, ("project", "user"), home, cwd, hook.project_reads)
    loaded = [(path, read_host_file(path, hook.place.format)) for path in paths]  # each file read once
    ours = f"hint --host {host.name}"
    path, (document, problem) = next(
        ((p, f) for p, f in loaded if any(ours in c for c in _commands(f[0] or {}))), loaded[-1]
    )
    if problem:
        return Check(name, "FAIL", problem, "fix the file's syntax")
    commands = [c for c in _commands(document or {}) if ours in c]
    fix = f"herdr-link-mcp install --host {host.name} (or add the hook herdr-link-mcp wiring --host {host.name} prints)"
    typescript = [(p, _command(h)) for p, f in loaded for h in _handlers(f[0] or {}) if is_typescript_hook(h)]
    if typescript:
        where, command = typescript[0]
        told = "also runs" if commands else "runs"
        detail = f"{where} {told} the TypeScript Herdr Link's hint hook ({command})"
        detail += ": a session is told twice" if commands else ", not herdr-link-mcp's"
        return Check(name, "WARN", detail, f"herdr-link-mcp install --host {host.name} --yes (takes it out, backed "
                     "up; --uninstall puts it back)")  # fmt: skip
    if not commands:
        if not wired:
            return Check(name, "SKIP", f"the server is not wired for this host (looked in {path})")
        return Check(name, "WARN", f"{path} has no hint hook: a dormant session is not told the gateway exists", fix)
    if not _program_runnable(commands[0]):
        return Check(name, "FAIL", f"{path}: the hint hook {commands[0]!r} cannot be run", fix)
    if hook.trusted_by_hash is not None:
        untrusted = _untrusted(host, path, document or {}, home)
        if untrusted:
            fix = f"herdr-link-mcp install --host {host.name} (it records the trust), or trust it in {host.title}'s "
            fix += "/hooks"
            return Check(name, "WARN", untrusted, fix)
        return Check(name, "PASS", f"{path} runs {commands[0]} (trusted)")
    if hook.allows:
        if not _allows(document or {}, hook.allows):
            detail = (f"{path} runs {commands[0]}, but no permissionRequest hook there allows {hook.allows}: every "
                      "Herdr Link call asks first (and is refused in a -p session)")  # fmt: skip
            return Check(name, "WARN", detail, fix)
        return Check(name, "PASS", f"{path} runs {commands[0]}; its permissionRequest hook allows {hook.allows}")
    return Check(name, "PASS", f"{path} runs {commands[0]}")


def _allows(document: dict[str, Any], matcher: str) -> bool:
    """Whether a hook file's ``permissionRequest`` list has a handler for exactly ``matcher`` that allows."""
    hooks = document.get("hooks")
    handlers = hooks.get("permissionRequest") if isinstance(hooks, dict) else None
    return any(
        h.get("matcher") == matcher and '"behavior":"allow"' in _command(h).replace(" ", "")
        for h in _handlers(handlers if isinstance(handlers, list) else [])
    )


def hint_checks(home: Path, cwd: Path) -> list[Check]:
    """Every hint hook's check, in the host table's order."""
    return [check_hint(host, home, cwd) for host in hosts_with("hook") if host.servers is not None]
