"""Start input (spec §4.2): the two modes, the placement matrix, and the checks that need no file.

Everything here runs before Herdr is touched, so a bad start never allocates a tab or pane.
"""

import re
from dataclasses import dataclass
from typing import Any, Final

from ._arguments import TOOL_FIELDS
from ._config import NewTabPlacementConfig, WithPlacementConfig
from ._constants import START_TOOL
from ._errors import Cause, LinkError
from ._escape import is_terminal_safe
from ._names import AgentName, is_valid_agent_name

__all__ = [
    "AGENT_KIND_PATTERN",
    "START_FIELDS",
    "ConfiguredStart",
    "ExplicitStart",
    "NewTabPlacement",
    "Placement",
    "StartRequest",
    "WithPlacement",
    "check_agent_kind",
    "resolve_placement",
    "start_request",
]

START_FIELDS: Final = TOOL_FIELDS[START_TOOL]
"""Every key ``herdr_link_start`` reads; raw id and layout keys are refused, any other key is ignored."""

AGENT_KIND_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", re.ASCII)
"""A kind Herdr could accept, and that can never be read as a command-line option."""


@dataclass(frozen=True, slots=True)
class ExplicitStart:
    """``kind`` and ``args`` given by the caller, passed to Herdr unchanged."""

    name: str
    kind: str
    args: tuple[str, ...]
    with_: str | None = None
    cwd: str | None = None


@dataclass(frozen=True, slots=True)
class ConfiguredStart:
    """An entry of ``.agents/agent_config.json`` chosen by ``config_agent``."""

    name: str
    config_agent: str
    with_: str | None = None
    cwd: str | None = None


StartRequest = ExplicitStart | ConfiguredStart
"""A validated ``herdr_link_start`` request: explicit (``kind``) or configured (``agent``)."""


@dataclass(frozen=True, slots=True)
class NewTabPlacement:
    """A new unfocused tab; ``cwd`` as given (relative to the context directory) or ``None``."""

    cwd: str | None
    label: str | None = None


@dataclass(frozen=True, slots=True)
class WithPlacement:
    """A pane split to the right of the live agent ``anchor``, inheriting its cwd."""

    anchor: AgentName
    """Proven by :func:`start_request`, which refuses a ``with`` that is not an Agent Name."""


Placement = NewTabPlacement | WithPlacement
"""Where a started agent goes: a new tab, or a split beside a named agent."""


def check_agent_kind(kind: object, cause: Cause = Cause.START_KIND_INVALID) -> str:
    """Return ``kind`` if it is a usable agent kind.

    Raises:
        LinkError: with ``cause`` when it is not.
    """
    if not isinstance(kind, str) or not AGENT_KIND_PATTERN.fullmatch(kind):
        raise LinkError(cause, "agent kind is not a plain label")
    return kind


def _optional_text(raw: dict[str, object], key: str) -> str | None:
    if key not in raw:
        return None
    value = raw[key]
    if not isinstance(value, str) or not value.strip() or not is_terminal_safe(value):
        raise LinkError(Cause.START_FIELD_INVALID, field=key)
    return value


def start_request(raw: dict[str, Any]) -> StartRequest:
    """Validate ``herdr_link_start`` arguments the one inbound parse has already read (an object, raw id
    and layout keys refused, keys outside :data:`START_FIELDS` dropped) without reading any file.

    Key presence decides the mode, as in the TypeScript implementation: ``config_agent`` with ``kind`` or
    ``args`` is refused even when a value is empty.

    Raises:
        LinkError: ``START_INPUT_INVALID`` with the first problem found.
    """
    name = raw.get("name")
    if not is_valid_agent_name(name):
        raise LinkError(Cause.START_FIELD_INVALID, field="name")
    with_ = _optional_text(raw, "with")
    if with_ is not None and not is_valid_agent_name(with_):
        raise LinkError(Cause.START_FIELD_INVALID, field="with")
    cwd = _optional_text(raw, "cwd")
    if "config_agent" in raw:
        if "kind" in raw or "args" in raw:
            raise LinkError(Cause.START_MODES_MIXED)
        config_agent = _optional_text(raw, "config_agent") or ""
        return ConfiguredStart(name=name, config_agent=config_agent, with_=with_, cwd=cwd)
    if "kind" not in raw or "args" not in raw:
        raise LinkError(Cause.START_MODE_MISSING)
    kind = check_agent_kind(raw["kind"])
    args = raw["args"]
    if not isinstance(args, list) or not all(isinstance(arg, str) and is_terminal_safe(arg) for arg in args):
        # Herdr refuses control characters in arguments; refusing them here allocates nothing.
        raise LinkError(Cause.START_FIELD_INVALID, field="args")
    if with_ is not None and cwd is not None:
        raise LinkError(Cause.START_WITH_AND_CWD)
    return ExplicitStart(name=name, kind=kind, args=tuple(args), with_=with_, cwd=cwd)


def resolve_placement(
    request: StartRequest, configured: NewTabPlacementConfig | WithPlacementConfig | None = None
) -> Placement:
    """Apply the placement matrix of spec §4.2.

    Args:
        request: validated start input.
        configured: the chosen entry's placement, for a configured start; ``None`` for explicit.

    Raises:
        LinkError: ``START_INPUT_INVALID`` when ``with`` or ``cwd`` does not fit the placement.
        ValueError: when ``configured`` is missing for a configured start or given for an explicit one.
    """
    if isinstance(request, ExplicitStart):
        if configured is not None:
            raise ValueError("an explicit start has no configured placement")
        return WithPlacement(AgentName(request.with_)) if request.with_ is not None else NewTabPlacement(request.cwd)
    match configured:
        case NewTabPlacementConfig(label=label):
            if request.with_ is not None:
                raise LinkError(Cause.START_WITH_ON_NEW_TAB)
            return NewTabPlacement(request.cwd, label)
        case WithPlacementConfig():
            if request.with_ is None:
                raise LinkError(Cause.START_WITH_REQUIRED)
            if request.cwd is not None:
                raise LinkError(Cause.START_WITH_AND_CWD)
            return WithPlacement(AgentName(request.with_))
    raise ValueError("a configured start needs its entry's placement")
