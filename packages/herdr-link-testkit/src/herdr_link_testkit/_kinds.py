"""Herdr's agent kinds, their aliases, the shells it counts as an idle prompt and the status words
(``docs/herdr.md`` §5, §7, §8.4). Plain data for the simulator's CLI and detection; standard library only."""

from __future__ import annotations  # annotations stay unevaluated, so typing is never imported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["ALIASES", "KINDS", "SHELL_NAMES", "STATUSES", "kind_label"]

STATUSES: Final = ("idle", "working", "blocked", "done", "unknown")
KINDS: Final = (
    "pi",
    "claude",
    "codex",
    "gemini",
    "cursor",
    "devin",
    "agy",
    "cline",
    "omp",
    "mastracode",
    "opencode",
    "copilot",
    "kimi",
    "kiro",
    "droid",
    "amp",
    "grok",
    "hermes",
    "kilo",
    "qodercli",
    "qwen",
    "maki",
)
ALIASES: Final = {
    "claude-code": "claude",
    "cursor-agent": "cursor",
    "devin-cli": "devin",
    "antigravity": "agy",
    "antigravity-cli": "agy",
    "mastra-code": "mastracode",
    "opencode2": "opencode",
    "open-code": "opencode",
    "github-copilot": "copilot",
    "ghcs": "copilot",
    "kimi-code": "kimi",
    "kiro-cli": "kiro",
    "amp-local": "amp",
    "grok-build": "grok",
    "hermes-agent": "hermes",
    "kilo-code": "kilo",
    "qoder": "qodercli",
    "qoderclicn": "qodercli",
    "qodercn": "qodercli",
    "qwen-code": "qwen",
}
SHELL_NAMES: Final = frozenset("sh bash dash zsh fish ksh mksh csh tcsh elvish xonsh nu pwsh powershell cmd".split())


def kind_label(kind: str) -> str | None:
    """Herdr's ``parse_agent_label``: a canonical label or alias, case-insensitively."""
    lowered = kind.lower()
    return lowered if lowered in KINDS else ALIASES.get(lowered)
