"""The installers against an unlucky user's home (issue 61): a host file that leads to a device or a
FIFO, a hard-linked ``~/.claude.json``, what 0.1.0 left readable, an unreadable install record, a file
its host cannot read, and an I/O error just after the swap. Each runs the real ``herdr-link-mcp install``.
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from herdr_link_control.userfiles import write_complete

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, devices and modes as Linux has")
INSTALL = str(Path(sys.executable).parent / "herdr-link-mcp")
PASSED_ON = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
"""Where the sources under test are, when a run points the tests at other ones."""


def install(home: Path, host: str, *args: str, as_user: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": os.environ["PATH"], **PASSED_ON}
    who = [] if as_user is None else ["setpriv", f"--reuid={as_user}", f"--regid={as_user}", "--clear-groups"]
    return subprocess.run(
        [*who, INSTALL, "install", "--host", host, *args], env=env, cwd=home, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def _device(folder: Path) -> Path:
    """A character device of this test's own (as /dev/null, 1:3) where it may make one (root), so that code
    which writes through links never replaces the machine's /dev/null; elsewhere /dev/null itself, which
    a user other than root cannot replace."""
    if os.geteuid() != 0:
        return Path("/dev/null")
    device = folder / "null-device"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return device


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.mark.parametrize("target", ["device", "fifo"])
@pytest.mark.parametrize("mode", [("--dry-run",), ("--yes",)])
def test_a_host_file_that_leads_to_no_regular_file_is_refused_without_a_wait(home, tmp_path, target, mode):
    if target == "fifo":
        os.mkfifo(tmp_path / "pipe")  # nobody writes to it: a read would wait for ever
        to = tmp_path / "pipe"
    else:
        to = _device(tmp_path)  # writing "through" the link would replace the device by a regular file
    (home / ".claude.json").symlink_to(to)
    done = install(home, "claude", *mode)
    assert done.returncode == 1 and "is not a regular file" in done.stderr, (done.stdout, done.stderr)
    assert "state: nothing was changed" in done.stdout + done.stderr
    assert (home / ".claude.json").is_symlink() and not stat.S_ISREG(os.stat(to).st_mode)


def test_a_hard_linked_host_file_is_refused_and_both_names_keep_one_file(home, tmp_path):
    mine = tmp_path / "dotfiles-claude.json"
    mine.write_text('{"numStartups": 3}\n')
    os.link(mine, home / ".claude.json")
    done = install(home, "claude", "--yes")
    assert done.returncode == 1 and "hard links" in done.stderr, (done.stdout, done.stderr)
    assert os.stat(mine).st_ino == os.stat(home / ".claude.json").st_ino
    assert mine.read_text() == '{"numStartups": 3}\n'


def test_a_backups_folder_0_1_0_left_open_is_made_private(home):
    backups = home / ".config" / "herdr-link" / "backups"
    backups.mkdir(parents=True, mode=0o755)
    backups.chmod(0o755)
    (home / ".claude.json").write_text("{}\n")
    done = install(home, "claude", "--yes")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(backups.stat().st_mode) == 0o700


@pytest.mark.parametrize("what", ["folder", "left-by-sudo"])
def test_an_install_record_that_cannot_be_read_is_a_clear_refusal(tmp_path, what):
    home = Path(tempfile.mkdtemp(prefix="hl-home-", dir="/tmp"))  # reachable by another user
    try:
        record = home / ".config" / "herdr-link" / "installed.json"
        record.parent.mkdir(parents=True)
        user = None
        if what == "folder":
            record.mkdir()
        else:  # one `sudo herdr-link-mcp install` left a root-owned record; the user runs it as themselves
            record.write_text("{}")
            record.chmod(0o600)
            if os.geteuid() == 0:
                if not shutil.which("setpriv"):
                    pytest.fail("as root this case needs setpriv (util-linux) to act as the user")
                user = 65534
                for folder, _, files in os.walk(home):
                    for name in [folder, *(os.path.join(folder, f) for f in files)]:
                        if name != str(record):
                            os.chown(name, user, user)
            else:
                record.chmod(0)
        done = install(home, "claude", "--yes", as_user=user)
        assert done.returncode == 1, (done.returncode, done.stderr)  # a refusal, not "internal error" (3)
        assert "install record" in done.stderr and "state: nothing was changed" in done.stdout + done.stderr
        assert not (home / ".claude.json").exists()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 1, (done.returncode, done.stderr)  # a refusal, not "internal error" (3)
    assert "install record" in done.stderr and "state: nothing was changed" in done.stdout + done.stderr
    assert not (home / ".claude.json").exists()


@pytest.mark.parametrize("text", ['{\n  "ui": {},\n}\n', '\ufeff{\n  "ui": {}\n}\n'], ids=["trailing-comma", "bom"])
def test_a_gemini_settings_file_gemini_cannot_read_is_refused(home, text):
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text, encoding="utf-8")
    done = install(home, "gemini", "--yes")
    assert done.returncode == 1 and "fix it first" in done.stderr, (done.stdout, done.stderr)
    assert settings.read_text(encoding="utf-8") == text


def test_a_failure_to_remove_the_partial_after_the_swap_is_no_failure_of_the_write(tmp_path, monkeypatch):
    # The file already holds the new bytes once the swap is done: removing the copy beside it failing
    # (an I/O error) must not report the write as failed (which skipped the install record).
    target = tmp_path / "settings.json"
    target.write_text("old\n")
    real_unlink = Path.unlink

    def unlink(self: Path, missing_ok: bool = False) -> None:
        if self.name.endswith(".partial") and self.exists():
            raise OSError(5, "Input/output error", str(self))
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    write_complete(target, b"new\n", expect=b"old\n")  # raises nothing
    assert target.read_text() == "new\n"


KILLED_AFTER_LINK = """
import os, sys
real_link = os.link
def link(source, destination, *args, **kwargs):
    real_link(source, destination, *args, **kwargs)
    if str(destination).endswith("hooks.json"):
        os._exit(137)  # killed: the new file is in place, its temporary name not yet removed
os.link = link
from herdr_link_mcp.cli import main
sys.exit(main(["install", "--host", "codex", "--yes"]))
"""


def test_a_codex_install_killed_after_linking_hooks_json_in_is_healed_by_the_next_run(home):
    (home / ".codex").mkdir()
    env = {"HOME": str(home), "PATH": os.environ["PATH"], **PASSED_ON}
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_LINK], env=env, cwd=home, capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    hooks = home / ".codex" / "hooks.json"
    assert killed.returncode == 137 and os.stat(hooks).st_nlink == 2, (killed.stdout, killed.stderr)
    done = install(home, "codex", "--yes")  # our own temporary is no other name of the user's file
    assert done.returncode == 0 and "hard links" not in done.stderr, (done.stdout, done.stderr)
    assert os.stat(hooks).st_nlink == 1 and b"herdr" in hooks.read_bytes()
    assert not [p for p in home.rglob("*") if p.name.endswith(".partial")]
    assert "state:" in done.stdout.splitlines()[-1]
