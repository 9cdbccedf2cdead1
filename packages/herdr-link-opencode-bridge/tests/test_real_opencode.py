"""Real OpenCode 1.18.33 (from npm) discovers the plugin file where installers put it."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from herdr_link_opencode_bridge import RUNTIMES, packaged_dir

HERE = Path(__file__).parent / "real_opencode"


@pytest.fixture(scope="session")
def opencode() -> Path:
    binary = HERE / "node_modules" / ".bin" / "opencode"
    if not binary.exists():
        # Not `npm ci`: opencode-ai's per-platform binaries are optional dependencies and npm's lockfile
        # records only this platform's, so `npm ci` refuses it. package.json pins the exact version.
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(HERE)],
            check=True,
            capture_output=True,
            timeout=900,
        )
    return binary


def test_opencode_discovers_the_installed_v1_plugin(opencode: Path, node_modules: Path, tmp_path: Path):
    config = tmp_path / "config" / "opencode"
    (config / "plugins").mkdir(parents=True)
    shutil.copy(packaged_dir() / RUNTIMES["opencode-v1"].file, config / "plugins" / "herdr-link.js")
    # OpenCode installs @opencode-ai/plugin into every config dir that lacks it, which stalls offline:
    # give the dir the package (and its lockfile), as an installed OpenCode setup has.
    for name in ("package.json", "package-lock.json"):
        shutil.copy(node_modules.parent / name, config / name)
    (config / "node_modules").symlink_to(node_modules)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
    }
    paths = subprocess.run([str(opencode), "debug", "paths"], env=env, capture_output=True, text=True, timeout=120)
    assert f"config     {config}" in paths.stdout
    done = subprocess.run([str(opencode), "debug", "config"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    resolved = json.loads(done.stdout[done.stdout.index("{") :])
    assert f"file://{config}/plugins/herdr-link.js" in resolved["plugin"]
