"""Wall time per operation against the simulated Herdr (real ``herdr`` CLI processes over its real
socket), and 20 parallel ``peers`` requests on one MCP server as a ratio of 20 sequential ones.

Part of ``python3 -m nox -s bench``; ``uv run python benchmarks/bench_wall.py`` prints the figures.
"""

import json
import statistics
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import anyio

from herdr_link import agent_session
from herdr_link_control import Link
from herdr_link_testkit import Fault, HerdrSim

SAMPLES = 20
PARALLEL = 20


async def _timed(call: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def operations() -> dict[str, float]:
    """Median wall milliseconds per Link operation, each through real ``herdr`` processes."""
    results: dict[str, list[float]] = {"peers": [], "send": [], "close": [], "start, new tab": [], "start, with": []}
    with HerdrSim() as sim:
        brain = sim.create_workspace(str(sim.root))
        sim.add_agent(brain, "claude", name="brain")
        reviewer = sim.split(brain)
        sim.add_agent(reviewer, "codex", name="reviewer")
        link = Link(sim.env(brain))
        await link.bootstrap()
        for index in range(SAMPLES):
            results["peers"].append(await _timed(link.peers))
            results["send"].append(await _timed(lambda: link.send("reviewer", "please review the design")))
            new_tab = {"name": f"tab-{index}", "kind": "pi", "args": []}
            results["start, new tab"].append(await _timed(partial(link.start, new_tab)))
            start_with = {"name": f"with-{index}", "kind": "pi", "args": [], "with": "reviewer"}
            results["start, with"].append(await _timed(partial(link.start, start_with)))
            results["close"].append(await _timed(partial(link.close, f"tab-{index}")))
            await link.close(f"with-{index}")
    return {name: statistics.median(samples) for name, samples in results.items()}


async def parallel_peers(latency: float = 0.0) -> dict[str, Any]:
    """20 ``herdr_link_peers`` calls on one MCP server: one after another, then all at once.

    With ``latency``, Herdr takes that many more seconds to answer every ``agent list``, as a busy
    Herdr would: then the ratio shows the overlap without this machine's CPU count in the way.
    """
    with HerdrSim() as sim:
        if latency:
            sim.fault_method("agent.list", Fault("delay", seconds=latency, times=None))
        brain = sim.create_workspace()
        sim.add_agent(brain, "claude", name="brain")
        for index in range(3):
            pane = sim.split(brain)
            sim.add_agent(pane, "codex", name=f"peer-{index}")
        async with agent_session(sim.env(brain)) as session:
            await session.call_tool("herdr_link", {})
            await session.call_tool("herdr_link_peers", {})  # warm: bootstrap and caches
            started = time.perf_counter()
            for _ in range(PARALLEL):
                await session.call_tool("herdr_link_peers", {})
            sequential = time.perf_counter() - started
            before = len(sim.log.commands())
            started = time.perf_counter()
            async with anyio.create_task_group() as group:
                for _ in range(PARALLEL):
                    group.start_soon(session.call_tool, "herdr_link_peers", {})
            parallel = time.perf_counter() - started
            calls = len(sim.log.commands()) - before
    return {
        "sequential_ms": sequential * 1000,
        "parallel_ms": parallel * 1000,
        "ratio": parallel / sequential,
        "herdr_calls": calls,
    }


async def figures() -> dict[str, Any]:
    """Every figure of this module."""
    return {
        "operations": await operations(),
        "parallel": await parallel_peers(),
        "parallel_slow_herdr": await parallel_peers(latency=0.1),
    }


if __name__ == "__main__":
    print(json.dumps(anyio.run(figures), indent=2))
