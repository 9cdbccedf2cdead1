"""MCP cold start: spawn to ``initialize`` response, beside the bare SDK import (median of N).

Run with ``python3 -m nox -s bench``.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

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


SCRIPT: tuple[str, ...] = (
    (str(Path(sys.executable).parent / "herdr-link-mcp"),)
    if (Path(sys.executable).parent / "herdr-link-mcp").is_file()
    else ("-m", "herdr_link_mcp")
)
"""How hosts run the server: the console script ``wiring`` prints (``python -m`` where there is none)."""


def run_command(*args: str) -> float:
    started = time.perf_counter()
    argv = list(args) if args[0].startswith("/") else [sys.executable, *args]
    subprocess.run(argv, check=True, env=BASE_ENV, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def light_figures() -> dict[str, float]:
    """Medians in ms, interleaved: bare Python, ``import pydantic``, ``import herdr_link_protocol`` and
    the subcommands hosts run often (``hint`` runs at the start of every Codex, Gemini and AGY session)."""
    commands = {
        "bare": ("-c", "pass"),
        "pydantic": ("-c", "import pydantic"),
        "protocol": ("-c", "import herdr_link_protocol"),
        "protocol_texts": ("-c", "import herdr_link_protocol as p; p.tier0_hint(p.PresentationForm.MCP_PREFIXED, 'x')"),
        "version": (*SCRIPT, "--version"),
        "hint": (*SCRIPT, "hint", "--host", "codex"),
    }
    for command in commands.values():
        run_command(*command)  # warm the bytecode cache
    samples: dict[str, list[float]] = {key: [] for key in commands}
    for _ in range(RUNS):
        for key, command in commands.items():
            samples[key].append(run_command(*command))
    return {key: median(values) for key, values in samples.items()}


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def idle_rss_mib(env: dict[str, str]) -> float:
    """Resident memory of an initialised, idle server (``VmRSS`` from ``/proc``), in MiB."""
    process = subprocess.Popen(
        [sys.executable, "-m", "herdr_link_mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE.encode())
    process.stdin.flush()
    process.stdout.readline()
    time.sleep(1.0)  # past the delayed bootstrap: idle
    status = Path(f"/proc/{process.pid}/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    process.stdin.close()
    process.wait(timeout=10)
    return rss / 1024


def figures() -> dict[str, float]:
    """Medians in ms (import times, spawn to ``initialize`` outside and inside Herdr) and idle RSS."""
    run("import herdr_link_mcp._server, herdr_link_mcp.cli, mcp.server.stdio")  # warm the bytecode cache
    samples: dict[str, list[float]] = {"bare": [], "sdk": [], "ours": []}
    for _ in range(RUNS):  # interleaved, so drift on a busy machine hits every column alike
        samples["bare"].append(run("pass"))
        samples["sdk"].append(run("import mcp.server.lowlevel, mcp.server.stdio"))
        samples["ours"].append(run("import herdr_link_mcp._server, herdr_link_mcp.cli, mcp.server.stdio"))
    result = {key: median(values) for key, values in samples.items()}
    outside_env = {k: v for k, v in BASE_ENV.items() if not k.startswith("HERDR_")}
    result["outside"] = median([spawn_to_initialize(outside_env) for _ in range(RUNS)])
    with HerdrSim() as sim:
        pane = sim.create_workspace()
        sim.add_agent(pane, "claude", name="brain")
        inside_env = sim.env(pane, base=BASE_ENV)
        result["inside"] = median([spawn_to_initialize(inside_env) for _ in range(RUNS)])
        result["rss_mib"] = idle_rss_mib(inside_env)
    return result


if __name__ == "__main__":
    print(json.dumps(figures(), indent=2))
