"""Which pane this process can show it runs in (PROTOCOL.md §6.1), read from its controlling terminal.

Herdr's server starts every pane's process as the leader of a new session whose controlling terminal is
the pane's pseudo-terminal, with ``HERDR_PANE_ID`` and ``HERDR_SOCKET_PATH`` in its environment
(``src/pane.rs::apply_pane_launch_env``; portable-pty's ``setsid`` and ``TIOCSCTTY``), and keeps the
terminal's master side: the process that listens on ``HERDR_SOCKET_PATH`` holds it (after a live handoff
the new server holds it, passed over ``SCM_RIGHTS``, while the pane's processes are no longer its
children, so the tie is the terminal, not the parent). Everything a host runs in the pane inherits that
terminal and session. A process of a host's shared background server (Codex's app-server daemon) sits in
a session of its own with no controlling terminal, and a window of a multiplexer started in a pane
(tmux) has a terminal whose master that multiplexer holds, whatever their environments say. So the
proof is: this process has a controlling terminal, the process listening on our ``HERDR_SOCKET_PATH``
holds that terminal's master, and the leader of its session was started for the pane our environment
names. ``/proc/<pid>/environ`` is the environment a process was started with as that process keeps it:
the process could rewrite it, so the proof is against mistakes and shared processes, not against hostile
local code (which can run ``herdr`` itself).

:class:`PaneWitness` reads it again whenever the process's session or controlling terminal changed (one
small read of ``/proc/self/stat`` per acting call), so a process that lost its terminal no longer shows
its pane. Linux only: elsewhere the proof is only whether a controlling terminal exists, and the pane is
the environment's.
"""

import enum
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from ._proc import descriptors, holders, listening_unix_inodes, start_environment, stat_fields

__all__ = ["PaneEvidence", "PaneWitness", "TerminalPane", "pane_of_process", "pane_problem", "read_pane_evidence"]


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


_PTMX: Final = ("/dev/ptmx", "/dev/pts/ptmx")


def _socket_holders(path: str, likely: str) -> Iterator[str]:
    """The processes (of this user) holding a listening Unix socket bound at ``path``: the Herdr server;
    ``likely`` first (the leader's parent, which the server is until a live handoff), then every other."""
    return holders({f"socket:[{inode}]" for inode in listening_unix_inodes(path)}, likely)


def _holds_master(pid: str, terminal: int) -> bool:
    """Whether ``pid`` holds the master side of the pseudo-terminal whose device number is ``terminal``."""
    if sys.platform == "win32":
        return False
    for fd, target in descriptors(pid):
        if target not in _PTMX:
            continue
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as info:
                lines = info.read().decode("ascii", "replace").splitlines()
            index = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("tty-index:"))
            if os.stat(f"/dev/pts/{index}").st_rdev == terminal:
                return True
        except (OSError, StopIteration):
            continue
    return False


def _device(tty_nr: int) -> int:
    """The device number ``/proc/<pid>/stat``'s ``tty_nr`` field encodes."""
    if sys.platform == "win32":
        return tty_nr
    return os.makedev((tty_nr >> 8) & 0xFFF, (tty_nr & 0xFF) | ((tty_nr >> 12) & 0xFFF00))


def _served_by(socket: str, tty_nr: int, leader_parent: str) -> bool:
    """Whether the process listening on ``socket`` (the Herdr server) holds terminal ``tty_nr``'s master;
    the session leader's parent is looked at first."""
    terminal = _device(tty_nr)
    return any(_holds_master(pid, terminal) for pid in _socket_holders(socket, leader_parent))


def _has_controlling_terminal() -> bool:
    if sys.platform == "win32":  # no controlling terminals (Herdr runs on Linux and macOS)
        return False
    try:
        descriptor = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False
    os.close(descriptor)
    return True


def pane_of_process(pid: int | str, socket: str) -> tuple[PaneEvidence, dict[str, str]]:
    """The pane of the Herdr serving ``socket`` whose terminal process ``pid`` runs in (Linux): evidence
    ``SAME`` with the session leader's start environment (its ``HERDR_PANE_ID`` is the pane), or ``NONE``
    or ``FOREIGN`` with why not (and an empty environment)."""
    try:
        fields = stat_fields(pid)
        session, tty = int(fields[3]), int(fields[4])
    except (OSError, ValueError, IndexError) as error:
        return PaneEvidence(TerminalPane.NONE, f"/proc/{pid}/stat unreadable: {error}"), {}
    if tty == 0:
        return PaneEvidence(TerminalPane.NONE, f"no controlling terminal (session {session})"), {}
    try:
        leader = start_environment(session)
        leader_fields = stat_fields(session)
        leader_parent, leader_tty = leader_fields[1], int(leader_fields[4])
    except (OSError, ValueError, IndexError) as error:
        return PaneEvidence(TerminalPane.FOREIGN, f"session leader {session} unreadable: {error}"), {}
    where = f"session leader {session}"
    if leader_tty != tty or leader.get("HERDR_ENV") != "1" or leader.get("HERDR_SOCKET_PATH", "") != socket:
        return PaneEvidence(TerminalPane.FOREIGN, f"{where} was not started by this Herdr"), {}
    try:
        served = bool(socket) and _served_by(socket, tty, leader_parent)
    except (OSError, ValueError) as error:
        return PaneEvidence(TerminalPane.FOREIGN, f"the terminal's holder is unreadable: {error}"), {}
    if not served:
        detail = f"the controlling terminal of {where} is not held by the process serving {socket}"
        return PaneEvidence(TerminalPane.FOREIGN, detail), {}
    return PaneEvidence(TerminalPane.SAME, f"{where} was started for pane {leader.get('HERDR_PANE_ID')!r}"), leader


def read_pane_evidence(environ: Mapping[str, str]) -> PaneEvidence:
    """What this process's controlling terminal shows about the pane ``environ`` names."""
    pane, socket = environ.get("HERDR_PANE_ID", ""), environ.get("HERDR_SOCKET_PATH", "")
    if not sys.platform.startswith("linux"):
        if _has_controlling_terminal():
            return PaneEvidence(TerminalPane.SAME, "a controlling terminal (its pane is not readable here)")
        return PaneEvidence(TerminalPane.NONE, "/dev/tty cannot be opened")
    evidence, leader = pane_of_process("self", socket)
    if evidence.proves_pane and leader.get("HERDR_PANE_ID") != pane:
        return PaneEvidence(TerminalPane.OTHER, evidence.detail)
    return evidence


def _terminal_key() -> tuple[int, int] | bool | None:
    """What the evidence depends on that can change in a process's life: its session and controlling
    terminal (Linux), or whether it has a controlling terminal (elsewhere); ``None`` when unreadable."""
    if not sys.platform.startswith("linux"):
        return _has_controlling_terminal()
    try:
        fields = stat_fields("self")
        return int(fields[3]), int(fields[4])
    except (OSError, ValueError, IndexError):
        return None


class PaneWitness:
    """This process's pane evidence, read again whenever its session or controlling terminal changed
    (a process that loses its terminal stops showing its pane); one small read per :meth:`current`.

    Args:
        environ: the environment whose pane is to be shown.
        evidence: a fixed answer instead (tests, and adapters that decide it elsewhere).
    """

    def __init__(self, environ: Mapping[str, str], evidence: PaneEvidence | None = None) -> None:
        self._environ = dict(environ)
        self._fixed = evidence
        self._key: object = ()
        self._evidence: PaneEvidence | None = None

    def __repr__(self) -> str:
        return f"<PaneWitness {'fixed' if self._fixed else 'live'} {self._evidence!r}>"

    def current(self) -> PaneEvidence:
        """The evidence now (read again only when the terminal key changed since the last read)."""
        if self._fixed is not None:
            return self._fixed
        key = _terminal_key()
        if self._evidence is None or key != self._key or key is None:
            self._key, self._evidence = key, read_pane_evidence(self._environ)
        return self._evidence


def pane_problem(evidence: PaneEvidence, client: str | None) -> str | None:
    """Why a process with ``evidence`` may not act as its environment's pane for the host whose MCP
    client (or adapter) is ``client``, in words for the operator log; ``None`` when it may
    (PROTOCOL.md §6.1).

    It may when its controlling terminal shows it runs in that pane. When the terminal shows another
    pane of this Herdr it never may. With no such terminal it may only for a host the table knows to
    spawn its adapter in each pane's own process: a host whose default shares one process between panes
    (:attr:`herdr_link_control.hosts.Host.shared`) could have spawned it for any pane, and so could a
    client the table does not know.
    """
    from .hosts import host_for_client  # the host table, only when the terminal does not decide

    if evidence.proves_pane:
        return None
    host = host_for_client(client) if client else None
    if host is None and not evidence.against_pane:
        return (
            f"{evidence.detail}; client {client or 'unnamed'!r} is not in the host table, so only a terminal "
            "of its pane could show which pane it runs in: run it in the pane's own process, or wire the host "
            "as PROTOCOL.md §6.1 says"
        )
    shared = host.shared if host is not None else None
    if not evidence.against_pane and shared is None:
        return None
    setup = shared.setup if shared is not None else "run the host in the pane's own process"
    return f"{evidence.detail}; host {client or 'unknown'!r}: {setup}"
