"""The environment gate (spec §6.1) as a plain check, cheap to import: ``hint`` asks it at the start
of every Codex, Gemini and AGY session."""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

__all__ = ["GATE_VARIABLES", "in_herdr_pane"]

GATE_VARIABLES: Final = ("HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID")
"""The three variables the gate needs: ``HERDR_ENV=1`` and non-empty ``HERDR_BIN_PATH`` and ``HERDR_PANE_ID``."""


def in_herdr_pane(environ: Mapping[str, str]) -> bool:
    """Whether the gate passes: this process runs in a Herdr pane and can reach Herdr's CLI."""
    return (
        environ.get("HERDR_ENV") == "1" and bool(environ.get("HERDR_BIN_PATH")) and bool(environ.get("HERDR_PANE_ID"))
    )
