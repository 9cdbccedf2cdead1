"""``herdr-link-conformance`` against the three JavaScript stubs we ship (OpenCode 1.x, OpenCode 2 and
the Pi extension), each under Node in the kit's host shim, which offers the stub's tools the way its
host would: every check that the stub's host offers passes, and the others are skipped with the
reason. Broken stubs (one promise of a shipped stub undone) fail the checks for it, so what only the
shim reads (the offered tool set, the system prompt, Pi's list change) is shown to bite.

The shim is not the host: what a host does before it calls a tool, and its model, only the real-host
rig shows (``tests/real_hosts``).
"""

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import anyio
import pytest
from stub_harness import BROKEN_STUBS, STUB_RUNTIMES, bridge_command, stub_bundle

from herdr_link_conformance import CHECKS, AdapterSpec, run_checks, selected

PLACEMENT: Final = {"session-placed-by-directory", "session-unplaced-hidden"}
SKIPPED: Final = {
    "opencode-v1": {"gate-call-outside", "active-surface", "list-changed-once", "pane-shown-not-assumed"} | PLACEMENT,
    "opencode-v2": {
        "gate-call-outside", "active-surface", "list-changed-once", "activation-no-herdr-action",
        "pane-shown-not-assumed",
    },
    "pi": {"gate-call-outside", "pane-shown-not-assumed"} | PLACEMENT,
}  # fmt: skip
"""What each stub's host does not offer: a call to a tool it did not register (outside Herdr a plugin
registers none), OpenCode's Tier 1 tools and list signal (it has one gateway), OpenCode 2's quiet
activation (its session rule asks Herdr first, PROTOCOL.md §6), the session rule itself, which only
OpenCode 2's shared server needs (a process of its own per pane knows its pane), and the MCP client of a
host that shares one process between panes (Codex), which no plugin host is."""


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Each shipped stub where Node loads it, and this Python's bridge for it to start."""
    scratch = tmp_path_factory.mktemp("kit-stubs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HERDR_LINK_BRIDGE", bridge_command())
        found = {runtime: stub_bundle(runtime, scratch) for runtime in STUB_RUNTIMES}
        yield found
    shutil.rmtree(found["opencode-v1"].parent, ignore_errors=True)


@pytest.mark.parametrize("runtime", STUB_RUNTIMES)
@pytest.mark.parametrize("check", CHECKS, ids=[c.id for c in CHECKS])
def test_our_stub_passes_every_check_its_host_offers(bundles, runtime, check):
    spec = AdapterSpec.stub(runtime, str(bundles[runtime]))
    [result] = anyio.run(lambda: run_checks(spec, [check]))
    if check.id in SKIPPED[runtime]:
        assert result.status == "SKIP" and f"which {spec.label} does not offer" in result.detail, result
    else:
        assert result.status == "PASS", result.detail


@pytest.mark.parametrize("name", BROKEN_STUBS)
def test_a_broken_stub_fails_the_checks_for_its_promise(bundles, name):
    broken = BROKEN_STUBS[name]
    shipped = bundles[broken.runtime]
    text = shipped.read_text(encoding="utf-8")
    for before, after in broken.edits:
        assert text.count(before) == 1, f"the shipped {broken.runtime} stub no longer holds {before!r}"
        text = text.replace(before, after)
    copy = shipped.parent / f"broken-{name}.js"  # beside the shipped one, so its imports resolve alike
    copy.write_text(text, encoding="utf-8")
    try:
        checks = [c for c in CHECKS if c.id in broken.fails]
        results = anyio.run(lambda: run_checks(AdapterSpec.stub(broken.runtime, str(copy)), checks))
    finally:
        copy.unlink()
    assert {r.id: r.status for r in results} == dict.fromkeys(broken.fails, "FAIL"), [r.detail for r in results]


def test_a_stub_that_does_not_load_fails_with_nodes_reason(tmp_path):
    stub = tmp_path / "broken.js"
    stub.write_text("export default function (pi) { throw new Error('cannot start here'); }\n")
    checks = [c for c in CHECKS if c.id == "dormant-gateway-only"]
    [result] = anyio.run(lambda: run_checks(AdapterSpec.stub("pi", str(stub)), checks))
    assert result.status == "FAIL" and "did not load: cannot start here" in result.detail, result


def test_the_command_line_runs_a_stub_and_refuses_an_unknown_runtime(bundles):
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_conformance", "--stub", f"pi:{bundles['pi']}", "--only", "4.1"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    ran = len(selected(["4.1"], []))  # the gateway's checks: Pi's extension offers all of them
    left_out = f"{len(CHECKS) - ran} of the kit's {len(CHECKS)} left out by --only/--skip"
    assert done.stdout.rstrip().splitlines()[-1] == f"{ran} passed, 0 failed, 0 skipped, of {ran} checks; {left_out}"
    wrong = subprocess.run(
        [sys.executable, "-m", "herdr_link_conformance", "--stub", "vim:plugin.js"], capture_output=True, text=True
    )
    assert wrong.returncode == 2 and "unknown stub runtime 'vim'" in wrong.stderr
