"""The simulated Herdr server state: workspaces, tabs, panes, their occupants, and every method.

Each public ``method_*`` implements one socket method of Herdr 0.8.2 (``herdr-cli.md`` §8, §11)
and returns the ``result`` object, or raises :class:`HerdrError` with Herdr's error code and
message. Time-driven behaviour (detection delays, managed-start readiness and deadlines) is
evaluated lazily, whenever state is read, so no background thread is needed.
"""

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ._cli_args import ALIASES, KINDS, kind_label
from ._ids import decode_number, pane_id, parse_canonical_pane_id, tab_id, workspace_id

__all__ = [
    "AGENT_KINDS",
    "HERDR_VERSIONS",
    "KIND_ALIASES",
    "Delivery",
    "HerdrError",
    "Occupant",
    "Pane",
    "Simulator",
    "StartScript",
]

AGENT_KINDS: Final = KINDS
"""Herdr's canonical interactive agent labels (``--kind``)."""
KIND_ALIASES: Final = ALIASES
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
    """A managed start in progress or completed."""

    kind: str
    argv: list[str]
    script: StartScript
    started_at: float
    deadline: float
    phase: Literal["pending", "active", "failed"] = "pending"


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


HERDR_VERSIONS: Final = {"0.8.2": 20, "0.9.0": 22}
"""The Herdr releases the simulator models, with the socket protocol each speaks (``docs/herdr-versions.md``)."""


class Simulator:
    """The state of one simulated Herdr server. Thread-safe: every method runs under one lock."""

    version: str = "0.8.2"
    protocol: int = 20

    def __init__(
        self, *, socket_path: str = "", bin_path: str = "", home: str | None = None, herdr_version: str = "0.8.2"
    ) -> None:
        if herdr_version not in HERDR_VERSIONS:
            raise ValueError(f"unknown Herdr version {herdr_version!r}; choose one of {', '.join(HERDR_VERSIONS)}")
        self.release = herdr_version
        """The release modelled; ``version`` and ``protocol`` are what ``ping`` reports (tests may change them)."""
        self.version, self.protocol = herdr_version, HERDR_VERSIONS[herdr_version]
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.socket_path = socket_path
        self.bin_path = bin_path
        self.home = home or os.path.expanduser("~")
        self.workspaces: list[Workspace] = []
        self.active_workspace: Workspace | None = None
        self.next_workspace = 1
        self.aliases: dict[str, Pane] = {}
        self.state_change_seq = 0
        self.start_scripts: dict[str, StartScript] = {}
        self.default_start_script = StartScript()
        self._terminal_counter = 0
        self._pid_counter = 4000

    # ---- helpers -------------------------------------------------------------------------------

    def _new_terminal_id(self) -> str:
        self._terminal_counter += 1
        return f"term_{time.time_ns() // 1000:x}{self._terminal_counter:x}"

    def all_panes(self) -> list[Pane]:
        """Every live pane, workspaces in order, tabs in order, layout order within a tab."""
        return [pane for ws in self.workspaces for tab in ws.tabs for pane in tab.panes()]

    def _bump(self, pane: Pane) -> None:
        pane.revision += 1
        self.changed.notify_all()

    def _set_status(self, pane: Pane, status: str) -> None:
        occupant = pane.occupant
        assert occupant is not None
        if occupant.status == status:
            return
        was_working = occupant.status == "working"
        occupant.status = status
        if status != "idle":
            occupant.seen = True
        elif was_working:
            occupant.seen = self._tab_is_viewed(pane.tab)
        self.state_change_seq += 1
        self._bump(pane)

    def _tab_is_viewed(self, tab: Tab) -> bool:
        return self.active_workspace is tab.workspace and tab.workspace.active_tab is tab

    def _clear_occupant(self, pane: Pane) -> None:
        if pane.occupant is not None:
            pane.occupant = None
            self.state_change_seq += 1
            self._bump(pane)

    def _advance(self) -> None:
        """Apply every time-driven transition that is due."""
        now = time.monotonic()
        for pane in self.all_panes():
            occupant = pane.occupant
            if occupant is None:
                continue
            if occupant.kind is None and occupant.pending_kind and now >= occupant.detect_at:
                occupant.kind, occupant.pending_kind = occupant.pending_kind, None
                self.state_change_seq += 1
                self._bump(pane)
            launch = occupant.launch
            if launch is None or launch.phase != "pending":
                continue
            script = launch.script
            if now >= launch.started_at + script.delay and occupant.kind is None:
                if script.outcome == "ready":
                    occupant.kind, occupant.foreground = launch.kind, True
                    launch.phase = "active"
                    self._set_status(pane, "idle")
                    occupant.seen = True
                elif script.outcome == "blocked":
                    occupant.kind, occupant.foreground = launch.kind, True
                    self._set_status(pane, "blocked")
                elif script.outcome == "mismatch":
                    occupant.kind, occupant.foreground = canonical_kind(script.other_kind) or script.other_kind, True
                    self._set_status(pane, "idle")
                elif script.outcome == "exit":
                    launch.phase = "failed"
                    self._clear_occupant(pane)
                    continue
            if now >= launch.deadline and launch.phase == "pending":
                launch.phase = "failed"
                self._clear_occupant(pane)

    def _resolve_pane(self, raw: str) -> Pane | None:
        """Lenient pane id resolution for ``pane`` commands: aliases, canonical, ``<ws>-<n>``."""
        if raw in self.aliases:
            return self.aliases[raw]
        parsed = parse_canonical_pane_id(raw)
        if parsed is None and "-" in raw:
            ws_part, _, number = raw.rpartition("-")
            workspace = self._resolve_workspace(ws_part)
            if workspace is not None and number.isdigit():
                parsed = (workspace.id, int(number))
        if parsed is None:
            return None
        return next((p for p in self.all_panes() if (p.workspace.id, p.number) == parsed), None)

    def _canonical_pane(self, raw: str) -> Pane | None:
        """Only the *current canonical* id, as agent targets and ``agent start --pane`` require."""
        return next((p for p in self.all_panes() if p.id == raw), None)

    def _resolve_workspace(self, raw: str) -> Workspace | None:
        for workspace in self.workspaces:
            if workspace.id == raw:
                return workspace
        position = raw[2:] if raw.startswith("w_") else raw
        if position.isdigit() and 1 <= int(position) <= len(self.workspaces):
            return self.workspaces[int(position) - 1]
        return None

    def _resolve_tab(self, raw: str) -> Tab | None:
        ws_part, sep, rest = raw.partition(":")
        workspace = self._resolve_workspace(ws_part) if sep else None
        if workspace is None:
            return None
        if rest.startswith("t"):
            number = decode_number(rest[1:])
            return next((t for t in workspace.tabs if t.number == number), None)
        if rest.isdigit() and 1 <= int(rest) <= len(workspace.tabs):
            return workspace.tabs[int(rest) - 1]
        return None

    @staticmethod
    def is_agent(pane: Pane) -> bool:
        """Herdr's ``is_agent_terminal``: a name, or an effective agent label."""
        occupant = pane.occupant
        return occupant is not None and (occupant.name is not None or occupant.kind is not None)

    def _resolve_agent(self, target: str) -> Pane:
        pane = self._canonical_pane(target)
        if pane is not None and self.is_agent(pane):
            return pane
        matches = [p for p in self.all_panes() if p.occupant is not None and p.occupant.name == target]
        if not matches:
            raise HerdrError("agent_not_found", f"agent target {target} not found")
        if len(matches) > 1:
            raise HerdrError("agent_target_ambiguous", f"agent target {target} matches more than one agent")
        return matches[0]

    def _name_holder(self, name: str) -> Pane | None:
        return next((p for p in self.all_panes() if p.occupant is not None and p.occupant.name == name), None)

    def _name_taken(self, name: str, holder: Pane) -> HerdrError:
        occupant = holder.occupant
        status = (occupant.status if occupant else "unknown").capitalize()
        return HerdrError(
            "agent_name_taken",
            f"agent name {name} is already used; candidates: terminal_id={holder.terminal_id} "
            f"pane_id={holder.id} workspace_id={holder.workspace.id} tab_id={holder.tab.id} "
            f"cwd={holder.cwd} status={status}",
        )

    # ---- object shapes -------------------------------------------------------------------------

    def _focused(self, pane: Pane) -> bool:
        return self._tab_is_viewed(pane.tab) and pane.tab.focused_pane is pane

    def public_status(self, pane: Pane) -> str:
        occupant = pane.occupant
        if occupant is None or (occupant.kind is None and occupant.name is None):
            return "unknown"
        if occupant.status == "idle" and not occupant.seen:
            return "done"
        return occupant.status

    def pane_info(self, pane: Pane) -> dict[str, Any]:
        info: dict[str, Any] = {
            "pane_id": pane.id,
            "terminal_id": pane.terminal_id,
            "workspace_id": pane.workspace.id,
            "tab_id": pane.tab.id,
            "focused": self._focused(pane),
            "cwd": pane.cwd,
            "foreground_cwd": pane.cwd,
        }
        if pane.label is not None:
            info["label"] = pane.label
        if pane.occupant is not None and pane.occupant.kind is not None:
            info["agent"] = pane.occupant.kind
        self._newer_fields(info, pane.occupant.kind if pane.occupant is not None else None)
        info["agent_status"] = self.public_status(pane)
        info["scroll"] = {"offset_from_bottom": 0, "max_offset_from_bottom": 0, "viewport_rows": 23}
        info["revision"] = pane.revision
        return info

    def agent_info(self, pane: Pane) -> dict[str, Any]:
        occupant = pane.occupant
        assert occupant is not None
        info: dict[str, Any] = {"terminal_id": pane.terminal_id}
        if occupant.name is not None:
            info["name"] = occupant.name
        if occupant.kind is not None:
            info["agent"] = occupant.kind
        self._newer_fields(info, occupant.kind)
        info["agent_status"] = self.public_status(pane)
        if occupant.hook_source is not None and occupant.hook_source.startswith("herdr:"):
            info["screen_detection_skipped"] = True
        info.update(workspace_id=pane.workspace.id, tab_id=pane.tab.id, pane_id=pane.id, focused=self._focused(pane))
        launch = occupant.launch
        if launch is not None and (launch.phase == "pending"):
            info["launch_pending"] = True
        if launch is not None and launch.phase == "active":
            info["interactive_ready"] = True
        info["state_change_seq"] = self.state_change_seq
        info.update(cwd=pane.cwd, foreground_cwd=pane.cwd, revision=pane.revision)
        return info

    def _newer_fields(self, info: dict[str, Any], kind: str | None) -> None:
        """Fields a 0.9.0 record carries that Herdr Link does not read (a client must ignore them)."""
        if self.release != "0.9.0":
            return
        if kind is not None:
            info["display_agent"] = kind
        info.update(terminal_title="herdr", terminal_title_stripped="herdr")

    def tab_info(self, tab: Tab) -> dict[str, Any]:
        statuses = [self.public_status(p) for p in tab.panes()]
        rollup = next((s for s in ("blocked", "working", "done", "idle") if s in statuses), "unknown")
        return {
            "tab_id": tab.id,
            "workspace_id": tab.workspace.id,
            "number": tab.number,
            "label": tab.label if tab.label is not None else str(tab.workspace.tabs.index(tab) + 1),
            "focused": self._tab_is_viewed(tab),
            "pane_count": len(tab.panes()),
            "agent_status": rollup,
        }

    def workspace_info(self, workspace: Workspace) -> dict[str, Any]:
        panes = [p for t in workspace.tabs for p in t.panes()]
        statuses = [self.public_status(p) for p in panes]
        return {
            "workspace_id": workspace.id,
            "number": self.workspaces.index(workspace) + 1,
            "label": workspace.label if workspace.label is not None else str(self.workspaces.index(workspace) + 1),
            "focused": self.active_workspace is workspace,
            "pane_count": len(panes),
            "tab_count": len(workspace.tabs),
            "active_tab_id": workspace.active_tab.id if workspace.active_tab else "",
            "agent_status": next((s for s in ("blocked", "working", "done", "idle") if s in statuses), "unknown"),
        }

    # ---- topology ------------------------------------------------------------------------------

    def _launch_cwd(self, cwd: str | None, fallback: str) -> str:
        if cwd is None:
            return fallback
        # Herdr passes --cwd verbatim; a path that is not a directory silently starts in $HOME.
        return cwd if os.path.isdir(cwd) else self.home

    def _new_pane(self, workspace: Workspace, tab: Tab, cwd: str, env: Mapping[str, str] | None) -> Pane:
        number = workspace.next_pane
        workspace.next_pane += 1
        pane = Pane(number, workspace, tab, self._new_terminal_id(), cwd, {})
        pane.env = {
            **(env or {}),
            "HERDR_ENV": "1",
            "HERDR_SOCKET_PATH": self.socket_path,
            "HERDR_BIN_PATH": self.bin_path,
            "HERDR_WORKSPACE_ID": workspace.id,
            "HERDR_TAB_ID": tab.id,
            "HERDR_PANE_ID": pane.id,
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
        }
        return pane

    def _new_tab(self, workspace: Workspace, cwd: str, label: str | None, env: Mapping[str, str] | None) -> Tab:
        tab = Tab(workspace.next_tab, workspace, label, [])
        workspace.next_tab += 1
        root = self._new_pane(workspace, tab, cwd, env)
        tab.layout, tab.focused_pane = [root], root
        workspace.tabs.append(tab)
        if workspace.active_tab is None:
            workspace.active_tab = tab
        return tab

    def _remove_pane(self, pane: Pane) -> None:
        tab, workspace = pane.tab, pane.workspace
        tab.layout = [_remove_leaf(tab.layout[0], pane)] if tab.layout else []
        if tab.layout == [None]:
            tab.layout = []
        for alias in [a for a, p in self.aliases.items() if p is pane]:
            del self.aliases[alias]
        if tab.focused_pane is pane:
            remaining = tab.panes()
            tab.focused_pane = remaining[0] if remaining else None
        if not tab.layout:
            self._remove_tab(tab)
        self.state_change_seq += 1
        self.changed.notify_all()
        del workspace  # the tab removal above handles an emptied workspace

    def _remove_tab(self, tab: Tab) -> None:
        workspace = tab.workspace
        index = workspace.tabs.index(tab)
        workspace.tabs.remove(tab)
        if workspace.active_tab is tab:
            workspace.active_tab = workspace.tabs[min(index, len(workspace.tabs) - 1)] if workspace.tabs else None
        if not workspace.tabs:
            position = self.workspaces.index(workspace)
            self.workspaces.remove(workspace)
            if self.active_workspace is workspace:
                self.active_workspace = (
                    self.workspaces[min(position, len(self.workspaces) - 1)] if self.workspaces else None
                )

    # ---- socket methods ------------------------------------------------------------------------

    def method_ping(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "type": "pong",
            "version": self.version,
            "protocol": self.protocol,
            "capabilities": {"live_handoff": True, "detached_server_daemon": False},
        }

    def method_workspace_create(self, params: Mapping[str, Any]) -> dict[str, Any]:
        cwd = self._launch_cwd(params.get("cwd"), self.home)
        workspace = Workspace(self.next_workspace, params.get("label"), cwd)
        self.next_workspace += 1
        self.workspaces.append(workspace)
        tab = self._new_tab(workspace, cwd, None, params.get("env"))
        if self.active_workspace is None or params.get("focus"):
            self.active_workspace = workspace
        root = tab.panes()[0]
        return {
            "type": "workspace_created",
            "workspace": self.workspace_info(workspace),
            "tab": self.tab_info(tab),
            "root_pane": self.pane_info(root),
        }

    def method_workspace_list(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": "workspace_list", "workspaces": [self.workspace_info(w) for w in self.workspaces]}

    def method_tab_create(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raw = params.get("workspace_id")
        workspace = self._resolve_workspace(raw) if raw is not None else self.active_workspace
        if workspace is None:
            raise HerdrError("workspace_not_found", f"workspace {raw} not found" if raw else "no active workspace")
        tab = self._new_tab(
            workspace, self._launch_cwd(params.get("cwd"), workspace.cwd), params.get("label"), params.get("env")
        )
        if params.get("focus"):
            self.active_workspace, workspace.active_tab = workspace, tab
        return {"type": "tab_created", "tab": self.tab_info(tab), "root_pane": self.pane_info(tab.panes()[0])}

    def method_tab_list(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raw = params.get("workspace_id")
        if raw is None:
            tabs = [t for w in self.workspaces for t in w.tabs]
        else:
            workspace = self._resolve_workspace(raw)
            if workspace is None:
                raise HerdrError("workspace_not_found", f"workspace {raw} not found")
            tabs = list(workspace.tabs)
        return {"type": "tab_list", "tabs": [self.tab_info(t) for t in tabs]}

    def method_tab_close(self, params: Mapping[str, Any]) -> dict[str, Any]:
        tab = self._resolve_tab(params["tab_id"])
        if tab is None:
            raise HerdrError("tab_not_found", f"tab {params['tab_id']} not found")
        for pane in tab.panes():
            pane.occupant = None
            for alias in [a for a, p in self.aliases.items() if p is pane]:
                del self.aliases[alias]
        self._remove_tab(tab)
        self.state_change_seq += 1
        self.changed.notify_all()
        return {"type": "ok"}

    def method_pane_get(self, params: Mapping[str, Any]) -> dict[str, Any]:
        pane = self._resolve_pane(params["pane_id"])
        if pane is None:
            raise HerdrError("pane_not_found", f"pane {params['pane_id']} not found")
        return {"type": "pane_info", "pane": self.pane_info(pane)}

    def method_pane_list(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raw = params.get("workspace_id")
        if raw is None:
            panes = self.all_panes()
        else:
            workspace = self._resolve_workspace(raw)
            if workspace is None:
                raise HerdrError("workspace_not_found", f"workspace {raw} not found")
            panes = [p for t in workspace.tabs for p in t.panes()]
        return {"type": "pane_list", "panes": [self.pane_info(p) for p in panes]}

    def method_pane_split(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raw = params.get("target_pane_id")
        if raw is not None:
            target = self._resolve_pane(raw)
        else:
            workspace = self.active_workspace
            target = workspace.active_tab.focused_pane if workspace and workspace.active_tab else None
        if target is None:
            raise HerdrError("pane_not_found", "pane not found")
        direction = params.get("direction")
        if direction not in ("right", "down"):
            raise HerdrError("invalid_request", f"invalid request: unknown variant `{direction}`")
        tab = target.tab
        pane = self._new_pane(target.workspace, tab, self._launch_cwd(params.get("cwd"), target.cwd), params.get("env"))
        tab.layout = [_replace_leaf(tab.layout[0], target, ["split", direction, target, pane])]
        if params.get("focus"):
            self.active_workspace, target.workspace.active_tab, tab.focused_pane = target.workspace, tab, pane
        self.changed.notify_all()
        return {"type": "pane_info", "pane": self.pane_info(pane)}

    def method_pane_close(self, params: Mapping[str, Any]) -> dict[str, Any]:
        pane = self._resolve_pane(params["pane_id"])
        if pane is None:
            raise HerdrError("pane_not_found", f"pane {params['pane_id']} not found")
        pane.occupant = None
        self._remove_pane(pane)
        return {"type": "ok"}

    def method_pane_process_info(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raw = params.get("pane_id")
        pane = self._resolve_pane(raw) if raw is not None else None
        if pane is None:
            raise HerdrError("pane_not_found", f"pane {raw} not found")
        shell_pid = 1000 + pane.number
        info: dict[str, Any] = {"pane_id": pane.id, "shell_pid": shell_pid}
        if pane.foreground_program is not None or (pane.occupant is not None and pane.occupant.foreground):
            name = pane.foreground_program or (pane.occupant.kind if pane.occupant else None) or "node"
            info["foreground_process_group_id"] = shell_pid + 1
            info["foreground_processes"] = [{"pid": shell_pid + 1, "name": name}]
        else:
            info["foreground_process_group_id"] = shell_pid
            info["foreground_processes"] = [{"pid": shell_pid, "name": "bash"}]
        return {"type": "pane_process_info", "process_info": info}

    def method_pane_move(self, params: Mapping[str, Any]) -> dict[str, Any]:
        pane = self._resolve_pane(params["pane_id"])
        if pane is None:
            raise HerdrError("pane_not_found", f"pane {params['pane_id']} not found")
        destination = params["destination"]
        previous = (pane.id, pane.workspace.id, pane.tab.id)
        if destination.get("type") == "new_tab":
            raw = destination.get("workspace_id")
            workspace = self._resolve_workspace(raw) if raw else pane.workspace
            if workspace is None:
                raise HerdrError("workspace_not_found", f"workspace {raw} not found")
            target_tab = Tab(workspace.next_tab, workspace, destination.get("label"), [])
            workspace.next_tab += 1
            anchor = None
        elif destination.get("type") == "tab":
            found = self._resolve_tab(destination["tab_id"])
            if found is None:
                raise HerdrError("tab_not_found", f"tab {destination['tab_id']} not found")
            target_tab, workspace = found, found.workspace
            anchor = self._resolve_pane(destination.get("target_pane_id") or "") or target_tab.focused_pane
        else:
            raise HerdrError("invalid_request", "invalid request: unsupported pane move destination")
        old_tab = pane.tab
        old_tab.layout = [_remove_leaf(old_tab.layout[0], pane)]
        if old_tab.layout == [None]:
            old_tab.layout = []
        if old_tab.focused_pane is pane:
            rest = old_tab.panes()
            old_tab.focused_pane = rest[0] if rest else None
        if pane.workspace is not workspace:
            # A move across workspaces renumbers the pane; the old id stays an alias for pane commands.
            self.aliases[pane.id] = pane
            pane.number = workspace.next_pane
            workspace.next_pane += 1
        pane.workspace, pane.tab = workspace, target_tab
        if anchor is None:
            target_tab.layout, target_tab.focused_pane = [pane], pane
            workspace.tabs.append(target_tab)
        else:
            target_tab.layout = [
                _replace_leaf(target_tab.layout[0], anchor, ["split", destination["split"], anchor, pane])
            ]
        if not old_tab.layout:
            self._remove_tab(old_tab)
        self._bump(pane)
        return {
            "type": "pane_move",
            "move_result": {
                "changed": True,
                "previous_pane_id": previous[0],
                "previous_workspace_id": previous[1],
                "previous_tab_id": previous[2],
                "pane": self.pane_info(pane),
            },
        }

    def method_pane_report_agent(self, params: Mapping[str, Any]) -> dict[str, Any]:
        pane = self._resolve_pane(params["pane_id"])
        if pane is None:
            raise HerdrError("pane_not_found", f"pane {params['pane_id']} not found")
        state = params["state"]
        if state not in REPORT_STATES:
            raise HerdrError("invalid_request", f"invalid request: unknown variant `{state}`")
        label = canonical_kind(params["agent"]) or params["agent"]
        occupant = pane.occupant
        if occupant is None or (occupant.kind is not None and occupant.kind != label):
            if occupant is not None:
                self._clear_occupant(pane)
            occupant = pane.occupant = Occupant(kind=label, status="unknown", foreground=False)
        occupant.kind = label
        occupant.hook_source = params["source"]
        self._set_status(pane, state)
        return {"type": "ok"}

    def method_agent_get(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": "agent_info", "agent": self.agent_info(self._resolve_agent(params["target"]))}

    def method_agent_list(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": "agent_list", "agents": [self.agent_info(p) for p in self.all_panes() if self.is_agent(p)]}

    def method_agent_rename(self, params: Mapping[str, Any]) -> dict[str, Any]:
        pane = self._resolve_agent(params["target"])
        occupant = pane.occupant
        assert occupant is not None
        name = params.get("name")
        if name is not None:
            if not valid_agent_name(name):
                raise HerdrError("invalid_agent_name", AGENT_NAME_MESSAGE)
            holder = self._name_holder(name)
            if holder is not None and holder is not pane:
                raise self._name_taken(name, holder)
        if occupant.launch is not None and occupant.launch.phase == "pending":
            raise HerdrError("agent_launch_pending", "agent name cannot change while startup is pending")
        if occupant.kind is None:
            if name is None:
                occupant.name = None
                self._clear_occupant(pane)
            raise HerdrError("agent_not_found", "agent target does not currently host an agent")
        occupant.name = name
        if name is None:
            occupant.launch = None
        self.state_change_seq += 1
        self._bump(pane)
        return {"type": "agent_info", "agent": self.agent_info(pane)}

    def method_agent_prompt(self, params: Mapping[str, Any]) -> dict[str, Any]:
        target, text = params["target"], params["text"]
        if text == "":
            raise HerdrError("empty_agent_prompt", "agent prompt must not be empty")
        pane = self._resolve_agent(target)
        occupant = pane.occupant
        assert occupant is not None
        if occupant.status == "blocked":
            raise HerdrError("agent_blocked", f"agent {target} is blocked and requires interactive input")
        pending = occupant.launch is not None and occupant.launch.phase == "pending"
        if occupant.kind is None or canonical_kind(occupant.kind) is None or pending:
            raise HerdrError("agent_not_ready", f"agent {target} is not an active named agent")
        if not occupant.foreground:
            raise HerdrError("agent_not_ready", f"agent {target} is no longer the pane foreground process")
        snapshot = self.agent_info(pane)
        mode: Literal["bracketed_paste", "plain"] = "bracketed_paste" if occupant.bracketed_paste else "plain"
        raw, lines = _delivery_shape(text, occupant.bracketed_paste)
        delivery = Delivery(pane.id, target, text, mode, True, raw, lines)
        pane.deliveries.append(delivery)
        self._bump(pane)
        if occupant.on_prompt is not None:
            occupant.on_prompt(delivery)
        return {"type": "agent_prompted", "agent": snapshot}

    def method_agent_start(self, params: Mapping[str, Any]) -> dict[str, Any]:
        name, kind, raw_pane = params["name"], params["kind"], params["pane_id"]
        args = list(params.get("args") or [])
        if not valid_agent_name(name):
            raise HerdrError("invalid_agent_name", AGENT_NAME_MESSAGE)
        canonical = canonical_kind(kind)
        if canonical is None:
            raise HerdrError("unsupported_agent_kind", f"unsupported interactive agent kind {kind}")
        if any(ord(c) < 0x20 or ord(c) == 0x7F for arg in args for c in arg):
            raise HerdrError("invalid_agent_argument", "agent arguments cannot be encoded safely for the target shell")
        holder = self._name_holder(name)
        if holder is not None:
            raise self._name_taken(name, holder)
        pane = self._canonical_pane(raw_pane)
        if pane is None:
            raise HerdrError("agent_pane_not_found", f"agent target pane {raw_pane} not found")
        busy = HerdrError("agent_pane_busy", f"agent target pane {raw_pane} is not an available shell")
        if self.is_agent(pane) or pane.occupant is not None:
            raise busy
        if pane.foreground_program is not None or time.monotonic() < pane.shell_ready_at:
            raise busy
        timeout_ms = params.get("timeout_ms", DEFAULT_START_TIMEOUT_MS)
        if not 3000 < timeout_ms <= 300_000:
            raise HerdrError(
                "invalid_agent_timeout", "agent start timeout must be greater than 3000ms and at most 300000ms"
            )
        now = time.monotonic()
        script = self.start_scripts.get(canonical, self.default_start_script)
        argv = [_EXECUTABLE.get(canonical, canonical), *args]
        launch = Launch(canonical, argv, script, now, now + timeout_ms / 1000)
        pane.occupant = Occupant(kind=None, status="unknown", name=name, launch=launch)
        self.state_change_seq += 1
        self._bump(pane)
        return {"type": "agent_started", "agent": self.agent_info(pane), "argv": argv}

    def method_agent_wait(self, params: Mapping[str, Any]) -> dict[str, Any]:
        pane = self._resolve_agent(params["target"])
        until = params.get("until") or ["idle", "done", "blocked"]
        return {"type": "agent_info", "agent": self._wait_for(pane, until, params.get("timeout_ms"))}

    def _wait_for(self, pane: Pane, until: list[str], timeout_ms: int | None) -> dict[str, Any]:
        deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
        terminal = pane.terminal_id
        while True:
            self._advance()
            if pane.occupant is None or pane not in self.all_panes() or pane.terminal_id != terminal:
                raise HerdrError("agent_not_running", "agent is no longer running in the target pane")
            if self.public_status(pane) in until:
                return self.agent_info(pane)
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise HerdrError("timeout", "timed out waiting for agent status")
            self.changed.wait(0.05 if remaining is None else min(0.05, remaining))

    def method_agent_prompt_wait(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``agent.prompt`` with ``wait``: prompt, require a state change within 5 s, then wait."""
        wait = params["wait"] or {}
        timeout_ms = wait.get("timeout_ms")
        pane = self._resolve_agent(params["target"])
        was_working = self.public_status(pane) == "working"
        seq = self.state_change_seq
        result = self.method_agent_prompt(params)
        if not was_working:
            limit = 5000 if timeout_ms is None else min(5000, timeout_ms)
            deadline = time.monotonic() + limit / 1000
            while self.state_change_seq == seq:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if timeout_ms is not None and timeout_ms <= 5000:
                        raise HerdrError("timeout", "timed out waiting for agent status")
                    raise HerdrError(
                        "agent_prompt_stalled",
                        f"agent prompt produced no observed state change within 5000 ms; status is "
                        f"{self.public_status(pane)} and state_change_seq remained {seq}",
                    )
                self.changed.wait(min(0.05, remaining))
        until = wait.get("until") or ["idle", "done", "blocked"]
        result["agent"] = self._wait_for(pane, until, timeout_ms)
        return result

    METHODS: Final = {
        "ping": "method_ping",
        "workspace.create": "method_workspace_create",
        "workspace.list": "method_workspace_list",
        "tab.create": "method_tab_create",
        "tab.list": "method_tab_list",
        "tab.close": "method_tab_close",
        "pane.get": "method_pane_get",
        "pane.list": "method_pane_list",
        "pane.split": "method_pane_split",
        "pane.close": "method_pane_close",
        "pane.move": "method_pane_move",
        "pane.process_info": "method_pane_process_info",
        "pane.report_agent": "method_pane_report_agent",
        "agent.get": "method_agent_get",
        "agent.list": "method_agent_list",
        "agent.rename": "method_agent_rename",
        "agent.prompt": "method_agent_prompt",
        "agent.start": "method_agent_start",
        "agent.wait": "method_agent_wait",
    }
    """Socket method name → handler; ``agent.prompt`` with ``wait`` goes to ``method_agent_prompt_wait``."""

    REQUIRED_PARAMS: Final = {
        "tab.close": ("tab_id",),
        "pane.get": ("pane_id",),
        "pane.close": ("pane_id",),
        "pane.move": ("pane_id", "destination"),
        "pane.report_agent": ("pane_id", "source", "agent", "state"),
        "pane.split": ("direction",),
        "agent.get": ("target",),
        "agent.rename": ("target",),
        "agent.prompt": ("target", "text"),
        "agent.start": ("name", "kind", "pane_id"),
        "agent.wait": ("target",),
    }

    def dispatch(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Run one socket method under the lock.

        Raises:
            HerdrError: with Herdr's code and message.
        """
        name = self.METHODS.get(method)
        if name is None:
            raise HerdrError("invalid_request", f"invalid request: unknown variant `{method}`")
        for key in self.REQUIRED_PARAMS.get(method, ()):
            if key not in params:
                raise HerdrError("invalid_request", f"invalid request: missing field `{key}`")
        with self.lock:
            self._advance()
            if method == "agent.prompt" and "wait" in params:
                return self.method_agent_prompt_wait(params)
            handler: Callable[[Mapping[str, Any]], dict[str, Any]] = getattr(self, name)
            return handler(params)
