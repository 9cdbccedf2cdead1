"""The environment gate (spec §6.1) as a plain check, cheap to import: ``hint`` asks it at the start
of every Codex, Gemini and AGY session."""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

__all__ = ["GATE_VARIABLES", "HERDR_CORE_NOTE", "in_herdr_core_terminal", "in_herdr_pane"]

GATE_VARIABLES: Final = ("HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID")
"""The three variables the gate needs: ``HERDR_ENV=1`` and non-empty ``HERDR_BIN_PATH`` and ``HERDR_PANE_ID``."""


def in_herdr_pane(environ: Mapping[str, str]) -> bool:
    """Whether the gate passes: this process runs in a Herdr pane and can reach Herdr's CLI."""
    return (
        environ.get("HERDR_ENV") == "1" and bool(environ.get("HERDR_BIN_PATH")) and bool(environ.get("HERDR_PANE_ID"))
    )


HERDR_CORE_NOTE: Final = (
    "this is a herdr-core terminal (HC_TERMINAL_ID is set, no HERDR_* variables): Herdr Link works in panes of "
    "the Herdr TUI (herdr 0.8 and 0.9), not yet in herdr-core or herdr-app terminals"
)
"""What the doctor, ``probe`` and the operator log say where the gate fails in a herdr-core terminal."""


def in_herdr_core_terminal(environ: Mapping[str, str]) -> bool:
    """Whether the gate fails because this is a terminal of herdr-core (``hc``, under herdr-app), which
    sets ``HC_TERMINAL_ID``/``HC_SESSION`` and none of Herdr's variables."""
    return not in_herdr_pane(environ) and bool(environ.get("HC_TERMINAL_ID"))
