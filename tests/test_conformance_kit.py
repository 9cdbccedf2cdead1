"""``herdr-link-conformance`` against our own MCP server: every check passes, and the command line
says so. (The kit's own tests run it against our bridge and a broken adapter.)"""

import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from herdr_link_conformance import CHECKS, AdapterSpec, run_checks

SERVER = str(Path(sys.executable).parent / "herdr-link-mcp")


@pytest.mark.parametrize("check", CHECKS, ids=[c.id for c in CHECKS])
def test_our_mcp_server_passes_every_check(check):
    [result] = anyio.run(lambda: run_checks(AdapterSpec("mcp", (SERVER,)), [check]))
    assert result.status == "PASS", result.detail


def test_the_command_line_passes_our_server_on_herdr_0_9():
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_conformance", "--mcp", SERVER, "--herdr-version", "0.9.0", "--only", "4.4"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().splitlines()[-1].endswith("0 failed, 0 skipped, of 4 checks")
