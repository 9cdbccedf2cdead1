"""The doctor's line for a host whose default shares one background process between panes (Codex's
app-server daemon): whether one runs, which pane's environment it holds, and whether Herdr Link can ask it
which pane owns a call's thread (PROTOCOL.md §6.1)."""

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from herdr_link_control import OwnerNotShown, daemon_answers
from herdr_link_control.hosts import Host, place_path

from ._check import Check

__all__ = ["check_shared"]


def _runs(pid: int, program: str, marker: str) -> bool:
    """Whether process ``pid`` is ``program`` with ``marker`` among its arguments (the shared server)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return Path(argv[0].decode("utf-8", "replace")).name == program and marker.encode() in argv


def _running(host: Host, environ: Mapping[str, str], home: Path) -> int | None:
    """The pid of the host's running shared server: the one it recorded, or else one of this user's."""
    shared = host.shared
    assert shared is not None
    if shared.daemon_pid_file is not None:
        try:
            pid_file = place_path(shared.daemon_pid_file, "user", environ, home, home)
            pid = int(json.loads(pid_file.read_text(encoding="utf-8"))["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return pid if _runs(pid, shared.program, shared.marker) else None
    mine = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _owned(p)]
    return next((pid for pid in sorted(mine) if _runs(pid, shared.program, shared.marker)), None)


def _owned(process: Path) -> bool:
    """Whether the ``/proc`` entry ``process`` is one of this user's processes (no ``/proc`` on Windows)."""
    if sys.platform == "win32":
        return False
    try:
        return process.stat().st_uid == os.getuid()
    except OSError:
        return False


def _pane_of(pid: int) -> str | None:
    """``HERDR_PANE_ID`` of the environment the process was started with (``None``: outside Herdr)."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for item in raw.split(b"\0"):
        if item.startswith(b"HERDR_PANE_ID="):
            return item.split(b"=", 1)[1].decode("utf-8", "replace") or None
    return None


def check_shared(host: Host, environ: Mapping[str, str], home: Path) -> Check:
    """``<title> shared process``: SKIP when none runs; WARN when one does, naming whose environment it has
    and the set-up under which each pane's session runs in its own process."""
    shared = host.shared
    name = f"{host.title} shared process"
    if shared is None:
        return Check(name, "SKIP", f"{host.title} runs each pane's session in that pane")
    if not Path("/proc").is_dir():
        return Check(name, "SKIP", f"no /proc to look for a {host.title} background server in (Linux only)")
    pid = _running(host, environ, home)
    if pid is None:
        return Check(name, "SKIP", f"no {host.title} background server is running")
    pane = _pane_of(pid)
    program, title = shared.program, host.title
    if pane is None:
        detail = (
            f"a {title} background server (pid {pid}) was started outside Herdr: a plain `{program}` in any pane "
            "runs its session there, whose servers have no Herdr variables, so Herdr Link offers it no tools"
        )
        return Check(name, "WARN", detail, shared.setup)
    whose = f"a {title} background server (pid {pid}) was started from Herdr pane {pane}"
    if shared.thread_owner is None:
        detail = f"{whose}: a plain `{program}` in any pane runs its session there, and Herdr Link refuses its calls"
        return Check(name, "WARN", detail, shared.setup)
    try:
        daemon_answers(shared.thread_owner, pid)
    except OwnerNotShown as error:
        detail = (
            f"{whose}, and Herdr Link cannot ask it which pane a call's thread belongs to ({error.step}: "
            f"{error.detail}), so it refuses the calls of a plain `{program}`"
        )
        return Check(name, "WARN", detail, shared.setup)
    detail = (
        f"{whose}; Herdr Link places each call of a plain `{program}` by its own thread (its control socket answers)"
    )
    return Check(name, "PASS", detail)
