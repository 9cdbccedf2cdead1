"""What ``--launcher uvx`` adds: a cached ``uvx herdr-link-mcp@<version>`` start against the installed
console script, for the server (spawn → ``initialize`` answered) and the hint hook (a whole run).

    nox -s dist                                            # builds the wheelhouse dist/
    uv run python benchmarks/bench_uvx.py dist             # medians of RUNS interleaved runs

Needs ``uvx`` on PATH and the index for third-party dependencies (the first, uncached run fills a
throwaway uv cache and is not counted). Not part of ``nox -s bench``: the distributions are not on an
index yet, so the wheelhouse must be built first.
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

RUNS = 10


def whole_run(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env | IN_A_PANE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def main(wheelhouse: str) -> int:
    uvx = shutil.which("uvx")
    script = Path(sys.executable).parent / "herdr-link-mcp"
    assert uvx and script.is_file(), "needs uvx on PATH and herdr-link-mcp installed beside this Python"
    env = {**os.environ, "UV_CACHE_DIR": tempfile.mkdtemp()}
    launched = [uvx, "--find-links", str(Path(wheelhouse).resolve()), f"herdr-link-mcp@{version('herdr-link-mcp')}"]
    commands = {
        "console script": [str(script)],
        "uvx": launched,
        "uvx --offline": [uvx, "--offline", *launched[1:]],
    }
    whole_run([*launched, "hint", "--host", "codex"], env)  # fills the cache: not counted
    samples: dict[str, list[float]] = {}
    for _ in range(RUNS):
        for name, command in commands.items():
            samples.setdefault(f"server: {name}", []).append(spawn_to_initialize(command, env))
            samples.setdefault(f"hint hook: {name}", []).append(whole_run([*command, "hint", "--host", "codex"], env))
    for key, values in samples.items():
        sys.stdout.write(f"{key}: {statistics.median(values):.0f} ms\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "dist"))
