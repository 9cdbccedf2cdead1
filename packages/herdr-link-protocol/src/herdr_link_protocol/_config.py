"""The start configuration file ``.agents/agent_config.json`` (spec §4.2), as strict models.

The rules match the TypeScript implementation, so a file valid for one is valid for the other:
the root has only ``agents``; each entry has a required ``placement``, optional ``strategy`` and a
non-empty ``variants`` list; several variants require ``strategy: "round-robin"``.
"""

from typing import Annotated, Final, Literal

from pydantic import AfterValidator, Field, ValidationError, model_validator

from ._errors import Cause, LinkError
from ._models import LinkModel

__all__ = [
    "CONFIG_RELATIVE_PATH",
    "AgentConfig",
    "AgentEntry",
    "NewTabPlacementConfig",
    "VariantConfig",
    "WithPlacementConfig",
    "parse_agent_config",
]

CONFIG_RELATIVE_PATH: Final = (".agents", "agent_config.json")
"""Where the file lives below the start context directory; there is no upward search."""


def _non_blank(value: str | None) -> str | None:
    # An explicit JSON null is as invalid as a blank string; only an absent key means "not set".
    if value is None or not value.strip():
        raise ValueError("must be a non-blank string")
    return value


NonBlank = Annotated[str, AfterValidator(_non_blank)]
OptionalNonBlank = Annotated[str | None, AfterValidator(_non_blank)]


class NewTabPlacementConfig(LinkModel):
    """Start in a new, unfocused tab of the caller's workspace."""

    mode: Literal["new_tab"]
    label: OptionalNonBlank = None
    """Tab label for people; never used to find anything."""


class WithPlacementConfig(LinkModel):
    """Start in a pane split beside the live agent named by the call's ``with``."""

    mode: Literal["with"]


class VariantConfig(LinkModel):
    """One way to launch the agent: a Herdr agent kind and its arguments."""

    kind: NonBlank
    args: tuple[str, ...] = ()


def _strategy(value: str | None) -> str | None:
    if value is None:
        raise ValueError("strategy must be 'round-robin' when present")
    return value


class AgentEntry(LinkModel):
    """One entry of ``agents``."""

    placement: Annotated[NewTabPlacementConfig | WithPlacementConfig, Field(discriminator="mode")]
    strategy: Annotated[Literal["round-robin"] | None, AfterValidator(_strategy)] = None
    variants: Annotated[tuple[VariantConfig, ...], Field(min_length=1)]

    @model_validator(mode="after")
    def _several_variants_need_a_strategy(self) -> "AgentEntry":
        if len(self.variants) > 1 and self.strategy is None:
            raise ValueError('several variants require strategy "round-robin"')
        return self


def _keys_non_blank(agents: dict[str, AgentEntry]) -> dict[str, AgentEntry]:
    if any(not key.strip() for key in agents):
        raise ValueError("agent keys must be non-blank")
    return agents


class AgentConfig(LinkModel):
    """The whole file: a mapping from config keys to entries."""

    agents: Annotated[dict[str, AgentEntry], AfterValidator(_keys_non_blank)]


def parse_agent_config(text: str | bytes) -> AgentConfig:
    """Parse and validate the whole configuration file.

    Raises:
        LinkError: ``START_CONFIG_INVALID`` when the text is not JSON or breaks any rule.
    """
    try:
        return AgentConfig.model_validate_json(text, by_alias=True, by_name=False)
    except ValidationError as error:
        if any(item["type"] == "json_invalid" for item in error.errors()):
            raise LinkError(Cause.CONFIG_NOT_JSON, error.errors()[0]["msg"]) from error
        raise LinkError(Cause.CONFIG_SCHEMA_INVALID, "\n".join(_problems(error))) from error


def _problems(error: ValidationError) -> list[str]:
    """One complete line per problem, each at its place in the file: ``agents.x.variants[0].args: …``."""
    lines = []
    for item in error.errors(include_url=False):
        place = ""
        for part in item["loc"]:
            if isinstance(part, int):
                place += f"[{part}]"
            elif part not in ("new_tab", "with") or not place.endswith("placement"):  # union branch tags
                place += f".{part}" if place else str(part)
        message = item["msg"].removeprefix("Value error, ")
        lines.append(f"{place or '(the file)'}: {message[:1].lower()}{message[1:]}")
    return lines
