"""One convention for every command the distributions install: ``--help`` and ``--version`` answer
on stdout with exit 0; an unknown flag is a usage error on stderr with exit 2, and nothing waits on
the terminal."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = sorted(
    (name, project["name"])
    for pyproject in (ROOT / "packages").glob("*/pyproject.toml")
    for project in [tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]]
    for name in project.get("scripts", {})
)


def run(command: str, *args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / command
    return subprocess.run([str(script), *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def test_every_distribution_has_its_commands_here():
    assert {name for name, _ in COMMANDS} >= {
        "herdr-link", "herdr-link-mcp", "herdr-link-bridge", "herdr-link-opencode-install",
        "herdr-link-pi-bridge", "herdr-link-opencode-bridge", "herdr-sim",
    }  # fmt: skip


@pytest.mark.parametrize(("command", "dist"), COMMANDS)
def test_help_version_and_an_unknown_flag(command, dist):
    from importlib.metadata import version

    helped = run(command, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: ") and helped.stderr == ""
    assert "Exit status:" in helped.stdout  # every command documents its exit codes
    shown = run(command, "--version")
    assert shown.returncode == 0 and shown.stdout.startswith(f"{command} {version(dist)}"), shown
    refused = run(command, "--no-such-flag")
    assert refused.returncode == 2 and refused.stdout == ""
    if command == "herdr-sim":  # the simulator's own command: the testkit depends on nothing of ours
        assert "usage: " in refused.stderr
    else:  # the one command boundary: one line naming the flag and where help is, no usage block
        assert refused.stderr.count("\n") == 1 and refused.stderr.startswith(f"{command}: ")
        assert f"{command} --help" in refused.stderr


def test_the_umbrella_version_lists_every_distribution():
    from importlib.metadata import version

    lines = run("herdr-link", "--version").stdout.splitlines()
    assert sorted(lines) == sorted(
        f"{dist} {version(dist)}" for dist in {d for _, d in COMMANDS} | {"herdr-link-protocol"}
    )
