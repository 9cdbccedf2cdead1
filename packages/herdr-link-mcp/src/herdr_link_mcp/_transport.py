"""The stdio transport: our reader and writer around the SDK's server.

Rule: every request with an id gets exactly one response, whatever its line holds, and no line ends
the process; when stdin ends, the server is stopped only once the requests it was given are
answered (for at most :data:`DRAIN_WAIT`). Lines are read by the reader thread of ``_front`` with
the one reader both servers share (:class:`herdr_link_protocol.JsonLineReader`: split on ``\\n``,
parsed once, nesting bounded), and :class:`StdioCodec` decides each read line here, in one place:

* a readable request, notification or response goes to the server (lone surrogates replaced by
  U+FFFD except inside a ``tools/call``'s arguments, which ``PROTOCOL.md`` §2.5 delivers escaped);
* a request whose id is a string holding a lone surrogate is served under a private alias, and its
  answer carries the id back exactly as it was sent;
* a request already answered early (``_early``) is served under a private alias too, so the server's
  state follows it, and that second answer is dropped (after a comparison: a difference goes to the
  operator log, and the connection is sealed: :class:`~._wire.Seal`); the server sees that alias
  (:func:`answered_early`), and an activation answered early is served before any later line, as the
  front answered them;
* anything else with a method and an id gets its JSON-RPC error at once: a parse error or an invalid
  request with ``id: null`` when the line's top level cannot be read or its id is unusable, else an
  invalid request or invalid params with the request's own id (params that are not an object, or
  nested deeper than the reader reads, or a line over the size limit); notifications and client
  responses that cannot be read are logged and dropped, as JSON-RPC says.

The writer writes what the SDK's own writer would (``model_dump_json(by_alias=True,
exclude_unset=True)``, one line each); a message that cannot be serialised is answered with an
internal error under its id instead of being lost.
"""

import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Final

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from herdr_link_protocol import MAX_JSON_DEPTH, MAX_LINE_BYTES, JsonLine, LineFault

from ._wire import Seal, SharedWriter

if TYPE_CHECKING:
    from ._wire import Inbox

__all__ = ["Decoded", "StdioCodec", "answered_early", "inbox_transport"]

log: Final = logging.getLogger("herdr_link")

Decoded = SessionMessage | types.JSONRPCError | None
"""What a line becomes: a message for the server, an error to send back at once, or nothing."""

DRAIN_WAIT: Final = 30.0
"""Longest time, in seconds, the end of stdin waits for the answers still owed before the server stops."""
_ALIAS_PREFIX: Final = "herdr-link-id:"
_EARLY_PREFIX: Final = f"herdr-link-early-{uuid.uuid4().hex}:"
"""The private ids of requests answered early: unguessable, so no id a client sends is taken for one
(a client's own ``herdr-link-early:1`` had its answer dropped as the second answer of an early one)."""


def answered_early(request_id: object) -> bool:
    """Whether the server is serving a request the front already answered (its answer will be dropped)."""
    return isinstance(request_id, str) and request_id.startswith(_EARLY_PREFIX)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _replace_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value) if _has_surrogate(value) else value
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    return value


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _keep_arguments_raw(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with lone surrogates replaced everywhere except a ``tools/call``'s arguments, which are
    passed on as they are (never walked: they may be the largest part of the message)."""
    params = raw.get("params")
    if raw.get("method") != "tools/call" or not isinstance(params, dict) or "arguments" not in params:
        cleaned: dict[str, Any] = _replace_surrogates(raw)
        return cleaned
    kept = {_replace_surrogates(k): v if k == "arguments" else _replace_surrogates(v) for k, v in params.items()}
    return {_replace_surrogates(k): kept if k == "params" else _replace_surrogates(v) for k, v in raw.items()}


_FAULTS: Final = {
    LineFault.NOT_JSON: (types.PARSE_ERROR, "Parse error: the line is not JSON"),
    LineFault.NOT_OBJECT: (types.INVALID_REQUEST, "Invalid request: a message must be a JSON object"),
}
_TOO_LONG: Final = f"Invalid request: the line is longer than {MAX_LINE_BYTES} bytes"
_TOO_DEEP: Final = f"Invalid params: nested deeper than {MAX_JSON_DEPTH} levels"


class StdioCodec:
    """Read lines to messages and messages to lines, for one connection (it remembers the aliases of
    ids that cannot be serialised as they are)."""

    def __init__(self, seal: Seal | None = None) -> None:
        self._seal = seal or Seal()
        self._originals: dict[str, str] = {}  # alias -> the id as the client sent it
        self._aliases: dict[str, str] = {}  # the id as sent -> alias
        self._early: dict[str, tuple[str | int, bytes]] = {}  # alias -> the id as sent, the answer given
        self._early_count = 0

    def __repr__(self) -> str:
        return f"<StdioCodec aliased={len(self._originals)} early={len(self._early)}>"

    def _alias(self, request_id: str | int) -> str | int:
        if not isinstance(request_id, str) or not _has_surrogate(request_id):
            return request_id
        if request_id not in self._aliases:
            alias = f"{_ALIAS_PREFIX}{uuid.uuid4().hex}"
            self._aliases[request_id], self._originals[alias] = alias, request_id
        return self._aliases[request_id]

    def decode(self, line: JsonLine, early: bytes | None = None) -> Decoded:
        """Decide one read line (see the module docstring); ``early``: the answer already given to it.
        Never raises."""
        raw = line.message
        if raw is None:
            code, message = _FAULTS[line.fault or LineFault.NOT_JSON]
            return _error(None, code, message)
        request_id = line.request_id
        if "method" not in raw or "id" not in raw:
            return self._other(raw, line)
        if request_id is None:
            return _error(None, types.INVALID_REQUEST, "Invalid request: the id must be a string or an integer")
        served_id = self._alias(request_id) if early is None else self._early_alias(request_id, early)
        if line.fault is LineFault.TOO_LONG:
            return _error(served_id, types.INVALID_REQUEST, _TOO_LONG)
        if "params" in line.too_deep:
            return _error(served_id, types.INVALID_PARAMS, _TOO_DEEP)
        if "params" in raw and not isinstance(raw["params"], dict):
            return _error(served_id, types.INVALID_PARAMS, "Invalid params: params must be an object")
        cleaned = {k: v for k, v in _keep_arguments_raw(raw).items() if k not in line.too_deep}
        cleaned["id"] = served_id
        try:
            return SessionMessage(types.jsonrpc_message_adapter.validate_python(cleaned, by_name=False))
        except ValidationError:
            return _error(served_id, types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request")
        except RecursionError:
            return _error(served_id, types.INVALID_PARAMS, _TOO_DEEP)

    def _early_alias(self, request_id: str | int, answer: bytes) -> str:
        self._early_count += 1
        alias = f"{_EARLY_PREFIX}{self._early_count}"
        self._early[alias] = (request_id, answer)
        return alias

    def _other(self, raw: dict[str, Any], line: JsonLine) -> Decoded:
        """A notification or a client's response: served when readable, else logged and dropped."""
        kind = "response" if "id" in raw else "notification"
        if line.fault is not None or line.too_deep:
            log.warning("dropped an unreadable %s (%s)", kind, line.fault.value if line.fault else "too deep")
            return None
        cleaned = _replace_surrogates(raw)
        params = raw.get("params")
        if raw.get("method") == "notifications/cancelled" and isinstance(params, dict):
            cancelled = params.get("requestId")
            if isinstance(cancelled, str) and cancelled in self._aliases:
                cleaned["params"]["requestId"] = self._aliases[cancelled]
        try:
            return SessionMessage(types.jsonrpc_message_adapter.validate_python(cleaned, by_name=False))
        except (ValidationError, RecursionError) as error:
            log.warning("dropped an unreadable %s: %s", kind, type(error).__name__)
            return None

    def encode(self, message: types.JSONRPCMessage) -> bytes:
        """One output line, ``\\n`` included; the request's own id restored where it was aliased."""
        message_id = getattr(message, "id", None)
        if isinstance(message_id, str) and message_id in self._early:
            return self._second_answer(message, message_id)
        original = self._originals.get(message_id) if isinstance(message_id, str) else None
        if (
            isinstance(message_id, str)
            and original is not None
            and isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
        ):
            del self._originals[message_id], self._aliases[original]  # answered: the alias is done
        try:
            text = message.model_dump_json(by_alias=True, exclude_unset=True)
        except Exception as error:  # a value that cannot be serialised: the request still gets its answer
            if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                log.warning("dropped an outgoing %s that cannot be serialised: %s", type(message).__name__, error)
                return b""
            log.warning("answering with an internal error: the response cannot be serialised: %s", error)
            failure = _error(message.id, types.INTERNAL_ERROR, "Internal error: the response cannot be serialised")
            text = failure.model_dump_json(by_alias=True, exclude_unset=True)
        if original is not None:
            text = text.replace(f'"id":{json.dumps(message_id)}', f'"id":{json.dumps(original)}', 1)
        return text.encode() + b"\n"

    def _second_answer(self, message: types.JSONRPCMessage, alias: str) -> bytes:
        """Nothing: the request was answered early. A difference from that answer is logged."""
        original, answer = self._early.pop(alias)
        try:
            text = message.model_dump_json(by_alias=True, exclude_unset=True)
        except Exception as error:
            text = f"(cannot be serialised: {error})"
        line = text.replace(f'"id":{json.dumps(alias)}', f'"id":{json.dumps(original, ensure_ascii=False)}', 1)
        if line.encode() + b"\n" != answer:
            log.warning("the SDK answered request %r otherwise than the early answer: %s", original, line[:500])
            self._seal.close(f"the SDK answered request {original!r} otherwise than the front")
        return b""


@asynccontextmanager
async def inbox_transport(
    inbox: "Inbox", writer: SharedWriter, seal: Seal | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run``: the lines ``_front``'s reader thread puts in
    ``inbox`` (each with the answer it already gave, if any) until its end, and every answer written
    through ``writer`` once the server has returned; ``seal``: closed when the SDK answers a line
    otherwise than the front did (pass the server's own)."""
    codec = StdioCodec(seal)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_stream.clone()  # the reader's own way to the writer, for errors it answers itself
    reading = anyio.CancelScope()
    owed: set[str | int] = set()  # ids of the requests given to the server and not answered yet
    settled = anyio.Event()
    served: dict[str | int, anyio.Event] = {}  # an early activation's alias -> set once the server answered

    async def reader() -> None:
        nonlocal settled
        try:
            with reading:
                async with read_writer, answers:
                    while (item := await anyio.to_thread.run_sync(inbox.get, abandon_on_cancel=True)) is not None:
                        line, early = item
                        decoded = codec.decode(line, early)
                        if isinstance(decoded, SessionMessage):
                            ahead = None
                            if isinstance(decoded.message, types.JSONRPCRequest):
                                if not owed:
                                    settled = anyio.Event()
                                owed.add(decoded.message.id)
                                if early is not None and decoded.message.method == "tools/call":
                                    ahead = served[decoded.message.id] = anyio.Event()
                            await read_writer.send(decoded)
                            if ahead is not None:  # the front answered later lines as after it: so does the server
                                with anyio.move_on_after(DRAIN_WAIT):
                                    await ahead.wait()
                        elif decoded is not None:
                            log.warning("answered an unreadable request: %s", decoded.error.message)
                            await answers.send(SessionMessage(decoded))
                    # End of input: the server stops when its input ends and drops what is still
                    # running, so it is told only once every request it was given has its answer.
                    if owed:
                        with anyio.move_on_after(DRAIN_WAIT):
                            await settled.wait()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    async def writer_task() -> None:
        async with write_reader:
            async for session_message in write_reader:
                message = session_message.message
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and message.id in owed:
                    owed.discard(message.id)
                    if not owed:
                        settled.set()
                    if message.id in served:
                        served.pop(message.id).set()
                data = codec.encode(message)
                if data:
                    await anyio.to_thread.run_sync(writer.write, data)

    async with anyio.create_task_group() as group:
        group.start_soon(writer_task)
        group.start_soon(reader)
        try:
            yield read_stream, write_stream
        finally:  # the server has returned: stop reading, then let the writer finish what it was given
            reading.cancel()
            await write_stream.aclose()
