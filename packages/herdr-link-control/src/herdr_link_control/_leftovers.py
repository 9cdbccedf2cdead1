"""What a failed ``tab create`` or ``pane split`` may have left (spec §4.2: a reply that lacks the
created id must not leak it), found with ``pane list --workspace`` within the same call.

Rule: only a pane that did not exist when our command began is ever taken. So the start takes a
:class:`Snapshot` of the workspace's panes and tabs just before the allocating command, and when
that command fails without Herdr's own refusal, a candidate must be new against it and match every
property that ``pane list`` shows of what was asked for:

* a new tab: a plain shell (no agent, status ``unknown``), alone in a tab that is new too, in the
  asked ``cwd`` (compared as written and after resolving symlinks);
* a split: a plain shell in the anchor's tab (the anchor must be listed), in the anchor's ``cwd``.

The label a new tab was given is not in ``pane list``'s records, so it cannot be compared. With any
doubt the panes are logged and left, never closed: no snapshot (``pane list`` failed before the
command), an unreadable listing, or two or more candidates (another agent may have made one of them
at the same moment).

Two cases, told apart by what the failed call said:

* **It succeeded without the id** (an empty ``result``, a root pane or pane without ``pane_id``).
  Herdr made it, so the panes are listed once.
* **It did not answer** (a timeout, a lost reply, a crash). Herdr may still complete it after the
  kill, so ``pane list`` is asked again until a candidate appears, for at most one more command
  timeout.

A single candidate is closed. Nothing runs after the call returns (spec §9: no daemon), and the
search is shielded from the caller's cancellation, so a cancelled start still cleans up.
"""

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import anyio

from herdr_link_protocol import LinkError

from ._herdr import HerdrCLI
from ._herdr_argv import Role, pane_close, pane_list, tab_close

__all__ = ["Snapshot", "reclaim", "snapshot", "split_candidates", "tab_candidates"]

log: Final = logging.getLogger("herdr_link")

POLL_INTERVAL: Final = 0.2
"""Seconds between two ``pane list`` calls while waiting for a late allocation."""

Panes = Sequence[dict[str, Any]]


@dataclass(frozen=True)
class Snapshot:
    """The workspace's pane and tab ids just before an allocating command."""

    panes: frozenset[str]
    tabs: frozenset[str]

    @classmethod
    def of(cls, panes: Panes) -> "Snapshot":
        """The ids found in a ``pane list`` reply's panes."""
        return cls(
            frozenset(p["pane_id"] for p in panes if isinstance(p.get("pane_id"), str)),
            frozenset(p["tab_id"] for p in panes if isinstance(p.get("tab_id"), str)),
        )


Pick = Callable[[Panes, Snapshot], list[list[str]]]
"""From the workspace's panes now and the snapshot taken before, the close commands of every candidate."""


def _same_directory(reported: object, wanted: str) -> bool:
    return isinstance(reported, str) and (reported == wanted or os.path.realpath(reported) == os.path.realpath(wanted))


def _is_plain_shell(pane: dict[str, Any]) -> bool:
    return "agent" not in pane and pane.get("agent_status") == "unknown"


def _new(panes: Panes, before: Snapshot) -> list[dict[str, Any]]:
    return [p for p in panes if isinstance(p.get("pane_id"), str) and p["pane_id"] not in before.panes]


def tab_candidates(cwd: str) -> Pick:
    """A new tab's root: a plain shell alone in a new tab, in ``cwd``; closed with ``tab close``."""

    def pick(panes: Panes, before: Snapshot) -> list[list[str]]:
        sizes: dict[object, int] = {}
        for pane in panes:
            sizes[pane.get("tab_id")] = sizes.get(pane.get("tab_id"), 0) + 1
        return [
            tab_close(pane["tab_id"])
            for pane in _new(panes, before)
            if isinstance(pane.get("tab_id"), str) and pane["tab_id"] not in before.tabs
            and sizes[pane["tab_id"]] == 1 and _is_plain_shell(pane) and _same_directory(pane.get("cwd"), cwd)
        ]  # fmt: skip

    return pick


def split_candidates(anchor_pane: str, cwd: str) -> Pick:
    """A split of the anchor: a plain shell in the anchor's tab, in ``cwd``; closed with ``pane close``."""

    def pick(panes: Panes, before: Snapshot) -> list[list[str]]:
        tab = next((p.get("tab_id") for p in panes if p.get("pane_id") == anchor_pane), None)
        if not isinstance(tab, str):
            return []  # the anchor is not listed: its tab, and so the split, cannot be told
        return [
            pane_close(pane["pane_id"])
            for pane in _new(panes, before)
            if pane.get("tab_id") == tab and pane["pane_id"] != anchor_pane
            and _is_plain_shell(pane) and _same_directory(pane.get("cwd"), cwd)
        ]  # fmt: skip

    return pick


async def _panes(cli: HerdrCLI, workspace_id: str) -> Panes | None:
    try:
        reply = await cli.call(pane_list(workspace_id), Role.PANE_LIST)
    except LinkError as error:
        log.warning("pane list failed while guarding a start: %s", error.detail)
        return None
    result = reply.get("result")
    panes = result.get("panes") if isinstance(result, dict) else None
    if not isinstance(panes, list):
        log.warning("pane list answered without a list of panes: %r", reply)
        return None
    return [p for p in panes if isinstance(p, dict)]


async def snapshot(cli: HerdrCLI, workspace_id: str) -> Snapshot | None:
    """The workspace's panes and tabs now, before an allocating command; ``None`` (logged) when Herdr
    does not say, in which case nothing a failure leaves is taken later."""
    panes = await _panes(cli, workspace_id)
    return None if panes is None else Snapshot.of(panes)


async def reclaim(
    cli: HerdrCLI, workspace_id: str, what: str, pick: Pick, before: Snapshot | None, *, answered: bool
) -> None:
    """Find and close what a failed ``what`` left, shielded and bounded by one command timeout.

    ``before``: the snapshot taken before the command. ``answered``: the command answered without
    the id (it made something); otherwise it did not answer at all and may still complete. Never
    raises; every outcome is logged.
    """

    def decided(level: int, outcome: str) -> None:
        log.log(level, "%s", outcome)
        cli.tracer.event("leftovers", after=what, outcome=outcome)

    if before is None:
        decided(
            logging.WARNING, f"a failed {what} may have left a pane; none was listed before it, so nothing is closed"
        )
        return
    with anyio.CancelScope(shield=True), anyio.move_on_after(cli.timeouts.command) as window:
        while True:
            panes = await _panes(cli, workspace_id)
            if panes is None:
                unlisted = f"a failed {what} may have left a pane; the panes cannot be listed, so nothing is closed"
                decided(logging.WARNING, unlisted)
                return
            found = pick(panes, before)
            if len(found) == 1:
                command = " ".join(found[0])
                try:
                    await cli.call(found[0], Role.ROLLBACK)
                    decided(logging.INFO, f"closed what a failed {what} left: herdr {command}")
                except LinkError as error:
                    decided(logging.WARNING, f"herdr {command} (left by a failed {what}) failed: {error.detail}")
                return
            if len(found) > 1:
                left = "; ".join(" ".join(c) for c in found)
                decided(
                    logging.WARNING, f"a failed {what} may have left one of several candidates; left them all: {left}"
                )
                return
            if answered:
                decided(logging.WARNING, f"a failed {what} left nothing recognisable as its own; nothing closed")
                return
            await anyio.sleep(POLL_INTERVAL)
    if window.cancelled_caught:
        late = f"a failed {what} made nothing within one more command timeout; if Herdr completes it later, it stays"
        decided(logging.WARNING, late)
