"""The doctor's checks of the Tier 0 hints: Claude Code's, Codex's and Gemini's SessionStart hooks,
each as ``wiring`` prints it. Without the hint a dormant model is never told the gateway
exists. They only read files."""

import os
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from herdr_link_mcp import (
    SESSION_START,
    codex_home,
    hook_trust_key,
    session_start_hash,
)

from ._check import Check
from ._wiring_checks import _load, _runnable, check_claude, check_codex, check_gemini, claude_settings

__all__ = ["HINT_CHECKS", "hint_checks"]


def _commands(value: Any) -> Iterator[str]:
    """Every ``command`` string anywhere in a hooks document."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "command" and isinstance(item, str):
                yield item
            else:
                yield from _commands(item)
    elif isinstance(value, list):
        for item in value:
            yield from _commands(item)


def _program_runnable(command: str) -> bool:
    """Whether a hook's command line starts with a program that can be run (the wiring checks' rule)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return bool(words) and _runnable(words[0])


def _hook_check(
    name: str,
    host: str,
    path: Path,
    loaded: tuple[dict[str, Any] | None, str],
    wired: bool,
    where: Callable[[dict[str, Any]], Any],
) -> Check:
    """The check of a hooks document ``loaded`` from ``path`` (``_load``'s result)."""
    config, problem = loaded
    if problem:
        return Check(name, "FAIL", problem, "fix the file's syntax")
    ours = [c for c in _commands(where(config or {})) if f"hint --host {host}" in c]
    fix = f"herdr-link-mcp install --host {host} (or add the hook herdr-link-mcp wiring --host {host} prints)"
    if not ours:
        if not wired:
            return Check(name, "SKIP", f"the server is not wired for this host (looked in {path})")
        return Check(name, "WARN", f"{path} has no hint hook: a dormant session is not told the gateway exists", fix)
    if not _program_runnable(ours[0]):
        return Check(name, "FAIL", f"{path}: the hint hook {ours[0]!r} cannot be run", fix)
    return Check(name, "PASS", f"{path} runs {ours[0]}")


def _codex_trust(folder: Path, hooks: Any) -> str | None:
    """Why Codex would skip our SessionStart hint hook as untrusted, or ``None`` when it is trusted."""
    config, _ = _load(folder / "config.toml")
    state = ((config or {}).get("hooks") or {}).get("state") or {}
    groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    for group_index, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else []):
            command = handler.get("command") if isinstance(handler, dict) else None
            if not isinstance(command, str) or "hint --host codex" not in command:
                continue
            current = session_start_hash(group, handler)
            key = hook_trust_key(folder / "hooks.json", SESSION_START, group_index, handler_index)
            trusted = state.get(key, {}).get("trusted_hash") if isinstance(state.get(key), dict) else None
            if trusted == current:
                return None
            if trusted is None:
                return f'Codex skips it silently: {folder / "config.toml"} does not trust it ([hooks.state."{key}"])'
            return f'Codex skips it silently: it changed since it was trusted ([hooks.state."{key}"])'
    return None


def check_codex_hint(home: Path, cwd: Path) -> Check:
    """Codex's SessionStart hook in its ``hooks.json``, and its trust entry in ``config.toml``."""
    wired = check_codex(home, cwd).status != "SKIP"
    folder = codex_home(os.environ, home)
    loaded = _load(folder / "hooks.json")  # read once: for the hook and for its trust entry
    found = _hook_check("Codex hint hook", "codex", folder / "hooks.json", loaded, wired, lambda c: c.get("hooks"))
    if found.status != "PASS":
        return found
    untrusted = _codex_trust(folder, (loaded[0] or {}).get("hooks"))
    if untrusted:
        fix = "add the [hooks.state] entry `herdr-link-mcp wiring --host codex` prints, or trust it in Codex's /hooks"
        return Check(found.name, "WARN", untrusted, fix)
    return Check(found.name, "PASS", f"{found.detail} (trusted)")


def check_gemini_hint(home: Path, cwd: Path) -> Check:
    """Gemini CLI's SessionStart hook in its ``settings.json`` (the project's first, then the user's)."""
    wired = check_gemini(home, cwd).status != "SKIP"
    sources = [cwd / ".gemini" / "settings.json", home / ".gemini" / "settings.json"]
    path = next((p for p in sources if p.is_file()), sources[-1])
    return _hook_check("Gemini hint hook", "gemini", path, _load(path), wired, lambda c: c.get("hooks"))


def check_claude_hint(home: Path, cwd: Path) -> Check:
    """Claude Code's SessionStart hook in the first of its settings files that has one (else the user's)."""
    wired = check_claude(home, cwd).status != "SKIP"
    loaded = [(path, _load(path)) for path in claude_settings(home, cwd)]  # each file read once
    path, found = next(
        ((p, f) for p, f in loaded if any("hint --host claude" in c for c in _commands(f[0] or {}))), loaded[-1]
    )
    return _hook_check("Claude Code hint hook", "claude", path, found, wired, lambda c: c.get("hooks"))


HINT_CHECKS: Final[tuple[Callable[[Path, Path], Check], ...]] = (check_claude_hint, check_codex_hint, check_gemini_hint)
"""Every host hint's check, in order; each takes the home and the current directory."""


def hint_checks(home: Path, cwd: Path) -> list[Check]:
    """Run every hint check."""
    return [check(home, cwd) for check in HINT_CHECKS]
