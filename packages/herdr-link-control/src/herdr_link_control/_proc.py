"""Reading ``/proc`` (Linux): a process's stat fields, command line and start environment, its open
descriptors, and which processes hold a given socket. Unreadable processes are skipped, never guessed."""

import os
import sys
from collections.abc import Iterator
from typing import Final

__all__ = [
    "argv",
    "comm",
    "descriptors",
    "holders",
    "listening_tcp_inodes",
    "listening_unix_inodes",
    "start_environment",
    "stat_fields",
]

_LISTENING: Final = 0x10000
"""``__SO_ACCEPTCON`` in ``/proc/net/unix``'s flags: a listening socket."""
_TCP_LISTEN: Final = "0A"
"""``TCP_LISTEN`` in ``/proc/net/tcp``'s state column."""


def stat_fields(pid: int | str) -> list[str]:
    """``/proc/<pid>/stat`` after the command name (which may hold spaces and parentheses): state, parent,
    process group, session, terminal, …"""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        text = stat.read().decode("ascii", "replace")
    return text[text.rindex(")") + 2 :].split()


def comm(pid: int | str) -> str:
    """The executable name of ``pid`` (``/proc/<pid>/comm``)."""
    with open(f"/proc/{pid}/comm", "rb") as name:
        return name.read().decode("utf-8", "replace").strip()


def argv(pid: int | str) -> list[str]:
    """The command line ``pid`` was started with."""
    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
        raw = cmdline.read(1 << 16)
    return [item.decode("utf-8", "replace") for item in raw.split(b"\0")[:-1]]


def start_environment(pid: int | str) -> dict[str, str]:
    """The environment ``pid`` was started with, as it keeps it (``/proc/<pid>/environ``)."""
    with open(f"/proc/{pid}/environ", "rb") as environ:
        raw = environ.read(1 << 20)
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode("utf-8", "replace"): value.decode("utf-8", "replace") for key, value in pairs}


def descriptors(pid: str) -> list[tuple[str, str]]:
    """``(fd, target)`` of each open descriptor of ``pid`` (none when they cannot be read)."""
    folder = f"/proc/{pid}/fd"
    found = []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    for name in names:
        try:
            found.append((name, os.readlink(f"{folder}/{name}")))
        except OSError:
            continue
    return found


def listening_unix_inodes(path: str) -> set[str]:
    """The inodes of the listening Unix sockets bound at ``path`` (``/proc/net/unix``)."""
    inodes = set()
    with open("/proc/net/unix", "rb") as table:
        next(table)  # the heading
        for row in table:
            fields = row.decode("utf-8", "replace").split(None, 7)
            if len(fields) == 8 and fields[7].rstrip("\n") == path and int(fields[3], 16) & _LISTENING:
                inodes.add(fields[6])
    return inodes


def listening_tcp_inodes(port: int) -> dict[str, set[str]]:
    """Every listening TCP socket on ``port`` in this network namespace, IPv4 and IPv6: the local address
    as ``/proc/net/tcp*`` writes it (hex) → inodes."""
    found: dict[str, set[str]] = {}
    for table_path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            table = open(table_path, "rb")  # noqa: SIM115 - closed below; tcp6 may be absent
        except FileNotFoundError:
            continue
        with table:
            next(table)
            for row in table:
                fields = row.decode("ascii", "replace").split()
                if len(fields) < 10 or fields[3] != _TCP_LISTEN:
                    continue
                address, _, port_hex = fields[1].rpartition(":")
                if int(port_hex, 16) == port:
                    found.setdefault(address, set()).add(fields[9])
    return found


def holders(targets: set[str], likely: str = "") -> Iterator[str]:
    """The processes of this user with a descriptor whose link is in ``targets`` (``socket:[inode]``);
    ``likely`` is looked at first."""
    if not targets or sys.platform == "win32":  # (read on Linux only; the check is for mypy's other platforms)
        return
    uid = os.getuid()
    pids = [pid for pid in os.listdir("/proc") if pid.isdigit() and pid != likely]
    for pid in [likely, *pids] if likely else pids:
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
        except OSError:
            continue
        if any(target in targets for _, target in descriptors(pid)):
            yield pid
