"""The OpenCode and Pi installers against an unlucky user's home (issue 72): what a killed run left, a
FIFO or a folder where a file belongs, and a settings file that changes while the question waits; and
every installer (Codex's MCP install too) killed at each write, healed by the next run. Each runs the
real ``herdr-link-opencode-install``, ``herdr-link-pi-bridge`` or ``herdr-link-mcp``; every run ends
with its ``state:`` line and says why it failed on stderr."""

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
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


SETTINGS = '{\n  "theme": "dark",\n  "packages": ["npm:first", "npm:herdr-link", "npm:last"]\n}\n'
"""Pi's settings with the TypeScript Herdr Link listed between two other packages."""


def typescript_pi(home: Path) -> tuple[Path, Path]:
    """The TypeScript Herdr Link wired into the user's Pi as its README does: a package entry and a copy."""
    settings = home / ".pi" / "agent" / "settings.json"
    folder = home / ".pi" / "agent" / "extensions" / "herdr-link"
    folder.mkdir(parents=True)
    (folder / "index.ts").write_text('pi.registerTool({ name: "herdr_link" });\n')
    settings.write_text(SETTINGS)
    return settings, folder


@pytest.mark.parametrize(
    "meanwhile",
    [
        '{\n  "theme": "dark",\n  "packages": ["npm:herdr-link", "npm:last"]\n}\n',  # another package taken out
        '{\n  "theme": "dark",\n  "packages": ["npm:herdr-link"]\n}\n',  # the planned index is gone
    ],
    ids=["shifted", "shorter"],
)
def test_pi_settings_changed_while_the_question_waited_are_never_edited_by_stale_indexes(home, meanwhile):
    from herdr_link_pi_bridge import apply, plan

    settings, folder = typescript_pi(home)
    decided = plan(home, home, {})  # what the run asks about: [y/N] waits as long as the user likes
    settings.write_text(meanwhile)  # the user (or Pi) edits the file in the meantime
    result = apply(decided, {}, home, yes=True)
    assert result.action == "failed", result.messages
    assert any("changed while this run was planning" in m and "run again" in m for m in result.messages)
    assert result.messages[-1] == "state: nothing was changed"
    assert settings.read_text() == meanwhile and (folder / "index.ts").is_file() and not extension(home).exists()


def test_a_set_aside_note_that_cannot_be_written_changes_nothing_and_says_so(home):
    settings, folder = typescript_pi(home)
    (home / ".config" / "herdr-link" / "pi-typescript.json").mkdir(parents=True)  # the note cannot be written
    done = run(home, *PI, "install", "--yes")
    assert done.returncode == 1 and "error:" in done.stderr, (done.stdout, done.stderr)
    assert done.stdout.splitlines()[-1] == "state: nothing was changed"
    assert settings.read_text() == SETTINGS and (folder / "index.ts").is_file()  # the state line is true


@pytest.mark.parametrize("where", ["extension", "settings"])
@pytest.mark.parametrize("mode", [("--dry-run",), ("--yes",)])
def test_a_fifo_where_pi_keeps_a_file_is_refused_without_opening_it(home, where, mode):
    path = extension(home) if where == "extension" else home / ".pi" / "agent" / "settings.json"
    extension(home).parent.mkdir(parents=True)
    os.mkfifo(path)  # nobody writes to it: a read would wait for ever
    done = run(home, *PI, "install", *mode)
    assert done.returncode == 1 and "is not a regular file" in done.stderr, (done.stdout, done.stderr)
    assert done.stdout.splitlines()[-1] == "state: nothing was changed"


@pytest.mark.parametrize("mode", [("--dry-run",), ()])
def test_a_folder_at_the_pi_extensions_place_is_said_on_stderr_with_the_state_line(home, mode):
    extension(home).mkdir(parents=True)
    done = run(home, *PI, "install", *mode)
    assert done.returncode == 1 and "is a folder" in done.stderr, (done.stdout, done.stderr)
    assert done.stdout.splitlines()[-1] == "state: nothing was changed"


def test_what_a_killed_pi_install_left_is_cleared_by_a_run_with_nothing_to_do(home):
    assert run(home, *PI, "install").returncode == 0
    partial = extension(home).with_name("herdr-link.js.herdr-link.partial")
    partial.write_bytes(extension(home).read_bytes()[:100])
    done = run(home, *PI, "install")
    assert done.returncode == 0 and not partial.exists(), (done.stdout, done.stderr)
    assert f"removed: {partial}" in done.stdout and done.stdout.splitlines()[-1].startswith("state: ")


KILLER = """
import builtins, json, os, sys, traceback
home, kill_at, count = "", -1, 0
def traced(name, real):
    def call(*args, **kwargs):
        global count
        if name in ("fsync", "replace", "rename") or args and home in str(args[0]):
            if count == kill_at:
                os._exit(137)  # killed: no clean-up runs
            count += 1
        return real(*args, **kwargs)
    return call
real_open = os.open
for name in ("open", "fsync", "replace", "rename", "unlink", "chmod", "mkdir", "rmdir", "link"):
    setattr(os, name, traced(name, getattr(os, name)))
builtins.open = traced("open", builtins.open)
main = __import__(sys.argv[1], fromlist=["main"]).main
for line in sys.stdin:
    run = json.loads(line)
    child = os.fork()
    if child == 0:
        home, kill_at, count = run["home"], run["kill_at"], 0
        os.environ["HOME"] = home
        os.chdir(home)
        os.dup2(real_open(os.devnull, os.O_RDONLY), 0)
        for fd, name in ((1, run["out"]), (2, run["err"])):
            os.dup2(real_open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
        try:
            status = main(run["argv"])
            os.write(2, f"\\nkill-points {count}\\n".encode())
        except SystemExit as exit:
            status = exit.code
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status if isinstance(status, int) else 0 if status is None else 1)
    sys.stdout.write(json.dumps(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])) + "\\n")
    sys.stdout.flush()
"""
"""An installer's ``main``, imported once, run in a fresh fork per request (in the request's HOME and
folder, stdin empty) that dies at its K-th file-system call under HOME (K = -1: run to the end and say
how many there were): a seam outside production code, as a power cut would. The fork spares each
killed run the interpreter's start and the installer's imports, nothing of its own work."""


class Killer:
    """One :data:`KILLER` process per installer module, for the whole test module."""

    def __init__(self, module: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="killer-"))
        env = {"HOME": str(self.folder / "no-home"), "PATH": os.environ["PATH"], **PASSED_ON}
        self.process = subprocess.Popen(
            [sys.executable, "-c", KILLER, module], env=env, cwd=self.folder, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip

    def run(self, home: Path, kill_at: int, argv: list[str]) -> subprocess.CompletedProcess[str]:
        out, err = self.folder / "out", self.folder / "err"
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {"home": str(home), "kill_at": kill_at, "argv": argv, "out": str(out), "err": str(err)}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        if not ready:  # a run that waits for ever (on a FIFO) fails the test
            self.process.kill()
            raise subprocess.TimeoutExpired(argv, 60)
        code = json.loads(self.process.stdout.readline())
        return subprocess.CompletedProcess(argv, code, out.read_text(), err.read_text())

    def close(self) -> None:
        with self.process:  # closes its pipes (stdin first: the process ends at its end) and waits
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


KILLERS: dict[str, Killer] = {}


@pytest.fixture(scope="module", autouse=True)
def _killers() -> Iterator[None]:
    yield
    while KILLERS:
        KILLERS.popitem()[1].close()


def killed_at(home: Path, kill_at: int, module: str, *argv: str) -> subprocess.CompletedProcess[str]:
    if module not in KILLERS:
        KILLERS[module] = Killer(module)
    return KILLERS[module].run(home, kill_at, list(argv))


def kill_points(home: Path, module: str, *argv: str) -> int:
    whole = killed_at(home, -1, module, *argv)
    assert whole.returncode == 0, (whole.stdout, whole.stderr)
    return int(whole.stderr.rsplit("kill-points ", 1)[1])


def no_partials(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.name.endswith(".partial")]


PI_CLI, OPENCODE_CLI = "herdr_link_pi_bridge.cli", "herdr_link_installer.cli"


@pytest.mark.parametrize("step", ["install", "uninstall"])
def test_a_pi_run_killed_at_any_write_is_healed_by_the_next_and_uninstall_gives_everything_back(tmp_path, step):
    """Install (setting the TypeScript Herdr Link aside) or uninstall (giving it back), killed at each
    file-system call: the next run of the same command finishes, and uninstall then leaves Pi's settings
    byte for byte as they were and the TypeScript copy back in place."""
    command = ["install", "--yes"] if step == "install" else ["uninstall"]

    def fresh(name: str) -> tuple[Path, Path, Path]:
        home = tmp_path / name
        home.mkdir()
        settings, folder = typescript_pi(home)
        if step == "uninstall":
            assert killed_at(home, -1, PI_CLI, "install", "--yes").returncode == 0
        return home, settings, folder

    calls = kill_points(fresh("whole")[0], PI_CLI, *command)
    assert calls >= 10
    for kill_at in range(calls):
        home, settings, folder = fresh(f"kill-{kill_at}")
        assert killed_at(home, kill_at, PI_CLI, *command).returncode == 137, kill_at
        again = run(home, *PI, *command)
        assert again.returncode == 0, (kill_at, again.stdout, again.stderr)
        assert again.stdout.splitlines()[-1].startswith("state: "), kill_at
        if step == "install":
            assert extension(home).is_file() and not folder.exists() and "npm:herdr-link" not in settings.read_text()
            again = run(home, *PI, "uninstall")
            assert again.returncode == 0, (kill_at, again.stdout, again.stderr)
        assert not extension(home).exists(), kill_at
        assert settings.read_text() == SETTINGS, (kill_at, again.stdout)
        assert (folder / "index.ts").is_file() and not no_partials(home), kill_at


@pytest.mark.parametrize("step", ["install", "uninstall"])
def test_an_opencode_run_killed_at_any_write_is_healed_by_the_next(tmp_path, step):
    command = ["--runtime", "v2"] if step == "install" else ["--uninstall"]

    def fresh(name: str) -> Path:
        home: Path = tmp_path / name
        home.mkdir()
        if step == "uninstall":
            assert run(home, *OPENCODE).returncode == 0
        return home

    calls = kill_points(fresh("whole"), OPENCODE_CLI, *command)
    assert calls >= 5
    for kill_at in range(calls):
        home = fresh(f"kill-{kill_at}")
        assert killed_at(home, kill_at, OPENCODE_CLI, *command).returncode == 137, kill_at
        again = run(home, *OPENCODE[:1], *command)
        assert again.returncode == 0, (kill_at, again.stdout, again.stderr)
        assert again.stdout.splitlines()[-1].startswith("state: "), kill_at
        assert plugin(home).is_file() == (step == "install") and not no_partials(home), (kill_at, again.stdout)
        location = home / ".config" / "herdr-link" / "bridge.json"
        assert location.is_file() == (step == "install"), kill_at


def test_the_opencode_uninstall_takes_out_the_empty_folders_its_install_made_and_only_those(tmp_path):
    fresh, used = tmp_path / "fresh", tmp_path / "used"
    for home in (fresh, used):
        home.mkdir()
    (used / ".config" / "opencode").mkdir(parents=True)
    (used / ".config" / "opencode" / "opencode.json").write_text("{}\n")  # the user's, before the install
    for home in (fresh, used):
        assert run(home, *OPENCODE).returncode == 0
        done = run(home, OPENCODE[0], "--uninstall")
        assert done.returncode == 0 and done.stdout.splitlines()[-1].startswith("state: "), (done.stdout, done.stderr)
    assert not (fresh / ".config" / "opencode").exists()  # plugins/ and opencode/ were the install's
    assert sorted(p.name for p in (used / ".config" / "opencode").iterdir()) == ["opencode.json"]


@pytest.mark.parametrize("installer", ["opencode", "pi"])
def test_a_dry_run_of_an_uninstall_that_would_leave_anothers_file_says_so_on_stderr(home, installer):
    path = plugin(home) if installer == "opencode" else extension(home)
    path.parent.mkdir(parents=True)
    path.write_text("export default {}; // someone else's\n")
    done = run(home, *(OPENCODE[:1] + ["--uninstall"] if installer == "opencode" else [*PI, "uninstall"]), "--dry-run")
    real = run(home, *(OPENCODE[:1] + ["--uninstall"] if installer == "opencode" else [*PI, "uninstall"]))
    assert done.returncode == real.returncode == 1, (done.stdout, done.stderr, real.stdout, real.stderr)
    assert "would refuse:" in done.stderr and "not Herdr Link's" in done.stderr
    assert done.stdout.splitlines()[-1] == "state: nothing was changed"
    assert path.read_text() == "export default {}; // someone else's\n"


def test_a_codex_install_killed_at_any_write_is_healed_by_the_next(tmp_path):
    """``herdr-link-mcp install --host codex`` killed at each file-system call (between linking the new
    ``hooks.json`` in and removing its temporary name among them): the next run finishes."""
    command = ["install", "--host", "codex", "--yes"]

    def fresh(name: str) -> Path:
        home: Path = tmp_path / name
        (home / ".codex").mkdir(parents=True)
        return home

    calls = kill_points(fresh("whole"), "herdr_link_mcp.cli", *command)
    assert calls >= 10
    for kill_at in range(calls):
        home = fresh(f"kill-{kill_at}")
        assert killed_at(home, kill_at, "herdr_link_mcp.cli", *command).returncode == 137, kill_at
        again = run(home, str(BIN / "herdr-link-mcp"), *command)
        assert again.returncode == 0, (kill_at, again.stdout, again.stderr)
        assert again.stdout.splitlines()[-1].startswith("state: "), kill_at
        hooks = home / ".codex" / "hooks.json"
        assert os.stat(hooks).st_nlink == 1 and b"herdr" in hooks.read_bytes() and not no_partials(home), kill_at
