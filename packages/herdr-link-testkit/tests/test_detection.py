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


def test_the_captures_cover_every_runnable_host_idle_and_blocked() -> None:
    shots = [json.loads(p.read_text(encoding="utf-8")) for p in SCREENS]
    idle = {s["agent"] for s in shots if s["state"] == "idle"}
    blocked = {s["agent"] for s in shots if s["state"] == "blocked"}
    assert idle == {"claude", "codex", "gemini", "opencode", "pi"}
    assert blocked == {"claude", "codex", "gemini"}  # OpenCode and Pi showed no blocking screen at start


def test_a_blocking_screen_is_idle_once_its_dialog_is_gone() -> None:
    # The same captured trust screen: its question alone, or its key hints alone, still block;
    # with both cut out, nothing on it is a dialog any more.
    shot = json.loads((Path(__file__).parent / "screens" / "claude-2.1.332-folder-trust.json").read_text())
    rows = shot["screen"].splitlines()
    question = [r for r in rows if "Esc to cancel" not in r]
    hints = [r for r in rows if "one you trust" not in r]
    neither = [r for r in question if r in hints]
    assert screen_state("claude", question, "") == "blocked"
    assert screen_state("claude", hints, "") == "blocked"
    assert screen_state("claude", neither, "") == "idle"


@pytest.mark.parametrize(
    ("agent", "rows", "title", "state"),
    [
        ("claude", ["✻ Thinking… (esc to interrupt)", "❯"], "✳ Claude Code", "working"),
        ("claude", ["❯"], "⠐ Claude Code", "working"),
        ("claude", ["Do you want to proceed?", "❯ 1. Yes", "  2. No"], "", "blocked"),
        ("codex", ["• Working (3s • esc to interrupt)", "› "], "", "working"),
        ("codex", ["› "], "project — Action Required", "blocked"),
        ("gemini", ["⠋ Thinking (esc to cancel, 2s)"], "", "working"),
        ("opencode", ["■■■■⬝⬝⬝⬝  esc interrupt"], "", "working"),
        ("opencode", ["△ Permission required"], "", "blocked"),
        ("pi", ["⠋ Working..."], "", "working"),
        ("cursor", ["anything at all"], "", "idle"),
    ],
)
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
