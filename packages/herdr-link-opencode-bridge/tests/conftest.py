import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr_link_opencode_bridge import RUNTIMES, packaged_dir

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
    shutil.copy(packaged_dir() / RUNTIMES["opencode-v1"].file, target / "herdr-link.js")
    yield target
    shutil.rmtree(target, ignore_errors=True)


Drive = Callable[..., dict[str, Any]]


@pytest.fixture
def drive(plugin_dir: Path, tmp_path: Path) -> Drive:
    """Run the bundle under Node with a fake OpenCode context; ``env`` is the OpenCode process's."""

    def run(env: dict[str, str], steps: list[dict[str, Any]], directory: str = "/tmp") -> dict[str, Any]:
        pid_file = tmp_path / "bridge.pid"
        wrapper = tmp_path / "bridge.sh"
        wrapper.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec {sys.executable} -m herdr_link_control.bridge\n")
        wrapper.chmod(0o755)
        full_env = {"HERDR_LINK_BRIDGE": json.dumps([str(wrapper)]), **env}
        for step in steps:
            step.setdefault("pidFile", str(pid_file))
        done = subprocess.run(
            ["node", str(NODE_DIR / "opencode_v1_driver.mjs"), str(plugin_dir / "herdr-link.js")],
            input=json.dumps({"directory": directory, "steps": steps}),
            env=full_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        report: dict[str, Any] = json.loads(done.stdout)
        return report

    return run
