"""``herdr-link-mcp hint``: the Tier 0 hint in the form each host's hook or launcher expects.

It runs as a SessionStart hook at the start of every Codex, Gemini and AGY session, so it imports
only the protocol's texts and the environment gate: no MCP SDK, no pydantic, no ``typing``.
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

from herdr_link_control import in_herdr_pane
from herdr_link_protocol import tier0_hint

from ._hosts import DEFAULT_NAMESPACE, WIRING_FORMS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

__all__ = ["HINT_HOSTS", "PLAIN_HINT_HOSTS", "hint_output"]

HINT_HOSTS: Final = ("claude", "codex", "agy", "gemini", "pi")
"""Hosts whose hook or launcher takes the Tier 0 hint (``hint --host``)."""
PLAIN_HINT_HOSTS: Final = ("claude", "pi")
"""Hosts that take the plain text (a launcher flag or a system prompt file), printed inside or outside Herdr."""


def hint_output(host: str, environ: Mapping[str, str]) -> str:
    """What ``herdr-link-mcp hint --host HOST`` prints (without a trailing newline).

    - ``claude``: the plain hint, for ``--append-system-prompt-file`` (the launcher decides when);
    - ``pi``: the plain hint for Pi's built-in MCP (its tools are ``mcp__herdr_link__…``), for
      ``--append-system-prompt`` or a system prompt file;
    - ``codex``: SessionStart hook JSON with ``additionalContext``; nothing outside Herdr;
    - ``gemini``: SessionStart hook JSON with ``additionalContext``; ``{}`` outside Herdr;
    - ``agy``: PreInvocation hook JSON with an ``ephemeralMessage`` step; ``{}`` outside Herdr.

    Raises:
        ValueError: for a host without a hint.
    """
    if host not in HINT_HOSTS:
        raise ValueError(f"no hint for host {host!r}; choose one of {', '.join(HINT_HOSTS)}")
    hint = tier0_hint(WIRING_FORMS[host], DEFAULT_NAMESPACE)
    if host in PLAIN_HINT_HOSTS:
        return hint
    inside = in_herdr_pane(environ)
    import json  # only the hook hosts need it

    if host == "codex":
        output = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": hint}}
        return json.dumps(output, ensure_ascii=False) if inside else ""
    if not inside:
        return "{}"
    if host == "gemini":
        return json.dumps({"hookSpecificOutput": {"additionalContext": hint}}, ensure_ascii=False)
    return json.dumps({"injectSteps": [{"ephemeralMessage": hint}]}, ensure_ascii=False)
