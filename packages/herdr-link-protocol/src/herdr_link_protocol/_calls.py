"""The one inbound parse: a tool name and the model's raw arguments, read once into a typed call.

Every adapter hands what the host sent to :func:`parse_call` and runs what comes back; nothing
after it checks a name, a shape or a field again. In order:

1. the tool must be one of ours and its arguments an object (protocol-level: :class:`InvalidToolCall`);
2. outside Herdr every such call is ``NOT_IN_HERDR`` (spec §6.1), whatever else it holds;
3. the gateway's form is read (activation, nested or flat dispatch: :func:`parse_gateway_call`);
4. the dispatched tool's argument rules apply once (:func:`known_arguments`: host keys dropped,
   raw ids and layout refused; the field lists come from the tool specs), then its fields are
   validated once, each bad one with the code of ``PROTOCOL.md`` §7.2.
"""

from dataclasses import dataclass
from typing import Any, ClassVar

from ._arguments import TOOL_FIELDS, known_arguments
from ._constants import CLOSE_TOOL, GATEWAY_TOOL, PEERS_TOOL, SEND_TOOL, START_TOOL, TOOL_ACTIONS
from ._envelope import is_blank_message
from ._errors import Cause, InvalidToolCall, LinkError
from ._names import AgentName, agent_name
from ._start import StartRequest, start_request
from ._tools import parse_gateway_call, typed_arguments

__all__ = [
    "Activate",
    "Call",
    "CloseCall",
    "ParsedCall",
    "PeersCall",
    "SendCall",
    "StartCall",
    "activates_session",
    "parse_call",
]


@dataclass(frozen=True, slots=True)
class Activate:
    """``herdr_link {}`` or ``{"action":"activate"}``: activate the session; no Herdr call."""

    tool: ClassVar[str] = GATEWAY_TOOL
    """The canonical tool that answers it."""
    action: ClassVar[str] = "activate"
    """Its gateway action (and its name in the trace)."""
    fallback: ClassVar[Cause | None] = None
    """What an unexpected failure (a bug, not a classified Herdr failure) earns: nothing can fail here."""
    target: ClassVar[str | None] = None
    """Whom it acts on: no one."""


@dataclass(frozen=True, slots=True)
class PeersCall:
    """``herdr_link_peers``."""

    tool: ClassVar[str] = PEERS_TOOL
    action: ClassVar[str] = TOOL_ACTIONS[PEERS_TOOL]
    fallback: ClassVar[Cause | None] = Cause.HERDR_UNREACHABLE
    target: ClassVar[str | None] = None


@dataclass(frozen=True, slots=True)
class SendCall:
    """``herdr_link_send``, read once: ``to`` is proven an Agent Name, and :attr:`blank` says whether the
    message is blank. The operation raises ``MESSAGE_EMPTY`` for a blank one only after the recipient
    resolved (``PROTOCOL.md`` §7.2's order); nothing after it checks either again."""

    to: AgentName
    message: str
    tool: ClassVar[str] = SEND_TOOL
    action: ClassVar[str] = TOOL_ACTIONS[SEND_TOOL]
    fallback: ClassVar[Cause | None] = Cause.SEND_REJECTED

    @property
    def target(self) -> str | None:
        """The recipient."""
        return self.to

    @property
    def blank(self) -> bool:
        """Whether the message has no character but whitespace (derived, so no call can lack it)."""
        return is_blank_message(self.message)


@dataclass(frozen=True, slots=True)
class CloseCall:
    """``herdr_link_close``, with ``agent`` proven an Agent Name."""

    agent: AgentName
    tool: ClassVar[str] = CLOSE_TOOL
    action: ClassVar[str] = TOOL_ACTIONS[CLOSE_TOOL]
    fallback: ClassVar[Cause | None] = Cause.CLOSE_REJECTED

    @property
    def target(self) -> str | None:
        """The agent whose pane closes."""
        return self.agent


@dataclass(frozen=True, slots=True)
class StartCall:
    """``herdr_link_start`` with its validated request (the configuration file is read when it runs)."""

    request: StartRequest
    tool: ClassVar[str] = START_TOOL
    action: ClassVar[str] = TOOL_ACTIONS[START_TOOL]
    fallback: ClassVar[Cause | None] = Cause.START_REJECTED

    @property
    def target(self) -> str | None:
        """The name the started agent is asked to take, if one was given."""
        return self.request.name


Call = Activate | PeersCall | SendCall | CloseCall | StartCall
"""What a tool call asks for, typed. Each kind says its canonical tool, its action, whom it acts on
and its fallback code; nothing else decides them."""


@dataclass(frozen=True, slots=True)
class ParsedCall:
    """One tool call, read: what it asks for, whether it came through the gateway, and the keys a host
    added that were dropped (for the operator log)."""

    call: Call
    via_gateway: bool = False
    ignored: tuple[str, ...] = ()

    @property
    def tool(self) -> str:
        """The canonical tool that answers it: the gateway for an activation, else the Tier 1 tool."""
        return self.call.tool


def _recipient(value: str) -> AgentName:
    """The recipient of a send or close, proven; an invalid name is ``PEER_NOT_FOUND`` (no Herdr call)."""
    name = agent_name(value)
    if name is None:
        raise LinkError(Cause.NOT_A_PEER, "not a valid Agent Name")
    return name


def _tier1(tool: str, values: dict[str, Any]) -> Call:
    if tool == PEERS_TOOL:
        return PeersCall()
    if tool == SEND_TOOL:
        send = typed_arguments(SEND_TOOL, values)
        return SendCall(_recipient(send["to"]), send["message"])
    if tool == CLOSE_TOOL:
        return CloseCall(_recipient(typed_arguments(CLOSE_TOOL, values)["agent"]))
    return StartCall(start_request(values))


def parse_call(tool: str, arguments: object, *, in_herdr: bool = True) -> ParsedCall:
    """Read one tool call as the host sent it (see the module docstring for the order of the rules).

    Args:
        tool: the tool name the host called (``herdr_link`` or a Tier 1 name).
        arguments: the raw arguments (an MCP host's absent arguments are ``{}``).
        in_herdr: whether the environment gate passes; when not, a well-formed call is ``NOT_IN_HERDR``.

    Raises:
        InvalidToolCall: protocol-level (unknown tool, non-object arguments, unknown gateway action,
            non-object gateway ``arguments``, a raw id or layout key on peers or an activation).
        LinkError: the tool's own code for a bad argument, or ``NOT_IN_HERDR`` outside Herdr.
    """
    if tool not in TOOL_FIELDS:
        raise InvalidToolCall(f"Unknown tool: {tool}")
    if not isinstance(arguments, dict):
        raise InvalidToolCall(f"{tool} arguments must be an object")
    if not in_herdr:
        raise LinkError(Cause.ENVIRONMENT_MISSING, "HERDR_ENV=1, HERDR_BIN_PATH and HERDR_PANE_ID are required")
    if tool == GATEWAY_TOOL:
        gateway = parse_gateway_call(arguments)
        if gateway.tool is None:
            ignored = tuple(str(key) for key in arguments if key not in TOOL_FIELDS[GATEWAY_TOOL])
            return ParsedCall(Activate(), via_gateway=True, ignored=ignored)
        normalized = known_arguments(gateway.tool, gateway.arguments)
        return ParsedCall(_tier1(gateway.tool, normalized.values), via_gateway=True, ignored=normalized.ignored)
    normalized = known_arguments(tool, arguments)
    return ParsedCall(_tier1(tool, normalized.values), ignored=normalized.ignored)


def activates_session(outcome: ParsedCall | InvalidToolCall | LinkError, *, in_herdr: bool) -> bool:
    """Whether a parse outcome activates the caller's session (``PROTOCOL.md`` §7.2): in Herdr, every
    call of ours does, well formed or not (a bad argument activates as a good one would); a
    protocol-level fault (:class:`InvalidToolCall`: not a call of ours) never does."""
    return in_herdr and not isinstance(outcome, InvalidToolCall)
