"""Promises the repository makes about itself."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_commands() -> list[str]:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, flags=re.DOTALL)


def test_the_readme_has_two_quick_start_commands_demo_and_tests():
    demo, tests = _quick_start_commands()
    assert demo.endswith("herdr-link demo") and tests.endswith("python3 -m nox")


def test_ci_runs_exactly_the_readmes_test_command():
    _, tests = _quick_start_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci.splitlines()


def test_both_readmes_give_the_same_commands():
    chinese = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    for command in _quick_start_commands():
        assert command in chinese
