"""Wall time per operation over MCP stdio against the simulated Herdr (real ``herdr`` CLI processes
over its real socket), and 20 parallel ``peers`` requests on one server as a ratio of 20 sequential ones.

Every figure is taken for each server of ``servers.servers()``: ours, and the TypeScript bundle when
``HERDR_LINK_TS_BUNDLE`` names it, interleaved on the same simulator.

Part of ``nox -s bench``; ``uv run python benchmarks/bench_wall.py`` prints the figures.
"""

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from servers import OURS, OUTSIDE_HERDR, StdioServer, running, servers, text_of

from herdr_link_testkit import Fault, HerdrSim

SAMPLES = 20
PARALLEL = 20
OPERATIONS = ("peers", "send", "start, new tab", "start, with", "close")


def _operation(name: str, index: int, tag: str) -> tuple[str, dict[str, Any]]:
    match name:
        case "peers":
            return "herdr_link_peers", {}
        case "send":
            return "herdr_link_send", {"to": "reviewer", "message": "please review the design"}
        case "start, new tab":
            return "herdr_link_start", {"name": f"tab-{tag}-{index}", "kind": "pi", "args": []}
        case "start, with":
            return "herdr_link_start", {"name": f"with-{tag}-{index}", "kind": "pi", "args": [], "with": "reviewer"}
        case _:
            return "herdr_link_close", {"agent": f"tab-{tag}-{index}"}


def operations() -> dict[str, dict[str, dict[str, float]]]:
    """Per server and operation: median wall ms of the ``tools/call`` round trip, and Herdr calls made."""
    commands = servers()
    times: dict[str, dict[str, list[float]]] = {name: {op: [] for op in OPERATIONS} for name in commands}
    calls: dict[str, dict[str, list[int]]] = {name: {op: [] for op in OPERATIONS} for name in commands}
    with HerdrSim() as sim:
        brain = sim.create_workspace(str(sim.root))
        sim.add_agent(brain, "claude", name="brain")
        reviewer = sim.split(brain)
        sim.add_agent(reviewer, "codex", name="reviewer")
        env = sim.env(brain, base=OUTSIDE_HERDR)
        opened = {name: StdioServer(command, env) for name, command in commands.items()}
        try:
            for server in opened.values():
                server.initialize()
                server.call("herdr_link", {})
                server.call("herdr_link_peers", {})  # warm: bootstrap and caches
            for index in range(SAMPLES):
                for tag, (name, server) in enumerate(opened.items()):
                    for op in OPERATIONS:
                        tool, arguments = _operation(op, index, str(tag))
                        before = len(sim.log.commands())
                        started = time.perf_counter()
                        result = server.call(tool, arguments)
                        times[name][op].append((time.perf_counter() - started) * 1000)
                        calls[name][op].append(len(sim.log.commands()) - before)
                        if result.get("isError"):
                            raise RuntimeError(f"{name} {op}: {text_of(result)}")
                    server.call("herdr_link_close", {"agent": f"with-{tag}-{index}"})
        finally:
            for server in opened.values():
                server.close()
    return {
        name: {
            op: {"ms": statistics.median(times[name][op]), "calls": statistics.median(calls[name][op])}
            for op in OPERATIONS
        }
        for name in commands
    }


def _in_parallel(server: StdioServer, count: int) -> None:
    """``count`` ``herdr_link_peers`` requests written at once, then every answer read."""
    pending: set[object] = set()
    for _ in range(count):
        ident = server.request_id()
        pending.add(ident)
        params = {"name": "herdr_link_peers", "arguments": {}}
        server.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params})
    while pending:
        pending.discard(server.receive().get("id"))


def _timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def parallel_peers(command: list[str], latency: float = 0.0) -> dict[str, Any]:
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
        with running(command, sim.env(brain, base=OUTSIDE_HERDR)) as server:
            server.call("herdr_link", {})
            server.call("herdr_link_peers", {})  # warm: bootstrap and caches
            sequential = _timed(lambda: [server.call("herdr_link_peers", {}) for _ in range(PARALLEL)])
            before = len(sim.log.commands())
            parallel = _timed(lambda: _in_parallel(server, PARALLEL))
            calls = len(sim.log.commands()) - before
    return {
        "sequential_ms": sequential * 1000,
        "parallel_ms": parallel * 1000,
        "ratio": parallel / sequential,
        "herdr_calls": calls,
    }


def trace_cost(command: list[str], samples: int = 3 * SAMPLES) -> dict[str, float]:
    """A send's wall time with the trace off and on (issue 51): two of our servers on one simulator,
    their sends interleaved so that a busy machine's drift hits both alike."""
    with tempfile.TemporaryDirectory() as folder, HerdrSim() as sim:
        brain = sim.create_workspace(str(sim.root))
        sim.add_agent(brain, "claude", name="brain")
        sim.add_agent(sim.split(brain), "codex", name="reviewer")
        settings = {}
        for mode, trace in (("off", ""), ("on", f'[trace]\nfile = "{folder}/trace.jsonl"\n')):
            settings[mode] = Path(folder) / f"{mode}.toml"
            settings[mode].write_text("[loop_guard]\nmessages = 0\n" + trace)  # the trace's cost, not the guard's
        env = sim.env(brain, base=OUTSIDE_HERDR)
        opened = {
            mode: StdioServer(command, {**env, "HERDR_LINK_CONFIG": str(path)}) for mode, path in settings.items()
        }
        times: dict[str, list[float]] = {mode: [] for mode in opened}
        try:
            for server in opened.values():
                server.initialize()
                server.call("herdr_link", {})
                server.call("herdr_link_peers", {})
            for index in range(samples):
                for mode in ("off", "on") if index % 2 else ("on", "off"):
                    started = time.perf_counter()
                    opened[mode].call("herdr_link_send", {"to": "reviewer", "message": f"m{index}"})
                    times[mode].append((time.perf_counter() - started) * 1000)
        finally:
            for server in opened.values():
                server.close()
    off, on = statistics.median(times["off"]), statistics.median(times["on"])
    return {"off_ms": off, "on_ms": on, "ratio": on / off}


def figures() -> dict[str, Any]:
    """Every figure of this module, per server."""
    commands = servers()
    return {
        "operations": operations(),
        "parallel": {name: parallel_peers(command) for name, command in commands.items()},
        "parallel_slow_herdr": {name: parallel_peers(command, latency=0.1) for name, command in commands.items()},
        "trace": trace_cost(commands[OURS]),
    }


if __name__ == "__main__":
    print(json.dumps(figures(), indent=2))
