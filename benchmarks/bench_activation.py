"""Activation over stdio, per host kind: ``tools/call herdr_link {}`` sent → its result received.

A real server in a simulated Herdr pane, driven over raw pipes as a host drives it: one client that
re-lists tools on ``notifications/tools/list_changed`` (as Claude Code does), and one that never
re-lists (the server then waits out ``RELIST_WAIT`` before it answers). When ``HERDR_LINK_TS_BUNDLE``
names the TypeScript 0.5.1 MCP bundle (``dist/herdr-link.mcp.js``, not ours to commit), the same
runs go to ``node <bundle>``, interleaved with ours, on the same simulator.

Run with ``python3 -m nox -s bench``.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

from herdr_link_testkit import HerdrSim

RUNS = 10
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("HERDR_")}
CLIENTS = {
    "re-lists (Claude Code)": ("claude-code", True),
    "known never to re-list (Codex)": ("codex-mcp-client", False),
    "unknown, never re-lists": ("some-new-host", False),
}


def servers() -> dict[str, list[str]]:
    """Ours, and the TypeScript bundle when ``HERDR_LINK_TS_BUNDLE`` names one and Node is here."""
    found = {"ours": [sys.executable, "-m", "herdr_link_mcp"]}
    bundle, node = os.environ.get("HERDR_LINK_TS_BUNDLE"), shutil.which("node")
    if bundle and node and os.path.isfile(bundle):
        found["TypeScript"] = [node, bundle]
    return found


def _send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _next(process: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        raise RuntimeError("the server closed its stdout")
    message: dict[str, Any] = json.loads(line)
    return message


def activation_ms(command: list[str], env: dict[str, str], client: str, relists: bool) -> tuple[float, float]:
    """(spawn → ``initialize`` answered, activation sent → its result) in ms, for one fresh server."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    try:
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}
        _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        while _next(process).get("id") != 1:
            pass
        initialized = (time.perf_counter() - started) * 1000
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        while _next(process).get("id") != 2:
            pass
        begun = time.perf_counter()
        _send(
            process,
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "herdr_link", "arguments": {}}},
        )
        while True:
            message = _next(process)
            if message.get("method") == "notifications/tools/list_changed" and relists:
                _send(process, {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}})
            if message.get("id") == 3:
                return initialized, (time.perf_counter() - begun) * 1000
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)
        assert process.stdout is not None
        process.stdout.close()


def figures() -> dict[str, dict[str, float]]:
    """Medians in ms per server: ``initialize`` and activation per client kind, interleaved."""
    commands = servers()
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in commands}
    with HerdrSim() as sim:
        pane = sim.create_workspace()
        sim.add_agent(pane, "claude", name="brain")
        env = sim.env(pane, base=BASE_ENV)
        for _ in range(RUNS):
            for kind, (client, relists) in CLIENTS.items():
                for name, command in commands.items():
                    initialized, activated = activation_ms(command, env, client, relists)
                    samples[name].setdefault("initialize", []).append(initialized)
                    samples[name].setdefault(kind, []).append(activated)
    return {name: {key: statistics.median(values) for key, values in rows.items()} for name, rows in samples.items()}


if __name__ == "__main__":
    print(json.dumps(figures(), indent=2))
