"""The caller's identity: read fresh from Herdr on every call, bootstrapped when unnamed (spec §6.3).

Nothing here is cached or persisted. The only state is the in-flight bootstrap, which concurrent
callers share so that at most one rename runs at a time; it clears as soon as it settles.
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import anyio

from herdr_link_protocol import AgentState, Cause, ErrorCode, LinkError, generate_self_name

from ._herdr import HerdrCLI
from ._herdr_argv import AgentRecord, HerdrCommandError, Role, agent_get, agent_rename, pane_get, parse_agent_record

__all__ = ["Identity", "SelfContext"]

log: Final = logging.getLogger("herdr_link")

PROBE_ATTEMPTS: Final = 3
"""Readiness probes while Herdr has not yet detected the occupant (spec §6.3 retry 1)."""
PROBE_DELAY: Final = 0.1
RENAME_ATTEMPTS: Final = 3
"""Generated names tried when Herdr answers ``agent_name_taken`` (spec §6.3 retry 2)."""


@dataclass(frozen=True, slots=True)
class SelfContext:
    """The caller as Herdr reports it now: a valid name and the current workspace."""

    name: str
    workspace_id: str
    pane_id: str
    state: AgentState


class _Flight:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.record: AgentRecord | None = None
        self.error: LinkError | None = None


class Identity:
    """Resolves the agent in ``pane_id`` (the caller's own pane)."""

    def __init__(self, cli: HerdrCLI, pane_id: str) -> None:
        self.cli = cli
        self.pane_id = pane_id
        self._flight: _Flight | None = None
        self.last_name: str | None = None
        """The name Herdr last reported for the caller, for the trace only: nothing decides by it."""

    def __repr__(self) -> str:
        return f"Identity(pane={self.pane_id!r}, bootstrap={'running' if self._flight else 'idle'})"

    async def record(self, role: Role) -> AgentRecord:
        """One fresh ``agent get <own pane>``.

        ``HERDR_PANE_ID`` keeps the id the pane had at launch. After ``pane move`` Herdr accepts that
        old id only in ``pane`` commands, so when the agent lookup fails, ``pane get`` (which follows
        the alias) gives the pane's current id and the lookup is tried once more with it.

        Raises:
            LinkError: as classified for ``role``; when Herdr returns no agent record, ``NOT_IN_HERDR``.
        """
        try:
            reply = await self.cli.call(agent_get(self.pane_id), role)
        except HerdrCommandError as error:
            if error.herdr_code != "agent_not_found":
                raise
            current = await self._current_pane_id()
            if current is None or current == self.pane_id:
                raise
            reply = await self.cli.call(agent_get(current), role)
        record = parse_agent_record(reply)
        if record is None:
            raise LinkError(Cause.HERDR_UNREACHABLE, "agent get returned no agent record")
        self.last_name = record.name or self.last_name
        return record

    async def pane(self) -> dict[str, Any]:
        """One fresh ``pane get <own pane>`` (it follows a moved pane's alias): Herdr's ``PaneInfo``.

        Raises:
            LinkError: as classified for ``Role.SELF``; an empty mapping when Herdr reports no pane.
        """
        reply = await self.cli.call(pane_get(self.pane_id), Role.SELF)
        result = reply.get("result")
        pane = result.get("pane") if isinstance(result, dict) else None
        return pane if isinstance(pane, dict) else {}

    async def _current_pane_id(self) -> str | None:
        try:
            current = (await self.pane()).get("pane_id")
        except LinkError:
            return None
        return current if isinstance(current, str) and current else None

    async def context_among(self, rows: Sequence[AgentRecord]) -> SelfContext:
        """The caller's context from rows an ``agent list`` just read: its own pane's row when that row
        is there once and named, else :meth:`context`'s own lookups (a moved pane, an unnamed or
        undetected occupant). The row is what ``agent get <own pane>`` reads: Herdr resolves a pane id
        only as a current canonical id, which no other pane ever had.

        Raises:
            LinkError: as :meth:`context`.
        """
        mine = [row for row in rows if row.pane_id == self.pane_id]
        name = mine[0].name if len(mine) == 1 else None
        if name is None:
            return await self.context()
        self.last_name = name
        return SelfContext(name, mine[0].workspace_id, mine[0].pane_id, mine[0].state)

    async def context(self) -> SelfContext:
        """The caller's name and workspace, bootstrapping a name first if it has none.

        Raises:
            LinkError: ``SELF_UNNAMED`` when no stable name can be established, ``NOT_IN_HERDR``.
        """
        try:
            record: AgentRecord | None = await self.record(Role.SELF)
        except LinkError as error:
            if error.cause is not Cause.SELF_NOT_DETECTED:
                raise
            record = None
        if record is None or record.name is None:
            record = await self.ensure_name()
        assert record.name is not None
        return SelfContext(record.name, record.workspace_id, record.pane_id or self.pane_id, record.state)

    async def ensure_name(self) -> AgentRecord:
        """Make sure the caller's occupant has a valid Agent Name; returns its confirmed record.

        Concurrent callers share one bootstrap. An existing valid name is never changed.

        Raises:
            LinkError: ``SELF_UNNAMED`` or ``NOT_IN_HERDR``; no state is left behind.
        """
        flight = self._flight
        if flight is not None:
            await flight.done.wait()
            if flight.error is not None:
                raise LinkError(flight.error.cause, flight.error.detail)
            assert flight.record is not None
            return flight.record
        flight = self._flight = _Flight()
        try:
            flight.record = await self._bootstrap()
            return flight.record
        except LinkError as error:
            flight.error = error
            raise
        except BaseException:
            flight.error = LinkError(Cause.NO_STABLE_NAME, "bootstrap was interrupted")
            raise
        finally:
            self._flight = None
            flight.done.set()

    async def _probe(self) -> AgentRecord:
        for attempt in range(PROBE_ATTEMPTS):
            try:
                return await self.record(Role.SELF)
            except LinkError as error:
                if error.cause is not Cause.SELF_NOT_DETECTED or attempt == PROBE_ATTEMPTS - 1:
                    raise
            await anyio.sleep(PROBE_DELAY)
        raise AssertionError("unreachable")

    async def _bootstrap(self) -> AgentRecord:
        record = await self._probe()
        if record.name is not None:
            return record
        for _ in range(RENAME_ATTEMPTS):
            name = generate_self_name()
            try:
                await self.cli.call(agent_rename(record.pane_id or self.pane_id, name), Role.BOOTSTRAP_RENAME)
            except HerdrCommandError as error:
                if error.herdr_code == "agent_name_taken":
                    log.info("bootstrap name %s is taken; generating another", name)
                    continue
                if error.code is ErrorCode.NOT_IN_HERDR:
                    raise
                raise LinkError(Cause.NO_STABLE_NAME, error.detail) from None
            confirmed = await self._probe()
            if confirmed.name is None:
                raise LinkError(Cause.NO_STABLE_NAME, f"rename to {name} did not take effect")
            log.info("bootstrapped Agent Name %s for pane %s", confirmed.name, self.pane_id)
            return confirmed
        raise LinkError(Cause.NO_STABLE_NAME, f"{RENAME_ATTEMPTS} generated names were all taken")
