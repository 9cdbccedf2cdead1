"""The stdio transport: the SDK's stdout writer, and our own reader in front of the server.

Rule: every request with an id gets exactly one response, whatever the line holds. The SDK's own
reader parses each line with ``pydantic_core`` and, when that fails, hands the server an exception
that no one answers: a request with non-object ``params`` (JSON-RPC requires an error reply) or with
a lone surrogate escape (``"\\ud800"``, which JavaScript hosts write when they cut a string inside a
surrogate pair) then simply vanishes, and the host waits until its own timeout. :func:`decode_line`
decides every line here instead, in one place:

* a line the SDK reads is passed on unchanged;
* a lone surrogate is JSON that Python reads: the message is passed on, its tool arguments intact
  (``PROTOCOL.md`` §2.5 delivers such a character escaped), and every other lone surrogate is
  replaced by U+FFFD so that nothing the server echoes back (ids, names) can fail to serialise;
* anything else gets its JSON-RPC error at once: a parse error, an invalid request, or invalid
  params, with the request's id when it has a usable one (else ``null``); notifications and
  client responses that cannot be read are logged and dropped, as JSON-RPC says.
"""

import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import Any, Final, cast

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["Decoded", "decode_line", "stdio_transport"]

log: Final = logging.getLogger("herdr_link")

Decoded = SessionMessage | types.JSONRPCError | None
"""What a line becomes: a message for the server, an error to send back at once, or nothing."""


def _replace_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value) if _has_surrogate(value) else value
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _usable_id(raw: dict[str, Any]) -> str | int | None:
    request_id = raw.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    return None if isinstance(request_id, str) and _has_surrogate(request_id) else request_id


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _keep_arguments_raw(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with lone surrogates replaced everywhere except a ``tools/call``'s arguments."""
    params = raw.get("params")
    arguments = params.get("arguments") if raw.get("method") == "tools/call" and isinstance(params, dict) else None
    cleaned: dict[str, Any] = _replace_surrogates(raw)
    if arguments is not None:
        cleaned["params"]["arguments"] = arguments
    return cleaned


def decode_line(line: str | bytes) -> Decoded:
    """Decide one input line (see the module docstring). Never raises."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        pass
    else:
        # The SDK reads a request whose id is unusable (``true``, ``1.5``, ``null``) as a notification,
        # which no one answers: look again at those, and pass every other message on as it is.
        if not isinstance(message, types.JSONRPCNotification) or '"id"' not in str(line):
            return SessionMessage(message)
    try:
        raw = json.loads(line)
    except ValueError:
        if not line.strip():
            return None  # a blank line is no message
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
    if not isinstance(raw, dict):
        return _error(None, types.INVALID_REQUEST, "Invalid request: a message must be a JSON object")
    request_id = _usable_id(raw)
    is_request = "method" in raw and "id" in raw
    if is_request and request_id is not None:
        try:
            return SessionMessage(
                types.jsonrpc_message_adapter.validate_python(_keep_arguments_raw(raw), by_name=False)
            )
        except ValidationError:
            pass
        if "params" in raw and not isinstance(raw["params"], dict):
            return _error(request_id, types.INVALID_PARAMS, "Invalid params: params must be an object")
        return _error(request_id, types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request")
    if is_request:
        return _error(None, types.INVALID_REQUEST, "Invalid request: the id must be a string or an integer")
    try:  # a notification or a client's response, readable once its lone surrogates are replaced
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(_replace_surrogates(raw), by_name=False))
    except ValidationError as error:
        log.warning("dropped an unreadable %s: %s", "response" if "id" in raw else "notification", error.title)
        return None


class _NoLines:
    """The SDK reader's input: no lines; it ends when our reader has seen stdin's end."""

    def __init__(self, finished: anyio.Event) -> None:
        self.finished = finished

    def __aiter__(self) -> "_NoLines":
        return self

    async def __anext__(self) -> str:
        await self.finished.wait()
        raise StopAsyncIteration


@asynccontextmanager
async def stdio_transport() -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run``: the SDK's stdout writer (which keeps stray
    output off the wire) and our reader of stdin (:func:`decode_line` for every line)."""
    finished = anyio.Event()
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    no_lines = cast("anyio.AsyncFile[str]", _NoLines(finished))  # the SDK only iterates it
    async with stdio_server(stdin=no_lines) as (_unused, write_stream):
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def reader() -> None:
            try:
                async with read_writer:
                    async for line in stdin:
                        decoded = decode_line(line)
                        if isinstance(decoded, SessionMessage):
                            await read_writer.send(decoded)
                        elif decoded is not None:
                            log.warning("answered an unreadable request: %s", decoded.error.message)
                            await write_stream.send(SessionMessage(decoded))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass
            finally:
                finished.set()

        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            yield read_stream, write_stream
            group.cancel_scope.cancel()
