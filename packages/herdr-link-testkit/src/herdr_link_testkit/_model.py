"""The simulated Herdr's model: workspaces, tabs, panes and their occupants, the layout tree, and
the constants and releases the simulator knows (``docs/herdr.md`` §4, §5). Plain data; the
simulator's state and its transitions are in :mod:`._state`, the records in :mod:`._records`,
the socket methods in :mod:`._methods`."""

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ._ids import pane_id, tab_id, workspace_id
from ._kinds import ALIASES, KINDS, kind_label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._terminal import PaneTerminal

__all__ = [
    "AGENT_KINDS",
    "BlockingScreen",
    "KIND_ALIASES",
    "Delivery",
    "HerdrError",
    "Launch",
    "Occupant",
    "Pane",
    "StartScript",
    "Tab",
    "Workspace",
    "canonical_kind",
    "valid_agent_name",
]

AGENT_KINDS: Final = KINDS
"""Herdr's canonical interactive agent labels (``--kind``)."""
KIND_ALIASES: Final = ALIASES
"""The aliases Herdr accepts for its labels (``--kind``, detection), each to its canonical label."""
_EXECUTABLE: Final = {"cursor": "cursor-agent", "kiro": "kiro-cli"}
AGENT_NAME_MESSAGE: Final = (
    "agent name must start with a lowercase letter and contain only lowercase letters, digits, '-' or '_' "
    "(1-32 characters)"
)
STATUSES: Final = ("idle", "working", "blocked", "done", "unknown")
REPORT_STATES: Final = ("idle", "working", "blocked", "unknown")
DEFAULT_START_TIMEOUT_MS: Final = 30_000


canonical_kind: Final = kind_label
"""Herdr's ``parse_agent_label``: a canonical label or alias, case-insensitively (``None`` if unknown)."""


def valid_agent_name(name: str) -> bool:
    """Herdr's ``valid_agent_name``: ``^[a-z][a-z0-9_-]{0,31}$`` over ASCII."""
    return (
        0 < len(name) <= 32
        and "a" <= name[0] <= "z"
        and all("a" <= c <= "z" or "0" <= c <= "9" or c in "_-" for c in name)
    )


class HerdrError(Exception):
    """Raised by a simulated method with Herdr's error ``code`` and ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class StartScript:
    """How an agent launched by ``agent start`` behaves.

    ``outcome``: ``ready`` (interactive after ``delay``), ``blocked`` (blocked during startup),
    ``never`` (stays pending until the deadline), ``exit`` (the process exits before it is
    interactive), or ``mismatch`` (an agent of ``other_kind`` appears instead).
    """

    outcome: Literal["ready", "blocked", "never", "exit", "mismatch"] = "ready"
    delay: float = 0.15
    other_kind: str = "claude"


@dataclass
class Launch:
    """A managed start in progress or completed.

    On a modelled pane ``script`` decides what happens; on a real pane (``script`` is ``None``)
    detection does, as Herdr's managed-start reconciliation: ``pending`` until the expected agent is
    idle after the settle delay (``ready_after``), ``blocked`` while it shows a blocking screen
    during start-up (still pending for prompts and renames), then ``active``; ``failed`` when the
    deadline passes, the process exits or another agent appears.
    """

    kind: str
    argv: list[str]
    script: StartScript | None
    started_at: float
    deadline: float
    phase: Literal["pending", "blocked", "active", "failed"] = "pending"
    ready_after: float = 0.0
    observed: bool = False
    """Whether the expected agent has been seen in the foreground since the start."""

    @property
    def pending(self) -> bool:
        """Herdr's ``managed_agent_launch_pending``: still pending, or blocked during start-up."""
        return self.phase in ("pending", "blocked")


@dataclass
class Occupant:
    """Something Herdr may count as an agent in a pane."""

    kind: str | None
    """Effective agent label; ``None`` while the process is not (yet) detected."""
    status: str = "idle"
    """Internal state: idle, working, blocked or unknown (``done`` is idle and not yet seen)."""
    seen: bool = True
    name: str | None = None
    foreground: bool = True
    """A live foreground process of this kind: what ``agent prompt`` requires."""
    hook_source: str | None = None
    bracketed_paste: bool = True
    detect_at: float = 0.0
    pending_kind: str | None = None
    launch: Launch | None = None
    on_prompt: Callable[["Delivery"], None] | None = None
    instance_id: str = field(default_factory=lambda: f"ai_{uuid.uuid4().hex[:16]}")
    """This occupant's ``agent_instance_id`` (0.9.0 mode): a new one for every agent that comes."""


@dataclass(frozen=True)
class Delivery:
    """One text typed into a pane by ``agent prompt``, as the terminal would receive it."""

    pane_id: str
    target: str
    text: str
    mode: Literal["bracketed_paste", "plain"]
    enter: bool
    raw_controls: tuple[str, ...]
    """Control characters in the text other than line feeds, as ``U+XXXX`` strings."""
    submitted_lines: int
    """How many input lines the agent would see submitted (1 for a clean delivery)."""

    @property
    def splits(self) -> bool:
        """Whether the text would reach the agent as more than one submitted line."""
        return self.submitted_lines > 1


@dataclass(frozen=True)
class BlockingScreen:
    """A screen on which detection found a real pane's agent blocked (waiting for its user)."""

    pane_id: str
    agent: str
    name: str | None
    """The Agent Name the pane held then, if any."""
    screen: str
    title: str
    at: float
    """``time.monotonic()`` when detection saw it."""


@dataclass(eq=False)
class Pane:
    number: int
    workspace: "Workspace"
    tab: "Tab"
    terminal_id: str
    cwd: str
    env: dict[str, str]
    occupant: Occupant | None = None
    foreground_program: str | None = None
    shell_ready_at: float = 0.0
    label: str | None = None
    revision: int = 0
    deliveries: list[Delivery] = field(default_factory=list)
    received: bytearray = field(default_factory=bytearray)
    """What a modelled pane's program read from ``agent prompt`` (a real pane's is its terminal's)."""
    terminal: "PaneTerminal | None" = None
    """The real terminal of a pane of a simulator with real panes."""

    @property
    def id(self) -> str:
        return pane_id(self.workspace.id, self.number)


@dataclass(eq=False)
class Tab:
    number: int
    workspace: "Workspace"
    label: str | None
    layout: list[Any]
    """A binary layout tree: a Pane leaf, or ``["split", direction, first, second]``."""
    focused_pane: Pane | None = None

    @property
    def id(self) -> str:
        return tab_id(self.workspace.id, self.number)

    def panes(self) -> list[Pane]:
        """Panes in layout order: depth first, first child before second."""

        def walk(node: Any) -> Iterator[Pane]:
            if isinstance(node, Pane):
                yield node
            else:
                yield from walk(node[2])
                yield from walk(node[3])

        return list(walk(self.layout[0])) if self.layout else []


@dataclass(eq=False)
class Workspace:
    number: int
    label: str | None
    cwd: str
    tabs: list[Tab] = field(default_factory=list)
    next_tab: int = 1
    next_pane: int = 1
    active_tab: Tab | None = None

    @property
    def id(self) -> str:
        return workspace_id(self.number)


def _replace_leaf(node: Any, leaf: Pane, replacement: Any) -> Any:
    if node is leaf:
        return replacement
    if isinstance(node, Pane):
        return node
    return ["split", node[1], _replace_leaf(node[2], leaf, replacement), _replace_leaf(node[3], leaf, replacement)]


def _remove_leaf(node: Any, leaf: Pane) -> Any:
    if node is leaf:
        return None
    if isinstance(node, Pane):
        return node
    first, second = _remove_leaf(node[2], leaf), _remove_leaf(node[3], leaf)
    if first is None:
        return second
    if second is None:
        return first
    return ["split", node[1], first, second]


def _delivery_shape(text: str, bracketed: bool) -> tuple[tuple[str, ...], int]:
    raw = tuple(f"U+{ord(c):04X}" for c in text if (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) and c != "\n")
    if bracketed:
        # A pasted "ESC [201~" ends the paste early; what follows is typed, and each CR or LF submits.
        head, sep, rest = text.partition("\x1b[201~")
        lines = 1 + (rest.count("\n") + rest.count("\r") if sep else 0)
    else:
        lines = 1 + text.replace("\r\n", "\n").count("\n") + text.replace("\r\n", "\n").count("\r")
    return raw, lines
