"""What every host's scenarios share: the reply a receiving model writes, and the activation point."""

from collections.abc import Callable
from typing import Any

from fake_model import Body, Dialect

from herdr_link_protocol import extract_envelope

ACTIVE = '"status":"active"'


def reply_to_sender(dialect: Dialect) -> Callable[[Body], dict[str, Any]]:
    """The send input of a model that read an inbound wrapper: reply to its ``from`` with its id."""

    def reply(body: Body) -> dict[str, Any]:
        envelope = extract_envelope(dialect.prompt(body))
        assert envelope is not None, "the wrapper did not reach the model's prompt"
        return {"to": envelope.from_, "message": f"ack {envelope.id}"}

    return reply


def after_activation(dialect: Dialect, requests: list[Body]) -> Body:
    """The first request whose history holds the activation result."""
    return next(r for r in requests if any(ACTIVE in text for text in dialect.results(r)))


def activation_text(dialect: Dialect, requests: list[Body]) -> str:
    """The activation result as the model received it (receipt and presentation)."""
    return next(text for r in requests for text in dialect.results(r) if ACTIVE in text)
