"""The JSON-lines bridge: the JavaScript stubs' one way into the control layer.

Guarantee: stdout carries only reply lines (logs go to stderr); requests run concurrently and may
be answered out of order, except that a ``close`` starts only after every earlier request of the
same session has finished; at stdin EOF, the requests already read are finished and answered (each
Herdr call is bounded by its timeout), then the bridge exits with nothing left running.
"""

import dataclasses
import json
import logging
import sys
from collections.abc import AsyncIterable, Callable
from typing import Any, Final

import anyio
from pydantic import ValidationError

from herdr_link_protocol import (
    ACTION_TOOLS,
    GATEWAY_TOOL,
    MAX_JSON_DEPTH,
    MAX_LINE_BYTES,
    PROTOCOL_ID,
    Cause,
    CloseCall,
    InvalidToolCall,
    JsonLine,
    LineFault,
    LinkError,
    ParsedCall,
    activates_session,
    parse_call,
)

from .._call_context import CallContext
from .._link import Link
from .._ordering import CallOrder, Turn
from .._stdio import claimed_stdio, read_json_lines
from ._messages import (
    BRIDGE_CONTRACT,
    BRIDGE_OPS,
    GATEWAY_OP,
    INVALID_CALL,
    BridgeError,
    BridgeHello,
    BridgeHelloReply,
    BridgeReply,
    BridgeRequest,
)

__all__ = ["BridgeServer", "main"]

log: Final = logging.getLogger("herdr_link")

_TOOL_OF_OP: Final = {**ACTION_TOOLS, GATEWAY_OP: GATEWAY_TOOL}
"""The ops that carry a tool call, and the tool each names: read by the one inbound parse."""


class BridgeServer:
    """Serves bridge requests from ``reader`` lines, writing reply lines with ``write``."""

    def __init__(self, link: Link, version: str, write: Callable[[bytes], None]) -> None:
        self.link = link
        self.version = version
        self._write = write
        self._write_lock = anyio.Lock()
        self._order = CallOrder()
        self._greeted = False
        self._client = ""
        """The stub's client name from its hello (its host), for each call's context."""

    def __repr__(self) -> str:
        return f"<BridgeServer {self.version} greeted={self._greeted} {self._order!r}>"

    async def _send(self, reply: BridgeReply | BridgeHelloReply) -> None:
        body = reply.model_dump(mode="json", by_alias=True, exclude_none=True)
        if isinstance(reply, BridgeReply):
            body = {"id": reply.id, **body}  # a reply always names its request, null when unreadable
        try:
            line = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        except UnicodeEncodeError:  # a lone surrogate (an id cut inside a pair): escape it, as JSON allows
            line = json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"
        async with self._write_lock:
            try:
                await anyio.to_thread.run_sync(self._write, line)
            except (OSError, ValueError) as error:  # a closed or broken stdout: nobody can be told
                log.warning("could not write a reply (%s); serving on until stdin closes", error)

    async def _fail(self, request_id: str | int | None, code: str, message: str, activates: bool | None = None) -> None:
        """Answer ``request_id`` (``JsonLine.request_id``: ``None`` when the line has no usable id) with an error."""
        reply = BridgeReply(id=request_id, activates=activates, error=BridgeError(code=code, message=message))
        await self._send(reply)

    async def serve(self, lines: AsyncIterable[JsonLine]) -> None:
        """Serve every line until ``lines`` ends (EOF), then return once every request read has been
        answered. ``lines``: :func:`herdr_link_control.read_json_lines` in production."""
        async with anyio.create_task_group() as group:
            async for line in lines:
                try:
                    await self._accept(line, group)
                except Exception:  # no single line may end the serve loop
                    log.exception("a bridge line could not be handled")
                    await self._fail(line.request_id, INVALID_CALL, "INVALID_CALL: the bridge failed to read the line")

    async def _accept(self, line: JsonLine, group: anyio.abc.TaskGroup) -> None:
        raw = line.message
        if raw is None:
            what = "not a JSON object" if line.fault is LineFault.NOT_OBJECT else "not JSON"
            await self._fail(None, INVALID_CALL, f"INVALID_CALL: the line is {what}")
            return
        if line.fault is LineFault.TOO_LONG:
            await self._fail(
                line.request_id, INVALID_CALL, f"INVALID_CALL: the line is longer than {MAX_LINE_BYTES} bytes"
            )
            return
        if line.too_deep:
            await self._fail(line.request_id, INVALID_CALL, f"INVALID_CALL: nested deeper than {MAX_JSON_DEPTH} levels")
            return
        if raw.get("type") == "hello":
            await self._hello(raw)
            return
        if not self._greeted:
            await self._fail(line.request_id, INVALID_CALL, "INVALID_CALL: send hello first")
            return
        try:
            request = BridgeRequest.model_validate(raw)
        except ValidationError as error:
            await self._fail(
                line.request_id, INVALID_CALL, f"INVALID_CALL: malformed request ({error.error_count()} errors)"
            )
            return
        if request.op not in BRIDGE_OPS:
            await self._fail(request.id, INVALID_CALL, f"INVALID_CALL: unknown op; use one of {', '.join(BRIDGE_OPS)}")
            return
        group.start_soon(self._run, request, self._order.begin(request.context.session))

    async def _hello(self, raw: dict[str, Any]) -> None:
        try:
            hello = BridgeHello.model_validate(raw)
        except ValidationError:
            hello = None
        if hello is None or hello.contract != BRIDGE_CONTRACT or hello.protocol != PROTOCOL_ID:
            reason = LinkError(Cause.BRIDGE_INCOMPATIBLE)
            log.warning("incompatible stub: %r (bridge contract %d)", raw, BRIDGE_CONTRACT)
            await self._send(
                BridgeHelloReply(bridge=self.version, error=BridgeError(code=reason.code, message=str(reason)))
            )
            return
        log.info("stub connected: %s", hello.client or "unnamed")
        self._client = hello.client or ""  # each call's context names it
        self._greeted = True
        await self._send(BridgeHelloReply(bridge=self.version, ops=BRIDGE_OPS))

    def _parse(self, request: BridgeRequest) -> ParsedCall | InvalidToolCall | LinkError:
        """The one inbound parse of a tool op's arguments: the call, or the error it earns."""
        try:
            return parse_call(_TOOL_OF_OP[request.op], request.args, in_herdr=self.link.in_herdr)
        except (InvalidToolCall, LinkError) as error:
            return error

    def _refusal(self, request: BridgeRequest) -> LinkError | None:
        """Why this call may do nothing at all: a call placed as this process's own pane from a process that
        may not act for it (PROTOCOL.md §6.1); a session placed by its directory is decided when placed."""
        if not self.link.in_herdr or request.context.caller_by_directory:
            return None
        return self.link.own_pane_problem(self._client)

    async def _run(self, request: BridgeRequest, turn: Turn) -> None:
        activates: bool | None = None
        try:
            if request.op in _TOOL_OF_OP:
                parsed = self._parse(request)
                context = CallContext("bridge", self._client, request.context.session,
                                      directory=request.context.directory)  # fmt: skip
                refusal = self._refusal(request)
                if refusal is not None:  # whatever the call and its arguments: nothing done or activated (§6.1)
                    activates = False if request.op == GATEWAY_OP else None
                    self.link.trace_refused(_TOOL_OF_OP[request.op], refusal, context)
                    raise refusal
                if request.op == GATEWAY_OP:  # the stub activates its session on this answer
                    activates = activates_session(parsed, in_herdr=self.link.in_herdr)
                    if activates:
                        self.link.trace_activation(context)
                if not isinstance(parsed, ParsedCall):
                    self.link.trace_refused(_TOOL_OF_OP[request.op], parsed, context)
                    raise parsed
                if isinstance(parsed.call, CloseCall):
                    await turn.after_earlier()  # spec §4.5: a final send completes before the close
                if request.context.caller_by_directory:
                    try:
                        caller_pane = await self.link.session_pane(request.context.directory, request.context.session)
                    except LinkError:
                        if activates:  # a session that cannot be placed is not activated
                            activates = False
                        raise
                    context = dataclasses.replace(context, caller_pane=caller_pane)
                receipt = await self.link.run(parsed, context)
                result = receipt.model_dump(mode="json", by_alias=True, exclude_none=True)  # its wire form
            else:
                result = await self._execute(request)
        except LinkError as error:
            log.warning("%s: %s (%s)", request.op, error, error.detail)  # the operator log, as the MCP server's
            await self._fail(request.id, error.code, str(error), activates)
        except InvalidToolCall as error:  # the model's call is not one of ours: the parse's own text, as MCP's
            await self._fail(request.id, INVALID_CALL, str(error), activates)
        except Exception as error:  # a bug must cost one request, never the bridge
            log.exception("bridge request %r failed unexpectedly", request.op)
            await self._fail(request.id, INVALID_CALL, f"INVALID_CALL: the bridge failed: {type(error).__name__}")
        else:
            await self._send(BridgeReply(id=request.id, activates=activates, result=result))
        finally:
            turn.end()

    async def _execute(self, request: BridgeRequest) -> dict[str, Any]:
        if request.op == "bootstrap":
            return {"name": await self.link.bootstrap(self._client)}
        # resolve_session_pane: the pane stays here
        await self.link.session_pane(request.context.directory, request.context.session)
        return {"status": "resolved"}


def main(argv: list[str] | None = None) -> int:
    """``herdr-link-bridge``: serve the bridge on stdin/stdout until stdin closes."""
    from ..commandline import run_command

    return run_command("herdr-link-bridge", _main, argv)


def _main(argv: list[str]) -> int:
    from importlib.metadata import version

    from ..commandline import EXIT_STATUSES, command_parser

    parser = command_parser(
        "herdr-link-bridge",
        description=(
            "Serve Herdr Link to the OpenCode plugin and the Pi extension: JSON lines on stdin and stdout "
            "(docs/bridge.md). The plugins start it themselves; run by hand, it waits for a line on stdin."
        ),
        epilog=f"Exit status: 0 when stdin closes; {EXIT_STATUSES}",
    )
    parser.add_argument(
        "--version",
        "-V",
        action="version",
        version=f"herdr-link-bridge {version('herdr-link-control')} (contract {BRIDGE_CONTRACT})",
    )
    parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="herdr-link-bridge: %(message)s")
    with claimed_stdio() as wire:  # children (herdr) read EOF and print to stderr, never to the wire
        server = BridgeServer(Link(), version("herdr-link-control"), wire.write)
        try:
            anyio.run(server.serve, read_json_lines(wire.read_fd))
        except KeyboardInterrupt:
            return 130
    return 0
