"""The JavaScript stubs we ship, where Node can load them, for the conformance kit's host shim
(``herdr_link_conformance``'s ``--stub``): ``tests/test_conformance_stubs.py`` runs every check on
them, and ``tests/test_gateway_table.py`` hands their gateway the table's raw inputs.

The OpenCode 1.x bundle imports ``@opencode-ai/plugin``, so it runs from a directory where the
pinned package resolves (the OpenCode package's test ``node_modules``, installed with ``npm ci`` when
missing). Each stub starts this Python's bridge (``HERDR_LINK_BRIDGE``).
"""

import fcntl
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final, NamedTuple

from herdr_link_opencode_bridge import BUNDLE_FILE, packaged_dir
from herdr_link_pi_bridge import packaged_extension

__all__ = ["BROKEN_STUBS", "STUB_RUNTIMES", "BrokenStub", "bridge_command", "stub_bundle"]

OPENCODE_NODE: Final = (
    Path(__file__).resolve().parents[2] / "packages" / "herdr-link-opencode-bridge" / "tests" / "node"
)
STUB_RUNTIMES: Final = ("opencode-v1", "opencode-v2", "pi")
"""Our stubs, by the kit's runtime names."""


def bridge_command() -> str:
    """``HERDR_LINK_BRIDGE`` for a stub run here: this Python's ``herdr_link_control.bridge``."""
    return json.dumps([sys.executable, "-m", "herdr_link_control.bridge"])


def stub_bundle(runtime: str, scratch: Path) -> Path:
    """The shipped stub of ``runtime``, where Node can load it: the OpenCode 1.x bundle is copied into
    ``OPENCODE_NODE/plugins/<scratch's name>-<random>/`` (remove that folder after) so its import resolves."""
    if runtime == "pi":
        return packaged_extension()
    source = packaged_dir() / BUNDLE_FILE  # one bundle: the runtime is which host shim loads it
    if runtime == "opencode-v2":
        return source  # no imports beyond Node's own
    with open(OPENCODE_NODE / "package.json", "rb") as lock:  # one npm ci at a time across test processes
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (OPENCODE_NODE / "node_modules" / "@opencode-ai" / "plugin").is_dir():
            subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(OPENCODE_NODE)],
                check=True,
                capture_output=True,
                timeout=600,
            )
    (OPENCODE_NODE / "plugins").mkdir(exist_ok=True)
    # a folder of this process's own: pytest-xdist workers each have a scratch of the same name
    target = Path(tempfile.mkdtemp(prefix=f"{scratch.name}-", dir=OPENCODE_NODE / "plugins"))
    shutil.copy(source, target / "herdr-link.js")
    return target / "herdr-link.js"


class BrokenStub(NamedTuple):
    runtime: str
    edits: tuple[tuple[str, str], ...]
    """(text of the shipped stub, what it becomes)."""
    fails: tuple[str, ...]


BROKEN_STUBS: Final = {
    "pi-session-starts-active": BrokenStub(
        "pi",
        (
            ("defaultActive: !spec.op,", "defaultActive: true,"),
            ("pi.setActiveTools(pi.getActiveTools().filter((name) => !tier1.includes(name)));", ""),
        ),
        ("dormant-gateway-only", "dormant-no-contract"),
    ),
    "pi-never-offers-tier1": BrokenStub(
        "pi",
        (("pi.setActiveTools([...new Set([...pi.getActiveTools(), ...tier1])]);", ""),),
        ("active-surface", "list-changed-once", "contract-visible"),
    ),
    "opencode-v1-contract-for-every-session": BrokenStub(
        "opencode-v1",
        (("if (!hook?.sessionID || !active.has(hook.sessionID)) return;", ""),),
        ("dormant-no-contract",),
    ),
    "opencode-v2-contract-never-shown": BrokenStub(
        "opencode-v2",
        (('event.system.push({ type: "text", text: LINK.presentation });', ""),),
        ("contract-visible",),
    ),
    "opencode-v2-code-mode-tool": BrokenStub(  # OpenCode 2's default: reachable only inside `execute`
        "opencode-v2",
        (("options: { codemode: false, permission: LINK.gateway },", "options: { permission: LINK.gateway },"),),
        ("dormant-gateway-only", "activation-receipt"),
    ),
    "opencode-v2-identity-from-the-server-env": BrokenStub(  # the caller taken as the server's HERDR_PANE_ID
        "opencode-v2",
        (("{ session, directory, caller_by_directory: true }", "{ session, directory, caller_by_directory: false }"),),
        ("session-placed-by-directory",),
    ),
    "opencode-v2-unplaced-sessions-see-the-tool": BrokenStub(
        "opencode-v2",
        (("if (event?.tools) delete event.tools[LINK.gateway];", ""),),
        ("session-unplaced-hidden",),
    ),
}
