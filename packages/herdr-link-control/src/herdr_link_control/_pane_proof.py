"""Which pane this process can show it runs in (PROTOCOL.md §6.1), read from its controlling terminal.

Herdr starts every pane's process as the leader of a new session whose controlling terminal is the
pane's pseudo-terminal, with ``HERDR_PANE_ID`` and ``HERDR_SOCKET_PATH`` in its environment
(``src/pane.rs::apply_pane_launch_env``; portable-pty's ``setsid`` and ``TIOCSCTTY``). Everything a host
runs in the pane inherits that terminal and session. A process of a host's shared background server
(Codex's app-server daemon) sits in a session of its own with no controlling terminal, whatever its
environment says. So the proof is: this process has a controlling terminal, and the leader of its
session was started by this Herdr for the pane our environment names. ``/proc/<pid>/environ`` is the
environment a process was started with, which it cannot rewrite afterwards.

Read once per process (a process never changes its session's pane). Linux only: elsewhere the proof
is only whether a controlling terminal exists, and the pane is the environment's.
"""

import enum
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["PaneEvidence", "TerminalPane", "pane_problem", "read_pane_evidence"]


class TerminalPane(enum.Enum):
    """What this process's controlling terminal says about the pane in its environment."""

    SAME = "the controlling terminal's session was started by Herdr for this pane"
    OTHER = "the controlling terminal's session was started by the same Herdr for another pane"
    NONE = "no controlling terminal"
    FOREIGN = "a controlling terminal that is not a pane of this Herdr"


@dataclass(frozen=True, slots=True)
class PaneEvidence:
    """The answer, with what it was read from (for the operator log)."""

    terminal: TerminalPane
    detail: str

    @property
    def proves_pane(self) -> bool:
        """The terminal shows this process runs in the pane its environment names."""
        return self.terminal is TerminalPane.SAME

    @property
    def against_pane(self) -> bool:
        """The terminal shows this process runs in another pane of the same Herdr."""
        return self.terminal is TerminalPane.OTHER


def _stat_fields(pid: int | str) -> list[str]:
    """``/proc/<pid>/stat`` after the command name (which may hold spaces and parentheses)."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        text = stat.read().decode("ascii", "replace")
    return text[text.rindex(")") + 2 :].split()


def _start_environment(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as environ:
        raw = environ.read(1 << 20)
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode("utf-8", "replace"): value.decode("utf-8", "replace") for key, value in pairs}


def _has_controlling_terminal() -> bool:
    if sys.platform == "win32":  # no controlling terminals (Herdr runs on Linux and macOS)
        return False
    try:
        descriptor = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False
    os.close(descriptor)
    return True


def read_pane_evidence(environ: Mapping[str, str]) -> PaneEvidence:
    """What this process's controlling terminal shows about the pane ``environ`` names."""
    pane, socket = environ.get("HERDR_PANE_ID", ""), environ.get("HERDR_SOCKET_PATH", "")
    if not sys.platform.startswith("linux"):
        if _has_controlling_terminal():
            return PaneEvidence(TerminalPane.SAME, "a controlling terminal (its pane is not readable here)")
        return PaneEvidence(TerminalPane.NONE, "/dev/tty cannot be opened")
    try:
        fields = _stat_fields("self")
        session, tty = int(fields[3]), int(fields[4])
    except (OSError, ValueError, IndexError) as error:
        return PaneEvidence(TerminalPane.NONE, f"/proc/self/stat unreadable: {error}")
    if tty == 0:
        return PaneEvidence(TerminalPane.NONE, f"no controlling terminal (session {session})")
    try:
        leader = _start_environment(session)
        leader_tty = int(_stat_fields(session)[4])
    except (OSError, ValueError, IndexError) as error:
        return PaneEvidence(TerminalPane.FOREIGN, f"session leader {session} unreadable: {error}")
    where = f"session leader {session}"
    if leader_tty != tty or leader.get("HERDR_ENV") != "1" or leader.get("HERDR_SOCKET_PATH", "") != socket:
        return PaneEvidence(TerminalPane.FOREIGN, f"{where} was not started by this Herdr")
    if leader.get("HERDR_PANE_ID") != pane:
        return PaneEvidence(TerminalPane.OTHER, f"{where} was started for pane {leader.get('HERDR_PANE_ID')!r}")
    return PaneEvidence(TerminalPane.SAME, f"{where} was started for pane {pane!r}")


def pane_problem(evidence: PaneEvidence, client: str | None) -> str | None:
    """Why a process with ``evidence`` may not act as its environment's pane for the host whose MCP
    client (or adapter) is ``client``, in words for the operator log; ``None`` when it may
    (PROTOCOL.md §6.1).

    It may when its controlling terminal shows it runs in that pane. When the terminal shows another
    pane of this Herdr it never may. With no such terminal it may only for a host that spawns its
    adapter in each pane's own process: a host whose default shares one process between panes
    (:attr:`herdr_link_control.hosts.Host.shared`) could have spawned it for any pane.
    """
    from .hosts import host_for_client  # the host table, only when the terminal does not decide

    if evidence.proves_pane:
        return None
    host = host_for_client(client) if client else None
    shared = host.shared if host is not None else None
    if not evidence.against_pane and shared is None:
        return None
    setup = shared.setup if shared is not None else "run the host in the pane's own process"
    return f"{evidence.detail}; host {client or 'unknown'!r}: {setup}"
