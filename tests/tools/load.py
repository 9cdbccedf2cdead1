"""A load run: many agents in one simulated workspace, each through its own ``herdr-link-mcp``
server, sending messages to random peers at the same time; then every inbox is checked.

Used by ``tests/test_load.py`` at a small size and by ``nox -s bench`` at full size (the bench reads it
from here; no test imports the bench). Not part of any distribution: ``pip install herdr-link`` does
not ship it.
"""

import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.types as types
from mcp import ClientSession

from herdr_link import agent_session
from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim

__all__ = ["LoadReport", "check_inboxes", "run_load"]


@dataclass
class LoadReport:
    """What a load run sent, what arrived where, and how long it took."""

    agents: int
    messages: int
    sent: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Message id → (sender, recipient), from the send receipts."""
    errors: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    misdelivered: list[str] = field(default_factory=list)
    unexpected: int = 0
    """Deliveries that hold no envelope, or one whose id no receipt named."""

    @property
    def exactly_once(self) -> bool:
        """Every receipt's message arrived once, in its recipient's pane, from its sender; nothing else did."""
        wanted = self.agents * self.messages
        clean = not (self.errors or self.lost or self.duplicated or self.misdelivered or self.unexpected)
        return clean and len(self.sent) == wanted

    def percentile(self, fraction: float) -> float:
        """A latency percentile in milliseconds (nearest rank)."""
        ordered = sorted(self.latencies_ms)
        return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]

    @property
    def throughput(self) -> float:
        """Delivered messages per second over the whole sending phase."""
        return len(self.sent) / self.seconds if self.seconds else 0.0

    def summary(self) -> dict[str, Any]:
        """The figures, as plain values."""
        return {
            "agents": self.agents,
            "messages_per_agent": self.messages,
            "sent": len(self.sent),
            "errors": len(self.errors),
            "lost": len(self.lost),
            "duplicated": len(self.duplicated),
            "misdelivered": len(self.misdelivered),
            "unexpected": self.unexpected,
            "exactly_once": self.exactly_once,
            "seconds": round(self.seconds, 2),
            "throughput_per_s": round(self.throughput, 1),
            "latency_p50_ms": round(statistics.median(self.latencies_ms), 1) if self.latencies_ms else None,
            "latency_p99_ms": round(self.percentile(0.99), 1) if self.latencies_ms else None,
        }


def _agent_names(count: int) -> list[str]:
    return [f"agent-{index:02d}" for index in range(count)]


async def _sender(
    name: str, session: ClientSession, peers: list[str], count: int, rng: random.Random, report: LoadReport
) -> None:
    for index in range(count):
        to = rng.choice(peers)
        started = time.perf_counter()
        result = await session.call_tool("herdr_link_send", {"to": to, "message": f"{name} #{index} to {to}"})
        report.latencies_ms.append((time.perf_counter() - started) * 1000)
        text = next((c.text for c in result.content if isinstance(c, types.TextContent)), "")
        if result.is_error:
            report.errors.append(f"{name}: {text}")
            continue
        report.sent[json.loads(text)["id"]] = (name, to)


def check_inboxes(sim: HerdrSim, panes: dict[str, str], report: LoadReport) -> None:
    """Read every pane's deliveries into ``report``: lost, duplicated, misdelivered and unexpected."""
    seen: dict[str, int] = {}
    for name, pane in panes.items():
        for delivery in sim.deliveries(pane):
            envelope = extract_envelope(delivery.text)
            if envelope is None or envelope.id not in report.sent:
                report.unexpected += 1
                continue
            seen[envelope.id] = seen.get(envelope.id, 0) + 1
            if report.sent[envelope.id] != (envelope.from_, name) or envelope.to != name:
                report.misdelivered.append(envelope.id)
    report.lost = [mid for mid in report.sent if mid not in seen]
    report.duplicated = [mid for mid, count in seen.items() if count > 1]


async def run_load(agents: int = 16, messages: int = 50, *, seed: int = 1) -> LoadReport:
    """Start ``agents`` named agents, each with its own MCP server, and let each send ``messages``
    messages to random peers concurrently; then check every pane's deliveries."""
    report = LoadReport(agents, messages)
    names = _agent_names(agents)
    rng = random.Random(seed)
    with HerdrSim() as sim:
        root = sim.create_workspace()
        panes = {names[0]: root}
        for name in names[1:]:
            panes[name] = sim.split(root)
        for name, pane in panes.items():
            sim.add_agent(pane, "claude", name=name)
        ready, go = anyio.Event(), anyio.Event()
        connected: list[str] = []
        finished: list[float] = []

        async def agent(name: str, rng_seed: float) -> None:
            async with agent_session(sim.env(panes[name])) as session:
                await session.call_tool("herdr_link", {})
                connected.append(name)
                if len(connected) == agents:
                    ready.set()
                await go.wait()
                peers = [peer for peer in names if peer != name]
                await _sender(name, session, peers, messages, random.Random(rng_seed), report)
                finished.append(time.perf_counter())

        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(agent, name, rng.random())
            await ready.wait()  # every server is up and activated: only sending is timed
            started = time.perf_counter()
            go.set()
        report.seconds = max(finished) - started
        check_inboxes(sim, panes, report)
    return report
