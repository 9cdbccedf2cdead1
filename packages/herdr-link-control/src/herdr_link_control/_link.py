"""``Link``: the one facade every adapter shares (MCP server, JSON-lines bridge, doctor, demo)."""

import dataclasses
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Final

import anyio

from herdr_link_protocol import (
    CLOSE_TOOL,
    SEND_TOOL,
    START_TOOL,
    Activate,
    ActiveReceipt,
    Cause,
    CloseCall,
    ClosedReceipt,
    InvalidToolCall,
    LinkError,
    LinkModel,
    ParsedCall,
    PeersCall,
    PeersReceipt,
    SendCall,
    SentReceipt,
    StartedReceipt,
    parse_call,
)

from ._call_context import DIRECT, CallContext
from ._environment import HerdrEnvironment
from ._herdr import DEFAULT_TIMEOUTS, HerdrCLI, Timeouts
from ._identity import Identity
from ._loop_guard import LoopGuard
from ._operations import DEFAULT_DELIVERY_LIMIT, Operations, Survey
from ._pane_proof import PaneEvidence, PaneWitness, pane_problem
from ._runner import ProcessRunner, Runner
from ._settings import LinkSettings
from ._start import Starter
from ._thread_owner import OwnerNotShown, call_thread, thread_pane
from ._trace import Tracer, elapsed_ms
from .hosts import HostQuestions, host_for_client

__all__ = ["Link"]

log: Final = logging.getLogger("herdr_link")

CALLERS_KEPT: Final = 64
"""Session callers (panes other than the process's own) whose operations a Link keeps: their bootstrap
and start placement state; the least recently used beyond this are dropped (and rebuilt if they call)."""

SESSIONS_KEPT: Final = 4096
"""Sessions whose first placement a Link remembers (a dropped one is placed again by its directory)."""


class Link:
    """Herdr Link's operations for the agent in this process's Herdr pane.

    Outside Herdr (the environment gate fails) every operation raises ``NOT_IN_HERDR`` without
    running anything. Nothing is cached between calls: identity, peers and targets are read fresh.
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        runner: Runner | None = None,
        timeouts: Timeouts = DEFAULT_TIMEOUTS,
        process_cwd: Callable[[], str] = os.getcwd,
        delivery_limit: int = DEFAULT_DELIVERY_LIMIT,
        pane_evidence: PaneEvidence | PaneWitness | None = None,
    ) -> None:
        """Args:
        environ: the process environment (default ``os.environ``), read once.
        runner: how ``herdr`` is run; default a :class:`ProcessRunner` on ``HERDR_BIN_PATH``.
        timeouts: per-call timeouts.
        process_cwd: the last resort for the start context directory.
        delivery_limit: the largest wrapper ``send`` delivers, in bytes.
        pane_evidence: what this process's controlling terminal shows about its pane: a fixed answer, or
            a :class:`PaneWitness` that reads it; default a witness of ``environ`` (read from ``/proc``
            again whenever the process's terminal changed).
        """
        environ = os.environ if environ is None else environ
        self.environment = HerdrEnvironment.detect(environ)
        if not isinstance(pane_evidence, PaneWitness):
            pane_evidence = PaneWitness(environ, pane_evidence)
        self._witness = pane_evidence
        self._unproven_logged = False
        self._ops: Operations | None = None
        self._starter: Starter | None = None
        self._callers: OrderedDict[str, tuple[Operations, Starter]] = OrderedDict()
        self._session_panes: OrderedDict[str, str] = OrderedDict()
        """Each session's pane, as first placed (least recently used dropped past :data:`SESSIONS_KEPT`)."""
        self._process_cwd = process_cwd
        settings = LinkSettings.load(environ)
        self.tracer = Tracer(settings.trace_file, content=settings.trace_content, max_bytes=settings.trace_bytes)
        """The user's trace (off unless they switched it on)."""
        if self.environment is not None:
            runner = runner or ProcessRunner(self.environment.bin_path, self.environment.variables)
            cli = HerdrCLI(runner, timeouts, self.tracer)
            identity = Identity(cli, self.environment.pane_id)
            questions = HostQuestions(environ)  # the host files of this process's user
            where = str(settings.path or "the user's Herdr Link settings file")
            guard = LoopGuard(settings.loop_messages, settings.loop_seconds, where=where)
            self._ops = Operations(cli, identity, delivery_limit, questions, guard)
            self._starter = Starter(cli, identity, process_cwd, questions)

    def __repr__(self) -> str:
        where = f"pane={self.environment.pane_id!r}" if self.environment else "outside Herdr"
        return f"<Link {where}>"

    @property
    def pane_evidence(self) -> PaneEvidence:
        """Whether this process can show, now, that it runs in the pane its environment names (PROTOCOL.md §6.1)."""
        return self._witness.current()

    @property
    def in_herdr(self) -> bool:
        """Whether the environment gate passes (spec §6.1)."""
        return self.environment is not None

    def _require(
        self, caller_pane: str | None = None, *, acting: bool = True, host: str = ""
    ) -> tuple[Operations, Starter]:
        """The operations for the process's own pane, or for ``caller_pane`` when a session's caller
        was found elsewhere (:meth:`session_pane`): the same Herdr, settings and guard, another identity.

        ``acting``: the call acts as the process's own pane, which it may only where
        :meth:`own_pane_problem` finds nothing for ``host`` (reads that act for no pane pass ``False``)."""
        if self._ops is None or self._starter is None:
            raise LinkError(Cause.ENVIRONMENT_MISSING, "HERDR_ENV=1, HERDR_BIN_PATH and HERDR_PANE_ID are required")
        if caller_pane is None:
            problem = self.own_pane_problem(host) if acting else None
            if problem is not None:
                raise problem
            return self._ops, self._starter
        if caller_pane == self._ops.identity.pane_id:
            return self._ops, self._starter
        kept = self._callers.get(caller_pane)
        if kept is None:
            base = self._ops
            identity = Identity(base.cli, caller_pane)
            ops = Operations(base.cli, identity, base.delivery_limit, base.questions, base.guard)
            kept = (ops, Starter(base.cli, identity, self._process_cwd, base.questions))
            self._callers[caller_pane] = kept
            while len(self._callers) > CALLERS_KEPT:
                self._callers.popitem(last=False)
        self._callers.move_to_end(caller_pane)
        return kept

    def own_pane_problem(self, host: str = "") -> LinkError | None:
        """Why this process may not act as the pane its environment names for ``host`` (its MCP client or
        bridge client name; empty: not known), or ``None`` when it may (PROTOCOL.md §6.1).

        It may when its controlling terminal shows it runs in that pane. When the terminal shows another
        pane of this Herdr it never may. With no such terminal it may only for a host that spawns our
        adapter in each pane's own process: a host whose default shares one process between panes
        (:attr:`herdr_link_control.hosts.Host.shared`) could have spawned it for any pane.
        """
        detail = pane_problem(self.pane_evidence, host)
        if detail is None:
            return None
        if not self._unproven_logged:
            self._unproven_logged = True
            log.warning(
                "this process cannot show which Herdr pane it serves (%s); Link refuses every call it cannot place "
                "by the call's own thread",
                detail,
            )
        return LinkError(Cause.SELF_UNPROVEN, detail)

    async def settle(self, context: CallContext) -> CallContext:
        """The context a call runs in, once it is settled which pane it may act as (PROTOCOL.md §6.1):
        unchanged when it may act as this process's own pane (or its session was placed elsewhere); for a
        host whose shared process runs several panes' sessions and names the call's thread, the context of
        the pane whose client owns that thread, where the chain shows it (:mod:`._thread_owner`).

        Raises:
            LinkError: ``SELF_UNPROVEN`` (nothing done): the call may act as no pane; the reason, and the
                chain's failed step, go to the operator log.
        """
        if context.caller_pane is not None or self.environment is None:
            return context
        problem = self.own_pane_problem(context.host)
        if problem is None:
            return context
        host = host_for_client(context.host) if context.host else None
        owner = host.shared.thread_owner if host is not None and host.shared is not None else None
        thread = call_thread(owner, context.meta) if owner is not None else None
        if owner is None or thread is None or self.pane_evidence.against_pane:
            raise problem
        socket, herdr = self.environment.variables.get("HERDR_SOCKET_PATH", ""), self.environment.bin_path
        try:
            found = await anyio.to_thread.run_sync(lambda: thread_pane(owner, thread, socket, herdr))
        except OwnerNotShown as error:
            log.warning("the pane of thread %s is not shown (%s); the call is refused", thread, error)
            raise problem from None
        log.info("the call acts as pane %s: %s", found.pane, found.detail)
        return dataclasses.replace(context, caller_pane=found.pane)

    async def bootstrap(self, host: str = "") -> str | None:
        """The start-up self identity bootstrap: returns the caller's Agent Name, or ``None``.

        It names only a pane this process may act for as ``host`` (:meth:`own_pane_problem`); when the
        adapter does not know its host yet (empty), only where the controlling terminal shows the pane.
        Otherwise the first call names the caller, if it may act for it.
        Never raises; failures go to the operator log and the communication paths retry later.
        """
        evidence = self.pane_evidence
        if not evidence.proves_pane and (not host or self.own_pane_problem(host) is not None):
            log.info("start-up bootstrap skipped: %s", evidence.detail)
            return None
        try:
            ops, _ = self._require()
            name = (await ops.identity.ensure_name()).name
        except LinkError as error:
            log.info("self identity bootstrap did not complete: %s (%s)", error, error.detail)
            self.tracer.event("bootstrap", name=None, code=error.code.value, reason=str(error), detail=error.detail)
            return None
        self.tracer.event("bootstrap", name=name)
        return name

    async def peers(self, context: CallContext = DIRECT) -> PeersReceipt:
        """See :meth:`Operations.peers`."""
        return await self._require(context.caller_pane, host=context.host)[0].peers()

    async def send(self, to: str, message: str, context: CallContext = DIRECT) -> SentReceipt:
        """``herdr_link_send`` with these arguments, read by the one parse (see :meth:`Operations.send`)."""
        receipt = await self.call(SEND_TOOL, {"to": to, "message": message}, context)
        assert isinstance(receipt, SentReceipt)
        return receipt

    async def close(self, agent: str, context: CallContext = DIRECT) -> ClosedReceipt:
        """``herdr_link_close`` for ``agent``, read by the one parse (see :meth:`Operations.close`)."""
        receipt = await self.call(CLOSE_TOOL, {"agent": agent}, context)
        assert isinstance(receipt, ClosedReceipt)
        return receipt

    async def survey(self) -> Survey:
        """See :meth:`Operations.survey`."""
        return await self._require(acting=False)[0].survey()

    async def session_pane(self, directory: str | None, session: str = "") -> str:
        """The pane of ``session``, whose directory is ``directory``; pass it to :meth:`run` as ``caller_pane``.

        A session is placed once, by its directory (:meth:`Operations.session_pane`), and stays on that
        pane: later calls check that the pane still holds its OpenCode and are refused once it does not
        (:meth:`Operations.session_pane_holds`), never placed again on another pane with that directory.
        """
        ops = self._require(acting=False)[0]
        pinned = self._session_panes.get(session) if session else None
        if pinned is not None:
            self._session_panes.move_to_end(session)
            await ops.session_pane_holds(pinned)
            return pinned
        pane = await ops.session_pane(directory)
        if session:
            self._session_panes[session] = pane
            while len(self._session_panes) > SESSIONS_KEPT:
                self._session_panes.popitem(last=False)
        return pane

    async def start(self, arguments: object, context: CallContext = DIRECT) -> StartedReceipt:
        """Start an agent from raw ``herdr_link_start`` arguments (see :meth:`Starter.start`)."""
        receipt = await self.run(parse_call(START_TOOL, arguments, in_herdr=self.in_herdr), context)
        assert isinstance(receipt, StartedReceipt)
        return receipt

    async def call(self, tool: str, arguments: object, context: CallContext = DIRECT) -> LinkModel:
        """Run a tool by name with the model's raw arguments; returns its receipt.

        The arguments are read once, by :func:`herdr_link_protocol.parse_call` (protocol-level faults,
        then the environment gate, the gateway's form, the argument rules, each field), and the call
        runs (:meth:`run`), for direct use. The MCP server and the bridge parse first themselves, because
        what they do around the call (activation, ordering) depends on what the call is.

        Raises:
            InvalidToolCall: a protocol-level error.
            LinkError: everything else.
        """
        return await self.run(parse_call(tool, arguments, in_herdr=self.in_herdr), context)

    async def run(self, parsed: ParsedCall, context: CallContext = DIRECT) -> LinkModel:
        """Run a parsed call for ``context`` (who calls, from which session and pane); a failure nothing
        classified becomes the call's fallback code.

        Raises:
            LinkError: ``NOT_IN_HERDR`` outside Herdr, or the operation's own error.
        """
        if not self.tracer.enabled:
            return await self._run(parsed, context, *self._require(context.caller_pane, host=context.host))
        started, receipt, failure, caller = time.perf_counter(), None, None, None
        with self.tracer.call():
            try:
                ops, starter = self._require(context.caller_pane, host=context.host)
                caller = ops.identity
                receipt = await self._run(parsed, context, ops, starter)
                return receipt
            except BaseException as error:  # traced whatever it is (cancellation too), then passed on
                failure = error
                raise
            finally:
                self._trace_call(parsed, context, started, receipt, failure, caller)

    async def _run(self, parsed: ParsedCall, context: CallContext, ops: Operations, starter: Starter) -> LinkModel:
        if parsed.ignored:
            log.debug("%s: ignored arguments outside its schema: %s", parsed.tool, ", ".join(parsed.ignored))
        call = parsed.call
        if isinstance(call, Activate):
            return ActiveReceipt()  # no Herdr call, nothing that can fail
        try:
            if isinstance(call, PeersCall):
                return await ops.peers()
            if isinstance(call, SendCall):
                return await ops.send(call, context.session)
            if isinstance(call, CloseCall):
                return await ops.close(call)
            return await starter.start(call.request, context.directory)
        except (LinkError, InvalidToolCall):
            raise
        except Exception as error:
            log.exception("unexpected failure in %s", parsed.tool)
            assert call.fallback is not None  # an activation runs nothing that can fail
            raise LinkError(call.fallback, f"unexpected {type(error).__name__}: {error}") from error

    def trace_refused(self, tool: str, error: LinkError | InvalidToolCall, context: CallContext = DIRECT) -> None:
        """Trace a call the one parse refused before it ran (the adapter answered it itself)."""
        if self.tracer.enabled:
            code = error.code.value if isinstance(error, LinkError) else "INVALID_CALL"
            fields = {"adapter": context.adapter, "host": context.host, "session": context.session, "tool": tool}
            self.tracer.event("call", **fields, action=None, code=code, reason=str(error))

    def trace_activation(self, context: CallContext = DIRECT) -> None:
        """Trace a session's activation (its Tier 1 tools and contract presented)."""
        if self.tracer.enabled:
            self.tracer.event("activation", adapter=context.adapter, host=context.host, session=context.session)

    def _trace_call(
        self,
        parsed: ParsedCall,
        context: CallContext,
        started: float,
        receipt: LinkModel | None,
        failure: BaseException | None,
        caller: Identity | None,
    ) -> None:
        """One ``call`` event: who called what, for whom, and what Link answered (raw ids are fine here).
        ``caller``: the identity the call ran as (``None`` outside Herdr); the context's ``caller_pane``:
        the session's pane when a session rule placed the call."""
        call = parsed.call
        fields: dict[str, Any] = {
            "adapter": context.adapter, "host": context.host, "session": context.session, "tool": parsed.tool,
            "action": call.action, "caller": caller.last_name if caller is not None else None,
        }  # fmt: skip
        if context.caller_pane is not None:
            fields["caller_pane"] = context.caller_pane
        if not isinstance(call, Activate | PeersCall):
            fields["target"] = call.target
        if isinstance(call, SendCall):
            fields["message"] = self.tracer.message(call.message)
        if isinstance(receipt, SentReceipt):
            fields["id"] = receipt.id
        if isinstance(failure, LinkError):
            fields.update(code=failure.code.value, reason=str(failure), detail=failure.detail)
        elif failure is not None:
            fields.update(code=type(failure).__name__, reason=str(failure))
        else:
            fields.update(code="ok", reason=None if receipt is None else receipt.model_dump(mode="json").get("status"))
        fields["ms"] = elapsed_ms(started)
        self.tracer.event("call", **fields)
