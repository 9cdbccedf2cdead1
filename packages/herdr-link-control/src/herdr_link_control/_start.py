"""``herdr_link_start`` (spec §4.2): configuration, placement, ``agent start`` and rollback.

Guarantee: a tab or pane this call created is closed again, best effort, whenever the call fails or
is cancelled after creating it; the primary error is kept and nothing is retried. The one exception:
when Herdr reports the started agent blocked at a prompt during start-up, Herdr keeps the agent under
its name, so its pane stays for the user to answer (``START_FAILED`` with that reason, spec §4.2).
"""

import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio

from herdr_link_protocol import (
    CONFIG_RELATIVE_PATH,
    Cause,
    ConfiguredStart,
    LinkError,
    NewTabPlacement,
    Placement,
    StartedReceipt,
    StartRequest,
    WithPlacement,
    check_agent_kind,
    parse_agent_config,
    resolve_placement,
)

from ._herdr import HerdrCLI
from ._herdr_argv import (
    AgentRecord,
    HerdrCommandError,
    Role,
    agent_start,
    pane_close,
    pane_list,
    pane_split,
    tab_close,
    tab_create,
)
from ._identity import Identity
from ._leftovers import Pick, Snapshot, reclaim, snapshot, split_candidates, tab_candidates
from ._operations import QuestionsAhead, check_same_workspace, resolve_peer
from .hosts import host_for_kind

__all__ = ["Starter"]

log: Final = logging.getLogger("herdr_link")


def _dig(reply: Any, *path: str) -> str | None:
    for key in path:
        reply = reply.get(key) if isinstance(reply, dict) else None
    return reply if isinstance(reply, str) and reply else None


class Starter:
    """Starts agents; owns the round-robin cursors of configured entries (in memory only).

    A cursor is kept per (configuration file, ``config_agent``), advances only after a successful
    start, and resets when the process restarts.
    """

    def __init__(
        self,
        cli: HerdrCLI,
        identity: Identity,
        process_cwd: Callable[[], str] = os.getcwd,
        questions: QuestionsAhead | None = None,
    ) -> None:
        self.cli = cli
        self.identity = identity
        self.process_cwd = process_cwd
        self.questions = questions
        """What predicts a new agent stopping at a question only its user may answer (``None``: nothing)."""
        self.cursors: dict[str, int] = {}
        self._locks: dict[str, anyio.Lock] = {}

    def __repr__(self) -> str:
        return f"Starter(cursors={self.cursors!r})"

    async def start(self, request: StartRequest, context_directory: str | None = None) -> StartedReceipt:
        """Allocate the placement and start the agent.

        Args:
            request: validated start input.
            context_directory: the adapter's session directory, if it knows one; otherwise the
                caller pane's live cwd from Herdr, then this process's cwd.

        Raises:
            LinkError: any ``START_*`` code, ``PEER_NOT_FOUND`` for a bad ``with`` anchor,
                ``NOT_IN_HERDR``.
        """
        explicit_placement = None if isinstance(request, ConfiguredStart) else resolve_placement(request)
        me = await self.identity.record(Role.START_CALLER)
        if not me.workspace_id:
            raise LinkError(Cause.START_REJECTED, "the caller's workspace is not reported")
        context = context_directory or me.cwd or self.process_cwd()
        if not isinstance(request, ConfiguredStart):
            assert explicit_placement is not None
            await self._launch(me, request.name, request.kind, request.args, explicit_placement, context)
            return StartedReceipt(agent=request.name, kind=request.kind)
        config_path = _config_path(context)
        key = f"{config_path}\0{request.config_agent}"
        lock = self._locks.setdefault(key, anyio.Lock())
        async with lock:
            config = parse_agent_config(await _read_config(config_path))
            entry = config.agents.get(request.config_agent)
            if entry is None:
                raise LinkError(Cause.CONFIG_AGENT_NOT_FOUND, f"no entry {request.config_agent!r} in {config_path}")
            placement = resolve_placement(request, entry.placement)
            index = self.cursors.get(key, 0) % len(entry.variants)
            variant = entry.variants[index]
            kind = check_agent_kind(variant.kind, Cause.CONFIG_KIND_INVALID)
            await self._launch(me, request.name, kind, variant.args, placement, context)
            if len(entry.variants) > 1:
                self.cursors[key] = (index + 1) % len(entry.variants)
        return StartedReceipt(agent=request.name, kind=kind)

    async def _launch(
        self, me: AgentRecord, name: str, kind: str, args: Sequence[str], placement: Placement, context: str
    ) -> None:
        if isinstance(placement, NewTabPlacement):
            pane_id, rollback = await self._new_tab(me, kind, args, placement, context)
        else:
            pane_id, rollback = await self._beside(me, kind, args, placement)
        host = host_for_kind(kind)
        if host is not None and host.shared is not None:  # its own process, so it answers as its own pane
            home = self.questions.home if self.questions is not None else None  # our user's, from Link's environment
            args = host.shared.worker_args(args, str(home or ""))
        if host is not None and host.worker_args:
            args = (*host.worker_args, *args)
        async with self._undone_on_failure(rollback):
            await self.cli.call(agent_start(name, kind, pane_id, args), Role.AGENT_START)
        if host is None or (host.servers is None and host.extension is None):
            why = host.unwired if host is not None else "the host table has no row for this kind"
            log.warning("started %s (kind %s), which will have no Herdr Link: %s", name, kind, why)

    async def _refuse_a_question(self, kind: str, folder: str, args: Sequence[str]) -> None:
        """Before anything is made: a ``kind`` agent in ``folder`` that would first stop at a question only
        its user may answer is not started (PROTOCOL.md §4.2)."""
        question = await self.questions.ahead_async(kind, folder, args) if self.questions else None
        if question is not None:
            raise LinkError(Cause.START_AGENT_WOULD_ASK, str(question))

    async def _new_tab(
        self, me: AgentRecord, kind: str, args: Sequence[str], placement: NewTabPlacement, context: str
    ) -> tuple[str, list[str]]:
        cwd = _launch_cwd(context, placement.cwd)
        await self._refuse_a_question(kind, cwd, args)
        leftovers = tab_candidates(cwd)
        async with self._reclaimed_on_silence(me.workspace_id, "tab create", leftovers) as before:
            reply = await self.cli.call(tab_create(me.workspace_id, cwd, placement.label), Role.TAB_CREATE)
        tab_id = _dig(reply, "result", "tab", "tab_id") or _dig(reply, "result", "root_pane", "tab_id")
        if tab_id is None:
            await reclaim(self.cli, me.workspace_id, "tab create", leftovers, before, answered=True)
            raise LinkError(Cause.START_REJECTED, f"tab create reported no tab id: {reply!r}")
        rollback = tab_close(tab_id)
        root = _dig(reply, "result", "root_pane", "pane_id")
        if root is None or _dig(reply, "result", "root_pane", "tab_id") not in (None, tab_id):
            async with self._undone_on_failure(rollback):
                root = await self._root_pane(me.workspace_id, tab_id)
        return root, rollback

    async def _root_pane(self, workspace_id: str, tab_id: str) -> str:
        reply = await self.cli.call(pane_list(workspace_id), Role.PANE_LIST)
        panes = reply.get("result", {}).get("panes") if isinstance(reply.get("result"), dict) else None
        roots = [p.get("pane_id") for p in panes or [] if isinstance(p, dict) and p.get("tab_id") == tab_id]
        if len(roots) != 1 or not isinstance(roots[0], str):
            raise LinkError(Cause.START_REJECTED, f"created tab {tab_id} holds {len(roots)} panes, not one root pane")
        return roots[0]

    async def _beside(
        self, me: AgentRecord, kind: str, args: Sequence[str], placement: WithPlacement
    ) -> tuple[str, list[str]]:
        anchor = await resolve_peer(self.cli, placement.anchor, Role.ANCHOR)
        check_same_workspace(me.workspace_id, anchor)
        if not anchor.pane_id:
            raise LinkError(Cause.NOT_A_PEER, "anchor record has no pane")
        if not anchor.cwd:
            raise LinkError(Cause.START_ANCHOR_NO_CWD, f"anchor pane {anchor.pane_id} reports no cwd")
        await self._refuse_a_question(kind, anchor.cwd, args)
        leftovers = split_candidates(anchor.pane_id, anchor.cwd)
        async with self._reclaimed_on_silence(me.workspace_id, "pane split", leftovers) as before:
            reply = await self.cli.call(pane_split(anchor.pane_id, anchor.cwd), Role.PANE_SPLIT)
        pane_id = _dig(reply, "result", "pane", "pane_id")
        if pane_id is None:
            await reclaim(self.cli, me.workspace_id, "pane split", leftovers, before, answered=True)
            raise LinkError(Cause.START_REJECTED, f"pane split reported no pane id: {reply!r}")
        rollback = pane_close(pane_id)
        if _dig(reply, "result", "pane", "workspace_id") not in (None, me.workspace_id):
            async with self._undone_on_failure(rollback):
                raise LinkError(Cause.START_REJECTED, f"split pane {pane_id} landed in another workspace")
        return pane_id, rollback

    @asynccontextmanager
    async def _reclaimed_on_silence(
        self, workspace_id: str, what: str, leftovers: Pick
    ) -> AsyncIterator[Snapshot | None]:
        """Guard one allocating command: list the workspace's panes first (the :class:`Snapshot`,
        given to the block for a reply that lacks the id), and when the command fails without Herdr's
        own refusal (a timeout, no or an unreadable reply, a crash, cancellation), look for what it
        may still make (:func:`reclaim`, against that snapshot), then re-raise. A structured refusal
        means Herdr made nothing."""
        before = await snapshot(self.cli, workspace_id)
        try:
            yield before
        except HerdrCommandError:
            raise
        except BaseException:
            await reclaim(self.cli, workspace_id, what, leftovers, before, answered=False)
            raise

    @asynccontextmanager
    async def _undone_on_failure(self, rollback: list[str]) -> AsyncIterator[None]:
        """Run ``rollback`` (shielded, best effort) when the block fails or is cancelled, then re-raise;
        except when Herdr holds the new agent blocked at a prompt (``START_AGENT_WAITING``)."""
        try:
            yield
        except BaseException as error:
            if isinstance(error, LinkError) and error.cause is Cause.START_AGENT_WAITING:
                # Herdr holds the agent under its name, blocked at a prompt of its program: the user
                # answers it in the pane and the agent becomes ready. Closing the pane would throw that
                # away, so it stays (PROTOCOL.md §4.2) and the reason says so.
                log.warning("kept what was created for the blocked agent (no rollback): %s", error.detail)
                self.cli.tracer.event("rollback", outcome="kept: the agent waits for its user", detail=error.detail)
            else:
                await self._roll_back(rollback)
            raise

    async def _roll_back(self, rollback: list[str]) -> None:
        """Run ``rollback``, shielded from cancellation; a failure is logged, never raised."""
        with anyio.CancelScope(shield=True):
            try:
                await self.cli.call(rollback, Role.ROLLBACK)
                log.info("rolled back: herdr %s", " ".join(rollback))
                self.cli.tracer.event("rollback", outcome="closed", argv=rollback)
            except LinkError as error:
                log.warning("rollback herdr %s failed, so that stays: %s", " ".join(rollback), error.detail)
                self.cli.tracer.event("rollback", outcome="failed: it stays", argv=rollback, detail=error.detail)


def _config_path(context: str) -> str:
    """``<context>/.agents/agent_config.json``, absolute (it keys the round-robin cursor)."""
    return os.path.abspath(os.path.join(context, *CONFIG_RELATIVE_PATH))


def _launch_cwd(context: str, cwd: str | None) -> str:
    """A new tab's cwd: ``cwd`` relative to the context directory (an absolute one stands), else the context."""
    return os.path.join(context, cwd) if cwd is not None else context


async def _read_config(path: str) -> bytes:
    try:
        return await anyio.Path(path).read_bytes()
    except FileNotFoundError:
        raise LinkError(Cause.CONFIG_NOT_FOUND, f"{path} does not exist") from None
    except OSError as error:
        raise LinkError(Cause.CONFIG_UNREADABLE, f"{path}: {error.strerror}") from None
