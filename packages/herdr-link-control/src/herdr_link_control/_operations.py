"""peers, send and close (spec §4.3-§4.5): fresh lookups, the same-workspace guard, one action."""

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from herdr_link_protocol import (
    MAX_DELIVERY_BYTES,
    AgentName,
    Cause,
    CloseCall,
    ClosedReceipt,
    Envelope,
    LinkError,
    PeerEntry,
    PeersReceipt,
    SendCall,
    SentReceipt,
    build_wrapper,
)

from ._concurrency import both
from ._herdr import HerdrCLI
from ._herdr_argv import (
    AgentRecord,
    HerdrCommandError,
    Role,
    agent_get,
    agent_list,
    agent_prompt,
    pane_close,
    parse_agent_record,
    parse_agent_rows,
)
from ._identity import Identity
from ._loop_guard import LoopGuard

__all__ = [
    "DEFAULT_DELIVERY_LIMIT",
    "Operations",
    "QuestionsAhead",
    "Survey",
    "named_in",
    "resolve_peer",
    "workspace_peers",
]


class QuestionsAhead(Protocol):
    """What a send and a start ask before they act (``HostQuestions`` of the host corner answers it):
    the question a ``kind`` agent in ``folder`` would stop at, said by ``str``, or ``None``."""

    home: Path | None
    """The user's home the hosts' files are under (``None``: no ``HOME``, nothing predicted)."""

    async def ahead_async(self, kind: str, folder: str, args: Sequence[str] = ()) -> object | None:
        """The question, read without holding up the other calls in flight."""


def _platform_delivery_limit() -> int:
    if sys.platform == "linux":
        return MAX_DELIVERY_BYTES
    if sys.platform == "win32":  # one command line of at most 32,767 characters: half for the message
        return min(MAX_DELIVERY_BYTES, 32_767 // 2)
    # Elsewhere there is no per-argument cap, only ARG_MAX for arguments and environment together:
    # keep half of it for the environment and the other arguments.
    try:
        return min(MAX_DELIVERY_BYTES, os.sysconf("SC_ARG_MAX") // 2)
    except (ValueError, OSError, AttributeError):
        return MAX_DELIVERY_BYTES


DEFAULT_DELIVERY_LIMIT: Final = _platform_delivery_limit()
"""Largest wrapper, in UTF-8 bytes, that ``send`` delivers: 131,071 on Linux."""


async def resolve_peer(cli: HerdrCLI, name: AgentName, role: Role) -> AgentRecord:
    """``agent get <name>`` for a name already proven (by the parse); the record must carry exactly it.

    Raises:
        LinkError: ``PEER_NOT_FOUND``, ``NOT_IN_HERDR``.
    """
    record = parse_agent_record(await cli.call(agent_get(name), role))
    if record is None or record.name != name:
        raise LinkError(Cause.NOT_A_PEER, f"agent get {name} returned another agent or none")
    return record


def named_in(rows: list[AgentRecord], name: AgentName) -> AgentRecord:
    """The one row of an ``agent list`` that carries ``name``, as ``agent get <name>`` resolves it.

    Raises:
        LinkError: ``PEER_NOT_FOUND`` when no row or several carry it.
    """
    found = [row for row in rows if row.name == name]
    if len(found) != 1:
        raise LinkError(Cause.NOT_A_PEER, f"agent list shows {len(found)} agents named {name}")
    return found[0]


def _real(path: str) -> str:
    return os.path.realpath(path)


def check_same_workspace(own_workspace: str, target: AgentRecord) -> None:
    """The guard of spec §5: another workspace and an unreported one are the same ``PEER_NOT_FOUND``.

    Raises:
        LinkError: ``PEER_NOT_FOUND``.
    """
    if not own_workspace:
        raise LinkError(Cause.CALLER_NOT_REPORTED, "the caller's own record reports no workspace")
    if own_workspace != target.workspace_id:
        raise LinkError(Cause.NOT_A_PEER, f"target workspace {target.workspace_id!r} is not {own_workspace!r}")


def workspace_peers(
    rows: list[AgentRecord], workspace_id: str, own_pane: str, own_name: str | None
) -> list[AgentRecord]:
    """The named agents of ``workspace_id`` other than the caller, each name once, in Herdr's order.

    Rows are filtered first and deduplicated last, so a foreign or unnamed row never hides a valid
    one. An empty ``workspace_id`` (Herdr reported none) has no peers.
    """
    peers: list[AgentRecord] = []
    seen = {own_name}
    for row in rows:
        if row.name is None or not workspace_id or row.workspace_id != workspace_id:
            continue
        if row.name in seen or row.pane_id == own_pane:
            continue
        seen.add(row.name)
        peers.append(row)
    return peers


@dataclass(frozen=True, slots=True)
class Survey:
    """The caller's pane as Herdr reports it now, for ``herdr-link doctor``."""

    agent: AgentRecord | None
    """The pane's agent; ``None`` when no agent runs there (a plain shell)."""
    workspace_id: str
    """The pane's current workspace; empty when Herdr reports none."""
    peers: tuple[AgentRecord, ...]
    """What :meth:`Operations.peers` would list: the other named agents of that workspace."""


class Operations:
    """The communication operations over one caller identity."""

    def __init__(
        self,
        cli: HerdrCLI,
        identity: Identity,
        delivery_limit: int = DEFAULT_DELIVERY_LIMIT,
        questions: QuestionsAhead | None = None,
        guard: LoopGuard | None = None,
    ) -> None:
        self.cli = cli
        self.identity = identity
        self.delivery_limit = delivery_limit
        self.questions = questions
        """What predicts a target sitting at a question only its user may answer (``None``: nothing)."""
        self.guard = guard
        """The loop guard (``None``: none)."""

    async def peers(self) -> PeersReceipt:
        """The caller and the live named agents of its current workspace (self ∥ list: one round).

        Raises:
            LinkError: ``SELF_UNNAMED``, ``NOT_IN_HERDR``.
        """
        me, rows = await both(self.identity.context, lambda: self.cli.call(agent_list(), Role.PEERS))
        peers = workspace_peers(parse_agent_rows(rows), me.workspace_id, me.pane_id, me.name)
        return PeersReceipt(
            self_=PeerEntry(name=me.name, state=me.state),
            peers=tuple(PeerEntry(name=row.name, state=row.state) for row in peers if row.name),
        )

    async def survey(self) -> Survey:
        """What Herdr reports about the caller's pane and its workspace; reads only, never renames.

        The same lookups as :meth:`peers` (the own record, following a moved pane; ``agent list``),
        except that an unnamed or absent agent is reported rather than bootstrapped, and a plain
        shell's workspace comes from ``pane get``.

        Raises:
            HerdrCommandError: Herdr's own refusal (``herdr_code`` says which, e.g.
                ``server_not_running`` or ``protocol_mismatch``); LinkError: ``NOT_IN_HERDR`` when the
                CLI cannot be run or does not answer in time.
        """
        try:
            me: AgentRecord | None = await self.identity.record(Role.SELF)
        except LinkError as error:
            if error.cause is not Cause.SELF_NOT_DETECTED:
                raise
            me = None
        if me is not None:
            workspace, pane = me.workspace_id, me.pane_id
        else:
            info = await self.identity.pane()
            workspace, pane = str(info.get("workspace_id") or ""), str(info.get("pane_id") or "")
        rows = parse_agent_rows(await self.cli.call(agent_list(), Role.PEERS))
        return Survey(me, workspace, tuple(workspace_peers(rows, workspace, pane, me.name if me else None)))

    async def send(self, call: SendCall, session: str = "") -> SentReceipt:
        """Deliver the call's message to its recipient inside the inbound wrapper: one ``agent list``
        shows the caller and the target, ``agent get <the target's pane>`` pins its occupant, then
        ``agent prompt <that pane>`` (three calls, as the TypeScript server's). The parse proved the
        recipient's name and knows whether the message is blank: nothing is checked twice.

        Raises:
            LinkError: ``PEER_NOT_FOUND``, ``SELF_UNNAMED``, ``SEND_FAILED`` (blank, too large, the
                target at a question only its user may answer, the loop guard, or refused; nothing delivered),
                ``NOT_IN_HERDR`` (a timed-out prompt may have been delivered: never retry it).
        """
        to = call.to
        rows = parse_agent_rows(await self.cli.call(agent_list(), Role.PEERS))
        me = await self.identity.context_among(rows)
        target = named_in(rows, to)
        check_same_workspace(me.workspace_id, target)
        if call.blank:
            raise LinkError(Cause.MESSAGE_EMPTY)
        envelope = Envelope.proven(AgentName(me.name), to, call.message)  # me.name: a valid name (the record)
        wrapper = build_wrapper(envelope)
        size = len(wrapper.encode("utf-8"))
        if size > self.delivery_limit:
            raise LinkError(Cause.MESSAGE_TOO_LARGE, f"wrapper is {size} bytes", limit=self.delivery_limit)
        question = await self.questions.ahead_async(target.kind, target.cwd) if self.questions else None
        if question is not None:  # its Enter would answer for the user: type nothing (PROTOCOL.md §4.4)
            raise LinkError(Cause.SEND_TARGET_ASKING, f"{to} in {target.pane_id}: {question}")
        if self.guard is not None and not self.guard.admit(session, to):
            guard = self.guard
            raise LinkError(
                Cause.SEND_LOOP_SUSPECTED,
                f"session {session or '(this connection)'} has sent {to} {guard.messages} messages within "
                f"{guard.seconds:g} s; the user can raise [loop_guard] messages or seconds in {guard.where}",
            )
        await self._still_there(target)
        await self.cli.call(agent_prompt(target.pane_id, wrapper), Role.PROMPT)
        return SentReceipt(id=envelope.id, to=to)

    async def _still_there(self, target: AgentRecord) -> None:
        """The send types into the pane it resolved (by its canonical id: Herdr hands a name to another
        agent while the old one's record lingers), and only while that pane still holds the occupant the
        send checked (PROTOCOL.md §4.4).

        Raises:
            LinkError: ``SEND_FAILED`` (nothing typed), ``NOT_IN_HERDR``.
        """
        if not target.pane_id:
            raise LinkError(Cause.SEND_TARGET_CHANGED, f"agent get {target.name} reported no pane")
        now = await self._agent_in(target.pane_id)
        if now is None or now.occupant != target.occupant:
            seen = now.occupant if now is not None else "no agent"
            raise LinkError(Cause.SEND_TARGET_CHANGED, f"{target.pane_id} held {target.occupant}, now {seen}")

    async def _agent_in(self, pane_id: str) -> AgentRecord | None:
        """The agent ``agent get <pane id>`` reports in that pane now, or ``None`` when it holds none.

        Only Herdr's ``agent_not_found`` says the pane holds no agent; any other refusal (such as
        ``internal_error``) is Herdr failing the check, not news about the pane.

        Raises:
            LinkError: ``SEND_FAILED`` (Herdr refused the check: nothing typed), ``NOT_IN_HERDR``.
        """
        try:
            return parse_agent_record(await self.cli.call(agent_get(pane_id), Role.TARGET))
        except HerdrCommandError as error:
            if error.herdr_code == "agent_not_found":
                return None
            if error.cause is Cause.HERDR_UNREACHABLE:
                raise
            raise LinkError(Cause.SEND_REJECTED, f"the occupant check: {error.detail}") from error

    async def session_pane(self, directory: str | None, kind: str = "opencode") -> str:
        """OpenCode 2's session rule: the pane of the one agent whose live cwd is ``directory``.

        ``directory`` (a session's directory, symlinks resolved) must be the cwd of exactly one agent
        pane of this Herdr whose agent label is ``kind`` or absent; that pane is the session's caller.
        One OpenCode 2 server can serve the sessions of every pane (it is shared by default), so the
        caller is never the process's own ``HERDR_PANE_ID``. Every workspace counts: a directory
        matched in two workspaces is as ambiguous as two matches in one, and the refusal does not say
        where the matches are. A label can be absent while Herdr is still detecting the agent, so an
        absent label counts (and can make a match ambiguous).

        Raises:
            LinkError: ``SELF_UNNAMED`` when the rule does not hold (fail closed), ``NOT_IN_HERDR``.
        """
        rows = await self.cli.call(agent_list(), Role.PEERS)
        wanted = _real(directory) if directory else None
        matches = [
            row for row in parse_agent_rows(rows)
            if wanted and row.kind in (kind, "") and row.pane_id and row.cwd and _real(row.cwd) == wanted
        ]  # fmt: skip
        if len(matches) != 1:
            raise LinkError(Cause.SESSION_PANE_AMBIGUOUS, f"{len(matches)} {kind} panes have directory {directory!r}")
        return matches[0].pane_id

    async def session_pane_holds(self, pane_id: str, kind: str = "opencode") -> None:
        """The pane a session was first placed on still holds an agent of ``kind`` (or one Herdr has not
        labelled yet): a session is never placed anew elsewhere (PROTOCOL.md §6).

        Raises:
            LinkError: ``SELF_UNNAMED`` (the pane closed, or its agent is gone or of another kind),
                ``NOT_IN_HERDR``.
        """
        record = await self._agent_in(pane_id)
        if record is None or record.pane_id != pane_id or record.kind not in (kind, ""):
            held = f"{record.kind or 'an unlabelled agent'}" if record is not None else "no agent"
            raise LinkError(Cause.SESSION_PANE_LEFT, f"{pane_id} holds {held}, not {kind}")

    async def close(self, call: CloseCall) -> ClosedReceipt:
        """Close the named agent's current pane (own workspace ∥ target, then ``pane close``).

        The caller needs no Agent Name, so no bootstrap runs.

        Raises:
            LinkError: ``PEER_NOT_FOUND``, ``CLOSE_FAILED``, ``NOT_IN_HERDR``.
        """
        agent = call.agent
        me, target = await both(
            lambda: self.identity.record(Role.CALLER_WORKSPACE), lambda: resolve_peer(self.cli, agent, Role.TARGET)
        )
        check_same_workspace(me.workspace_id, target)
        if not target.pane_id:
            raise LinkError(Cause.NOT_A_PEER, "target record has no pane")
        await self.cli.call(pane_close(target.pane_id), Role.CLOSE)
        return ClosedReceipt(agent=agent)
