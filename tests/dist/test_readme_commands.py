"""The README's commands, run as written from a fresh copy of the repository, on an OS-managed Python
(PEP 668) where the machine has one: Debian's own ``/usr/bin/python3`` here, which refuses
``pip install`` into itself and has neither ``venv`` nor ``ensurepip`` by default.

* the demo command, whole: it must tell the story and exit 0;
* the test command's set-up, the same line with the session run replaced by listing the sessions;
* the "Try it without Herdr" lines, whole: the doctor must see the pane and the probe the five tools;
* the install section's second line, with ``dist`` the wheelhouse this run built: the installed
  ``herdr-link-mcp`` must answer ``--version``.

Each command is read from the README (not a copy), so a README that stops working fails here.
"""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", README, flags=re.DOTALL)


def _managed_python_dir() -> Path | None:
    """The folder of an externally managed ``python3`` (PEP 668) on this machine, if there is one."""
    candidate = Path("/usr/bin/python3")
    if not candidate.exists():
        return None
    stdlib = subprocess.run(
        [str(candidate), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    return candidate.parent if (Path(stdlib) / "EXTERNALLY-MANAGED").is_file() else None


MANAGED = _managed_python_dir()
BIN = MANAGED or Path(sysconfig.get_path("scripts"))
"""Where ``python3`` comes from: the OS-managed one if the machine has it, else this environment's."""


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the repository as committed files plus their working-tree content (what a clone
    of this state holds), without ``.venv``, ``.tools`` or caches."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
    ).stdout.split(b"\0")
    target = tmp_path_factory.mktemp("clone")
    for name in filter(None, tracked):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            (target / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / os.fsdecode(name))
    return target


def _env(home: Path) -> dict[str, str]:
    """The machine's environment (its certificates, proxies, index settings are the user's), with a
    fresh HOME, ``python3`` from :data:`BIN` first, and nothing of the environment this test runs in."""
    ours = ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHOME", "UV_PROJECT_ENVIRONMENT", "UV_PYTHON")
    env = {k: v for k, v in os.environ.items() if k not in ours and not k.startswith("NOX_")}
    cache = os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv")  # warm caches: no timing here
    pip_cache = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    return {**env, "HOME": str(home), "PATH": f"{BIN}:/usr/bin:/bin", "UV_CACHE_DIR": cache,
            "PIP_CACHE_DIR": pip_cache}  # fmt: skip


def _run(command: str, cwd: Path, home: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=_env(home), capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def test_the_machine_has_the_python_this_test_is_about():
    """Where Debian's Python is installed, it is the one used: these tests then run on PEP 668."""
    if Path("/usr/lib/python3/dist-packages").is_dir():
        assert MANAGED is not None, "Debian's /usr/bin/python3 is here but not externally managed"
    # And it does refuse a plain install into itself, as users meet it.
    if MANAGED is not None:
        refused = subprocess.run([str(MANAGED / "python3"), "-m", "pip", "install", "--dry-run", "six"],
                                 capture_output=True, text=True, timeout=120)  # fmt: skip
        assert "externally-managed-environment" in refused.stderr


def test_the_demo_command_runs_as_written(clone: Path, tmp_path: Path):
    demo = _blocks()[0]
    done = _run(demo, clone, tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "herdr_link_close" in done.stdout and "gone" in done.stdout
    used = (clone / ".venv" / "bin" / "python").resolve()
    if MANAGED is not None:
        assert used.parent == MANAGED.resolve() or str(used).startswith("/usr/"), used


def test_the_test_commands_set_up_runs_as_written(clone: Path, tmp_path: Path):
    tests = _blocks()[1]
    assert tests.endswith(" nox"), tests  # the session run is the last word
    done = _run(tests + " --list", clone, tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "typecheck" in done.stdout and "real_hosts" in done.stdout


def test_the_install_sections_commands_run_as_written(clone: Path, tmp_path: Path):
    wheelhouse = os.environ.get("HERDR_LINK_WHEELHOUSE")
    assert wheelhouse, "run by nox -s dist, which builds the wheelhouse"
    block = next(b for b in _blocks() if "tool install --compile-bytecode --find-links dist" in b)
    set_up, server, everything = (line.split("  #")[0].strip() for line in block.splitlines())
    assert set_up.endswith("nox -s dist")  # the wheelhouse it writes is the one this run built
    work = tmp_path / "work"
    work.mkdir()
    tools = _run(set_up.split(" && ")[0], work, tmp_path)  # the line's first half: uv into .tools
    assert tools.returncode == 0, tools.stderr[-2000:]
    (work / "dist").symlink_to(wheelhouse)
    done = _run(server, work, tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    installed = tmp_path / ".local" / "bin" / "herdr-link-mcp"
    version = subprocess.run([str(installed), "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("herdr-link-mcp "), version.stderr
    assert sys.executable not in installed.read_text(errors="replace")  # its own environment, not ours
    tool = Path(installed.read_text(errors="replace").splitlines()[0].removeprefix("#!").split()[0]).parents[1]
    assert list(tool.rglob("herdr_link_mcp/__pycache__/_server.*.pyc")), f"{tool}: installed without bytecode"
    done = _run(everything, work, tmp_path, timeout=600)  # "everything": every command a user is told to run
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for command in EVERY_COMMAND:
        answered = subprocess.run([str(tmp_path / ".local" / "bin" / command), "--version"], capture_output=True,
                                  text=True, timeout=120)  # fmt: skip
        assert answered.returncode == 0 and answered.stdout.strip(), (command, answered.stderr[-500:])


EVERY_COMMAND = (
    "herdr-link", "herdr-link-mcp", "herdr-link-opencode-install", "herdr-link-pi-bridge", "herdr-link-bridge",
    "herdr-sim", "herdr-link-conformance",
)  # fmt: skip
"""Every command the README tells a user to run."""


def test_the_trace_lines_run_as_written(clone: Path, tmp_path: Path):
    block = next(b for b in _blocks() if "HERDR_LINK_TRACE=" in b)
    assert _run(_blocks()[0], clone, tmp_path).returncode == 0  # the demo command first, as the section says
    done = _run(block, clone, tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "start brain → worker: started" in done.stdout and "send brain → worker hl_" in done.stdout
    assert "close brain → worker: closed" in done.stdout


def test_the_try_it_without_herdr_lines_run_as_written(clone: Path, tmp_path: Path):
    block = next(b for b in _blocks() if "herdr-sim serve" in b)
    assert _run(_blocks()[0].split(" && ")[0], clone, tmp_path).returncode == 0  # uv into .tools, as the demo
    script = tmp_path / "try.sh"
    script.write_text(block + "\n")
    with subprocess.Popen(["bash", str(script)], cwd=clone, env=_env(tmp_path), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, start_new_session=True) as shell:  # fmt: skip
        try:
            out, err = shell.communicate(timeout=600)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(shell.pid, signal.SIGKILL)  # the simulator too, whatever happened
    assert "PASS  environment: Herdr pane w1:p1" in out, out[-3000:] + err[-2000:]
    assert out.rstrip().endswith("OK: a host sees the gateway, activates it and then sees all five tools, in both eras")
