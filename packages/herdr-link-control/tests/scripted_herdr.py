"""Helpers for unit tests that script Herdr's replies through ``ScriptedRunner``."""

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from herdr_link_control import Link, PaneEvidence, RunResult, ScriptedRunner, TerminalPane

ENV: Mapping[str, str] = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/mock/herdr", "HERDR_PANE_ID": "w1:p1"}


def agent(
    name: str | None = None,
    *,
    ws: str = "w1",
    pane: str = "w1:p1",
    status: str = "idle",
    cwd: str = "/proj",
    **extra: Any,
) -> dict[str, Any]:
    """Herdr's AgentInfo, trimmed to what matters."""
    info: dict[str, Any] = {"agent_status": status, "cwd": cwd, "pane_id": pane, "workspace_id": ws, **extra}
    if name is not None:
        info["name"] = name
    return info


def ok(value: Mapping[str, Any]) -> RunResult:
    return ScriptedRunner.ok(json.dumps(value, separators=(",", ":")))


def got(record: Mapping[str, Any]) -> RunResult:
    return ok({"id": "cli:agent:get", "result": {"agent": record, "type": "agent_info"}})


def err(code: str, message: str = "details w1:p7 term_abc") -> RunResult:
    return ScriptedRunner.error(code, message)


def scripted(table: Mapping[Any, Any]) -> ScriptedRunner:
    """A runner answering by the longest argv prefix in ``table``; a list answers in turn (last repeats).

    As Herdr does, ``agent get <pane id>`` of a pane the table does not name answers with the agent an
    ``agent get <name>`` last answered for that pane (a send's check of its target's occupant)."""
    queues = {key: list(value) if isinstance(value, list) else [value] for key, value in table.items()}
    by_pane: dict[str, RunResult] = {}

    def handle(argv: Sequence[str]) -> Any:  # a RunResult, or an awaitable of one
        key = max((k for k in queues if tuple(argv[: len(k)]) == k), key=len, default=None)
        by_id = tuple(argv[:2]) == ("agent", "get") and (key is None or len(key) < 3) and argv[2] in by_pane
        if by_id:
            return by_pane[argv[2]]
        if key is None:
            return err("not_scripted", " ".join(argv))
        queue = queues[key]
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        if tuple(argv[:2]) == ("agent", "get") and isinstance(answer, RunResult) and answer.returncode == 0:
            try:
                record = json.loads(answer.stdout).get("result", {}).get("agent", {})
            except (ValueError, AttributeError):
                record = None
            if isinstance(record, dict) and record.get("pane_id") and record.get("pane_id") != argv[2]:
                by_pane[record["pane_id"]] = answer
        return answer(argv) if callable(answer) else answer

    return ScriptedRunner(handle)


IN_PANE: Final = PaneEvidence(TerminalPane.SAME, "scripted: the adapter runs in its pane")


def link(runner: ScriptedRunner, **env: str) -> Link:
    """A Link whose process runs in its pane (its terminal shows it), as an adapter a host spawns there."""
    return Link({**ENV, **env}, runner=runner, pane_evidence=IN_PANE)
