"""``herdr-link-mcp probe``: start a server the way a host would and report what the host would see, in
both MCP eras."""

import contextlib
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

import anyio
import mcp.types as types
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from ._version import __version__

__all__ = ["probe", "render_probe"]

HANDSHAKE_ERA = "handshake"
MODERN_ERA = "2026-07-28"
"""The two MCP eras a probe walks, as its reports name them."""
PROBE_TIMEOUT = 30.0
"""Seconds each era's walk may take before the probe reports the server as not answering."""


def _tools_bytes(result: types.ListToolsResult) -> int:
    """The size of the ``tools`` array, compact UTF-8 JSON: what a host puts in its model's context (the
    figure the README and docs/benchmarks.md give)."""
    tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in result.tools]
    return len(json.dumps(tools, ensure_ascii=False, separators=(",", ":")).encode())


def _first_text(result: types.CallToolResult) -> str:
    return next((c.text for c in result.content if isinstance(c, types.TextContent)), "")


PROBE_CLIENT: Final = types.Implementation(name="claude-code", version=__version__)
"""Whom the probe names itself as: a host that spawns its server in its own pane (Claude Code's client
name). The SDK starts the server in a session of its own, with no terminal to show its pane, where only a
client the host table knows to spawn per pane may act for the pane in its environment (PROTOCOL.md §6.1)."""


async def _handshake(params: StdioServerParameters) -> dict[str, Any]:
    changes: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changes.append("tools/list_changed")

    report: dict[str, Any] = {"era": HANDSHAKE_ERA}
    async with stdio_client(params) as (read, write), ClientSession(
        read, write, message_handler=on_message, client_info=PROBE_CLIENT
    ) as s:  # fmt: skip
        init = await s.initialize()
        tools = init.capabilities.tools
        report.update(
            protocol=init.protocol_version,
            server=f"{init.server_info.name} {init.server_info.version}",
            list_changed=bool(tools and tools.list_changed),
        )
        report.update(await _walk(s.list_tools, s.call_tool))
    report["change_signalled"] = bool(changes)
    return report


async def _modern(params: StdioServerParameters) -> dict[str, Any]:
    report: dict[str, Any] = {"era": MODERN_ERA}
    async with Client(params, client_info=PROBE_CLIENT) as client:
        report["protocol"] = client.session.protocol_version if hasattr(client, "session") else "2026-07-28"
        signalled = anyio.Event()
        async with anyio.create_task_group() as group, client.listen(tools_list_changed=True) as subscription:

            async def watch() -> None:
                async for _ in subscription:
                    signalled.set()
                    return

            group.start_soon(watch)
            report.update(await _walk(client.list_tools, client.call_tool))
            with anyio.move_on_after(2):
                await signalled.wait()
            group.cancel_scope.cancel()
        report["change_signalled"] = signalled.is_set()
    return report


async def _walk(list_tools: Any, call_tool: Any) -> dict[str, Any]:
    dormant = await list_tools()
    report: dict[str, Any] = {"dormant_tools": [t.name for t in dormant.tools], "dormant_bytes": _tools_bytes(dormant)}
    if not dormant.tools:
        result = await call_tool("herdr_link", {})
        report["call_outside"] = _first_text(result)
        return report
    activation = await call_tool("herdr_link", {})
    report["activation"] = _first_text(activation)
    report["presentation_blocks"] = len(activation.content)
    active = await list_tools()
    report.update(active_tools=[t.name for t in active.tools], active_bytes=_tools_bytes(active))
    return report


@contextlib.contextmanager
def _stderr_kept() -> Iterator[list[str]]:
    """For the block, descriptor 2 (which the server inherits) goes to a scratch file; its lines are in
    the list afterwards, so the server's operator log is reported apart from the verdict."""
    lines: list[str] = []
    with tempfile.TemporaryFile() as scratch:
        saved = os.dup(2)
        sys.stderr.flush()
        os.dup2(scratch.fileno(), 2)
        try:
            yield lines
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            scratch.seek(0)
            lines.extend(scratch.read().decode("utf-8", "replace").splitlines())


async def probe(
    command: Sequence[str], env: Mapping[str, str], *, say: Callable[[str], None] = lambda line: None
) -> list[dict[str, Any]]:
    """Spawn ``command`` twice (once per era) with ``env`` and report what a host would see, and what
    the server wrote to its stderr (``server_log``); ``say`` hears each era's start, before the server's."""
    params = StdioServerParameters(command=command[0], args=list(command[1:]), env=dict(env))
    reports = []
    for number, (era, walk) in enumerate(((HANDSHAKE_ERA, _handshake), (MODERN_ERA, _modern)), 1):
        say(
            f"{number} of 2, the {era} era: starting {shlex.join(command)} as a host would, then listing its "
            f"tools and activating them (at most {PROBE_TIMEOUT:g} s)"
        )
        with _stderr_kept() as log:
            try:
                with anyio.fail_after(PROBE_TIMEOUT):
                    report = await walk(params)
            except Exception as error:  # a probe reports failures; it never hides them behind a traceback
                report = {"era": era, "error": _describe(error)}
        reports.append({**report, "server_log": log})
    return reports


def _describe(error: BaseException) -> str:
    """What went wrong, with task-group wrappers taken off (they say only how many errors there were)."""
    if isinstance(error, TimeoutError):
        return f"TimeoutError: no answer within {PROBE_TIMEOUT:g} s"
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _shown(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)


def verdict(reports: list[dict[str, Any]]) -> str:
    """One line: whether a host would see the gateway and, inside Herdr, the tools after activation."""
    failed = [r["era"] for r in reports if "error" in r]
    if failed:
        return f"FAIL: the server did not answer in the {' and '.join(failed)} era{'s' if len(failed) > 1 else ''}"
    if all("call_outside" in r for r in reports):
        return "OK outside Herdr: the server lists no tools, as it should outside a Herdr pane"
    if all(len(r.get("active_tools", [])) == 5 for r in reports):
        return "OK: a host sees the gateway, activates it and then sees all five tools, in both eras"
    return "FAIL: after activation a host does not see the five tools in every era"


_LABELS: Final = {
    "dormant_bytes": "dormant `tools` array (compact JSON, what a model reads)",
    "active_bytes": "active `tools` array (compact JSON)",
}
"""The figures whose number alone would not say what was measured."""


def render_probe(reports: list[dict[str, Any]]) -> str:
    """A readable report, one block per era, then the verdict."""
    lines = []
    for report in reports:
        lines.append(f"[{report['era']} era]")
        lines.extend(
            f"  {_LABELS.get(key, key.replace('_', ' '))}: {_shown(value)}{' bytes' if key in _LABELS else ''}"
            for key, value in report.items()
            if key not in ("era", "server_log")
        )
    for report in reports:  # what the server said, apart from what the probe found
        if report.get("server_log"):
            lines.append(f"[the server's stderr, {report['era']} era: its operator log, not the probe's verdict]")
            lines.extend(f"  | {line}" for line in report["server_log"])
    return "\n".join([*lines, "", verdict(reports)]) + "\n"
