"""``herdr-link-mcp hint``: the Tier 0 hint in the form each host's hook or launcher expects.

It runs as a session-start hook at the start of every Claude Code, Codex, Gemini, AGY and Copilot CLI
session, so it imports only the protocol's texts and the environment gate: no MCP SDK, no pydantic, no ``typing``, and
neither ``json`` nor ``re`` (importing ``json`` alone would double the hook's cost over a bare Python
start; the hook's one string is escaped here exactly as ``json.dumps(..., ensure_ascii=False)`` does).
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

from herdr_link_control import in_herdr_pane
from herdr_link_control.hosts import find_host, hosts_with
from herdr_link_protocol import tier0_hint

from ._clients import DEFAULT_NAMESPACE

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

__all__ = ["hint_hosts", "hint_output", "prints_plain"]


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


def prints_plain(host: str) -> bool:
    """Whether ``hint --host HOST`` prints the plain text (a launcher flag or a system prompt file), inside
    or outside Herdr, rather than a hook's JSON."""
    found = find_host(host)
    return found is not None and found.hint == "plain"


def hint_hosts() -> tuple[str, ...]:
    """Hosts ``hint --host`` takes: those with a hint form in the table."""
    return tuple(host.name for host in hosts_with("hint"))


def hint_output(host: str, environ: Mapping[str, str]) -> str:
    """What ``herdr-link-mcp hint --host HOST`` prints (without a trailing newline), in the host's form
    (``Host.hint`` in the host table):

    - ``session-start`` (Claude Code, Codex): SessionStart hook JSON, ``hookSpecificOutput`` with
      ``hookEventName`` and ``additionalContext``; nothing outside Herdr;
    - ``additional-context`` (Gemini CLI): ``hookSpecificOutput`` with ``additionalContext``; ``{}`` outside;
    - ``context`` (GitHub Copilot CLI's sessionStart): ``additionalContext`` alone; nothing outside Herdr;
    - ``inject-steps`` (AGY): PreInvocation hook JSON with an ``ephemeralMessage`` step; ``{}`` outside;
    - ``plain`` (Pi's built-in MCP): the hint itself, for ``--append-system-prompt`` or a system prompt file.

    Outside Herdr the ``hint`` command also writes one line to stderr for the hook forms: that it is not in
    a Herdr pane, so the hook adds no hint. Hosts keep a hook's stderr in their logs; none shows it to the
    model.

    Raises:
        ValueError: for a host without a hint.
    """
    found = find_host(host)
    if found is None or found.hint is None or found.presentation is None:
        raise ValueError(f"no hint for host {host!r}; choose one of {', '.join(hint_hosts())}")
    hint = tier0_hint(found.presentation, DEFAULT_NAMESPACE, tool_search=found.tool_search)
    if found.hint == "plain":
        return hint
    inside = in_herdr_pane(environ)
    text = _json_string(hint)
    if found.hint == "session-start":
        session_start = f'{{"hookEventName": "SessionStart", "additionalContext": {text}}}'
        return f'{{"hookSpecificOutput": {session_start}}}' if inside else ""
    if found.hint == "context":
        return f'{{"additionalContext": {text}}}' if inside else ""
    if not inside:
        return "{}"
    if found.hint == "additional-context":
        return f'{{"hookSpecificOutput": {{"additionalContext": {text}}}}}'
    if found.hint == "inject-steps":
        return f'{{"injectSteps": [{{"ephemeralMessage": {text}}}]}}'
    raise ValueError(f"unknown hint form {found.hint!r} for {host}")
