"""Activation over stdio, per host kind: ``tools/call herdr_link {}`` sent → its result received, on a
fresh server (sent right after the dormant ``tools/list``, as a host whose model activates at once
does: ours answers it before its MCP SDK has loaded) and once the server is up (a ``ping`` answered
first, which ours leaves to the SDK).

A real server in a simulated Herdr pane, driven over raw pipes as a host drives it: one client that
re-lists tools on ``notifications/tools/list_changed`` (as Claude Code does), and one that never
re-lists (the server then waits out its re-list wait before it answers). When ``HERDR_LINK_TS_BUNDLE``
names the TypeScript MCP bundle (``dist/herdr-link.mcp.js``, not ours to commit), the same
runs go to ``node <bundle>``, interleaved with ours, on the same simulator.

Run with ``nox -s bench``.
"""

import json
import statistics
import time

from servers import OUTSIDE_HERDR, StdioServer, servers

from herdr_link_testkit import HerdrSim

RUNS = 10
CLIENTS = {
    "re-lists (Claude Code)": ("claude-code", True),
    "known never to re-list (Codex)": ("codex-mcp-client", False),
    "unknown, never re-lists": ("some-new-host", False),
}


def activation_ms(
    command: list[str], env: dict[str, str], client: str, relists: bool, *, fresh: bool = False
) -> tuple[float, float]:
    """(spawn → ``initialize`` answered, activation sent → its result) in ms, for one fresh server;
    ``fresh``: sent straight after the dormant ``tools/list``, else once a ``ping`` was answered."""
    started = time.perf_counter()
    server = StdioServer(command, env)
    try:
        server.initialize(client)
        initialized = (time.perf_counter() - started) * 1000
        server.request("tools/list")
        if not fresh:
            server.request("ping")  # ours answers ping from the SDK's server: the timing starts once it has loaded

        def relist(notification: dict[str, object]) -> None:
            if relists and notification.get("method") == "notifications/tools/list_changed":
                server.send({"jsonrpc": "2.0", "id": "relist", "method": "tools/list", "params": {}})

        begun = time.perf_counter()
        answer = server.request("tools/call", {"name": "herdr_link", "arguments": {}}, on_notification=relist)
        elapsed = (time.perf_counter() - begun) * 1000
        assert not answer["result"].get("isError"), answer  # an activation, not a refusal, is timed
        return initialized, elapsed
    finally:
        server.close()


def figures() -> dict[str, dict[str, float]]:
    """Medians in ms per server: ``initialize`` and activation per client kind, interleaved."""
    commands = servers()
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in commands}
    with HerdrSim() as sim:
        pane = sim.create_workspace()
        sim.add_agent(pane, "claude", name="brain")
        env = sim.env(pane, base=OUTSIDE_HERDR)
        for _ in range(RUNS):
            for kind, (client, relists) in CLIENTS.items():
                for fresh in (True, False):
                    for name, command in commands.items():
                        initialized, activated = activation_ms(command, env, client, relists, fresh=fresh)
                        samples[name].setdefault("initialize", []).append(initialized)
                        samples[name].setdefault(f"fresh: {kind}" if fresh else kind, []).append(activated)
    return {name: {key: statistics.median(values) for key, values in rows.items()} for name, rows in samples.items()}


if __name__ == "__main__":
    print(json.dumps(figures(), indent=2))
