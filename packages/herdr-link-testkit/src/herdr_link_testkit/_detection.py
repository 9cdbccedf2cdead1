"""How the simulated Herdr tells which agent runs in a real pane, and in which state (``docs/herdr.md`` §7).

Pure functions over what a pane shows: its foreground processes, the bottom of its screen and its
window title. The agent comes from the foreground process group (the group leader first, then any
member): the process name, ``argv[0]``, or the script a generic runtime (``node``, ``bun``,
``python``, a shell) runs, normalized as Herdr does; else a ``HERDR_AGENT`` hint. The state comes
from screen rules per agent, first match wins, ``idle`` when none matches.

The rules are this project's own table, written so that the screens the real TUIs show (captured
in ``tests/screens/``) get the state Herdr 0.8.2's bundled screen manifests would give them
(``src/detect/manifests/<agent>.toml`` in herdrdev/herdr, read as facts: which words and shapes
on which part of the screen make an agent blocked, working or idle, and in which order). Where
those manifests have no rule for a dialog, Herdr reads it as ``idle``, and so does this: a simulator
that knew better than Herdr would hide exactly the failures users meet.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ._kinds import SHELL_NAMES, kind_label
from ._terminal import ForegroundProcess

__all__ = ["RULES", "Match", "ScreenRule", "identify_agent", "screen_state"]

State = Literal["idle", "working", "blocked"]

_RUNTIMES: Final = frozenset({"node", "nodejs", "bun", "deno"})
_EVAL_FLAGS: Final = frozenset({"-e", "--eval", "-p", "--print", "-c"})
_SUFFIXES: Final = (".exe", ".cmd", ".bat", ".ps1", ".js", ".mjs", ".cjs")


def _normalized(name: str) -> str:
    base = name.rsplit("/", 1)[-1].lower().lstrip("-")
    for suffix in _SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base


def _is_python(name: str) -> bool:
    return name == "python" or (name.startswith("python") and name[6:].replace(".", "").isdigit())


def _script(argv: Sequence[str]) -> str | None:
    """The script a runtime runs: its first argument that is not an option (none for ``-e``/``-c``)."""
    for index, argument in enumerate(argv[1:], start=1):
        if argument in _EVAL_FLAGS:
            return None
        if argument == "-m" and index + 1 < len(argv):
            return argv[index + 1]
        if not argument.startswith("-"):
            return argument
    return None


def _agent_of(process: ForegroundProcess) -> str | None:
    names = [process.argv[0]] if process.argv else []
    names.append(process.name)
    for name in names:
        normalized = _normalized(name)
        if normalized in _RUNTIMES or _is_python(normalized) or normalized in SHELL_NAMES:
            script = _script(process.argv)
            if script is not None and (agent := kind_label(_normalized(script))) is not None:
                return agent
            continue
        if (agent := kind_label(normalized)) is not None:
            return agent
    return None


def identify_agent(group: int, processes: Sequence[ForegroundProcess]) -> str | None:
    """The agent label of a foreground job, or ``None`` (a shell, or a program that is no agent)."""
    ordered = sorted(processes, key=lambda p: p.pid != group)  # the group leader first
    for process in ordered:
        if (agent := _agent_of(process)) is not None:
            return agent
    for process in ordered:
        if process.agent_hint is not None and (agent := kind_label(process.agent_hint)) is not None:
            return agent
    return None


@dataclass(frozen=True)
class Match:
    """A condition on a region of the screen: every string of ``contains`` is in it
    (case-insensitively), some line matches ``line``, ``text`` is found in it, at least one of
    ``any`` holds, every one of ``all`` holds and none of ``none`` does (each only when given)."""

    contains: tuple[str, ...] = ()
    line: str | None = None
    text: str | None = None
    any: tuple["Match", ...] = ()
    all: tuple["Match", ...] = ()
    none: tuple["Match", ...] = ()

    def holds(self, region: str) -> bool:
        lowered = region.lower()
        if not all(needle.lower() in lowered for needle in self.contains):
            return False
        if self.line is not None and not any(re.search(self.line, row) for row in region.splitlines()):
            return False
        if self.text is not None and re.search(self.text, region) is None:
            return False
        if self.any and not any(m.holds(region) for m in self.any):
            return False
        if not all(m.holds(region) for m in self.all):
            return False
        return not any(m.holds(region) for m in self.none)


def _either(*needles: str) -> tuple[Match, ...]:
    return tuple(Match((needle,)) for needle in needles)


def _is_rule(row: str) -> bool:
    """A horizontal rule: a row of ``─`` (at least three when text follows on the row)."""
    stripped = row.strip()
    dashes = len(stripped) - len(stripped.lstrip("─"))
    return dashes > 0 and (dashes >= 3 or not stripped[dashes:].strip())


def _region(name: str, rows: Sequence[str], title: str) -> str:
    if name == "title":
        return title
    if name.startswith("bottom:"):
        kept = [row for row in rows if row.strip()][-int(name[7:]) :]
        return "\n".join(kept)
    if name.startswith("top:"):
        kept = [row for row in rows if row.strip()][: int(name[4:])]
        return "\n".join(kept)
    rules = [index for index, row in enumerate(rows) if _is_rule(row)]
    if name == "after_rule":
        return "\n".join(rows[rules[-1] + 1 :] if rules else rows)
    if name == "prompt_box":  # between the last two rules (a TUI's composer box)
        if len(rules) < 2:
            return ""
        return "\n".join(rows[rules[-2] + 1 : rules[-1]])
    if name == "after_prompt":  # after Codex's last composer line (``›``)
        marks = [index for index, row in enumerate(rows) if row == "›" or row.startswith("› ")]
        return "\n".join(rows[marks[-1] + 1 :] if marks else rows)
    return "\n".join(rows)


@dataclass(frozen=True)
class ScreenRule:
    """When ``when`` holds on ``region`` of the screen, the agent is in ``state``.

    Regions: ``screen`` (the rows detection reads), ``title`` (the OSC title), ``bottom:N`` / ``top:N``
    (the last / first N non-empty rows), ``after_rule`` (the rows after the last horizontal rule),
    ``prompt_box`` (the rows between the last two rules) and ``after_prompt`` (after Codex's last
    ``›`` line). Rules are tried by ``priority``, highest first; the first that holds decides.
    """

    state: State
    region: str
    when: Match
    priority: int

    def matches(self, rows: Sequence[str], title: str) -> bool:
        return self.when.holds(_region(self.region, rows, title))


_CLAUDE_YES_NO = (
    Match(line=r"(?i)^\s*❯?\s*1\.\s*yes\b"),
    Match(line=r"(?i)^\s*2\.\s*yes\b"),
    Match(line=r"(?i)^\s*2\.\s*no\b"),
    Match(line=r"(?i)^\s*3\.\s*no\b"),
)
_DIALOG_HINTS = _either(
    "enter to select", "esc to cancel", "tab/arrow keys", "arrow keys to navigate", "↑/↓ to navigate"
)
_NAVIGATE = _either("tab/arrow keys to navigate", "arrow keys to navigate", "arrows to navigate", "↑/↓ to navigate",
                    "↑↓ to navigate")  # fmt: skip
_ASKS_YES_NO = (
    Match(("do you want to",), any=_either("yes", "❯")),
    Match(("would you like to",), any=_either("yes", "❯")),
)
"""A question put to the user with a yes or a selection mark beside it."""
_CLAUDE_SPARKS = "*·\u2722\u2736\u273b\u273d"
_BRAILLE = "\u2800-\u28ff"

RULES: Final[dict[str, tuple[ScreenRule, ...]]] = {
    "claude": (
        ScreenRule("working", "title", Match(text=rf"^[{_BRAILLE}\u25d0-\u25d3] "), 1100),
        ScreenRule(
            "blocked",
            "after_rule",
            Match(("esc to cancel",), any=(Match(("enter to confirm",)), Match(("enter to select",), any=_NAVIGATE))),
            980,
        ),  # fmt: skip
        ScreenRule("blocked", "screen", Match(("run a dynamic workflow?", "esc to cancel")), 980),
        ScreenRule(
            "working",
            "bottom:12",
            Match(
                any=(
                    Match(line=r"^\s*[⏸⏵].*esc to interrupt(?:\s|·|$)"),
                    Match(line=rf"^\s*[{_CLAUDE_SPARKS}]\s+\S.*…(?:\s+\(\d+[smh](?:\s|·)|\s*$)"),
                )
            ),
            970,
        ),  # fmt: skip
        ScreenRule("idle", "prompt_box", Match(line=r"^\s*❯", none=_DIALOG_HINTS), 950),
        ScreenRule(
            "blocked",
            "screen",
            Match(
                ("do you want to proceed?",),
                any=_either("bash command", "bash(", "contains expansion", "tab to amend", "ctrl+e to explain"),
                all=(
                    Match(
                        any=(
                            Match(line=r"(?i)^\s*❯?\s*yes\b"),
                            Match(line=r"(?i)^\s*1\.\s*yes\b"),
                            Match(line=r"(?i)^\s*2\.\s*no\b"),
                        )
                    ),
                ),
            ),
            850,
        ),  # fmt: skip
        ScreenRule(
            "blocked", "after_rule", Match(("do you want to proceed?", "esc to cancel"), any=_CLAUDE_YES_NO), 840
        ),
        ScreenRule(
            "blocked",
            "screen",
            Match(
                any=(
                    *_ASKS_YES_NO,
                    *_either(
                        "waiting for permission",
                        "do you want to allow this connection?",
                        "tab to amend",
                        "ctrl+e to explain",
                        "review your answers",
                        "skip interview and plan immediately",
                    ),
                    Match(("do you want to proceed?", "esc to cancel")),
                ),
                none=(Match(text=r"(?m)^\s*❯\s*$"),),
            ),
            300,
        ),  # fmt: skip
    ),
    "codex": (
        ScreenRule("blocked", "title", Match(("action required",)), 1100),
        ScreenRule("working", "title", Match(text=r"(?:^| )[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏](?: |$)"), 1050),
        ScreenRule(
            "blocked",
            "top:20",
            Match(text=r"(?s)\A> You are in [^\n]+.*Do\s+you\s+trust\s+the\s+contents\s+of\s+this\s+directory\?"),
            950,
        ),
        ScreenRule(
            "blocked",
            "after_prompt",
            Match(
                any=_either(
                    "press enter to confirm or esc to cancel",
                    "enter to submit answer",
                    "enter to submit all",
                    "allow command?",
                )
            ),
            900,
        ),  # fmt: skip
        ScreenRule(
            "blocked",
            "screen",
            Match(
                any=(
                    *_either("[y/n]", "yes (y)"),
                    *_ASKS_YES_NO,
                )
            ),
            600,
        ),  # fmt: skip
        ScreenRule(
            "working",
            "bottom:3",
            Match(
                line=r"^[•◦]\s+Working \([^)]*esc to interrupt\)(?: · .*)?$", none=_either("■ conversation interrupted")
            ),
            500,
        ),  # fmt: skip
    ),
    "gemini": (
        ScreenRule(
            "blocked",
            "screen",
            Match(
                any=(
                    *_either("│ apply this change", "│ allow execution"),
                    Match(
                        ("yes",),
                        any=_either(
                            "waiting for user confirmation", "│ do you want to proceed", "do you want to proceed?"
                        ),
                    ),
                    Match(line=r"(?i)^\s*❯.*(yes|allow)"),
                )
            ),
            300,
        ),  # fmt: skip
        ScreenRule("working", "screen", Match(("esc to cancel",)), 100),
    ),
    "opencode": (
        ScreenRule(
            "blocked",
            "screen",
            Match(
                any=(
                    Match(("△ permission required",)),
                    Match(
                        ("esc dismiss",),
                        any=_either("enter confirm", "enter submit", "enter toggle"),
                        all=(Match(any=_either("↑↓ select", "⇆ tab")),),
                    ),
                )
            ),
            300,
        ),  # fmt: skip
        ScreenRule(
            "working",
            "screen",
            Match(
                any=(
                    *_either("esc to interrupt", "ctrl+c to interrupt", "press esc to interrupt"),
                    Match(line=r"(?i).*opencode.*esc (again to )?interrupt"),
                )
            ),
            110,
        ),  # fmt: skip
        ScreenRule("working", "screen", Match(text="(■|⬝){4,}"), 100),
    ),
    "pi": (ScreenRule("working", "screen", Match(("working...",)), 100),),
    "agy": (
        ScreenRule(
            "blocked",
            "screen",
            Match(
                ("requesting permission for:",),
                any=(Match(("do you want to proceed?",)), Match(("tab amend", "edit command"))),
            ),
            300,
        ),  # fmt: skip
        ScreenRule("working", "screen", Match(line=rf"^\s*[{_BRAILLE}]+\s+[^\W\d_]+\w*ing\b"), 100),
        ScreenRule("working", "bottom:5", Match(line=r"(?i)·\s*[1-9][0-9]*\s+task"), 90),
    ),
}
"""Screen rules per agent label; agents without rules (or whose rules all fail) are ``idle``."""


def screen_state(agent: str, rows: Sequence[str], title: str) -> State:
    """The state of a detected agent from its screen rows and title (``idle`` when no rule holds)."""
    for rule in sorted(RULES.get(agent, ()), key=lambda r: -r.priority):
        if rule.matches(rows, title):
            return rule.state
    return "idle"
