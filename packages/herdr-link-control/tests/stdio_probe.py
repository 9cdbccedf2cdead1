"""What a serving process holds on its descriptors 0 and 1, read from /proc (shared by the bridge's
and the MCP server's tests)."""

import os
import subprocess
import sys
import time
from pathlib import Path

from herdr_link_testkit import HerdrSim


def holds_null_stdin_and_stderr_stdout(herdr_sim: HerdrSim, tmp_path: Path, module: str) -> None:
    """Start ``python -m module`` in a simulated pane and read its descriptors 0 and 1 from /proc."""
    pane = herdr_sim.create_workspace(str(tmp_path))
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=herdr_sim.env(pane),
        )
    try:
        deadline = time.monotonic() + 60
        while os.readlink(f"/proc/{process.pid}/fd/0") != os.devnull and time.monotonic() < deadline:
            time.sleep(0.05)
        assert os.readlink(f"/proc/{process.pid}/fd/0") == os.devnull
        assert os.readlink(f"/proc/{process.pid}/fd/1") == str(log)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert process.stdout is not None
        assert process.stdout.read() == b""  # nothing was asked, so nothing was written
        process.stdout.close()
