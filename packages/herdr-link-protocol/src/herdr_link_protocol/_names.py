"""Agent Names, message ids and generated self names (spec §2.3, §5, §6.3)."""

import re
import secrets
import time
from typing import Final, NewType, TypeGuard

__all__ = [
    "AGENT_NAME_PATTERN",
    "AgentName",
    "GENERATED_NAME_PREFIX",
    "MESSAGE_ID_PATTERN",
    "agent_name",
    "generate_self_name",
    "is_valid_agent_name",
    "is_valid_message_id",
    "new_message_id",
]

AGENT_NAME_PATTERN: Final = re.compile(r"[a-z][a-z0-9_-]{0,31}", re.ASCII)
"""Herdr's Agent Name grammar; match with ``fullmatch``."""

MESSAGE_ID_PATTERN: Final = re.compile(r"hl_[a-z0-9]+_[a-z0-9]+", re.ASCII)
"""``hl_<timestamp>_<random>`` with non-empty lowercase alphanumeric parts; match with ``fullmatch``."""

GENERATED_NAME_PREFIX: Final = "hl-"
"""Prefix of names that the self identity bootstrap generates (spec §6.3)."""

_BASE36: Final = "0123456789abcdefghijklmnopqrstuvwxyz"
_RANDOM_ID_CHARS: Final = 8


def is_valid_agent_name(value: object) -> TypeGuard[str]:
    """Return whether ``value`` is a string that Herdr accepts as an Agent Name."""
    return isinstance(value, str) and AGENT_NAME_PATTERN.fullmatch(value) is not None


AgentName = NewType("AgentName", str)
"""A string proven to be a valid Agent Name (by :func:`agent_name`, or by the parse that read it): code
that takes one does not check the grammar again."""


def agent_name(value: object) -> AgentName | None:
    """``value`` as a proven :data:`AgentName`, or ``None`` when Herdr would not accept it as one."""
    return AgentName(value) if is_valid_agent_name(value) else None


def is_valid_message_id(value: object) -> bool:
    """Return whether ``value`` is a well-formed ``herdr-link/1`` message id."""
    return isinstance(value, str) and MESSAGE_ID_PATTERN.fullmatch(value) is not None


def _base36(number: int) -> str:
    digits = []
    while True:
        number, digit = divmod(number, 36)
        digits.append(_BASE36[digit])
        if number == 0:
            return "".join(reversed(digits))


def new_message_id(*, now_ms: int | None = None, random_part: str | None = None) -> str:
    """Return a fresh message id ``hl_<base36 milliseconds>_<8 base36 characters>``.

    Args:
        now_ms: the timestamp to encode; defaults to the current wall clock.
        random_part: the random segment; defaults to 8 characters from :mod:`secrets`.

    Raises:
        ValueError: if an explicit argument would produce an invalid id.
    """
    timestamp = _base36(time.time_ns() // 1_000_000 if now_ms is None else now_ms)
    if random_part is None:
        random_part = "".join(secrets.choice(_BASE36) for _ in range(_RANDOM_ID_CHARS))
    message_id = f"hl_{timestamp}_{random_part}"
    if not is_valid_message_id(message_id):
        raise ValueError("message id parts must be non-empty lowercase alphanumeric strings")
    return message_id


def generate_self_name() -> str:
    """Return a bootstrap Agent Name: ``hl-`` and 8 random hexadecimal digits (spec §6.3)."""
    return GENERATED_NAME_PREFIX + secrets.token_hex(4)
