"""Detection on real panes: what each pane's foreground job and screen say, turned into the
simulator's occupants as Herdr's detection task does (``docs/herdr.md`` §5-§7, §8.4).

A :class:`Detector` thread looks at every real pane every 300 ms (Herdr ticks every 300 ms once an
agent is identified, 500 ms before; one period here), outside the simulator's lock, and applies
what it saw under the lock with :func:`reconcile`.
"""

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from ._detection import identify_agent, screen_state
from ._model import BlockingScreen, Occupant, Pane

if TYPE_CHECKING:
    from ._state import SimulatorState
    from ._terminal import PaneTerminal

__all__ = ["TICK", "Detector", "Observation", "observe", "reconcile"]

TICK: Final = 0.3
SETTLE: Final = 3.0
"""Herdr's ``AGENT_START_SETTLE_DELAY``: a started agent is ready no sooner (``src/app/agents.rs``)."""


@dataclass(frozen=True)
class Observation:
    """What one look at a real pane found."""

    shell_prompt: bool
    """The shell alone is in the foreground: any agent has exited."""
    agent: str | None
    state: Literal["idle", "working", "blocked"] | None
    gone: bool = False
    """The pane's terminal has no foreground job any more (closed)."""
    rows: tuple[str, ...] = ()
    """The screen detection read (for an agent)."""
    title: str = ""


def observe(terminal: "PaneTerminal") -> Observation:
    """Look at a real pane: its foreground job, then (for an agent) its screen and title."""
    job = terminal.foreground_job()
    if job is None:
        return Observation(False, None, None, gone=True)
    group, processes = job
    agent = identify_agent(group, processes)
    if agent is None:
        return Observation(terminal.at_shell_prompt(), None, None)
    rows, title = terminal.visible_lines(), terminal.title
    return Observation(False, agent, screen_state(agent, rows, title), rows=tuple(rows), title=title)


def reconcile(sim: "SimulatorState", pane: Pane, seen: Observation, now: float) -> None:
    """Apply an observation to the pane's occupant (under the simulator's lock)."""
    if seen.gone:
        return
    occupant = pane.occupant
    if occupant is None:
        if seen.agent is not None:  # an agent launched by hand is detected
            pane.occupant = Occupant(kind=seen.agent, status=seen.state or "idle", foreground=True)
            sim.state_change_seq += 1
            sim._bump(pane)
        return
    if occupant.hook_source is not None and occupant.launch is None:
        _hooked(sim, pane, occupant, seen)
        return
    launch = occupant.launch
    if seen.agent is None:
        occupant.foreground = False
        if seen.shell_prompt and (launch is None or not launch.pending or launch.observed):
            sim._clear_occupant(pane)  # the agent process exited: the pane is a shell again, the name cleared
        elif launch is not None and launch.pending and now >= launch.deadline:
            _fail(sim, pane)
        return
    expected = launch.kind if launch is not None and launch.phase != "failed" else occupant.kind
    if expected is not None and seen.agent != expected:
        # Another agent replaced it: its name is cleared; the newcomer is detected unnamed.
        pane.occupant = Occupant(kind=seen.agent, status=seen.state or "idle", foreground=True)
        sim.state_change_seq += 1
        sim._bump(pane)
        return
    if occupant.kind is None:
        occupant.kind = seen.agent
        sim.state_change_seq += 1
        sim._bump(pane)
    occupant.foreground = True
    if seen.state == "blocked" and occupant.status != "blocked":
        _record_blocker(sim, pane, seen, now)
    if seen.state is not None:
        sim._set_status(pane, seen.state)
    if launch is None or not launch.pending:
        return
    launch.observed = True
    if launch.phase == "pending" and seen.state == "blocked":
        launch.phase = "blocked"
        sim._bump(pane)
    elif seen.state == "idle" and (launch.phase == "blocked" or now >= launch.ready_after):
        launch.phase = "active"
        occupant.seen = True
        sim.state_change_seq += 1
        sim._bump(pane)
    elif launch.phase == "pending" and now >= launch.deadline:
        _fail(sim, pane)


def _record_blocker(sim: "SimulatorState", pane: Pane, seen: Observation, now: float) -> None:
    """Keep the screen that blocked an agent (a test instrument: Herdr keeps no such record)."""
    occupant = pane.occupant
    name = occupant.name if occupant is not None else None
    sim.blockers.append(BlockingScreen(pane.id, seen.agent or "", name, "\n".join(seen.rows), seen.title, now))


def _hooked(sim: "SimulatorState", pane: Pane, occupant: Occupant, seen: Observation) -> None:
    """A pane that is an agent by a hook report: promptable only while that agent is in the foreground."""
    occupant.foreground = seen.agent == occupant.kind
    if occupant.foreground and seen.state is not None and not (occupant.hook_source or "").startswith("herdr:"):
        sim._set_status(pane, seen.state)


def _fail(sim: "SimulatorState", pane: Pane) -> None:
    """A managed start that did not become ready: the name is cleared (``docs/herdr.md`` §6)."""
    occupant = pane.occupant
    assert occupant is not None and occupant.launch is not None
    occupant.launch.phase = "failed"
    occupant.name = None
    if occupant.kind is None:
        sim._clear_occupant(pane)
    else:
        sim.state_change_seq += 1
        sim._bump(pane)


class Detector:
    """The detection loop over every real pane of one simulator."""

    def __init__(self, sim: "SimulatorState") -> None:
        self.sim = sim
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="herdr-sim-detection", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(TICK):
            self.tick()

    def tick(self) -> None:
        """One look at every real pane, then the changes applied."""
        with self.sim.lock:
            panes = [p for p in self.sim.all_panes() if p.terminal is not None]
        looks = []
        for pane in panes:
            assert pane.terminal is not None
            looks.append((pane, observe(pane.terminal)))
        now = time.monotonic()
        with self.sim.lock:
            live = set(map(id, self.sim.all_panes()))
            for pane, seen in looks:
                if id(pane) in live:
                    reconcile(self.sim, pane, seen, now)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
