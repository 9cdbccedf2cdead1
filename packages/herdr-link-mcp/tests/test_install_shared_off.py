"""``install --host codex --no-shared-daemon`` (issue 70, item 3): the consented alternative to Codex's shared
daemon. The setting is written only when its own flag asks for it (``--yes`` alone never does), shown with
``!`` and its costs; a running daemon is stopped once by Codex's own command; ``--uninstall`` gives the file
back byte for byte and never takes out a setting the user made themselves."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

CONFIG = """# my Codex set-up
model = "gpt-5.5"  # the one I like

[features]
# web search, always
web_search = true
{line}
[profiles.fast]
model = "gpt-5.5-mini"
"""
RECORDER = """#!/bin/sh
echo "$@" >> "{log}"
"""
"""A stand-in ``codex`` on PATH: records the arguments it was run with."""


def run(home: Path, *args: str, codex: bool = True) -> subprocess.CompletedProcess[str]:
    bin_dir = home / "bin"
    path = f"{bin_dir}:{os.environ['PATH']}" if codex else os.environ["PATH"]
    return subprocess.run(
        [sys.executable, "-m", "herdr_link_mcp", "install", "--host", "codex", *args],
        env={"PATH": path, "HOME": str(home)}, cwd=home, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / "bin").mkdir()
    codex = home / "bin" / "codex"
    codex.write_text(RECORDER.format(log=home / "codex-calls"))
    codex.chmod(0o755)
    return home


def config(home: Path) -> Path:
    return home / ".codex" / "config.toml"


def calls(home: Path) -> list[str]:
    log = home / "codex-calls"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("line", ["", "daemon_auto_start = true  # I want it\n"], ids=["unset", "set-true"])
def test_the_flag_sets_it_with_its_costs_stops_the_daemon_and_uninstall_gives_the_file_back(home: Path, line: str):
    config(home).write_text(CONFIG.format(line=line))
    before = config(home).read_bytes()
    shown = run(home, "--no-shared-daemon", "--dry-run")
    assert "! features.daemon_auto_start = false (asked for by --no-shared-daemon): threads no longer" in shown.stdout
    assert config(home).read_bytes() == before and calls(home) == []  # a dry run writes and stops nothing
    done = run(home, "--no-shared-daemon", "--yes")
    assert done.returncode == 0, done.stderr
    assert tomllib.loads(config(home).read_text())["features"] == {"web_search": True, "daemon_auto_start": False}
    assert "# web search, always" in config(home).read_text() and "# the one I like" in config(home).read_text()
    assert calls(home) == ["app-server daemon stop"]  # once, by Codex's own command
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("state: ") and last.endswith(
        "codex's daemon: stopped, if one ran (`codex app-server daemon stop`)"
    )
    undone = run(home, "--uninstall", "--yes")
    assert undone.returncode == 0, undone.stderr
    assert config(home).read_bytes() == before  # byte for byte, the user's own `true` too


def test_yes_alone_never_touches_the_daemon_setting(home: Path):
    config(home).write_text(CONFIG.format(line=""))
    done = run(home, "--yes")
    assert done.returncode == 0, done.stderr
    assert "daemon_auto_start" not in config(home).read_text() and "daemon_auto_start" not in done.stdout
    assert calls(home) == []


def test_uninstall_leaves_the_users_own_setting_alone(home: Path):
    config(home).write_text(CONFIG.format(line="daemon_auto_start = false\n"))  # the user's own choice
    assert run(home, "--no-shared-daemon", "--yes").returncode == 0  # already so: nothing of ours written
    assert run(home, "--uninstall", "--yes").returncode == 0
    assert tomllib.loads(config(home).read_text())["features"]["daemon_auto_start"] is False


def test_without_codex_on_path_the_state_says_the_daemon_was_not_stopped(home: Path):
    config(home).write_text(CONFIG.format(line=""))
    done = run(home, "--no-shared-daemon", "--yes", codex=False)
    assert done.returncode == 0, done.stderr
    assert "codex's daemon: not stopped (no `codex` on PATH): run `codex app-server daemon stop`" in done.stdout


def test_the_flag_is_refused_for_a_host_without_a_shared_daemon(home: Path):
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_mcp", "install", "--host", "claude", "--no-shared-daemon", "--dry-run"],
        env={"PATH": os.environ["PATH"], "HOME": str(home)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "--no-shared-daemon applies to codex" in done.stderr
