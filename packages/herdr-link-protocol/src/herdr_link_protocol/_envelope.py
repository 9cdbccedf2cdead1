"""The ``herdr-link/1`` envelope (spec §2): build, serialise and parse."""

import json
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, ValidationError

from ._constants import PROTOCOL_ID
from ._errors import Cause, LinkError, RemoteProtocolError
from ._escape import dumps_terminal_safe
from ._models import LinkModel
from ._names import AgentName, is_valid_agent_name, is_valid_message_id, new_message_id

__all__ = ["Envelope", "build_envelope", "is_blank_message", "parse_envelope"]

# JavaScript's String.prototype.trim() whitespace (WhiteSpace and LineTerminator). The TypeScript
# implementation decides "blank" with trim(), so the same set keeps both sides in agreement, which
# Python's str.strip() would not (it differs on U+FEFF, U+0085 and U+001C-U+001F).
_JS_WHITESPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def is_blank_message(message: str) -> bool:
    """Return whether ``message`` has no character other than JavaScript ``trim()`` whitespace."""
    return all(char in _JS_WHITESPACE for char in message)


def _agent_name(value: str) -> str:
    if not is_valid_agent_name(value):
        raise ValueError("not a valid Agent Name")
    return value


def _message_id(value: str) -> str:
    if not is_valid_message_id(value):
        raise ValueError("not a valid herdr-link/1 message id")
    return value


def _message(value: str) -> str:
    if is_blank_message(value):
        raise ValueError("message must contain a non-whitespace character")
    return value


class Envelope(LinkModel):
    """One ``herdr-link/1`` message: exactly ``protocol, id, from, to, message``, in that order.

    An invalid envelope cannot be constructed. Unknown keys in received JSON are ignored, so
    envelopes from other implementations that add fields still parse.
    """

    model_config = ConfigDict(extra="ignore")

    protocol: Literal["herdr-link/1"] = PROTOCOL_ID
    """Always ``herdr-link/1``; set by the adapter."""
    id: Annotated[str, AfterValidator(_message_id)]
    """Unique message id ``hl_<timestamp>_<random>``; set by the adapter."""
    from_: Annotated[str, Field(alias="from"), AfterValidator(_agent_name)]
    """The sender's live Agent Name; set by the adapter, never by the model."""
    to: Annotated[str, AfterValidator(_agent_name)]
    """The recipient's Agent Name."""
    message: Annotated[str, AfterValidator(_message)]
    """The payload: any non-blank text; Herdr Link never interprets it."""

    @classmethod
    def proven(cls, from_: AgentName, to: AgentName, message: str) -> "Envelope":
        """A new envelope from values already proven (names by their type, ``message`` not blank by the
        parse that read it), with a fresh id: nothing is validated again. Anything else goes through
        :func:`build_envelope` or the model's own validation."""
        return cls.model_construct(id=new_message_id(), from_=from_, to=to, message=message)

    def to_line(self) -> str:
        """The envelope as one compact, terminal-safe JSON line (no control or line-break character)."""
        return dumps_terminal_safe(
            {"protocol": self.protocol, "id": self.id, "from": self.from_, "to": self.to, "message": self.message}
        )


def build_envelope(from_: str, to: str, message: str, *, message_id: str | None = None) -> Envelope:
    """Build the envelope an adapter sends, checking its inputs in the spec's order.

    Raises:
        LinkError: ``SELF_UNNAMED`` for an invalid sender, ``PEER_NOT_FOUND`` for an invalid
            recipient, ``SEND_FAILED`` for a blank message.
    """
    if not is_valid_agent_name(from_):
        raise LinkError(Cause.SENDER_INVALID, "sender name is not a valid Agent Name")
    if not is_valid_agent_name(to):
        raise LinkError(Cause.NOT_A_PEER, "recipient name is not a valid Agent Name")
    if is_blank_message(message):
        raise LinkError(Cause.MESSAGE_EMPTY)
    return Envelope(id=message_id or new_message_id(), from_=from_, to=to, message=message)


def parse_envelope(line: str) -> Envelope:
    """Parse one received JSON line as an envelope.

    Raises:
        RemoteProtocolError: if the line is not JSON or not a valid ``herdr-link/1`` envelope.
    """
    try:
        value = json.loads(line)
    except ValueError as error:
        raise RemoteProtocolError("envelope line is not JSON") from error
    if not isinstance(value, dict):
        raise RemoteProtocolError("envelope must be a JSON object")
    try:
        return Envelope.model_validate(value, by_alias=True, by_name=False)
    except ValidationError as error:
        first = error.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else "envelope"
        problem = "is missing" if first["type"] == "missing" else "is invalid"
        raise RemoteProtocolError(f'not a herdr-link/1 envelope: "{field}" {problem}') from error
