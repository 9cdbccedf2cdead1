"""What each ``herdr-link-mcp`` subcommand loads: ``hint`` (a SessionStart hook in every Codex, Gemini
and AGY session), ``wiring``, ``--version`` and ``--help`` never import the MCP SDK or pydantic."""

import subprocess
import sys

import pytest


def imported(*args: str) -> set[str]:
    """The modules ``herdr-link-mcp <args>`` imports, from ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "herdr_link_mcp", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines}


@pytest.mark.parametrize(
    "args", [("--version",), ("--help",), ("hint", "--host", "codex"), ("wiring", "--host", "gemini")]
)
def test_the_light_subcommands_load_neither_the_sdk_nor_pydantic(args):
    modules = imported(*args)
    assert "herdr_link_mcp.cli" in modules  # the probe sees our own imports
    heavy = {m for m in modules if m.split(".")[0] in ("mcp", "pydantic", "pydantic_core", "anyio", "httpx")}
    assert heavy == set()


def test_the_measurement_sees_the_sdk_when_it_is_imported():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import herdr_link_mcp; herdr_link_mcp.create_server"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "mcp" in modules and "pydantic" in modules


@pytest.mark.parametrize("host", ["claude", "codex", "agy", "gemini"])
@pytest.mark.parametrize("inside", [False, True])
def test_the_quick_paths_print_what_the_parser_paths_print(host, inside, capsys, monkeypatch):
    from herdr_link_mcp.cli import main

    for name in ("HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID"):
        monkeypatch.delenv(name, raising=False)
    if inside:
        monkeypatch.setenv("HERDR_ENV", "1")
        monkeypatch.setenv("HERDR_BIN_PATH", "/usr/bin/herdr")
        monkeypatch.setenv("HERDR_PANE_ID", "w1:p1")
    outputs = []
    for argv in (["hint", "--host", host], ["hint", f"--host={host}"], ["--version"], ["--version", "serve"]):
        assert main(argv) == 0
        outputs.append(capsys.readouterr())
    assert outputs[0] == outputs[1] and outputs[2] == outputs[3]
    assert outputs[2].out.startswith("herdr-link-mcp 0.") and outputs[2].err == ""
    assert bool(outputs[0].out.strip()) == (inside or host in ("claude", "agy", "gemini"))
