"""The environment gate (spec §6.1): Herdr Link acts only inside a Herdr pane."""

from collections.abc import Mapping
from dataclasses import dataclass

from ._gate import in_herdr_pane

__all__ = ["HerdrEnvironment"]


@dataclass(frozen=True, slots=True)
class HerdrEnvironment:
    """What a process launched in a Herdr pane knows about its Herdr.

    Only ``HERDR_ENV``, ``HERDR_BIN_PATH`` and ``HERDR_PANE_ID`` are required. ``HERDR_WORKSPACE_ID``
    is deliberately not kept: it is the launch-time value and goes stale when the pane moves.
    """

    bin_path: str
    pane_id: str
    variables: Mapping[str, str]
    """The whole environment, passed on to every ``herdr`` invocation."""

    @classmethod
    def detect(cls, environ: Mapping[str, str]) -> "HerdrEnvironment | None":
        """Return the environment when all three gate variables are set, else ``None``."""
        if not in_herdr_pane(environ):
            return None
        return cls(environ["HERDR_BIN_PATH"], environ["HERDR_PANE_ID"], dict(environ))
