"""The OpenCode and Pi installers against an unlucky user's home (issue 72): what a killed run left, a
FIFO or a folder where a file belongs, and a settings file that changes while the question waits.
Each runs the real ``herdr-link-opencode-install`` or ``herdr-link-pi-bridge``; every run ends with its
``state:`` line and says why it failed on stderr."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from herdr_link_control.userfiles import backup_folder, backups_root

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs and modes as Linux has them")
BIN = Path(sys.executable).parent
OPENCODE = [str(BIN / "herdr-link-opencode-install"), "--runtime", "v2"]  # v2: no @opencode-ai/plugin needed
PI = [str(BIN / "herdr-link-pi-bridge")]
PASSED_ON = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
"""Where the sources under test are, when a run points the tests at other ones."""


def run(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """One run in ``home``, bounded: a run that waits for ever (on a FIFO) fails the test."""
    env = {"HOME": str(home), "PATH": os.environ["PATH"], **PASSED_ON}
    return subprocess.run(list(argv), env=env, cwd=home, capture_output=True, text=True, timeout=60, input=stdin)


def ended_with_state(done: subprocess.CompletedProcess[str]) -> bool:
    return done.stdout.splitlines()[-1:] != [] and done.stdout.splitlines()[-1].startswith("state: ")


def plugin(home: Path) -> Path:
    return home / ".config" / "opencode" / "plugins" / "herdr-link.js"


def extension(home: Path) -> Path:
    return home / ".pi" / "agent" / "extensions" / "herdr-link.js"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def test_what_a_killed_opencode_install_left_is_cleared_by_a_run_with_nothing_to_do(home):
    assert run(home, *OPENCODE).returncode == 0
    partial = plugin(home).with_name("herdr-link.js.herdr-link.partial")  # killed after the copy was made
    partial.write_bytes(plugin(home).read_bytes()[:100])
    backups = backup_folder(backups_root({}, home), plugin(home))
    backups.mkdir(parents=True)
    half_backup = backups / "herdr-link.js.20261206T000000.000000000Z-1.partial"  # killed while backing up
    half_backup.write_bytes(b"")
    done = run(home, *OPENCODE)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert not partial.exists() and not half_backup.exists()
    assert f"removed: {partial}" in done.stdout and f"removed: {half_backup}" in done.stdout
    assert ended_with_state(done) and "is the current bundle (unchanged)" in done.stdout.splitlines()[-1]


@pytest.mark.parametrize("mode", [("--dry-run",), ("--yes",)])
def test_a_fifo_at_the_opencode_plugins_place_is_refused_without_opening_it(home, mode):
    plugin(home).parent.mkdir(parents=True)
    os.mkfifo(plugin(home))  # nobody writes to it: a read would wait for ever
    done = run(home, *OPENCODE, *mode)
    assert done.returncode == 1 and "is not a regular file" in done.stderr, (done.stdout, done.stderr)
    assert ended_with_state(done) and done.stdout.splitlines()[-1] == "state: nothing was changed"


@pytest.mark.parametrize("first", ["fresh", "current"])
@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_no_file_at_bridge_json_is_said_on_stderr_and_the_run_ends_with_its_state(home, first, kind):
    if first == "current":
        assert run(home, *OPENCODE).returncode == 0
    location = home / ".config" / "herdr-link" / "bridge.json"
    location.unlink(missing_ok=True)
    location.parent.mkdir(parents=True, exist_ok=True)
    location.mkdir() if kind == "folder" else os.mkfifo(location)
    done = run(home, *OPENCODE)
    assert done.returncode == 1 and "bridge.json" in done.stderr, (done.stdout, done.stderr)
    assert ended_with_state(done) and "is the current bundle" in done.stdout.splitlines()[-1], done.stdout
    assert "nothing to do" not in done.stdout  # never "nothing to do", then a failure


def test_a_folder_at_the_opencode_plugins_place_ends_with_the_state_line(home):
    plugin(home).mkdir(parents=True)
    done = run(home, *OPENCODE)
    assert done.returncode == 1 and "is a folder" in done.stderr, (done.stdout, done.stderr)
    assert done.stdout.splitlines() == ["state: nothing was changed"]
