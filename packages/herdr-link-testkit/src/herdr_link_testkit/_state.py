"""The simulated Herdr server's state and its transitions: what exists now, how ids and names
resolve, how time moves detection and managed starts on, how panes and tabs are made and removed.

Time-driven behaviour (detection delays, managed-start readiness and deadlines) is evaluated
lazily, whenever state is read, so no background thread is needed. The records each Herdr release
prints are :mod:`._records`; the socket methods, :mod:`._methods`.
"""

import os
import threading
import time
from collections.abc import Mapping

from ._ids import decode_number, parse_canonical_pane_id
from ._model import (
    BlockingScreen,
    HerdrError,
    Pane,
    StartScript,
    Tab,
    Workspace,
    _remove_leaf,
    canonical_kind,
)
from ._releases import DEFAULT_RELEASE, RELEASES

__all__ = ["SimulatorState"]


class SimulatorState:
    """The state of one simulated Herdr server and its transitions (time-driven ones evaluated lazily,
    whenever state is read). Thread-safe: every method runs under one lock."""

    version: str = DEFAULT_RELEASE
    protocol: int = 20

    def __init__(
        self,
        *,
        socket_path: str = "",
        bin_path: str = "",
        home: str | None = None,
        herdr_version: str = DEFAULT_RELEASE,
        real_panes: bool = False,
        server_env: Mapping[str, str] | None = None,
    ) -> None:
        """``real_panes``: every pane is a pseudo-terminal running a shell (:mod:`._terminal`), whose
        agents the simulator finds by detection (:mod:`._live`); ``server_env`` is the environment of
        the Herdr server, which each pane's shell inherits (default: this process's, with ``HOME``)."""
        if herdr_version not in RELEASES:
            raise ValueError(f"unknown Herdr version {herdr_version!r}; choose one of {', '.join(RELEASES)}")
        self.release = herdr_version
        """The release modelled; ``version`` and ``protocol`` are what ``ping`` reports (tests may change them)."""
        self.release_row = RELEASES[herdr_version]
        """What that release does where the modelled releases differ (its row of the release table)."""
        self.version, self.protocol = herdr_version, self.release_row.protocol
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
        self.real_panes = real_panes
        self.blockers: list[BlockingScreen] = []
        """Every blocking screen detection met on a real pane, in order."""
        self.server_env = dict(os.environ if server_env is None else server_env)
        if server_env is None:
            self.server_env["HOME"] = self.home
        if real_panes:
            from ._terminal import require_linux

            require_linux()

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
            if launch is None or launch.phase != "pending" or launch.script is None:
                continue  # a real pane's start is reconciled by its detection (._live)
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
        if self.real_panes:
            from ._terminal import PaneTerminal

            pane.terminal = PaneTerminal(cwd, self.launch_environment(pane))
        return pane

    def launch_environment(self, pane: Pane) -> dict[str, str]:
        """What a real pane's shell starts with: the server's environment less ``CODEX_THREAD_ID``,
        then the pane's own variables (``--env`` pairs and Herdr's, ``docs/herdr.md`` §10)."""
        inherited = {k: v for k, v in self.server_env.items() if k != "CODEX_THREAD_ID"}
        return {**inherited, **pane.env}

    def _end_terminal(self, pane: Pane) -> None:
        """End a real pane's processes (Herdr terminates them when it closes the pane)."""
        if pane.terminal is not None:
            pane.terminal.close()

    def shutdown(self) -> None:
        """End every real pane's processes."""
        with self.lock:
            for pane in self.all_panes():
                self._end_terminal(pane)

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
        self._end_terminal(pane)
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
        for pane in tab.panes():
            self._end_terminal(pane)
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
