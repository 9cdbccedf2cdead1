"""Detection's two halves, pure: which agent a foreground job is, and which state a screen shows.

The screens in ``screens/`` were captured from the real hosts' interactive TUIs running in a real
pane of the simulator (offline, fresh HOME, a new folder); each names the state Herdr's detection
must give it.
"""

import json
from pathlib import Path

import pytest

from herdr_link_testkit._detection import RULES, identify_agent, screen_state
from herdr_link_testkit._terminal import ForegroundProcess

SCREENS = sorted((Path(__file__).parent / "screens").glob("*.json"))


def _process(pid: int, name: str, *argv: str, hint: str | None = None) -> ForegroundProcess:
    return ForegroundProcess(pid, name, tuple(argv), hint)


@pytest.mark.parametrize("capture", SCREENS, ids=[p.stem for p in SCREENS])
def test_a_captured_screen_of_a_real_tui_gets_its_state(capture: Path) -> None:
    shot = json.loads(capture.read_text(encoding="utf-8"))
    assert screen_state(shot["agent"], shot["screen"].splitlines(), shot["title"]) == shot["state"]


def test_the_captures_cover_every_runnable_host() -> None:
    shots = [json.loads(p.read_text(encoding="utf-8")) for p in SCREENS]
    assert {s["agent"] for s in shots if s["state"] == "idle"} == {"claude", "codex", "gemini", "opencode", "pi"}
    assert {s["agent"] for s in shots if s["state"] == "blocked"} >= {"claude"}
    # A dialog Herdr's manifests have no rule for reads as idle: each such capture says so.
    dialogs = [s for s in shots if s["state"] == "idle" and "composer" not in json.dumps(s.get("note", "composer"))]
    assert all("Herdr" in s.get("note", "") for s in dialogs)


def test_a_trust_dialog_blocks_by_its_key_hints_after_the_last_rule() -> None:
    shot = json.loads((Path(__file__).parent / "screens" / "claude-2.1.332-folder-trust.json").read_text())
    rows = shot["screen"].splitlines()
    assert screen_state("claude", rows, "") == "blocked"
    without_hints = [r for r in rows if "Esc to cancel" not in r]
    assert screen_state("claude", without_hints, "") == "idle"  # the question alone: no rule reads it
    below_a_rule = [*rows, "─" * 40, "  text after a later rule"]
    assert screen_state("claude", below_a_rule, "") == "idle"  # only what follows the last rule counts


ROWS = [
    ("claude", ["❯ please", "✶ Deciphering…", "─" * 20, "❯", "─" * 20], "✳ Claude Code", "working"),
    ("claude", ["  ⏵⏵ auto mode on (shift+tab to cycle) · esc to interrupt"], "", "working"),
    ("claude", ["─" * 20, "❯ draft", "─" * 20, "  ? for shortcuts"], "", "idle"),
    ("claude", ["❯"], "⠐ Claude Code", "working"),
    ("claude", ["Do you want to proceed?", "❯ 1. Yes", "  2. No"], "", "blocked"),
    ("codex", ["• Working (3s • esc to interrupt)", "› "], "", "working"),
    ("codex", ["› "], "project — Action Required", "blocked"),
    ("gemini", ["⠋ Thinking (esc to cancel, 2s)"], "", "working"),
    ("opencode", ["■■■■⬝⬝⬝⬝  esc interrupt"], "", "working"),
    ("opencode", ["△ Permission required"], "", "blocked"),
    ("pi", ["⠋ Working..."], "", "working"),
    ("cursor", ["anything at all"], "", "idle"),
    # One row per rule that no captured screen exercises; each fails when its rule is removed.
    ("claude", ["Run a dynamic workflow?", "Esc to cancel"], "", "blocked"),
    ("claude", ["● Would you like to continue? yes", "─" * 20, "❯ draft", "─" * 20], "", "idle"),
    ("claude", ["Bash command", "Do you want to proceed?", " 1. Yes", " 2. No", "❯"], "", "blocked"),
    ("claude", ["─" * 20, "Do you want to proceed?", " 1. Yes", " 2. No", "Esc to cancel", "❯"], "", "blocked"),
    ("codex", ["› "], "⠋ project", "working"),
    (
        "codex",
        ["> You are in /home/u/x", "", "Do you trust the contents of this directory?", "› 1. Yes"],
        "",
        "blocked",
    ),  # fmt: skip
    ("codex", ["› fix it", "Allow command?", "  ls -la"], "", "blocked"),
    ("codex", ["Would you like to run it? yes / no"], "", "blocked"),
    ("gemini", ["│ Allow execution of: ls"], "", "blocked"),
    ("opencode", ["  esc to interrupt"], "", "working"),
    ("agy", ["Requesting permission for: ls", "Do you want to proceed?"], "", "blocked"),
    ("agy", ["⠋ Thinking about it"], "", "working"),
    ("agy", ["● Running · 2 tasks"], "", "working"),
]
"""Hand-written screens: ``(agent, rows, title, state)``."""


@pytest.mark.parametrize(("agent", "rows", "title", "state"), ROWS)
def test_screen_rules(agent: str, rows: list[str], title: str, state: str) -> None:
    assert screen_state(agent, rows, title) == state


def test_every_shipped_host_has_rules() -> None:
    assert {"claude", "codex", "gemini", "opencode", "pi", "agy"} <= set(RULES)


@pytest.mark.parametrize(
    ("processes", "agent"),
    [
        ([_process(10, "claude", "claude")], "claude"),
        ([_process(10, "node", "node", "/home/u/.npm/bin/claude")], "claude"),  # an npm bin script
        ([_process(10, "MainThread", "node", "--no-warnings", "/x/bin/gemini")], "gemini"),
        ([_process(10, "python3", "/usr/bin/python3", "-S", "/tmp/bin/claude")], "claude"),
        ([_process(10, "codex", "/x/codex/codex-x86_64-linux", "--flag")], "codex"),
        ([_process(10, "node", "node", "/x/bin/codex"), _process(11, "codex", "codex")], "codex"),
        ([_process(10, "claude-code", "claude-code")], "claude"),  # an alias
        ([_process(10, "node", "node", "-e", "require('codex')")], None),  # an eval, not a script
        ([_process(10, "python3", "python3", "-c", "print('codex')")], None),
        ([_process(10, "bash", "bash")], None),
        ([_process(10, "sleep", "sleep", "100")], None),
        ([_process(10, "fence", "fence", "--", "thing", hint="pi")], "pi"),  # the HERDR_AGENT hint
        ([_process(10, "fence", "fence", hint="nonsense")], None),
    ],
)
def test_the_agent_of_a_foreground_job(processes: list[ForegroundProcess], agent: str | None) -> None:
    assert identify_agent(10, processes) == agent


def test_the_group_leader_is_preferred() -> None:
    members = [_process(11, "pi", "pi"), _process(10, "codex", "codex")]
    assert identify_agent(10, members) == "codex"
    assert identify_agent(12, members) == "pi"  # no leader among them: the first that is an agent


def test_every_rule_decides_some_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule is needed: without it, a captured or hand-written screen gets another state."""
    cases = [(s["agent"], s["screen"].splitlines(), s["title"], s["state"]) for s in map(_load, SCREENS)]
    cases += ROWS

    def wrong() -> int:
        return sum(screen_state(agent, rows, title) != state for agent, rows, title, state in cases)

    assert wrong() == 0
    for agent, rules in list(RULES.items()):
        for index, rule in enumerate(rules):
            monkeypatch.setitem(RULES, agent, rules[:index] + rules[index + 1 :])
            assert wrong() > 0, f"nothing needs the {agent} rule {rule}"
        monkeypatch.setitem(RULES, agent, rules)


def _load(path: Path) -> dict[str, str]:
    value: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return value
