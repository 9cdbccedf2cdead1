"""The records the simulated Herdr prints (``PaneInfo``, ``AgentInfo``, ``TabInfo``,
``WorkspaceInfo``, ``docs/herdr.md`` §4), as each modelled release fills them."""

from typing import Any

from ._model import (
    Pane,
    Tab,
    Workspace,
)
from ._state import SimulatorState

_ACTIVITY_GLYPHS = "·✢✳✶✻✽◐◓◑◒"


def stripped_title(title: str) -> str | None:
    """Herdr's ``terminal_title_stripped``: the title without one leading activity glyph (a braille
    spinner or one of Claude Code's marks) followed by a space, or ``None`` when nothing is left
    (``src/terminal/title.rs``)."""
    title = title.strip()
    if not title:
        return None
    first, rest = title[0], title[1:]
    recognized = "\u2800" <= first <= "\u28ff" or first in _ACTIVITY_GLYPHS
    stripped = rest.strip() if recognized and (not rest or rest[0].isspace()) else title
    return stripped or None


__all__ = ["SimulatorRecords"]


class SimulatorRecords(SimulatorState):
    """The state, and the records it shows."""

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
        self._title_fields(info, pane)
        info["agent_status"] = self.public_status(pane)
        info["scroll"] = {"offset_from_bottom": 0, "max_offset_from_bottom": 0, "viewport_rows": 23}
        info["revision"] = pane.revision
        return info

    def agent_info(self, pane: Pane) -> dict[str, Any]:
        occupant = pane.occupant
        assert occupant is not None
        info: dict[str, Any] = {"terminal_id": pane.terminal_id}
        if "agent_instance_id" in self.release_row.agent_fields and occupant.kind is not None:
            # A later AgentInfo names the agent instance; no modelled release has it yet: the release
            # that adds it is a row of its own (docs/herdr-versions.md).
            info["agent_instance_id"] = occupant.instance_id
        if occupant.name is not None:
            info["name"] = occupant.name
        if occupant.kind is not None:
            info["agent"] = occupant.kind
        self._title_fields(info, pane)
        info["agent_status"] = self.public_status(pane)
        if occupant.hook_source is not None and occupant.hook_source.startswith("herdr:"):
            info["screen_detection_skipped"] = True
        info.update(workspace_id=pane.workspace.id, tab_id=pane.tab.id, pane_id=pane.id, focused=self._focused(pane))
        launch = occupant.launch
        if launch is not None and launch.pending:
            info["launch_pending"] = True
        if launch is not None and launch.phase == "active":
            info["interactive_ready"] = True
        info["state_change_seq"] = self.state_change_seq
        info.update(cwd=pane.cwd, foreground_cwd=pane.cwd, revision=pane.revision)
        return info

    @staticmethod
    def _title_fields(info: dict[str, Any], pane: Pane) -> None:
        """``terminal_title`` and ``terminal_title_stripped``, present only when the pane's program set a
        title (a real pane); ``display_agent`` only when a hook reports one, which is not modelled.
        The same in 0.8.2 and 0.9.0 (both schemas have them, optional)."""
        title = pane.terminal.title if pane.terminal is not None else ""
        if title.strip():
            info["terminal_title"] = title
            stripped = stripped_title(title)
            if stripped is not None:
                info["terminal_title_stripped"] = stripped

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
