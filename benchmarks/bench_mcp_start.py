"""MCP cold start: spawn → ``initialize``, → dormant ``tools/list``, → first activation answered, and idle
memory, beside a bare ``python -c pass`` and the bare SDK import (median of N).

With ``HERDR_LINK_TS_BUNDLE`` the TypeScript server's figures are measured in the same runs, interleaved
with ours, beside a bare ``node -e 0``.

Run with ``nox -s bench``.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from servers import OURS, OUTSIDE_HERDR, TYPESCRIPT, in_a_terminal, servers

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


def spawn_to_initialize(command: list[str], env: dict[str, str]) -> float:
    """Milliseconds from spawning ``command`` to its ``initialize`` answer."""
    return spawn_to_answers(command, env, activate=False)["initialize"]


LISTED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
TOOLS_LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
ACTIVATE = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"herdr_link","arguments":{}}}\n'
RELIST = '{"jsonrpc":"2.0","id":4,"method":"tools/list"}\n'
PEERS = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"herdr_link_peers","arguments":{}}}\n'


def spawn_to_answers(command: list[str], env: dict[str, str], *, activate: bool) -> dict[str, float]:
    """Milliseconds from spawn to each answer, as a host that re-lists drives a fresh server: ``initialize``,
    then the dormant ``tools/list``, then (``activate``) the ``herdr_link {}`` call, re-listing when the
    change is signalled."""
    started = time.perf_counter()
    process, terminal = in_a_terminal(command, env)  # a server in a pane shows its pane (the pane proof)
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def send(text: str) -> None:
        stdin.write(text.encode())
        stdin.flush()

    def answer(ident: int) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(stdout.readline())
            if message.get("method") == "notifications/tools/list_changed":
                send(RELIST)
            if message.get("id") == ident:
                return message

    figures: dict[str, float] = {}
    send(INITIALIZE)
    assert answer(1)["result"]["serverInfo"]["name"] == "herdr-link"
    figures["initialize"] = (time.perf_counter() - started) * 1000
    send(LISTED + TOOLS_LIST)
    answer(2)
    figures["tools_list"] = (time.perf_counter() - started) * 1000
    if activate:
        send(ACTIVATE)
        assert not answer(3)["result"].get("isError")
        figures["activation"] = (time.perf_counter() - started) * 1000
        send(PEERS)  # the first Tier 1 call: the SDK's, with Herdr asked
        assert not answer(5)["result"].get("isError")
        figures["first_tier1"] = (time.perf_counter() - started) * 1000
    stdin.close()
    process.wait(timeout=30)
    stdout.close()
    os.close(terminal)
    return figures


LOAD_SDK = "import herdr_link_mcp._sdk as sdk; sdk.load_stdio_sdk()\n"
OURS_IMPORT = "import herdr_link_mcp._server, herdr_link_mcp._transport, herdr_link_mcp.cli\n"
"""The SDK as the server loads it: its stdio side only (``herdr_link_mcp/_sdk.py``)."""

OURS_AFTER_SDK = (
    LOAD_SDK + "import time\n"
    "started = time.perf_counter()\n"
    "import herdr_link_mcp._server, herdr_link_mcp._transport, herdr_link_mcp.cli\n"
    "print((time.perf_counter() - started) * 1000)"
)
"""Our own import, timed inside a fresh process once the SDK is loaded: the SDK's second-long, noisy
import is not in the difference at all."""


def ours_after_sdk() -> float:
    """Milliseconds our server's modules take to import over an already imported SDK, in a fresh process."""
    done = subprocess.run([sys.executable, "-c", OURS_AFTER_SDK], check=True, env=BASE_ENV, capture_output=True)
    return float(done.stdout)


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


IN_A_PANE = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/usr/bin/herdr", "HERDR_PANE_ID": "w1:p1"}
"""What a host started in a Herdr pane inherits: ``hint`` then prints the whole hook output (it runs no Herdr call)."""


def run_command(*args: str) -> float:
    started = time.perf_counter()
    argv = list(args) if args[0].startswith("/") else [sys.executable, *args]
    subprocess.run(argv, check=True, env=BASE_ENV | IN_A_PANE, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


PIP_SCRIPT_TEMPLATE = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from herdr_link_mcp.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""
"""The console script pip writes for ``herdr-link-mcp`` (its distlib template; uv's imports no ``re``)."""


def pip_made_script(directory: Path) -> str:
    """A console script as pip makes it, in ``directory``, for this interpreter."""
    script = directory / "herdr-link-mcp"
    script.write_text(PIP_SCRIPT_TEMPLATE.format(python=sys.executable))
    script.chmod(0o755)
    return str(script)


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
        # pip's console scripts import re (and with it enum) before our code runs; uv's do not.
        "hint_pip": (pip_made_script(Path(tempfile.mkdtemp())), "hint", "--host", "codex"),
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


def idle_rss_mib(command: list[str], env: dict[str, str]) -> float:
    """Resident memory of an initialised, idle server (``VmRSS`` from ``/proc``), in MiB: measured a second
    after it answered a ``ping`` (which ours leaves to the SDK, so the SDK has loaded)."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE.encode() + LISTED.encode() + b'{"jsonrpc":"2.0","id":9,"method":"ping"}\n')
    process.stdin.flush()
    while json.loads(process.stdout.readline()).get("id") != 9:
        pass
    time.sleep(1.0)  # past the delayed bootstrap: idle
    status = Path(f"/proc/{process.pid}/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    process.stdin.close()
    process.wait(timeout=10)
    process.stdout.close()
    return rss / 1024


def figures() -> dict[str, float]:
    """Medians in ms (import times; spawn to ``initialize`` and to the dormant ``tools/list`` outside and
    inside Herdr, and inside to the first activation answered) and idle RSS.

    Keys ending in ``_ts`` (and ``node``) are the TypeScript server's, present when it runs.
    """
    commands = servers()
    run("import herdr_link_mcp._server, herdr_link_mcp.cli, mcp.server.stdio")  # warm the bytecode cache
    samples: dict[str, list[float]] = {"bare": [], "types": [], "sdk_whole": [], "sdk": [], "ours": []}
    node = commands[TYPESCRIPT][0] if TYPESCRIPT in commands else None
    for _ in range(RUNS):  # interleaved, so drift on a busy machine hits every column alike
        samples["bare"].append(run("pass"))
        samples["types"].append(run("import mcp_types"))
        samples["sdk_whole"].append(run("import mcp.server.lowlevel"))
        samples["sdk"].append(run(LOAD_SDK))
        samples["ours"].append(run(LOAD_SDK + OURS_IMPORT))
        if node:
            samples.setdefault("node", []).append(run_command(node, "-e", "0"))
    result = {key: median(values) for key, values in samples.items()}
    # Paired: each run's difference, so drift between runs cancels instead of adding up.
    result["sdk_over_bare"] = median([sdk - bare for sdk, bare in zip(samples["sdk"], samples["bare"], strict=True)])
    result["ours_over_sdk"] = median([ours_after_sdk() for _ in range(RUNS)])
    suffix = {OURS: "", TYPESCRIPT: "_ts"}
    console_script = list(SCRIPT) if SCRIPT[0].startswith("/") else None  # as hosts run ours
    hosted = {name: console_script if name == OURS and console_script else cmd for name, cmd in commands.items()}
    with HerdrSim() as sim:
        pane = sim.create_workspace()
        sim.add_agent(pane, "claude", name="brain")
        inside_env = sim.env(pane, base=BASE_ENV)
        starts: dict[str, list[float]] = {}
        for _ in range(RUNS):
            for name, command in hosted.items():
                outside = spawn_to_answers(command, OUTSIDE_HERDR, activate=False)
                inside = spawn_to_answers(command, inside_env, activate=True)
                for where, answers in (("outside_", outside), ("inside_", inside)):
                    for key, value in answers.items():
                        starts.setdefault(where + key + suffix[name], []).append(value)
        result |= {key: median(values) for key, values in starts.items()}
        for name, command in hosted.items():
            result["rss_mib" + suffix[name]] = idle_rss_mib(command, inside_env)
    return result


if __name__ == "__main__":
    print(json.dumps(figures(), indent=2))
