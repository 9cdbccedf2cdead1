"""``herdr-link-mcp hint``: the Tier 0 hint in the form each host's hook or launcher expects.

It runs as a SessionStart hook at the start of every Claude Code, Codex, Gemini and AGY session, so it imports
only the protocol's texts and the environment gate: no MCP SDK, no pydantic, no ``typing``, and
neither ``json`` nor ``re`` (importing ``json`` alone would double the hook's cost over a bare Python
start; the hook's one string is escaped here exactly as ``json.dumps(..., ensure_ascii=False)`` does).
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
PLAIN_HINT_HOSTS: Final = ("pi",)
"""Hosts that take the plain text (a launcher flag or a system prompt file), printed inside or outside Herdr."""
SESSION_START_JSON_HOSTS: Final = ("claude", "codex")
"""Hosts whose SessionStart hook takes ``hookSpecificOutput`` with ``hookEventName`` and nothing outside Herdr."""


_JSON_ESCAPES: Final = {point: f"\\u{point:04x}" for point in range(0x20)} | {
    ord('"'): '\\"',
    ord("\\"): "\\\\",
    ord("\b"): "\\b",
    ord("\f"): "\\f",
    ord("\n"): "\\n",
    ord("\r"): "\\r",
    ord("\t"): "\\t",
}
"""``str.translate`` table: the characters ``json.dumps`` escapes in a string, and how."""


def _json_string(text: str) -> str:
    """``text`` as a JSON string, byte for byte what ``json.dumps(text, ensure_ascii=False)`` writes."""
    return '"' + text.translate(_JSON_ESCAPES) + '"'


def hint_output(host: str, environ: Mapping[str, str]) -> str:
    """What ``herdr-link-mcp hint --host HOST`` prints (without a trailing newline).

    - ``claude``: SessionStart hook JSON with ``additionalContext`` (Claude Code's user settings run it
      in every session, interactive or ``-p``); nothing outside Herdr;
    - ``pi``: the plain hint for Pi's built-in MCP (its tools are ``mcp__herdr_link__…``), for
      ``--append-system-prompt`` or a system prompt file;
    - ``codex``: SessionStart hook JSON with ``additionalContext``; nothing outside Herdr;
    - ``gemini``: SessionStart hook JSON with ``additionalContext``; ``{}`` outside Herdr;
    - ``agy``: PreInvocation hook JSON with an ``ephemeralMessage`` step; ``{}`` outside Herdr.

    Outside Herdr the ``hint`` command also writes one line to stderr for the hook hosts (``claude``,
    ``codex``, ``gemini``, ``agy``): that it is not in a Herdr pane, so the hook adds no hint. Hosts keep a hook's
    stderr in their logs; none shows it to the model.

    Raises:
        ValueError: for a host without a hint.
    """
    if host not in HINT_HOSTS:
        raise ValueError(f"no hint for host {host!r}; choose one of {', '.join(HINT_HOSTS)}")
    hint = tier0_hint(WIRING_FORMS[host], DEFAULT_NAMESPACE)
    if host in PLAIN_HINT_HOSTS:
        return hint
    inside = in_herdr_pane(environ)
    text = _json_string(hint)
    if host in SESSION_START_JSON_HOSTS:
        session_start = f'{{"hookEventName": "SessionStart", "additionalContext": {text}}}'
        return f'{{"hookSpecificOutput": {session_start}}}' if inside else ""
    if not inside:
        return "{}"
    if host == "gemini":
        return f'{{"hookSpecificOutput": {{"additionalContext": {text}}}}}'
    return f'{{"injectSteps": [{{"ephemeralMessage": {text}}}]}}'
