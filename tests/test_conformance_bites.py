"""Every conformance check bites: a deliberately broken adapter (``tests/tools/broken_adapters.py``,
our own MCP server behind a proxy or a stand-in ``herdr`` that breaks one promise, or our bridge
behind a line proxy) fails the check or checks for that promise.

Here each broken adapter runs only the checks it must fail; ``test_conformance_kit.py`` runs every
check on the unbroken server. ``nox -s conformance_matrix`` runs every broken adapter
against every check and writes the table (which checks each one fails) into ``docs/conformance.md``.
"""

import sys
from pathlib import Path

import anyio
import pytest
from broken_adapters import BREAKS, BRIDGE_BREAKS
from stub_harness import BROKEN_STUBS

from herdr_link_conformance import CHECKS, AdapterSpec, run_checks

SERVER = str(Path(sys.executable).parent / "herdr-link-mcp")
BRIDGE = str(Path(sys.executable).parent / "herdr-link-bridge")
PROGRAM = str(Path(__file__).parent / "tools" / "broken_adapters.py")


def broken(name: str) -> AdapterSpec:
    """The broken adapter ``name``, as the kit starts it."""
    return AdapterSpec("mcp", (sys.executable, PROGRAM, "mcp", name, "--", SERVER))


def test_every_check_has_a_broken_adapter_that_fails_it():
    covered = {check for broken_adapter in BREAKS.values() for check in broken_adapter.fails}
    assert covered <= {c.id for c in CHECKS}
    # A check no MCP server can claim (OpenCode 2's session rule) bites on a broken stub instead.
    mcp = AdapterSpec("mcp", (SERVER,)).capabilities
    stub_only = {c.id for c in CHECKS if not c.needs <= mcp}
    covered |= {check for stub in BROKEN_STUBS.values() for check in stub.fails if check in stub_only}
    assert sorted({c.id for c in CHECKS} - covered) == []


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_broken_adapter_fails_the_checks_for_its_promise(name):
    checks = [c for c in CHECKS if c.id in BREAKS[name].fails]
    results = anyio.run(lambda: run_checks(broken(name), checks))
    verdicts = {r.id: (r.status, r.detail) for r in results}
    assert {r.id for r in results if r.status == "FAIL"} == set(BREAKS[name].fails), verdicts


@pytest.mark.parametrize("name", sorted(BRIDGE_BREAKS))
def test_the_broken_bridge_fails_the_checks_for_its_promise(name):
    # The kit has several requests in flight on a bridge, as a stub does, so a bridge's own ordering
    # rule is checked too (with one request at a time, the kit itself ordered them).
    spec = AdapterSpec("bridge", (sys.executable, PROGRAM, "bridge", name, "--", BRIDGE))
    checks = [c for c in CHECKS if c.id in BREAKS[name].fails]
    results = anyio.run(lambda: run_checks(spec, checks))
    verdicts = {r.id: (r.status, r.detail) for r in results}
    assert {r.id for r in results if r.status == "FAIL"} == set(BREAKS[name].fails), verdicts
