"""Helpers for unit tests that script Herdr's replies through ``ScriptedRunner``."""

import json
from collections.abc import Mapping, Sequence
from typing import Any

from herdr_link_control import Link, RunResult, ScriptedRunner

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
    """A runner answering by the longest argv prefix in ``table``; a list answers in turn (last repeats)."""
    queues = {key: list(value) if isinstance(value, list) else [value] for key, value in table.items()}

    def handle(argv: Sequence[str]) -> Any:  # a RunResult, or an awaitable of one
        key = max((k for k in queues if tuple(argv[: len(k)]) == k), key=len, default=None)
        if key is None:
            return err("not_scripted", " ".join(argv))
        queue = queues[key]
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        return answer(argv) if callable(answer) else answer

    return ScriptedRunner(handle)


def link(runner: ScriptedRunner, **env: str) -> Link:
    return Link({**ENV, **env}, runner=runner)
