"""``herdr-link doctor``'s answer to "would a worker started here work?", one line per host kind.

A worker started in this folder (by ``herdr_link_start``, the user or Herdr's UI) is the host's
interactive program with the user's own files: it works when the wiring's checks pass at a scope it
reads and the host does not stop at a first-run question. The question these checks can see is folder
trust: Claude Code, Gemini CLI and Codex each keep a list of folders the user trusts, and a worker in
a folder not on it waits at that question (Herdr then reports it blocked, or reads the dialog as idle;
``docs/hosts.md``). They only read files and ``node --version``.
"""

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Final

from herdr_link_mcp import claude_user_config, codex_home

from ._check import Check
from ._hint_checks import check_claude_hint, check_codex_hint, check_gemini_hint
from ._wiring_checks import _load, check_claude, check_codex, check_gemini, check_pi

__all__ = ["WORKER_CHECKS", "claude_trusts", "gemini_trusts", "node_check", "worker_checks"]

NODE_MAJOR: Final = 20
"""The oldest Node major the npm-installed hosts we test (Claude Code, Codex, Gemini CLI, Pi) run on."""


def _git_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def claude_trusts(home: Path, cwd: Path) -> str | None:
    """The folder whose trust covers ``cwd`` in Claude Code's own list, as Claude Code 2.1 looks it up:
    the folder and its parents, but inside a git repository no higher than the repository's root."""
    config, _ = _load(claude_user_config(os.environ, home))
    projects = (config or {}).get("projects")
    if not isinstance(projects, dict):
        return None
    folder = cwd.resolve()
    root = _git_root(folder)
    for candidate in (folder, *folder.parents):
        entry = projects.get(str(candidate))
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return str(candidate)
        if root is not None and candidate == root:
            return None
    return None


def gemini_trusts(home: Path, cwd: Path) -> bool | None:
    """Gemini CLI's verdict for ``cwd``: ``True`` trusted (or folder trust switched off), ``False`` marked
    not trusted, ``None`` not listed (it asks). The longest matching rule wins, as in Gemini CLI 0.61."""
    settings, _ = _load(home / ".gemini" / "settings.json")
    enabled = (((settings or {}).get("security") or {}).get("folderTrust") or {}).get("enabled")
    if enabled is False:
        return True
    rules, _ = _load(home / ".gemini" / "trustedFolders.json")
    folder, best, verdict = cwd.resolve(), -1, None
    for rule, level in (rules or {}).items():
        base = Path(rule).parent if level == "TRUST_PARENT" else Path(rule)
        if (folder == base or base in folder.parents) and len(rule) > best:
            best, verdict = len(rule), level
    return None if verdict is None else verdict != "DO_NOT_TRUST"


def _codex_trusts(home: Path, cwd: Path) -> bool | None:
    """Whether Codex's ``[projects]`` marks this folder (or its repository's root) trusted."""
    config, _ = _load(codex_home(os.environ, home) / "config.toml")
    projects = (config or {}).get("projects") or {}
    folder = cwd.resolve()
    for candidate in (folder, _git_root(folder)):
        entry = projects.get(str(candidate)) if candidate is not None else None
        if isinstance(entry, dict) and "trust_level" in entry:
            return bool(entry["trust_level"] == "trusted")
    return None


def _worker(name: str, wired: Check, hint: Check | None, trust: str | None, fix: str) -> Check:
    """One worker line: the wiring's and hint's verdicts, then the trust question (``None``: none)."""
    title = f"worker here: {name}"
    if wired.status == "SKIP":
        return Check(title, "SKIP", "not wired: a worker of this kind would have no Herdr Link")
    if wired.status == "FAIL":
        return Check(title, "FAIL", f"its wiring fails: {wired.detail}", wired.fix)
    if hint is not None and hint.status == "FAIL":
        return Check(title, "FAIL", f"its hint fails: {hint.detail}", hint.fix)
    if trust is not None:
        return Check(title, "WARN", trust, fix)
    missing = " (no hint hook: the model is not told about the gateway)" if hint and hint.status == "WARN" else ""
    detail = f"comes up wired: {wired.detail}{missing}"
    if missing or wired.status == "WARN":
        return Check(title, "WARN", detail, wired.fix or (hint.fix if hint else ""))
    return Check(title, "PASS", detail)


def check_claude_worker(home: Path, cwd: Path) -> Check:
    trusted = claude_trusts(home, cwd)
    question = (
        None
        if trusted
        else f'a Claude Code worker started in {cwd} first asks "Is this a project you created or one you trust?" '
        "(Herdr reports it blocked; Link answers START_FAILED and keeps its pane)"
    )
    fix = f"herdr-link-mcp install --host claude --trust {cwd} (or answer it once in a pane)"
    return _worker("Claude Code", check_claude(home, cwd), check_claude_hint(home, cwd), question, fix)


def check_codex_worker(home: Path, cwd: Path) -> Check:
    root = _git_root(cwd.resolve())
    asks = root is not None and _codex_trusts(home, cwd) is not True
    question = f'in the git repository {root}, Codex may first ask "Trust this folder?"' if asks else None
    fix = f"herdr-link-mcp install --host codex --trust {root} (or answer it once in a pane)"
    return _worker("Codex", check_codex(home, cwd), check_codex_hint(home, cwd), question, fix)


def check_gemini_worker(home: Path, cwd: Path) -> Check:
    verdict = gemini_trusts(home, cwd)
    question = None
    if verdict is None:
        question = (
            f'a Gemini CLI worker started in {cwd} first asks "Do you trust the files in this folder?" (Herdr reads '
            "it as idle, so the start succeeds and a message typed then answers the dialog)"
        )
    elif verdict is False:
        question = f"~/.gemini/trustedFolders.json marks {cwd} not trusted: a worker here runs without the wiring"
    fix = f"herdr-link-mcp install --host gemini --trust {cwd} (or answer it once in a pane)"
    return _worker("Gemini CLI", check_gemini(home, cwd), check_gemini_hint(home, cwd), question, fix)


def check_pi_worker(home: Path, cwd: Path) -> Check:
    return _worker("Pi (built-in MCP)", check_pi(home, cwd), None, None, "")


def node_check() -> Check:
    """Node on PATH, at a version the npm-installed hosts run on."""
    node = shutil.which("node")
    if node is None:
        return Check("Node", "WARN", f"no node on PATH: hosts installed with npm need Node {NODE_MAJOR} or newer")
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
        major = int(version.lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return Check("Node", "WARN", f"{node} --version gave no version")
    if major < NODE_MAJOR:
        return Check("Node", "WARN", f"{node} is {version}: hosts installed with npm need Node {NODE_MAJOR} or newer")
    return Check("Node", "PASS", f"{node} is {version}")


WORKER_CHECKS: Final[tuple[Callable[[Path, Path], Check], ...]] = (
    check_claude_worker,
    check_codex_worker,
    check_gemini_worker,
    check_pi_worker,
)
"""Every MCP host kind's worker check; each takes the home and the current directory."""


def worker_checks(home: Path, cwd: Path) -> list[Check]:
    """Would a worker of each kind, started in ``cwd``, work? Then Node."""
    return [*(check(home, cwd) for check in WORKER_CHECKS), node_check()]
