"""What ``--launcher uvx`` adds: the ``uvx`` command ``wiring --launcher uvx`` writes
(``server_command("uvx")``: ``uvx --compile-bytecode herdr-link-mcp@<version>``) against the installed
console script, for the server (spawn → ``initialize`` answered) and the hint hook (a whole run), and
the first start of the environment uv made for it (the hint hook of a session's start installs it, as
in a Codex session), with and without ``--compile-bytecode``, beside the TypeScript server's spawn when
``HERDR_LINK_TS_BUNDLE`` names its bundle.

    nox -s dist                                            # builds the wheelhouse dist/
    uv run python benchmarks/bench_uvx.py dist             # medians of RUNS interleaved runs

Needs ``uvx`` on PATH and the index for third-party dependencies (each first run fills a throwaway uv
cache: not counted). Not part of ``nox -s bench``: the distributions are not on an index yet, so the
wheelhouse must be built first.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from bench_mcp_start import IN_A_PANE, spawn_to_initialize
from servers import TYPESCRIPT, servers

from herdr_link_mcp import server_command

RUNS = 10
FIRST_RUNS = 3
"""Fresh caches for the first spawn (each fills one from the index)."""


def whole_run(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env | IN_A_PANE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def installed_script(cache: str) -> Path:
    """The ``herdr-link-mcp`` script of the environment ``uvx`` made in ``cache`` (uv's tool environments
    live under its ``archive-v0``)."""
    [script] = Path(cache).glob("archive-v*/*/bin/herdr-link-mcp")
    return script


def main(wheelhouse: str) -> int:
    uvx = shutil.which("uvx")
    script = Path(sys.executable).parent / "herdr-link-mcp"
    assert uvx and script.is_file(), "needs uvx on PATH and herdr-link-mcp installed beside this Python"
    launched = [uvx, *server_command("uvx", [wheelhouse])[1:]]
    assert "--compile-bytecode" in launched and launched[-1] == f"herdr-link-mcp@{version('herdr-link-mcp')}"
    typescript = servers().get(TYPESCRIPT)
    samples: dict[str, list[float]] = {}
    plain = [arg for arg in launched if arg != "--compile-bytecode"]
    for _ in range(FIRST_RUNS):  # each in a fresh cache: the hint hook installs, the server's first spawn follows
        for name, command in (("uvx --compile-bytecode", launched), ("uvx without --compile-bytecode", plain)):
            env = {**os.environ, "UV_CACHE_DIR": tempfile.mkdtemp()}
            whole_run([*command, "hint", "--host", "codex"], env)  # uv installs (and compiles): not counted
            installed = installed_script(env["UV_CACHE_DIR"])
            first = spawn_to_initialize([str(installed)], env)  # the environment's first server start
            samples.setdefault(f"server: first spawn of the environment {name} made", []).append(first)
        if typescript:
            samples.setdefault("server: TypeScript (node bundle)", []).append(spawn_to_initialize(typescript, env))
    commands = {
        "console script": [str(script)],
        "uvx": launched,
        "uvx --offline": [uvx, "--offline", *launched[1:]],
    }
    for _ in range(RUNS):
        for name, command in commands.items():
            samples.setdefault(f"server: {name}", []).append(spawn_to_initialize(command, env))
            samples.setdefault(f"hint hook: {name}", []).append(whole_run([*command, "hint", "--host", "codex"], env))
    for key, values in samples.items():
        sys.stdout.write(f"{key}: {statistics.median(values):.0f} ms\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "dist"))
