"""What a failed ``tab create`` or ``pane split`` may have left (spec §4.2: a reply that lacks the
created id must not leak it), found with ``pane list --workspace`` within the same call.

Two cases, told apart by what the failed call said:

* **It succeeded without the id** (an empty ``result``, a root pane or pane without ``pane_id``).
  Herdr made it just now, so it is the newest pane of the workspace (pane numbers only grow): the
  newest pane is taken when it looks exactly like what was asked for.
* **It did not answer** (a timeout, a lost reply, a crash). Herdr may still complete it after the
  kill, so the panes present right after the failure are taken as *before*, and ``pane list`` is
  asked again until a new pane that looks like what was asked for appears, for at most one more
  command timeout. A pane that was already there is never taken: it may be someone else's.

A candidate is closed only when it is the single one; two or more are logged and left. Nothing
runs after the call returns (spec §9: no daemon).
"""

import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, Final

import anyio

from herdr_link_protocol import LinkError

from ._commands import Role, pane_close, pane_list, tab_close
from ._herdr import HerdrCLI

__all__ = ["pane_number", "reclaim", "split_candidates", "tab_candidates"]

log: Final = logging.getLogger("herdr_link")

POLL_INTERVAL: Final = 0.2
"""Seconds between two ``pane list`` calls while waiting for a late allocation."""
_DIGITS: Final = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"
"""Herdr's bijective base-32 alphabet for the numbers in ids (``herdr-cli.md`` §3)."""

Panes = Sequence[dict[str, Any]]
Pick = Callable[[Panes, set[str] | None], list[list[str]]]
"""From the workspace's panes (and the pane ids present before, or ``None`` for "newest only"),
the close commands of every candidate."""


def pane_number(pane_id: object) -> int | None:
    """The number in ``<ws>:p<encoded>``; ``None`` for any other form."""
    if not isinstance(pane_id, str) or ":p" not in pane_id:
        return None
    value = 0
    for char in pane_id.rsplit(":p", 1)[1]:
        digit = _DIGITS.find(char)
        if digit < 0:
            return None
        value = value * 32 + digit + 1
    return value or None


def _same_directory(reported: object, wanted: str) -> bool:
    return isinstance(reported, str) and (reported == wanted or os.path.realpath(reported) == os.path.realpath(wanted))


def _is_plain_shell(pane: dict[str, Any]) -> bool:
    return "agent" not in pane and pane.get("agent_status") == "unknown"


def _fresh(panes: Panes, before: set[str] | None) -> list[dict[str, Any]]:
    """The panes that appeared since ``before``; with ``None``, the newest pane alone."""
    if before is not None:
        return [p for p in panes if p.get("pane_id") not in before]
    numbered = [(pane_number(p.get("pane_id")), p) for p in panes]
    newest = max((n for n, _ in numbered if n is not None), default=None)
    return [p for n, p in numbered if n is not None and n == newest]


def tab_candidates(cwd: str) -> Pick:
    """A new tab's root: a plain shell alone in its tab, in ``cwd``; closed with ``tab close``."""

    def pick(panes: Panes, before: set[str] | None) -> list[list[str]]:
        sizes: dict[object, int] = {}
        for pane in panes:
            sizes[pane.get("tab_id")] = sizes.get(pane.get("tab_id"), 0) + 1
        return [
            tab_close(pane["tab_id"])
            for pane in _fresh(panes, before)
            if _is_plain_shell(pane) and _same_directory(pane.get("cwd"), cwd) and isinstance(pane.get("tab_id"), str)
            and sizes[pane.get("tab_id")] == 1
        ]  # fmt: skip

    return pick


def split_candidates(anchor_pane: str, cwd: str) -> Pick:
    """A split of the anchor: a plain shell in the anchor's tab, in ``cwd``; closed with ``pane close``."""

    def pick(panes: Panes, before: set[str] | None) -> list[list[str]]:
        tab = next((p.get("tab_id") for p in panes if p.get("pane_id") == anchor_pane), None)
        return [
            pane_close(pane["pane_id"])
            for pane in _fresh(panes, before)
            if tab is not None and pane.get("tab_id") == tab and pane.get("pane_id") != anchor_pane
            and _is_plain_shell(pane) and _same_directory(pane.get("cwd"), cwd)
        ]  # fmt: skip

    return pick


async def _panes(cli: HerdrCLI, workspace_id: str) -> Panes | None:
    try:
        reply = await cli.call(pane_list(workspace_id), Role.PANE_LIST)
    except LinkError as error:
        log.warning("looking for what a failed start left: pane list failed: %s", error.detail)
        return None
    result = reply.get("result")
    panes = result.get("panes") if isinstance(result, dict) else None
    return [p for p in panes if isinstance(p, dict)] if isinstance(panes, list) else None


async def reclaim(cli: HerdrCLI, workspace_id: str, what: str, pick: Pick, *, answered: bool) -> None:
    """Find and close what a failed ``what`` left, shielded and bounded by one command timeout.

    ``answered``: the command answered without the id (it made something just now); otherwise it
    did not answer at all and may still complete. Never raises; every outcome is logged.
    """
    with anyio.CancelScope(shield=True), anyio.move_on_after(cli.timeouts.command) as window:
        before: set[str] | None = None
        if not answered:
            first = await _panes(cli, workspace_id)
            if first is None:
                return
            before = {p["pane_id"] for p in first if isinstance(p.get("pane_id"), str)}
        while True:
            panes = await _panes(cli, workspace_id)
            if panes is None:
                return
            found = pick(panes, before)
            if len(found) == 1:
                try:
                    await cli.call(found[0], Role.ROLLBACK)
                    log.info("closed what a failed %s left: herdr %s", what, " ".join(found[0]))
                except LinkError as error:
                    log.warning("herdr %s (left by a failed %s) failed: %s", " ".join(found[0]), what, error.detail)
                return
            if len(found) > 1:
                left = "; ".join(" ".join(c) for c in found)
                log.warning("a failed %s may have left one of several candidates; left them all: %s", what, left)
                return
            if answered:
                log.warning("a failed %s left nothing recognisable as its own; nothing closed", what)
                return
            await anyio.sleep(POLL_INTERVAL)
    if window.cancelled_caught:
        log.warning(
            "a failed %s made nothing within one more command timeout; if Herdr completes it later, it stays", what
        )
