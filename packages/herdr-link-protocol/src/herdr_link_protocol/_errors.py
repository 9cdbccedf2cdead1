"""Errors: the ten agent-facing codes of spec §7, their fixed reasons, and the protocol error classes.

Agent-facing text is built only from fixed templates. The values that may fill a template are
integers and names of tool arguments, so no pane, tab, workspace or terminal id, no Herdr output
and no CLI diagnostic can reach a model. Operator detail travels separately in ``LinkError.detail``.
"""

import enum
import re
from collections.abc import Mapping
from typing import Final

__all__ = [
    "Cause",
    "ErrorCode",
    "InvalidToolCall",
    "LinkError",
    "RemoteProtocolError",
]


class ErrorCode(enum.StrEnum):
    """The ten local tool-operation failures of ``herdr-link/1`` (spec §7)."""

    NOT_IN_HERDR = "NOT_IN_HERDR"
    SELF_UNNAMED = "SELF_UNNAMED"
    PEER_NOT_FOUND = "PEER_NOT_FOUND"
    SEND_FAILED = "SEND_FAILED"
    CLOSE_FAILED = "CLOSE_FAILED"
    START_CONFIG_NOT_FOUND = "START_CONFIG_NOT_FOUND"
    START_AGENT_NOT_FOUND = "START_AGENT_NOT_FOUND"
    START_CONFIG_INVALID = "START_CONFIG_INVALID"
    START_INPUT_INVALID = "START_INPUT_INVALID"
    START_FAILED = "START_FAILED"


class Cause(enum.Enum):
    """Why an operation failed: each cause belongs to one code and has one fixed agent-facing reason.

    A reason may contain ``{field}`` (the name of a tool argument) or ``{limit}`` (an integer).
    """

    # NOT_IN_HERDR
    ENVIRONMENT_MISSING = (ErrorCode.NOT_IN_HERDR, "Herdr environment is unavailable")
    HERDR_UNREACHABLE = (ErrorCode.NOT_IN_HERDR, "Herdr did not answer")
    HERDR_TIMEOUT = (ErrorCode.NOT_IN_HERDR, "Herdr did not answer in time")
    SEND_TIMEOUT = (
        ErrorCode.NOT_IN_HERDR,
        "Herdr did not answer in time; the message may still have been delivered",
    )
    BRIDGE_UNAVAILABLE = (ErrorCode.NOT_IN_HERDR, "the Herdr Link bridge is not available")
    BRIDGE_INCOMPATIBLE = (
        ErrorCode.NOT_IN_HERDR,
        "the Herdr Link bridge does not match this plugin; reinstall Herdr Link",
    )
    PEERS_REFUSED = (ErrorCode.NOT_IN_HERDR, "Herdr refused to list this workspace's agents")
    # SELF_UNNAMED
    NO_STABLE_NAME = (ErrorCode.SELF_UNNAMED, "Herdr Link could not establish a stable Agent Name")
    SENDER_INVALID = (ErrorCode.SELF_UNNAMED, "the sender's Agent Name is not a valid Agent Name")
    SELF_NOT_DETECTED = (ErrorCode.SELF_UNNAMED, "this agent is not yet detected by Herdr")
    SESSION_PANE_AMBIGUOUS = (
        ErrorCode.SELF_UNNAMED,
        "this session's directory is not the directory of exactly one OpenCode pane in Herdr",
    )
    SESSION_PANE_LEFT = (
        ErrorCode.SELF_UNNAMED,
        "the OpenCode pane this session was placed on has closed or no longer runs OpenCode, so this session "
        "speaks for no pane any more, and nothing was done",
    )
    SELF_UNPROVEN = (
        ErrorCode.SELF_UNNAMED,
        "this session runs in a process that several panes may share, so Herdr Link cannot show which pane it "
        "speaks for, and nothing was done: ask your user to run this host in its own pane's process",
    )
    CLIENT_UNREAD = (
        ErrorCode.SELF_UNNAMED,
        "this session's client did not identify itself in a form Herdr Link can read, so Herdr Link cannot show "
        "which pane it speaks for, and nothing was done: ask your user to restart this host",
    )
    # PEER_NOT_FOUND (deliberately one reason for every lookup failure: scope privacy, spec §5)
    NOT_A_PEER = (ErrorCode.PEER_NOT_FOUND, "target agent is not a live peer")
    PEER_ARGUMENT_INVALID = (ErrorCode.PEER_NOT_FOUND, '"{field}" must be an Agent Name')
    CALLER_NOT_REPORTED = (
        ErrorCode.PEER_NOT_FOUND,
        "Herdr does not report this agent's own workspace, so no peer can be reached",
    )
    # SEND_FAILED
    SEND_REJECTED = (ErrorCode.SEND_FAILED, "Herdr did not accept message delivery")
    SEND_TARGET_BLOCKED = (
        ErrorCode.SEND_FAILED,
        "the target agent is waiting for its user to answer a prompt in its pane, so nothing was delivered: "
        "send again once the user has answered it",
    )
    SEND_TARGET_ASKING = (
        ErrorCode.SEND_FAILED,
        "the target agent is waiting for its user to answer a question in its pane (such as whether to trust "
        "its folder), which only the user may answer, so nothing was typed: send again once the user has "
        "answered it",
    )
    SEND_TARGET_NOT_READY = (
        ErrorCode.SEND_FAILED,
        "the target agent is not ready for messages yet (still starting, or its program is not in the "
        "foreground), so nothing was delivered",
    )
    SEND_TARGET_CHANGED = (
        ErrorCode.SEND_FAILED,
        "the target agent's pane no longer holds the agent that was looked up (it exited, or another agent took "
        "its place or its name), so nothing was typed",
    )
    SEND_LOOP_SUSPECTED = (
        ErrorCode.SEND_FAILED,
        "this session has sent the target agent more messages in a short time than its user allows, which "
        "looks like two agents answering each other in a loop, so nothing was typed: do not message this agent "
        "again unless your user asks you to (the user can raise the limit)",
    )
    MESSAGE_EMPTY = (ErrorCode.SEND_FAILED, "message is empty")
    MESSAGE_NOT_TEXT = (ErrorCode.SEND_FAILED, '"{field}" must be a string')
    MESSAGE_TOO_LARGE = (ErrorCode.SEND_FAILED, "message exceeds {limit} bytes once wrapped for delivery")
    SEND_TOPOLOGY_REFUSED = (ErrorCode.SEND_FAILED, '"{field}" is not accepted: address agents by Agent Name')
    # CLOSE_FAILED
    CLOSE_REJECTED = (ErrorCode.CLOSE_FAILED, "Herdr pane close failed")
    CLOSE_TOPOLOGY_REFUSED = (ErrorCode.CLOSE_FAILED, '"{field}" is not accepted: address agents by Agent Name')
    # START_*
    CONFIG_NOT_FOUND = (ErrorCode.START_CONFIG_NOT_FOUND, "configured Agent start configuration was not found")
    CONFIG_AGENT_NOT_FOUND = (ErrorCode.START_AGENT_NOT_FOUND, "configured Agent start entry was not found")
    CONFIG_UNREADABLE = (ErrorCode.START_CONFIG_INVALID, "agent_config.json could not be read")
    CONFIG_NOT_JSON = (ErrorCode.START_CONFIG_INVALID, "agent_config.json is not valid JSON")
    CONFIG_SCHEMA_INVALID = (ErrorCode.START_CONFIG_INVALID, "agent_config.json does not match the schema")
    CONFIG_KIND_INVALID = (ErrorCode.START_CONFIG_INVALID, "a configured variant has an unusable kind")
    START_INPUT = (ErrorCode.START_INPUT_INVALID, "Agent start input is invalid")
    START_TOPOLOGY_REFUSED = (
        ErrorCode.START_INPUT_INVALID,
        '"{field}" is not accepted: placement comes from the configuration or "with"',
    )
    START_FIELD_INVALID = (ErrorCode.START_INPUT_INVALID, '"{field}" is invalid')
    START_MODES_MIXED = (ErrorCode.START_INPUT_INVALID, "config_agent cannot be combined with kind or args")
    START_MODE_MISSING = (ErrorCode.START_INPUT_INVALID, "give config_agent, or both kind and args")
    START_KIND_INVALID = (ErrorCode.START_INPUT_INVALID, '"kind" must be an agent kind such as claude or codex')
    START_WITH_AND_CWD = (ErrorCode.START_INPUT_INVALID, '"cwd" cannot be combined with "with"')
    START_WITH_ON_NEW_TAB = (ErrorCode.START_INPUT_INVALID, '"with" is not allowed for a new_tab configured placement')
    START_WITH_REQUIRED = (ErrorCode.START_INPUT_INVALID, 'this configured placement requires "with"')
    START_REJECTED = (ErrorCode.START_FAILED, "Herdr did not accept Agent start")
    START_KIND_UNSUPPORTED = (ErrorCode.START_FAILED, "Herdr does not support this agent kind")
    START_NAME_TAKEN = (ErrorCode.START_FAILED, "another live agent already has this Agent Name")
    START_AGENT_WAITING = (
        ErrorCode.START_FAILED,
        "the new agent's program is waiting for the user to answer a prompt in its pane (such as whether "
        "to trust the folder). Its pane was kept and its name stays reserved: messages reach the agent once "
        "the user has answered and it is ready, and a new start under the same name is refused",
    )
    START_AGENT_WOULD_ASK = (
        ErrorCode.START_FAILED,
        "the new agent's program would first ask its user a question in its pane (such as whether to trust "
        "the folder), which only the user may answer, so nothing was started: ask your user to answer it "
        "once in that host, then start again",
    )
    START_PLACEMENT_REFUSED = (ErrorCode.START_FAILED, "Herdr could not create the tab or pane for the new agent")
    START_CALLER_NOT_REPORTED = (ErrorCode.START_FAILED, "Herdr does not report this agent's own pane and workspace")
    START_ANCHOR_NO_CWD = (ErrorCode.START_FAILED, "the anchor agent's pane reports no working directory")

    @property
    def code(self) -> ErrorCode:
        """The error code this cause belongs to."""
        return self.value[0]

    @property
    def template(self) -> str:
        """The fixed agent-facing reason, possibly with ``{field}`` or ``{limit}`` placeholders."""
        return self.value[1]


DEFAULT_CAUSE: Final[Mapping[ErrorCode, Cause]] = {
    ErrorCode.NOT_IN_HERDR: Cause.ENVIRONMENT_MISSING,
    ErrorCode.SELF_UNNAMED: Cause.NO_STABLE_NAME,
    ErrorCode.PEER_NOT_FOUND: Cause.NOT_A_PEER,
    ErrorCode.SEND_FAILED: Cause.SEND_REJECTED,
    ErrorCode.CLOSE_FAILED: Cause.CLOSE_REJECTED,
    ErrorCode.START_CONFIG_NOT_FOUND: Cause.CONFIG_NOT_FOUND,
    ErrorCode.START_AGENT_NOT_FOUND: Cause.CONFIG_AGENT_NOT_FOUND,
    ErrorCode.START_CONFIG_INVALID: Cause.CONFIG_SCHEMA_INVALID,
    ErrorCode.START_INPUT_INVALID: Cause.START_INPUT,
    ErrorCode.START_FAILED: Cause.START_REJECTED,
}
"""The generic cause used when only a code is known."""

_FIELD_NAME: Final = re.compile(r"[a-z][a-z_]{0,31}", re.ASCII)


def _safe_field(value: str | None) -> str:
    # A field name comes from model input when it is an unknown key: echo it only when it is a short
    # word of letters, so a key can never smuggle an id (they all hold digits or start with term_),
    # a diagnostic or a control character.
    if value is None or not _FIELD_NAME.fullmatch(value) or value.startswith("term_"):
        return "argument"
    return value


class LinkError(Exception):
    """Raised when a Herdr Link operation fails with one of the ten agent-facing codes.

    ``str(error)`` is the agent-facing text ``CODE: reason`` and never contains operator detail;
    ``detail`` is for operator logs only.
    """

    def __init__(
        self,
        code_or_cause: ErrorCode | Cause,
        detail: str = "",
        *,
        field: str | None = None,
        limit: int | None = None,
    ) -> None:
        cause = DEFAULT_CAUSE[code_or_cause] if isinstance(code_or_cause, ErrorCode) else code_or_cause
        self.cause: Final = cause
        self.code: Final = cause.code
        self.detail: Final = detail
        self.reason: Final = cause.template.format(field=_safe_field(field), limit=int(limit or 0))
        super().__init__(self.agent_text)

    @property
    def agent_text(self) -> str:
        """The only rendering a model may see: ``CODE: reason``."""
        return f"{self.code}: {self.reason}"

    def __repr__(self) -> str:
        return f"LinkError({self.code}, cause={self.cause.name}, detail={self.detail!r})"


class RemoteProtocolError(ValueError):
    """Raised when text received from a peer is not a valid ``herdr-link/1`` envelope."""


class InvalidToolCall(ValueError):
    """Raised when a tool call is malformed at the protocol level.

    That is: the arguments are not an object, the tool is unknown, or the gateway action is unknown.
    MCP adapters answer these with a JSON-RPC error rather than a tool result.
    """
