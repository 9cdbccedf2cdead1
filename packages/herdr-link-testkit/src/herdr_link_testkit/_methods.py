"""The simulated Herdr's socket methods: each public ``method_*`` implements one socket method of
Herdr 0.8.2 (``docs/herdr.md`` §8, §11) and returns the ``result`` object, or raises
:class:`HerdrError` with Herdr's error code and message; :meth:`Simulator.dispatch` routes a
request to it."""

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from ._live import SETTLE, Detector
from ._model import (
    _EXECUTABLE,
    AGENT_NAME_MESSAGE,
    DEFAULT_START_TIMEOUT_MS,
    REPORT_STATES,
    Delivery,
    HerdrError,
    Launch,
    Occupant,
    Pane,
    Tab,
    Workspace,
    _delivery_shape,
    _remove_leaf,
    _replace_leaf,
    canonical_kind,
    valid_agent_name,
)
from ._pane_io import (
    ENTER,
    PROMPT_SUBMIT_DELAY,
    READ_SOURCES,
    identify_foreground,
    paste_bytes,
    read_text,
    shell_command,
)
from ._records import SimulatorRecords

__all__ = ["Simulator"]


class Simulator(SimulatorRecords):
    """One simulated Herdr server: its state, its records and its socket methods. Thread-safe: every
    method runs under one lock."""

    _pending = threading.local()

    def __init__(self, **options: Any) -> None:
        """The options of :class:`SimulatorState`; with ``real_panes``, detection runs in a thread."""
        super().__init__(**options)
        self._detector = Detector(self) if self.real_panes else None

    def shutdown(self) -> None:
        """Stop detection and end every real pane's processes."""
        if self._detector is not None:
            self._detector.stop()
        super().shutdown()

    # ---- socket methods ------------------------------------------------------------------------

    def method_ping(self, params: Mapping[str, Any]) -> dict[str, Any]:
        capabilities: dict[str, Any] = dict(self.release_row.ping_capabilities)
        return {"type": "pong", "version": self.version, "protocol": self.protocol, "capabilities": capabilities}

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
        if pane.terminal is not None:
            return {"type": "pane_process_info", "process_info": self._real_process_info(pane)}
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

    @staticmethod
    def _real_process_info(pane: Pane) -> dict[str, Any]:
        terminal = pane.terminal
        assert terminal is not None
        info: dict[str, Any] = {"pane_id": pane.id, "shell_pid": terminal.process.pid}
        job = terminal.foreground_job()
        if job is not None:
            group, processes = job
            info["foreground_process_group_id"] = group
            info["foreground_processes"] = [{"pid": p.pid, "name": p.name} for p in processes]
        return info

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
        if occupant.launch is not None and occupant.launch.pending:
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
        pending = occupant.launch is not None and occupant.launch.pending
        if occupant.kind is None or canonical_kind(occupant.kind) is None or pending:
            raise HerdrError("agent_not_ready", f"agent {target} is not an active named agent")
        if not occupant.foreground:
            raise HerdrError("agent_not_ready", f"agent {target} is no longer the pane foreground process")
        terminal = pane.terminal
        if terminal is not None and identify_foreground(terminal) != occupant.kind:
            # A live process check, as Herdr's (not the last detection tick).
            raise HerdrError("agent_not_ready", f"agent {target} is no longer the pane foreground process")
        snapshot = self.agent_info(pane)
        bracketed = terminal.bracketed_paste if terminal is not None else occupant.bracketed_paste
        mode: Literal["bracketed_paste", "plain"] = "bracketed_paste" if bracketed else "plain"
        typed = paste_bytes(text, bracketed)
        if terminal is not None:
            try:
                terminal.write(typed)
            except OSError as error:
                raise HerdrError("agent_prompt_failed", str(error)) from error
            if self.release_row.prompt_reply_after_enter:
                self._after_reply(lambda: terminal.write_after(ENTER, PROMPT_SUBMIT_DELAY))
            else:
                terminal.write_later(ENTER, PROMPT_SUBMIT_DELAY)
        else:
            pane.received.extend(typed + ENTER)
            if self.release_row.prompt_reply_after_enter:
                self._after_reply(lambda: time.sleep(PROMPT_SUBMIT_DELAY))
        raw, lines = _delivery_shape(text, bracketed)
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
        if pane.terminal is not None and not pane.terminal.at_shell_prompt():
            raise busy
        if pane.foreground_program is not None or time.monotonic() < pane.shell_ready_at:
            raise busy
        timeout_ms = params.get("timeout_ms", DEFAULT_START_TIMEOUT_MS)
        if not 3000 < timeout_ms <= 300_000:
            raise HerdrError(
                "invalid_agent_timeout", "agent start timeout must be greater than 3000ms and at most 300000ms"
            )
        now = time.monotonic()
        argv = [_EXECUTABLE.get(canonical, canonical), *args]
        terminal = pane.terminal
        script = None if terminal is not None else self.start_scripts.get(canonical, self.default_start_script)
        launch = Launch(canonical, argv, script, now, now + timeout_ms / 1000, ready_after=now + SETTLE)
        pane.occupant = Occupant(kind=None, status="unknown", name=name, launch=launch)
        if terminal is not None:
            # Herdr types the command line into the shell, as one submission: pasted if the shell
            # enabled bracketed paste, with the Enter right after it (src/app/agents.rs).
            try:
                terminal.write(paste_bytes(shell_command(argv), terminal.bracketed_paste) + ENTER)
            except OSError as error:
                pane.occupant = None
                raise HerdrError("agent_start_input_failed", str(error)) from error
        self.state_change_seq += 1
        self._bump(pane)
        return {"type": "agent_started", "agent": self.agent_info(pane), "argv": argv}

    def method_agent_read(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """What the pane shows, as ``agent read`` prints it (``src/app/api/agents.rs``); a modelled
        pane has no screen, so its text is empty."""
        target = params["target"]
        pane = self._resolve_agent(target)
        source = params.get("source", "recent")
        if source not in READ_SOURCES:
            raise HerdrError("invalid_request", f"invalid request: unknown variant `{source}`")
        text, truncated = read_text(pane.terminal, source, params.get("lines"))
        return {
            "type": "pane_read",
            "read": {
                "pane_id": pane.id,
                "workspace_id": pane.workspace.id,
                "tab_id": pane.tab.id,
                "source": source,
                "format": params.get("format", "text"),
                "text": text,
                "revision": 0,
                "truncated": truncated,
            },
        }

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
        self._run_after_reply(unlocked=True)
        if not was_working:
            limit = 5000 if timeout_ms is None else min(5000, timeout_ms)
            deadline = time.monotonic() + limit / 1000
            while not self._prompt_observed(pane, seq):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if timeout_ms is not None and timeout_ms <= 5000:
                        raise HerdrError("timeout", "timed out waiting for agent status")
                    raise HerdrError("agent_prompt_stalled", self._stalled(pane, seq, limit))
                self.changed.wait(min(0.05, remaining))
        until = wait.get("until") or ["idle", "done", "blocked"]
        result["agent"] = self._wait_for(pane, until, timeout_ms)
        return result

    def _prompt_observed(self, pane: Pane, seq: int) -> bool:
        """0.8.2 waits for any state change; 0.9 for working or blocked activity (the release's row)."""
        if self.release_row.prompt_observed == "activity":
            return self.public_status(pane) in ("working", "blocked")
        return self.state_change_seq != seq

    def _stalled(self, pane: Pane, seq: int, limit: int) -> str:
        status = self.public_status(pane)
        return self.release_row.stall_message.format(limit=limit, status=status, seq=seq)

    # ---- what runs after a reply is decided, outside the lock ------------------------------

    def _after_reply(self, action: Callable[[], None]) -> None:
        self._pending.action = action

    def _run_after_reply(self, *, unlocked: bool = False) -> None:
        """Run what the method left to do before its reply goes out (0.9's Enter), without holding
        the lock; ``unlocked``: the caller holds it once and gets it back."""
        action = getattr(self._pending, "action", None)
        self._pending.action = None
        if action is None:
            return
        if unlocked:
            self.lock.release()
        try:
            action()
        finally:
            if unlocked:
                self.lock.acquire()

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
        "agent.read": "method_agent_read",
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
        "agent.read": ("target", "source"),
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
            result = handler(params)
        # Herdr 0.9 answers `agent.prompt` only once the Enter, 300 ms after the text, was sent
        # (herdrdev/herdr #3506, #3685); 0.8.2 answers at once and sends the Enter later.
        self._run_after_reply()
        return result
