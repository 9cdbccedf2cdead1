"""``herdr-link doctor``'s answer to "would a worker started here work?", one line per host kind.

A worker started in this folder (by ``herdr_link_start``, the user or Herdr's UI) is the host's
interactive program with the user's own files: it works when the wiring's checks pass at a scope it
reads and the host does not stop at a first-run question. The questions these checks can see are
folder trust (Claude Code, Gemini CLI and Codex each keep a list of folders the user trusts, and a
worker in a folder not on it waits at that question: Herdr then reports it blocked, or reads the dialog
as idle), Codex's model-migration notice and MastraCode's set-up wizard (``docs/hosts.md``). They only
read files, the programs' ``--version`` and an npm package's ``package.json``.
"""

import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

from herdr_link_control import HostQuestions, folder_trust, git_root, trust_command
from herdr_link_control.hosts import Host, hosts_with

from ._check import Check
from ._hint_checks import check_hint
from ._wiring_checks import check_wiring

__all__ = ["check_worker", "node_check", "worker_checks"]

NODE_MAJOR: Final = 20
"""The oldest Node major the npm-installed hosts we test (Claude Code, Codex, Gemini CLI, Pi) run on."""


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


def _trust_question(host: Host, home: Path, cwd: Path) -> tuple[str | None, str]:
    """The trust question a worker of ``host`` started in ``cwd`` stops at (``None``: none), and the fix."""
    trust = host.trust
    if trust is None:
        return None, ""
    verdict = folder_trust(host, cwd, home=home)
    root = git_root(cwd.resolve())
    fix = f"{trust_command(host, cwd, root)} (or answer it once in a pane)"
    if verdict is None:
        return trust.question.format(folder=cwd, root=root), fix
    if verdict is False and trust.distrusted:
        return trust.distrusted.format(folder=cwd), fix
    return None, fix


def _notice(host: Host, home: Path, cwd: Path) -> tuple[str | None, str]:
    """The model-migration notice or set-up wizard a worker of ``host`` would show (``None``: none, or not
    predicted)."""
    if host.migration is None and host.setup is None:
        return None, ""
    question = HostQuestions({**os.environ, "HOME": str(home)}).ahead(host.kind, str(cwd))
    return (question.asks, question.fix) if question is not None else (None, "")


def check_worker(host: Host, home: Path, cwd: Path, wiring: Check | None = None, hint: Check | None = None) -> Check:
    """Would a worker of ``host`` started in ``cwd`` come up wired and at its composer?"""
    question, fix = _trust_question(host, home, cwd)
    if question is None:
        question, fix = _notice(host, home, cwd)
    wiring = wiring or check_wiring(host, home, cwd)
    if hint is None and host.hook is not None:
        hint = check_hint(host, home, cwd, wiring)
    return _worker(host.title, wiring, hint, question, fix)


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


def worker_checks(home: Path, cwd: Path) -> list[Check]:
    """Would a worker of each MCP host kind, started in ``cwd``, work? Then Node."""
    return [*(check_worker(host, home, cwd) for host in hosts_with("servers")), node_check()]
