import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from herdr_link_control import surface_violation
from herdr_link_opencode_bridge import BUNDLE_FILE, packaged_dir

NODE_DIR = Path(__file__).parent / "node"


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The pinned @opencode-ai/plugin, installed with ``npm ci`` when it is not there yet."""
    if not (NODE_DIR / "node_modules" / "@opencode-ai" / "plugin").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR)],
            check=True,
            capture_output=True,
            timeout=600,
        )
    return NODE_DIR / "node_modules"


@pytest.fixture
def plugin_dir(node_modules: Path, tmp_path: Path) -> Iterator[Path]:
    """A plugins directory holding the shipped V1 bundle, where @opencode-ai/plugin resolves."""
    target = NODE_DIR / "plugins" / tmp_path.name
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(packaged_dir() / BUNDLE_FILE, target / "herdr-link.js")
    yield target
    shutil.rmtree(target, ignore_errors=True)


Drive = Callable[..., dict[str, Any]]


def _run_driver(
    driver: str, plugin: Path, tmp_path: Path, env: dict[str, str], scenario: dict[str, Any]
) -> dict[str, Any]:
    """Run ``plugin`` under a Node driver with ``env`` as the OpenCode process's environment.

    The bridge is started through a wrapper that records its pid, so a step can kill it.
    """
    pid_file = tmp_path / "bridge.pid"
    wrapper = tmp_path / "bridge.sh"
    wrapper.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec {sys.executable} -m herdr_link_control.bridge\n")
    wrapper.chmod(0o755)
    full_env = {"HERDR_LINK_BRIDGE": json.dumps([str(wrapper)]), **env}
    for step in scenario["steps"]:
        step.setdefault("pidFile", str(pid_file))
    done = subprocess.run(
        ["node", str(NODE_DIR / driver), str(plugin)],
        input=json.dumps(scenario),
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    report["stderr"] = done.stderr
    return report


@pytest.fixture
def drive(plugin_dir: Path, tmp_path: Path) -> Drive:
    """Run the V1 bundle under Node with a fake OpenCode 1.x context."""

    def run(env: dict[str, str], steps: list[dict[str, Any]], directory: str = "/tmp") -> dict[str, Any]:
        scenario = {"directory": directory, "steps": steps}
        return _run_driver("opencode_v1_driver.mjs", plugin_dir / "herdr-link.js", tmp_path, env, scenario)

    return run


@pytest.fixture
def drive_v2(tmp_path: Path) -> Drive:
    """Run the shipped V2 bundle under Node with a fake OpenCode 2 context (no node_modules needed).

    ``sessions`` maps a session id to the ``Session.Info`` fields the fake ``session.get`` returns.
    """
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(packaged_dir() / BUNDLE_FILE, plugins / "herdr-link.js")

    def run(env: dict[str, str], steps: list[dict[str, Any]], sessions: dict[str, Any]) -> dict[str, Any]:
        scenario = {"sessions": sessions, "steps": steps}
        return _run_driver("opencode_v2_driver.mjs", plugins / "herdr-link.js", tmp_path, env, scenario)

    return run


@pytest.fixture
def herdr_command_policy() -> Callable[[Sequence[str]], str | None]:
    """Every command these tests make Herdr run must be on spec §8's surface."""
    return surface_violation
