import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from herdr_link_testkit import HerdrSim


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        """The one JSON line printed (stdout on success, stderr on error)."""
        text = self.stdout if self.code == 0 else self.stderr
        assert text.endswith("\n") and text.count("\n") == 1, text
        return json.loads(text)


Herdr = Callable[..., Run]


@pytest.fixture
def pane(herdr_sim: HerdrSim) -> str:
    """A workspace (w1) whose root pane w1:p1 is a plain shell in the simulator's home directory."""
    return herdr_sim.create_workspace(herdr_sim.home)


@pytest.fixture
def herdr(herdr_sim: HerdrSim, pane: str) -> Herdr:
    """Run the simulated ``herdr`` as a process launched in pane w1:p1 would (its environment is fixed at launch)."""
    launch_env = herdr_sim.env(pane)

    def run(*args: str, env: dict[str, str] | None = None) -> Run:
        done = subprocess.run(
            [herdr_sim.bin_path, *args], env=env or launch_env, capture_output=True, text=True, timeout=60
        )
        return Run(done.returncode, done.stdout, done.stderr)

    return run
