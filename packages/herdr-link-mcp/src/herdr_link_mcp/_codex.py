"""Codex's hook trust, computed the way Codex 0.171 computes it, so the wiring can trust its own hook.

Codex runs a hook from ``hooks.json`` only when ``config.toml`` holds, under
``[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]``, a ``trusted_hash`` equal to the
hook's current hash; otherwise it skips the hook silently. That hash is the SHA-256 of the hook's
normalized identity as compact JSON with sorted keys. ``codex app-server``'s ``hooks/list`` reports
the same value as ``currentHash`` (checked against Codex 0.171.0 in ``tests/real_hosts``). Changing
the command makes the hook "modified", and Codex skips it again until the user reviews it.
"""

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = [
    "HOOK_STATE_KEYS",
    "SERVER_KEYS",
    "SESSION_START",
    "command_hook_hash",
    "event_label",
    "hook_trust_key",
    "session_start_hash",
]

SESSION_START: Final = "session_start"
"""Codex's key label for the ``SessionStart`` event."""
SERVER_KEYS: Final = frozenset(
    {"command", "args", "env", "env_vars", "cwd", "url", "bearer_token_env_var", "http_headers",
     "env_http_headers", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec", "enabled", "required",
     "enabled_tools", "disabled_tools", "default_tools_approval_mode", "tools", "scopes", "oauth_resource"}
)  # fmt: skip
"""The keys Codex reads in an ``[mcp_servers.<name>]`` table (its MCP documentation); any other
key there is read by nobody."""
HOOK_STATE_KEYS: Final = frozenset({"trusted_hash", "enabled"})
"""The keys Codex reads in a ``[hooks.state."<key>"]`` table."""


def hook_trust_key(hooks_file: Path, event: str, group: int = 0, handler: int = 0) -> str:
    """The ``[hooks.state]`` key of one handler: the file's absolute path, event label and position."""
    return f"{os.path.abspath(hooks_file)}:{event}:{group}:{handler}"


def command_hook_hash(event: str, command: str, timeout_sec: int, matcher: str | None = None) -> str:
    """The ``trusted_hash`` that trusts a synchronous command hook with exactly these fields."""
    group: dict[str, object] = {
        "event_name": event,
        "hooks": [{"type": "command", "command": command, "timeout": max(timeout_sec, 1), "async": False}],
    }
    if matcher is not None:
        group["matcher"] = matcher
    text = json.dumps(group, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def session_start_hash(group: Mapping[str, object], handler: Mapping[str, object]) -> str | None:
    """The hash Codex computes for ``handler``, a SessionStart command hook in ``group``; ``None`` for a
    handler that is not a command hook."""
    command = handler.get("command")
    if not isinstance(command, str):
        return None
    timeout = handler.get("timeout", handler.get("timeoutSec", 600))
    matcher = group.get("matcher")
    return command_hook_hash(
        SESSION_START,
        command,
        timeout if isinstance(timeout, int) else 600,
        matcher if isinstance(matcher, str) else None,
    )


def event_label(event: str) -> str:
    """Codex's key label for a hook event: ``SessionStart`` → ``session_start``."""
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(event))
