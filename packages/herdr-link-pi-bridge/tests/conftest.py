import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from herdr_link_control import surface_violation
from herdr_link_pi_bridge import packaged_extension

DRIVER = Path(__file__).parent / "node" / "pi_driver.mjs"
Drive = Callable[..., dict[str, Any]]


@pytest.fixture
def drive(tmp_path: Path) -> Drive:
    """Run the shipped extension under Node with a fake ExtensionAPI; ``env`` is Pi's environment."""

    def run(env: dict[str, str], steps: list[dict[str, Any]], cwd: str = "/tmp") -> dict[str, Any]:
        pid_file = tmp_path / "bridge.pid"
        wrapper = tmp_path / "bridge.sh"
        wrapper.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec {sys.executable} -m herdr_link_control.bridge\n")
        wrapper.chmod(0o755)
        for step in steps:
            step.setdefault("pidFile", str(pid_file))
        done = subprocess.run(
            ["node", str(DRIVER), str(packaged_extension())],
            input=json.dumps({"cwd": cwd, "steps": steps}),
            env={"HERDR_LINK_BRIDGE": json.dumps([str(wrapper)]), **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        report: dict[str, Any] = json.loads(done.stdout)
        return report

    return run


@pytest.fixture
def herdr_command_policy() -> Callable[[Sequence[str]], str | None]:
    """Every command these tests make Herdr run must be on spec §8's surface."""
    return surface_violation
