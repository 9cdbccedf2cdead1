"""MCP cold start: spawn to ``initialize`` response, beside the bare SDK import (median of N).

Run with ``python3 -m nox -s bench``.
"""

import json
import os
import statistics
import subprocess
import sys
import time

from herdr_link_testkit import HerdrSim

RUNS = 20
# Installed packages run from cached bytecode (pip compiles at install): measure that, not recompiling.
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    + "\n"
)


def spawn_to_initialize(env: dict[str, str]) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "herdr_link_mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE.encode())
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    assert json.loads(line)["result"]["serverInfo"]["name"] == "herdr-link"
    process.stdin.close()
    process.wait(timeout=10)
    return elapsed * 1000


def run(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=BASE_ENV)
    return (time.perf_counter() - started) * 1000


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def main() -> None:
    run("import herdr_link_mcp._server, herdr_link_mcp.cli, mcp.server.stdio")  # warm the bytecode cache
    samples: dict[str, list[float]] = {"bare": [], "sdk": [], "ours": []}
    for _ in range(RUNS):  # interleaved, so drift on a busy machine hits every column alike
        samples["bare"].append(run("pass"))
        samples["sdk"].append(run("import mcp.server.lowlevel, mcp.server.stdio"))
        samples["ours"].append(run("import herdr_link_mcp._server, herdr_link_mcp.cli, mcp.server.stdio"))
    bare, sdk, ours = (median(samples[key]) for key in ("bare", "sdk", "ours"))
    outside_env = {k: v for k, v in BASE_ENV.items() if not k.startswith("HERDR_")}
    outside = median([spawn_to_initialize(outside_env) for _ in range(RUNS)])
    with HerdrSim() as sim:
        pane = sim.create_workspace()
        sim.add_agent(pane, "claude", name="brain")
        inside_env = sim.env(pane, base=BASE_ENV)
        inside = median([spawn_to_initialize(inside_env) for _ in range(RUNS)])
    print(f"| what (median of {RUNS}, ms) | value |")
    print("|---|---:|")
    print(f"| bare `python -c pass` | {bare:.0f} |")
    print(f"| import the SDK (`mcp.server.lowlevel` + `mcp.server.stdio`) | {sdk:.0f} |")
    print(f"| import herdr-link-mcp and the SDK | {ours:.0f} |")
    print(
        f"| our share of the import (over the SDK's {sdk - bare:.0f} ms) | {ours - sdk:.0f} "
        f"({100 * (ours - sdk) / (sdk - bare):.0f}%) |"
    )
    print(f"| spawn → `initialize` response, outside Herdr | {outside:.0f} |")
    print(f"| spawn → `initialize` response, inside Herdr | {inside:.0f} |")


if __name__ == "__main__":
    main()
