"""Which pane owns a call made through a host's shared process, from the call's own thread (PROTOCOL.md
§6.1, issue 70). Codex's app-server daemon runs the sessions of every plain ``codex`` pane and spawns our
server with the environment of whichever pane started it, so that environment names no caller. The chain,
each step a fact Codex or the kernel states (the host row's :class:`~herdr_link_control.hosts.ThreadOwner`):

1. the call's thread: ``_meta.threadId``, which Codex sets (never the model), the same in its turn metadata;
2. this server's parent is the host's shared process (its command line names ``app-server``), whose
   environment gives its home (``CODEX_HOME``, else ``~/.codex``);
3. its control socket there (a socket of this user's, in a folder only this user may enter) answers
   ``mcpServerStatus/list`` for that thread and the thread's own client's endpoint (``codex_tui``): exactly
   one entry, connected, with tools, served on ``127.0.0.1``;
4. exactly one socket listens on that port, held by exactly one process, the host's client program (not
   its daemon);
5. that process runs in a pane of the Herdr serving our ``HERDR_SOCKET_PATH``
   (:func:`~herdr_link_control._pane_proof.pane_of_process`: its terminal's master held by that server,
   its session leader started for that pane), whose leader was given our ``HERDR_BIN_PATH``.

Any step that fails, is ambiguous or meets something it does not recognise raises :class:`OwnerNotShown`
naming the step, never a guess. Blocking (``/proc`` reads and one WebSocket exchange, every wait bounded
by one deadline): run it in a worker thread. Linux only.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ._pane_proof import pane_of_process
from ._proc import argv, comm, holders, listening_tcp_inodes, start_environment, stat_fields
from .hosts import place_path

if TYPE_CHECKING:  # the record is handed in: its facts are read, its class never used
    from .hosts import ThreadOwner

__all__ = ["OWNER_TIMEOUT", "OwnerNotShown", "ThreadPane", "call_thread", "daemon_answers", "thread_pane"]

OWNER_TIMEOUT: Final = 5.0
"""Seconds the whole chain may take (the daemon's answer included) before the call is refused."""
_THREAD: Final = re.compile(r"[A-Za-z0-9_-]{1,128}")
_LOOPBACK_ORIGIN: Final = re.compile(r"http://127\.0\.0\.1:([0-9]{1,5})")
_LOOPBACK_HEX: Final = "0100007F"
"""``127.0.0.1`` as ``/proc/net/tcp`` writes a local address."""
_CLIENT_INFO: Final = {"name": "herdr-link", "title": "Herdr Link", "version": "1"}


class OwnerNotShown(Exception):  # noqa: N818 - it reads as what happened, like LinkError's causes
    """A step of the chain did not show the thread's pane: ``step`` names it, ``detail`` says what was seen."""

    def __init__(self, step: str, detail: str) -> None:
        super().__init__(f"{step}: {detail}")
        self.step = step
        self.detail = detail


@dataclass(frozen=True, slots=True)
class ThreadPane:
    """The pane that owns a thread, and how it was shown (for the operator log)."""

    pane: str
    detail: str


def call_thread(owner: ThreadOwner, meta: Mapping[str, Any] | None) -> str | None:
    """The thread a call's ``_meta`` names, when both of its places name the same one; else ``None``."""
    if not isinstance(meta, Mapping):
        return None
    thread = meta.get(owner.thread_key)
    outer, inner = owner.check_key
    checked = meta.get(outer)
    if not isinstance(thread, str) or not _THREAD.fullmatch(thread) or not isinstance(checked, Mapping):
        return None
    return thread if checked.get(inner) == thread else None


def thread_pane(
    owner: ThreadOwner, thread: str, herdr_socket: str, herdr_bin: str, *, timeout: float = OWNER_TIMEOUT
) -> ThreadPane:
    """The pane whose client owns ``thread`` (see the module docstring).

    Raises:
        OwnerNotShown: a step did not show it.
    """
    if not sys.platform.startswith("linux"):
        raise OwnerNotShown("platform", "the chain reads /proc (Linux only)")
    deadline = time.monotonic() + timeout
    daemon = _shared_process(owner)
    control = _control_socket(owner, daemon)
    port = _endpoint_port(owner, _ask_endpoint(owner, control, thread, deadline))
    client = _listener(owner, port)
    evidence, leader = pane_of_process(client, herdr_socket)
    if not evidence.proves_pane:
        raise OwnerNotShown("pane", f"the client {client} of the thread's endpoint: {evidence.detail}")
    if leader.get("HERDR_BIN_PATH") != herdr_bin:
        raise OwnerNotShown("pane", f"the pane of client {client} was started by another Herdr binary")
    pane = leader.get("HERDR_PANE_ID", "")
    if not pane:
        raise OwnerNotShown("pane", f"the session leader of client {client} names no pane")
    return ThreadPane(pane, f"thread {thread}: endpoint 127.0.0.1:{port}, client {client}, {evidence.detail}")


def _shared_process(owner: ThreadOwner) -> int:
    """Step 2: this process's parent, when it is the host's shared process."""
    parent = os.getppid()
    try:
        command = argv(parent)
        name = comm(parent)
    except OSError as error:
        raise OwnerNotShown("daemon", f"parent {parent} unreadable: {error}") from None
    if name != owner.owner_program or owner.daemon_argument not in command[1:2]:
        raise OwnerNotShown("daemon", f"parent {parent} ({name}) is not the host's shared process")
    return parent


def _control_socket(owner: ThreadOwner, daemon: int) -> str:
    """Step 3's socket: in the shared process's home, a socket of this user's in a folder only it may enter."""
    try:
        environ = start_environment(daemon)
    except OSError as error:
        raise OwnerNotShown("control socket", f"the shared process's environment is unreadable: {error}") from None
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    path = place_path(owner.control_socket, "user", environ, home, home)
    try:  # Codex links the socket's name to the socket itself (a short path): the link and the socket
        folder, link, socket = os.stat(path.parent), os.lstat(path), os.stat(path)
    except OSError as error:
        raise OwnerNotShown("control socket", f"{path}: {error.strerror}") from None
    if sys.platform == "win32":  # (never reached: thread_pane refuses off Linux; for mypy's other platforms)
        raise OwnerNotShown("platform", "no user ids")
    uid = os.getuid()
    if not stat.S_ISSOCK(socket.st_mode) or socket.st_uid != uid or link.st_uid != uid:
        shown = f"mode {socket.st_mode:o}, owner {socket.st_uid}, this user {uid}"
        raise OwnerNotShown("control socket", f"{path} is not a socket of this user's ({shown})")
    if folder.st_uid != uid or folder.st_mode & 0o077:
        shown = f"mode {folder.st_mode:o}, owner {folder.st_uid}, this user {uid}"
        raise OwnerNotShown("control socket", f"{path.parent} may be entered by other users ({shown})")
    return os.path.realpath(path)  # the socket itself: a name short enough to connect to (AF_UNIX's limit)


def daemon_answers(owner: ThreadOwner, daemon: int, *, timeout: float = OWNER_TIMEOUT) -> str:
    """Whether the shared process ``daemon`` can be asked about threads (for the doctor): its control
    socket passes step 3's checks and answers ``initialize``; returns where it keeps its home.

    Raises:
        OwnerNotShown: it cannot be asked (the step and what was seen).
    """
    if not sys.platform.startswith("linux"):
        raise OwnerNotShown("platform", "the chain reads /proc (Linux only)")
    answer = _exchange(_control_socket(owner, daemon), [], time.monotonic() + timeout)[1].get("result")
    home = answer.get("codexHome") if isinstance(answer, dict) else None
    return str(home) if home else "its home"


def _ask_endpoint(owner: ThreadOwner, control: str, thread: str, deadline: float) -> dict[str, Any]:
    """Step 3's question: the shared process's status of the thread's endpoint server."""
    question = {"id": 2, "method": "mcpServerStatus/list",
                "params": {"threadId": thread, "serverName": owner.endpoint, "detail": "toolsAndAuthOnly"}}  # fmt: skip
    answers = _exchange(control, [question], deadline)
    listing = answers[2].get("result")
    if not isinstance(listing, dict):
        raise OwnerNotShown("endpoint", f"mcpServerStatus/list answered {str(answers[2].get('error'))[:200]}")
    return listing


def _exchange(control: str, questions: list[dict[str, Any]], deadline: float) -> dict[int, dict[str, Any]]:
    """``initialize``, ``initialized``, then ``questions``, over a WebSocket on the control socket; each
    request's answer by its id."""
    from websockets.exceptions import WebSocketException  # only here: nothing else needs it
    from websockets.sync.client import unix_connect

    requests: list[dict[str, Any]] = [  # JSON-RPC without the "jsonrpc" member, as Codex's own clients write it
        {"id": 1, "method": "initialize", "params": {"clientInfo": _CLIENT_INFO}},
        {"method": "initialized"},
        *questions,
    ]
    answers: dict[int, dict[str, Any]] = {}
    try:
        with unix_connect(control, "ws://localhost/rpc", open_timeout=_left(deadline), close_timeout=0.5) as socket:
            for request in requests:
                socket.send(json.dumps(request))
                while "id" in request and request["id"] not in answers:
                    message = json.loads(socket.recv(timeout=_left(deadline)))
                    if isinstance(message, dict) and isinstance(message.get("id"), int):
                        answers[message["id"]] = message
    except (OSError, TimeoutError, WebSocketException, ValueError) as error:
        raise OwnerNotShown("control socket", f"{control}: {type(error).__name__}: {error}") from None
    if "result" not in answers[1]:
        raise OwnerNotShown("control socket", f"initialize answered {str(answers[1].get('error'))[:200]}")
    return answers


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the chain's deadline passed")
    return left


def _endpoint_port(owner: ThreadOwner, listing: Mapping[str, Any]) -> int:
    """Step 3's answer: exactly one entry, the endpoint server, connected, with tools, on 127.0.0.1."""
    entries = listing.get("data")
    if not isinstance(entries, list) or len(entries) != 1 or not isinstance(entries[0], dict):
        count = len(entries) if isinstance(entries, list) else "no"
        raise OwnerNotShown("endpoint", f"{count} entries for {owner.endpoint}, where exactly one was expected")
    entry = entries[0]
    if entry.get("name") != owner.endpoint or entry.get("runtimeStatus") != "connected" or not entry.get("tools"):
        shown = {key: entry.get(key) for key in ("name", "runtimeStatus")}
        raise OwnerNotShown("endpoint", f"not a connected {owner.endpoint} with tools: {shown}")
    origin = entry.get("httpOrigin")
    matched = _LOOPBACK_ORIGIN.fullmatch(origin) if isinstance(origin, str) else None
    if matched is None or not 0 < int(matched.group(1)) < 65536:
        raise OwnerNotShown("endpoint", f"the endpoint's origin {origin!r} is not a port on 127.0.0.1")
    return int(matched.group(1))


def _listener(owner: ThreadOwner, port: int) -> int:
    """Step 4: the one process listening on ``127.0.0.1:port``, the host's client program."""
    try:
        listening = listening_tcp_inodes(port)
    except OSError as error:
        raise OwnerNotShown("listener", f"/proc/net/tcp unreadable: {error}") from None
    local = f"{_LOOPBACK_HEX}:{port:04X}"
    inodes = listening.get(_LOOPBACK_HEX, set())
    if len(inodes) != 1 or len(listening) != 1:
        raise OwnerNotShown("listener", f"{len(inodes)} sockets listen on {local}, and {len(listening)} addresses")
    pids = list(holders({f"socket:[{inode}]" for inode in inodes}))
    if len(pids) != 1:
        raise OwnerNotShown("listener", f"{len(pids)} processes hold the socket listening on port {port}")
    pid = pids[0]
    try:
        name, command, fields = comm(pid), argv(pid), stat_fields(pid)
    except OSError as error:
        raise OwnerNotShown("listener", f"process {pid} unreadable: {error}") from None
    if name != owner.owner_program or owner.daemon_argument in command[1:2] or int(fields[4]) == 0:
        raise OwnerNotShown("listener", f"process {pid} ({name}) on port {port} is not the host's client in a terminal")
    return int(pid)
