"""The one base class and configuration shared by every model of the protocol package."""

from pydantic import BaseModel, ConfigDict

__all__ = ["LinkModel"]


class LinkModel(BaseModel):
    """Base of all ``herdr_link_protocol`` models: immutable, strict types, wire names as aliases."""

    model_config = ConfigDict(
        frozen=True,
        strict=True,
        populate_by_name=True,
        extra="forbid",
    )

    def to_json(self) -> str:
        """Compact JSON with wire names, in field order."""
        return self.model_dump_json(by_alias=True, exclude_none=True)
