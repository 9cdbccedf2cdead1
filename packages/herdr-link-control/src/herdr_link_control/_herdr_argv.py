"""Pure decisions about Herdr: which argv to run, how to read its reply, and which Link error a
failure becomes. No I/O happens here.

Classification is one table per role, following the spec's failure policy: a transport failure,
invalid JSON, a missing binary or a timeout is ``NOT_IN_HERDR`` and is never relabelled; a
structured Herdr error maps by the role the call plays in the operation.
"""

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from herdr_link_protocol import (
    GENERATED_NAME_PREFIX,
    AgentState,
    Cause,
    LinkError,
    is_valid_agent_name,
    normalize_agent_state,
)

from ._runner import RunResult

__all__ = [
    "CLASSIFICATION",
    "HERDR_ERROR_CODES",
    "TRANSPORT_CODES",
    "AgentRecord",
    "HerdrCommandError",
    "Role",
    "agent_get",
    "agent_list",
    "agent_prompt",
    "agent_rename",
    "agent_start",
    "classify",
    "herdr_error_code",
    "herdr_refusal",
    "pane_close",
    "pane_get",
    "pane_list",
    "pane_split",
    "parse_agent_record",
    "surface_violation",
    "parse_agent_rows",
    "tab_close",
    "tab_create",
]


class Role(enum.Enum):
    """The step a Herdr call is in an operation; with the Herdr code, it decides the Link error."""

    SELF = "self"  # agent get <own pane> for peers, and for a send whose list shows no named own row
    CALLER_WORKSPACE = "caller_workspace"  # agent get <own pane> for close, which needs only the workspace
    START_CALLER = "start_caller"  # agent get <own pane> at the beginning of a start
    BOOTSTRAP_RENAME = "bootstrap_rename"  # agent rename <own pane> <hl-…>
    TARGET = "target"  # agent get <name> for close; agent get <pane id> that pins a send's target
    ANCHOR = "anchor"  # agent get <with> inside start
    PEERS = "peers"  # agent list (peers, send: the caller's and the target's rows)
    PROMPT = "prompt"  # agent prompt
    CLOSE = "close"  # pane close for herdr_link_close
    TAB_CREATE = "tab_create"
    PANE_LIST = "pane_list"  # the new tab's root pane; the panes before an allocation (never fails a start)
    PANE_SPLIT = "pane_split"
    AGENT_START = "agent_start"
    ROLLBACK = "rollback"  # tab close / pane close of what a failed start created (logged, never shown)


HERDR_ERROR_CODES: Final = (
    "server_not_running",
    "protocol_mismatch",
    "invalid_request",
    "server_unavailable",
    "internal_error",
    "not_implemented",
    "agent_not_found",
    "agent_target_ambiguous",
    "agent_name_taken",
    "invalid_agent_name",
    "agent_launch_pending",
    "unsupported_agent_kind",
    "invalid_agent_argument",
    "invalid_agent_timeout",
    "agent_pane_not_found",
    "agent_pane_busy",
    "agent_pane_unavailable",
    "agent_start_input_failed",
    "agent_start_failed",
    "agent_name_not_found",
    "agent_kind_mismatch",
    "agent_not_ready",
    "timeout",
    "agent_start_transport_failed",
    "empty_agent_prompt",
    "agent_blocked",
    "agent_prompt_failed",
    "agent_prompt_stalled",
    "agent_not_running",
    "pane_not_found",
    "pane_split_failed",
    "workspace_not_found",
    "tab_not_found",
    "tab_close_failed",
    "tab_create_failed",
    "invalid_env",
    "confirmation_required",
)
"""Every error code Herdr 0.8.2 reports for the commands Link runs (``docs/herdr.md`` §9)."""

TRANSPORT_CODES: Final = frozenset({"server_not_running", "protocol_mismatch", "server_unavailable", "not_in_herdr"})
"""Herdr codes that mean the CLI could not reach a usable server: ``NOT_IN_HERDR`` in every role.

Every other code is Herdr refusing the request itself, and earns the role's own cause.
(``not_in_herdr`` is no Herdr code; the TypeScript implementation's test runner reports it.)
"""

CLASSIFICATION: Final[Mapping[Role, tuple[Cause, Mapping[str, Cause]]]] = {
    Role.SELF: (Cause.NO_STABLE_NAME, {"agent_not_found": Cause.SELF_NOT_DETECTED}),
    Role.CALLER_WORKSPACE: (Cause.CALLER_NOT_REPORTED, {}),
    Role.START_CALLER: (Cause.START_CALLER_NOT_REPORTED, {}),
    Role.BOOTSTRAP_RENAME: (Cause.NO_STABLE_NAME, {}),
    Role.TARGET: (Cause.NOT_A_PEER, {}),
    Role.ANCHOR: (Cause.NOT_A_PEER, {}),
    Role.PEERS: (Cause.PEERS_REFUSED, {}),
    Role.PROMPT: (
        Cause.SEND_REJECTED,
        {
            "agent_not_found": Cause.NOT_A_PEER,
            "agent_target_ambiguous": Cause.NOT_A_PEER,
            "agent_blocked": Cause.SEND_TARGET_BLOCKED,
            "agent_not_ready": Cause.SEND_TARGET_NOT_READY,
        },
    ),
    Role.CLOSE: (Cause.CLOSE_REJECTED, {}),
    Role.TAB_CREATE: (Cause.START_PLACEMENT_REFUSED, {}),
    Role.PANE_LIST: (Cause.START_PLACEMENT_REFUSED, {}),
    Role.PANE_SPLIT: (Cause.START_PLACEMENT_REFUSED, {}),
    Role.AGENT_START: (
        Cause.START_REJECTED,
        {
            "agent_name_taken": Cause.START_NAME_TAKEN,
            "unsupported_agent_kind": Cause.START_KIND_UNSUPPORTED,
            "agent_not_ready": Cause.START_AGENT_WAITING,
        },
    ),
    Role.ROLLBACK: (Cause.START_REJECTED, {}),
}
"""Per role: the cause of any Herdr refusal, and the exceptions to it by Herdr code.

A transport code (:data:`TRANSPORT_CODES`), a missing or unrunnable binary, a non-zero exit
without Herdr's JSON error, output that is not a JSON object and a timeout are ``NOT_IN_HERDR``
in every role instead (spec §6.1), never relabelled. ``PROTOCOL.md`` §7.5 is this table in prose.
"""


def herdr_refusal(role: Role, herdr_code: str) -> Cause:
    """The cause a structured Herdr error earns in ``role``."""
    if herdr_code in TRANSPORT_CODES:
        return Cause.HERDR_UNREACHABLE
    default, exceptions = CLASSIFICATION[role]
    return exceptions.get(herdr_code, default)


class HerdrCommandError(LinkError):
    """Raised for a structured Herdr error; ``herdr_code`` is Herdr's own code (operator use only)."""

    def __init__(self, cause: Cause, detail: str, herdr_code: str) -> None:
        super().__init__(cause, detail)
        self.herdr_code = herdr_code


# ---- argv builders (exactly the command surface of spec §8) ----------------------------------------


def agent_get(target: str) -> list[str]:
    return ["agent", "get", target]


def agent_list() -> list[str]:
    return ["agent", "list"]


def agent_prompt(target: str, text: str) -> list[str]:
    """The wrapper is one argument, taken literally by Herdr even when it starts with ``-``."""
    return ["agent", "prompt", target, text]


def agent_rename(pane_id: str, name: str) -> list[str]:
    return ["agent", "rename", pane_id, name]


def agent_start(name: str, kind: str, pane_id: str, args: Sequence[str]) -> list[str]:
    return ["agent", "start", name, "--kind", kind, "--pane", pane_id, "--", *args]


def pane_close(pane_id: str) -> list[str]:
    return ["pane", "close", pane_id]


def pane_get(pane_id: str) -> list[str]:
    """Pane commands follow a moved pane's old id; agent commands do not."""
    return ["pane", "get", pane_id]


def pane_list(workspace_id: str) -> list[str]:
    return ["pane", "list", "--workspace", workspace_id]


def pane_split(pane_id: str, cwd: str) -> list[str]:
    return ["pane", "split", pane_id, "--direction", "right", "--cwd", cwd, "--no-focus"]


def tab_create(workspace_id: str, cwd: str, label: str | None) -> list[str]:
    label_args = ["--label", label] if label is not None else []
    return ["tab", "create", "--workspace", workspace_id, "--cwd", cwd, *label_args, "--no-focus"]


def tab_close(tab_id: str) -> list[str]:
    return ["tab", "close", tab_id]


def surface_violation(argv: Sequence[str]) -> str | None:
    """Why ``argv`` is outside the command surface of spec §8, or ``None`` when it is inside.

    The surface is exactly the argv shapes the builders above produce, plus ``agent rename`` to a
    generated name (the bootstrap of §6.3). Tests run this over every command a simulated Herdr saw.
    """
    words = list(argv)
    head = tuple(words[:2])
    if words[2:3] and words[2].startswith("-") and head not in (("tab", "create"), ("pane", "list")):
        return f"herdr {' '.join(words[:2])} names no target: {words!r}"  # --current and other selectors
    shapes: dict[tuple[str, str], bool] = {
        ("agent", "get"): len(words) == 3,
        ("agent", "list"): len(words) == 2,
        ("agent", "prompt"): len(words) == 4,
        ("agent", "start"): len(words) >= 8 and words[3] == "--kind" and words[5] == "--pane" and words[7] == "--",
        ("agent", "rename"): len(words) == 4 and words[3].startswith(GENERATED_NAME_PREFIX),
        ("pane", "close"): len(words) == 3,
        ("pane", "get"): len(words) == 3,
        ("pane", "list"): len(words) == 4 and words[2] == "--workspace",
        ("pane", "split"): len(words) == 8 and words[3:6] == ["--direction", "right", "--cwd"]
        and words[7] == "--no-focus",
        ("tab", "create"): words[2:3] == ["--workspace"] and words[4:5] == ["--cwd"] and words[-1] == "--no-focus"
        and (len(words) == 7 or (len(words) == 9 and words[6] == "--label")),
        ("tab", "close"): len(words) == 3,
    }  # fmt: skip
    if head not in shapes:
        return f"herdr {' '.join(words[:2])} is not on the allowed surface"
    if not shapes[head]:
        return f"herdr {' '.join(words[:2])} has a shape outside the allowed surface: {words!r}"
    return None


# ---- reading replies ----------------------------------------------------------------------------


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _structured_error(value: Mapping[str, Any] | None) -> tuple[str, str] | None:
    error = value.get("error") if value is not None else None
    if isinstance(error, dict) and isinstance(error.get("code"), str) and error["code"]:
        message = error.get("message")
        return error["code"], message if isinstance(message, str) else ""
    return None


def herdr_error_code(result: RunResult) -> str | None:
    """Herdr's structured error code in a finished run's output, if it gave one (for the trace)."""
    for text in (result.stdout, result.stderr):
        found = _structured_error(_json_object(text))
        if found is not None:
            return found[0]
    return None


def classify(argv: Sequence[str], role: Role, result: RunResult) -> dict[str, Any]:
    """Turn one finished ``herdr`` run into its JSON reply, or raise the Link error it means. Each
    stream is parsed once: stdout's object is the reply, unless it (or stderr's) is Herdr's error.

    Raises:
        LinkError: ``NOT_IN_HERDR`` for anything but a well-formed reply or structured Herdr error;
            otherwise the cause :func:`herdr_refusal` gives for this role and Herdr code, and
            ``START_FAILED`` for Herdr's usage refusal (exit status 2) of ``agent start``.
    """
    command = " ".join(argv[:2])
    reply = _json_object(result.stdout)
    for value in (reply, _json_object(result.stderr) if result.stderr else None):
        found = _structured_error(value)
        if found is not None:
            code, message = found
            detail = f"herdr {command}: {code}: {message}"
            raise HerdrCommandError(herdr_refusal(role, code), detail, code)
    if result.returncode == 2 and role is Role.AGENT_START:
        # Herdr's own usage check refused the start: the only one Link can trigger is an unknown --kind.
        raise LinkError(Cause.START_KIND_UNSUPPORTED, f"herdr {command} usage error: {result.stderr.strip()[:200]}")
    if result.returncode != 0:
        raise LinkError(
            Cause.HERDR_UNREACHABLE, f"herdr {command} exited {result.returncode}: {result.stderr.strip()[:200]}"
        )
    if reply is None:
        raise LinkError(Cause.HERDR_UNREACHABLE, f"herdr {command} printed no JSON object: {result.stdout[:200]!r}")
    return reply


@dataclass(frozen=True, slots=True)
class AgentRecord:
    """The parts of Herdr's ``AgentInfo`` that Link uses. ``name`` is ``None`` unless valid."""

    name: str | None
    workspace_id: str
    pane_id: str
    state: AgentState
    cwd: str
    kind: str = ""
    """Herdr's agent label (``claude``, ``opencode``, ...), empty when not detected."""
    terminal_id: str = ""
    """The terminal the pane holds (a pane's occupant is its terminal, kind and name)."""

    @property
    def occupant(self) -> tuple[str, str, str, str | None]:
        """What a send pins before it types: the pane, its terminal, the agent's kind and name."""
        return (self.pane_id, self.terminal_id, self.kind, self.name)


def _agent_object(reply: Mapping[str, Any]) -> Mapping[str, Any] | None:
    # Herdr prints {"result":{"agent":{...}}}; a bare or flat record is accepted too, as the
    # TypeScript implementation does, so other Herdr builds and wrappers keep working.
    result = reply.get("result")
    for candidate in (result.get("agent") if isinstance(result, dict) else None, reply.get("agent"), result, reply):
        if isinstance(candidate, dict) and (isinstance(candidate.get("name"), str) or "pane_id" in candidate):
            return candidate
    return None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _record(agent: Mapping[str, Any]) -> AgentRecord:
    name = agent.get("name")
    return AgentRecord(
        name=name if is_valid_agent_name(name) else None,
        workspace_id=_text(agent.get("workspace_id")),
        pane_id=_text(agent.get("pane_id")),
        state=normalize_agent_state(agent.get("agent_status", agent.get("status"))),
        cwd=_text(agent.get("cwd")),
        kind=_text(agent.get("agent")),
        terminal_id=_text(agent.get("terminal_id")),
    )


def parse_agent_record(reply: Mapping[str, Any]) -> AgentRecord | None:
    """The agent of an ``agent get`` reply, or ``None`` if the reply holds none."""
    agent = _agent_object(reply)
    return _record(agent) if agent is not None else None


def parse_agent_rows(reply: Mapping[str, Any]) -> list[AgentRecord]:
    """The agents of an ``agent list`` reply, in Herdr's order."""
    result = reply.get("result")
    rows = result.get("agents") if isinstance(result, dict) else reply.get("agents")
    records = []
    for row in rows if isinstance(rows, list) else []:
        agent = _agent_object(row) if isinstance(row, dict) else None
        if agent is not None:
            records.append(_record(agent))
    return records
