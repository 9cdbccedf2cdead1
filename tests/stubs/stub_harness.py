"""Run the JavaScript stubs we ship under Node and hand their gateway raw inputs (``gateway_driver.mjs``).

One outcome per input: the text the model would see (``ok``) or the thrown text (``error``), and
whether the session is active afterwards. The OpenCode 1.x bundle imports ``@opencode-ai/plugin``,
so it runs from a directory where the pinned package resolves (the OpenCode package's test
``node_modules``, installed with ``npm ci`` when missing).
"""

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from herdr_link_opencode_bridge import RUNTIMES, packaged_dir
from herdr_link_pi_bridge import packaged_extension

__all__ = ["STUB_RUNTIMES", "StubOutcome", "run_stub"]

DRIVER: Final = Path(__file__).with_name("gateway_driver.mjs")
OPENCODE_NODE: Final = (
    Path(__file__).resolve().parents[2] / "packages" / "herdr-link-opencode-bridge" / "tests" / "node"
)
STUB_RUNTIMES: Final = ("opencode-v1", "opencode-v2", "pi")


@dataclass(frozen=True)
class StubOutcome:
    """What one gateway input gave: ``ok`` is the model's text, else ``error`` the thrown text."""

    ok: str | None
    error: str | None
    active: bool


def _bundle(runtime: str, scratch: Path) -> Path:
    if runtime == "pi":
        return packaged_extension()
    source = packaged_dir() / RUNTIMES[runtime].file
    if runtime == "opencode-v2":
        return source  # no imports beyond Node's own
    if not (OPENCODE_NODE / "node_modules" / "@opencode-ai" / "plugin").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(OPENCODE_NODE)],
            check=True,
            capture_output=True,
            timeout=600,
        )
    target = OPENCODE_NODE / "plugins" / scratch.name
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target / "herdr-link.js")
    return target / "herdr-link.js"


def run_stub(
    runtime: str, inputs: Sequence[Any], env: Mapping[str, str], directory: str, scratch: Path
) -> list[StubOutcome]:
    """Hand each raw gateway input to ``runtime``'s shipped stub, in a fresh session each, in ``env``
    (a pane's environment); the stub's bridge is this Python's ``herdr_link_control.bridge``."""
    bundle = _bundle(runtime, scratch)
    bridge = json.dumps([sys.executable, "-m", "herdr_link_control.bridge"])
    try:
        done = subprocess.run(
            ["node", str(DRIVER), runtime, str(bundle)],
            input=json.dumps({"inputs": list(inputs), "directory": directory}),
            env={**env, "HERDR_LINK_BRIDGE": bridge},
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        if runtime == "opencode-v1":
            shutil.rmtree(bundle.parent, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return [StubOutcome(o.get("ok"), o.get("error"), o["active"]) for o in report["outcomes"]]
