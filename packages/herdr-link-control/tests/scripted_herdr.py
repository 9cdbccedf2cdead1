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


def _result(answer: RunResult) -> dict[str, Any]:
    try:
        result = json.loads(answer.stdout).get("result")
    except (ValueError, AttributeError):
        return {}
    return result if isinstance(result, dict) else {}


def _listed(queues: Mapping[Any, list[Any]]) -> RunResult:
    """An ``agent list`` of the agents the table's ``agent get`` entries answer now, each pane once."""
    rows: dict[str, Any] = {}
    for key, queue in queues.items():
        answer = queue[0] if queue else None
        if tuple(key[:2]) == ("agent", "get") and len(key) == 3 and isinstance(answer, RunResult):
            record = _result(answer).get("agent") if answer.returncode == 0 else None
            if isinstance(record, dict):
                rows.setdefault(str(record.get("pane_id", key[2])), record)
    return ok({"id": "cli:agent:list", "result": {"agents": list(rows.values()), "type": "agent_list"}})


def scripted(table: Mapping[Any, Any]) -> ScriptedRunner:
    """A runner answering by the longest argv prefix in ``table``; a list answers in turn (last repeats).

    As Herdr does, ``agent get <pane id>`` of a pane the table does not name answers with the agent an
    ``agent get <name>`` or ``agent list`` last answered for that pane (a send's check of its target's
    occupant), and ``agent list``, unless the table names it, lists the agents its ``agent get`` entries
    answer now (a send reads the caller and its target from one list)."""
    queues = {key: list(value) if isinstance(value, list) else [value] for key, value in table.items()}
    by_pane: dict[str, RunResult] = {}

    def handle(argv: Sequence[str]) -> Any:  # a RunResult, or an awaitable of one
        key = max((k for k in queues if tuple(argv[: len(k)]) == k), key=len, default=None)
        by_id = tuple(argv[:2]) == ("agent", "get") and (key is None or len(key) < 3) and argv[2] in by_pane
        if by_id:
            return by_pane[argv[2]]
        if key is None and tuple(argv[:2]) != ("agent", "list"):
            return err("not_scripted", " ".join(argv))
        if key is None:
            answer: Any = _listed(queues)
        else:
            queue = queues[key]
            answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        if tuple(argv[:2]) == ("agent", "get") and isinstance(answer, RunResult) and answer.returncode == 0:
            record = _result(answer).get("agent")
            if isinstance(record, dict) and record.get("pane_id") and record.get("pane_id") != argv[2]:
                by_pane[record["pane_id"]] = answer
        if tuple(argv[:2]) == ("agent", "list") and isinstance(answer, RunResult) and answer.returncode == 0:
            rows = _result(answer).get("agents")
            for row in rows if isinstance(rows, list) else []:
                if isinstance(row, dict) and isinstance(row.get("pane_id"), str) and row["pane_id"]:
                    by_pane[row["pane_id"]] = got(row)
        return answer(argv) if callable(answer) else answer

    return ScriptedRunner(handle)


IN_PANE: Final = PaneEvidence(TerminalPane.SAME, "scripted: the adapter runs in its pane")


def link(runner: ScriptedRunner, **env: str) -> Link:
    """A Link whose process runs in its pane (its terminal shows it), as an adapter a host spawns there."""
    return Link({**ENV, **env}, runner=runner, pane_evidence=IN_PANE)
