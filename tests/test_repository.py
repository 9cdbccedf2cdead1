"""Promises the repository makes about itself: CI runs the README's test command, and the README's
demo command runs the demo. Both are checked by running them, with recording stand-ins for the
installers so nothing is downloaded."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDER = """#!{python}
import json, os, shutil, sys
program = sys.argv[0] if sys.argv[0].startswith(".") else os.path.basename(sys.argv[0])
with open(os.environ["RECORD_TO"], "a", encoding="utf-8") as log:
    log.write(json.dumps([program, *sys.argv[1:]]) + "\\n")
if "--target" in sys.argv:  # pip install --target DIR: the tools it installs record too
    scripts = os.path.join(sys.argv[sys.argv.index("--target") + 1], "bin")
    os.makedirs(scripts, exist_ok=True)
    for name in ("uv", "uvx"):
        shutil.copy(sys.argv[0], os.path.join(scripts, name))
"""


def _quick_start_commands(readme: str = "README.md") -> list[str]:
    """The first two ``sh`` blocks: the demo command, then the test command."""
    text = (ROOT / readme).read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)\n```", text, flags=re.DOTALL)[:2]


@pytest.fixture
def recording_path(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A PATH on which ``python3`` and ``uv`` only record how they were called."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3", "uv"):
        (bin_dir / name).write_text(RECORDER.format(python=sys.executable))
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "calls.jsonl"
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "RECORD_TO": str(log)}, log


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _as_calls(command: str) -> list[list[str]]:
    return [shlex.split(part) for part in command.split("&&")]


def test_ci_runs_exactly_the_readmes_test_command(recording_path, tmp_path):
    env, log = recording_path
    _, tests = _quick_start_commands()
    (tmp_path / "clone" / ".ci").mkdir(parents=True)  # .ci/run works in the folder above it: a stand-in clone
    (tmp_path / "clone" / ".ci" / "run").write_bytes((ROOT / ".ci" / "run").read_bytes())
    done = subprocess.run(["bash", str(tmp_path / "clone" / ".ci" / "run")], env=env, timeout=60, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert _calls(log) == _as_calls(tests)


def test_the_readmes_demo_command_runs_the_demo(recording_path, tmp_path):
    env, log = recording_path
    demo, _ = _quick_start_commands()
    recorded = subprocess.run(["bash", "-c", demo], env=env, cwd=tmp_path, timeout=60, capture_output=True)
    assert recorded.returncode == 0, recorded.stderr
    install, run = _calls(log)
    assert install[:3] == ["python3", "-m", "pip"] and any(a.startswith("uv==") for a in install)
    assert "--target" in install  # never into the system's Python (PEP 668)
    assert run[0] == ".tools/bin/uv" and run[1] == "run" and run[-2:] == ["herdr-link", "demo"]
    assert "--no-dev" in run  # the demo installs what it runs, not the development tools
    # What uv would run, run for real in this environment: the demo tells the whole story and exits 0.
    script = Path(sys.executable).parent / run[-2]
    done = subprocess.run([str(script), run[-1]], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "herdr_link_close" in done.stdout and "gone" in done.stdout


def test_both_readmes_give_the_same_commands():
    assert _quick_start_commands("README.zh-CN.md") == _quick_start_commands()


def _shape(readme: str) -> dict[str, object]:
    """What both READMEs must share: as many sections, in order, each with the same commands, the
    same tables (by rows) and the same link targets."""
    text = (ROOT / readme).read_text(encoding="utf-8")
    sections = re.split(r"\n## ", text)[1:]
    return {
        "sections": len(sections),
        "blocks": [re.findall(r"```(?:sh|json)\n(.*?)\n```", s, flags=re.DOTALL) for s in sections],
        "table rows": [len(re.findall(r"^\|", s, flags=re.MULTILINE)) for s in sections],
        "links": [sorted(set(re.findall(r"\]\(([^)]+)\)", s))) for s in sections],
    }


def test_the_chinese_readme_is_complete_and_in_step():
    assert _shape("README.zh-CN.md") == _shape("README.md")


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
def test_every_install_command_a_readme_shows_inline_is_whole(readme):
    """An inline ``uv tool install`` a user is told to run is the whole command, not one cut with ``…``
    (issue 72: README step 3's `--with-executables-from …`, copied as written, failed)."""
    spans = re.findall(r"`((?:\.tools/bin/)?uv tool install [^`]*)`", (ROOT / readme).read_text(encoding="utf-8"))
    assert spans, "no inline install command found: the pattern no longer matches the README"
    assert [span for span in spans if "…" in span or "..." in span] == []
