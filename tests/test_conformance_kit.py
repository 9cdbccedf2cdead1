"""``herdr-link-conformance`` against our own MCP server: every check it can claim passes, the one
capability it cannot claim (``session_placement``: OpenCode 2's shared server) is skipped, and the
command line says so. (The kit's own tests run it against our bridge and a broken adapter.)"""

import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from herdr_link_conformance import CHECKS, AdapterSpec, run_checks, selected

SERVER = str(Path(sys.executable).parent / "herdr-link-mcp")


@pytest.mark.parametrize("check", CHECKS, ids=[c.id for c in CHECKS])
def test_our_mcp_server_passes_every_check(check):
    spec = AdapterSpec("mcp", (SERVER,))
    [result] = anyio.run(lambda: run_checks(spec, [check]))
    if check.needs <= spec.capabilities:
        assert result.status == "PASS", result.detail
    else:  # a server of its own per session knows its pane: only OpenCode 2's shared server needs the rule
        assert check.needs - spec.capabilities == {"session_placement"}
        assert result.status == "SKIP" and "does not offer" in result.detail, result


def test_the_command_line_passes_our_server_on_herdr_0_9():
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_conformance", "--mcp", SERVER, "--herdr-version", "0.9.0", "--only", "4.4"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    ran = len(selected(["4.4"], []))
    left_out = f"{len(CHECKS) - ran} of the kit's {len(CHECKS)} left out by --only/--skip"
    assert done.stdout.rstrip().splitlines()[-1] == f"{ran} passed, 0 failed, 0 skipped, of {ran} checks; {left_out}"


def _kit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "herdr_link_conformance", *args], capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_the_checks_are_listed_without_an_adapter_as_the_readme_writes_it():
    import json

    listed = _kit("--list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["checks"]) == len(CHECKS)
    assert _kit("--list").stdout.count("\n") == len(CHECKS)
    missing = _kit()
    assert missing.returncode == 2 and "--mcp --bridge --stub is required (or --list)" in missing.stderr


def test_a_stub_without_node_is_the_kits_problem_said_once(tmp_path):
    stub = tmp_path / "herdr-link.js"
    stub.write_text("export default {};\n")
    done = _kit("--stub", f"pi:{stub}", "--node", str(tmp_path / "no-node"))
    assert done.returncode == 4 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no-node" in done.stderr and "--node" in done.stderr
