"""How the simulated Herdr tells which agent runs in a real pane, and in which state (``herdr-cli.md`` §7).

Pure functions over what a pane shows: its foreground processes, the bottom of its screen and its
window title. The agent comes from the foreground process group (the group leader first, then any
member): the process name, ``argv[0]``, or the script a generic runtime (``node``, ``bun``,
``python``, a shell) runs, normalized as Herdr does; else a ``HERDR_AGENT`` hint. The state comes
from screen rules per agent, first match wins, ``idle`` when none matches.

The rules are this project's own, written from what the real TUIs show (``docs/hosts.md``,
``shared/reference/hosts-observed.md``) and tested on captured screens; Herdr's own rules are its
screen manifests (``src/detect/manifests/<agent>.toml`` in herdrdev/herdr), which this does not copy.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ._cli_args import SHELL_NAMES, kind_label
from ._terminal import ForegroundProcess

__all__ = ["RULES", "ScreenRule", "identify_agent", "screen_state"]

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
class ScreenRule:
    """One screen rule: when it matches, the agent is in ``state``.

    ``region``: ``title`` (the OSC title), ``bottom`` (the last ``lines`` non-empty rows) or
    ``screen`` (every row the detection reads). It matches when every string of ``all_of`` is in
    the region (case-insensitively) and ``pattern``, if set, is found in it.
    """

    state: State
    region: Literal["title", "bottom", "screen"]
    all_of: tuple[str, ...] = ()
    pattern: str | None = None
    lines: int = 6

    def matches(self, rows: Sequence[str], title: str) -> bool:
        if self.region == "title":
            text = title
        elif self.region == "bottom":
            text = "\n".join([row for row in rows if row.strip()][-self.lines :])
        else:
            text = "\n".join(rows)
        lowered = text.lower()
        if not all(needle in lowered for needle in self.all_of):
            return False
        return self.pattern is None or re.search(self.pattern, text, re.MULTILINE) is not None


_SPINNER: Final = r"^[\u2800-\u28ff\u25d0-\u25d3]"

RULES: Final[dict[str, tuple[ScreenRule, ...]]] = {
    "claude": (
        # Dialogs first: a trust, MCP-approval or permission question waits for its user.
        ScreenRule("blocked", "screen", ("is this a project you created or one you trust",)),
        ScreenRule("blocked", "screen", ("new mcp server found",)),
        ScreenRule("blocked", "screen", ("do you want to proceed?",)),
        ScreenRule("blocked", "bottom", ("enter to confirm", "esc to cancel"), lines=12),
        ScreenRule("working", "title", pattern=_SPINNER),
        ScreenRule("working", "bottom", ("esc to interrupt",), lines=12),
    ),
    "codex": (
        ScreenRule("blocked", "title", ("action required",)),
        ScreenRule("blocked", "screen", ("do you trust the contents of this directory",)),
        ScreenRule("blocked", "screen", ("allow command?",)),
        ScreenRule("blocked", "bottom", ("press enter to confirm or esc to cancel",), lines=12),
        ScreenRule("blocked", "screen", ("try new model", "use existing model")),
        ScreenRule("working", "title", pattern=r"(?:^| )[\u2800-\u28ff](?: |$)"),
        ScreenRule("working", "bottom", ("esc to interrupt",), lines=4),
    ),
    "gemini": (
        ScreenRule("blocked", "screen", ("do you trust the files in this folder",)),
        ScreenRule("blocked", "screen", ("allow execution",)),
        ScreenRule("blocked", "screen", ("waiting for user confirmation",)),
        ScreenRule("working", "bottom", ("esc to cancel",), lines=8),
    ),
    "opencode": (
        ScreenRule("blocked", "screen", ("permission required",)),
        ScreenRule("working", "bottom", ("esc",), pattern=r"(?i)esc (?:again )?(?:to )?interrupt", lines=8),
    ),
    "pi": (ScreenRule("working", "bottom", ("working...",), lines=8),),
    "agy": (
        ScreenRule("blocked", "screen", ("requesting permission for:",)),
        ScreenRule("blocked", "screen", ("do you want to proceed?",)),
    ),
}
"""Screen rules per agent label, in order; agents without rules are ``idle`` while detected."""


def screen_state(agent: str, rows: Sequence[str], title: str) -> State:
    """The state of a detected agent from the bottom of its screen and its title (``idle`` by default)."""
    for rule in RULES.get(agent, ()):
        if rule.matches(rows, title):
            return rule.state
    return "idle"
