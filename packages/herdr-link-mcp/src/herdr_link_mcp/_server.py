"""The MCP server: wiring from the SDK's low-level ``Server`` to ``herdr_link_control.Link``.

Guarantee: every tool failure is an ``isError`` result ``CODE: reason`` except the three
protocol-level faults (unknown tool, non-object arguments, unknown gateway action), which are
JSON-RPC errors; requests run concurrently, except that a close waits for every earlier call of the
same connection; activation is per connection and is signalled in both MCP eras.
"""

import dataclasses
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote, urlparse

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError

from herdr_link_control import CallContext, CallOrder, Link
from herdr_link_protocol import (
    Activate,
    Cause,
    CloseCall,
    InvalidToolCall,
    LinkError,
    ParsedCall,
    StartCall,
    activates_session,
    parse_call,
    tools_list,
)

from ._activation import activation_texts
from ._clients import DEFAULT_NAMESPACE, RELIST_WAIT, SERVER_NAME, relist_wait
from ._early import MODERN_VERSIONS
from ._transport import answered_early
from ._version import __version__
from ._wire import Seal

__all__ = [
    "ConnectionState",
    "ServerSettings",
    "call_tool",
    "create_server",
    "initialization_options",
    "list_tools",
]

log: Final = logging.getLogger("herdr_link")

BOOTSTRAP_DELAY: Final = 0.2
"""Seconds the start-up bootstrap waits, so its ``herdr`` child does not compete with the handshake."""

_DORMANT: Final = [types.Tool.model_validate(entry) for entry in tools_list(active=False)]
_ACTIVE: Final = [types.Tool.model_validate(entry) for entry in tools_list(active=True)]


@dataclass(frozen=True)
class ServerSettings:
    """What every connection of one server shares: the control layer and how the server presents itself."""

    link: Link
    """The control layer; outside Herdr every call fails with ``NOT_IN_HERDR``."""
    namespace: str = DEFAULT_NAMESPACE
    """The name the host registered the server under, used in the presentation."""
    relist_wait: float = RELIST_WAIT
    """How long the activation result waits for a host known to re-list (:func:`~._clients.relist_wait`)."""
    bootstrap: bool = True
    """Run the self identity bootstrap in the background when a connection opens."""
    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    """Where ``tools/list_changed`` goes for listen streams (the 2026-07-28 era)."""
    seal: Seal = field(default_factory=Seal)
    """Closed when the front and the SDK read a line differently: every later tool call is refused."""


@dataclass
class ConnectionState:
    """One stdio connection's memory: activation and the calls in flight, nothing persisted; and the
    server's settings, which every handler reads from here (``ctx.lifespan_context``)."""

    settings: ServerSettings
    active: bool = False
    relisted: anyio.Event | None = None
    order: CallOrder = field(default_factory=CallOrder)
    """The calls in flight, so that a close waits for every earlier one (spec §4.5)."""

    def __repr__(self) -> str:
        return f"ConnectionState(active={self.active}, {self.order!r})"


Context = ServerRequestContext[ConnectionState]


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _failure(error: LinkError) -> types.CallToolResult:
    log.warning("tool error %s (%s)", error, error.detail)  # the operator log: the Herdr code and message
    return types.CallToolResult(content=[_text(str(error))], is_error=True)


def _invalid_params(message: str) -> MCPError:
    return MCPError(types.INVALID_PARAMS, message)


async def _roots_directory(ctx: Context) -> str | None:
    """The client's first ``file://`` root, when it offers roots; otherwise ``None``."""
    capabilities = ctx.session.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return None
    try:
        with anyio.fail_after(2):
            roots = await ctx.session.send_request(types.ListRootsRequest(), types.ListRootsResult)
    except Exception as error:  # an unanswered or refused roots request only loses a hint
        log.info("roots/list failed: %s", error)
        return None
    for root in roots.roots:
        uri = urlparse(str(root.uri))
        if uri.scheme == "file" and uri.path:
            return unquote(uri.path)
    return None


def _client_name(ctx: Context) -> str | None:
    client = ctx.session.client_params
    return client.client_info.name if client is not None else None


async def _delayed_bootstrap(link: Link) -> None:
    await anyio.sleep(BOOTSTRAP_DELAY)
    await link.bootstrap()


def _lifespan(settings: ServerSettings) -> Any:
    """The lifespan of one connection: its state, and the start-up bootstrap in the background."""

    @asynccontextmanager
    async def lifespan(_: Server[ConnectionState]) -> AsyncIterator[ConnectionState]:
        async with anyio.create_task_group() as group:
            if settings.bootstrap and settings.link.in_herdr:
                group.start_soon(_delayed_bootstrap, settings.link)  # initialize never waits for it
            yield ConnectionState(settings)
            group.cancel_scope.cancel()

    return lifespan


async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    """``tools/list``: nothing outside Herdr, the gateway while dormant, every tool once active."""
    state = ctx.lifespan_context
    if not state.settings.link.in_herdr:
        return types.ListToolsResult(tools=[])
    if state.active and state.relisted is not None:
        state.relisted.set()
    return types.ListToolsResult(tools=_ACTIVE if state.active else _DORMANT)


def _closed(ctx: Context) -> LinkError | None:
    """Why this session refuses every tool call, or ``None``: its client is read only from an ``initialize``
    the SDK accepted (in the handshake era a bare ``notifications/initialized`` opens the SDK's gate with no
    client at all), and a session whose front and SDK read a line differently is sealed (:class:`Seal`)."""
    reason = ctx.lifespan_context.settings.seal.reason
    if reason is None and ctx.protocol_version not in MODERN_VERSIONS and ctx.session.client_params is None:
        reason = "the handshake era's client never sent an initialize the SDK accepted"
    return None if reason is None else LinkError(Cause.CLIENT_UNREAD, reason)


async def _settled(ctx: Context, link: Link, context: CallContext) -> CallContext | LinkError:
    """The context the call runs in (``Link.settle``: the pane it may act as), or why this call may do
    nothing at all, whatever it is: the session is closed (:func:`_closed`), or the call may act as no pane
    for its client (PROTOCOL.md §6.1)."""
    if not link.in_herdr:
        return context  # the environment gate: the one parse answers NOT_IN_HERDR
    closed = _closed(ctx)
    if closed is not None:
        return closed
    try:
        return await link.settle(context)
    except LinkError as error:
        return error


def _context(ctx: Context) -> CallContext:
    """This call's context: the MCP adapter, for the client that sent it (one session per process), with the
    call's ``_meta`` (where a shared process names the call's thread)."""
    return CallContext("mcp", _client_name(ctx) or "", meta=ctx.meta)


async def _activate(ctx: Context, *, wait: bool) -> None:
    """Activate the connection once: signal the change in both MCP eras, and, for the activation call
    itself, wait up to ``relist_wait`` for a host that re-lists."""
    state = ctx.lifespan_context
    if state.active:
        return
    state.active = True
    state.settings.link.trace_activation(_context(ctx))
    state.relisted = anyio.Event()
    await ctx.session.send_tool_list_changed()  # handshake era (dropped on 2026-07-28)
    await state.settings.bus.publish(ToolsListChanged())  # 2026-07-28 era (listen streams)
    waiting = relist_wait(_client_name(ctx), state.settings.relist_wait) if wait else 0.0
    if waiting > 0:
        with anyio.move_on_after(waiting):
            await state.relisted.wait()


def _activation_result(ctx: Context) -> types.CallToolResult:
    receipt, presentation = activation_texts(_client_name(ctx), ctx.lifespan_context.settings.namespace)
    # No structuredContent: Claude Code shows a result's structuredContent instead of its content,
    # which would drop the contract (seen with Claude Code 2.1.332 in tests/real_hosts).
    return types.CallToolResult(content=[_text(receipt), _text(presentation)])


async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
    """``tools/call``: one parse, activation, the close-ordering rule, then the control layer."""
    link = ctx.lifespan_context.settings.link
    context = _context(ctx)
    arguments: Any = params.arguments if params.arguments is not None else {}
    try:
        parsed: ParsedCall | LinkError = parse_call(params.name, arguments, in_herdr=link.in_herdr)
    except InvalidToolCall as error:
        link.trace_refused(params.name, error, context)
        raise _invalid_params(str(error)) from None
    except LinkError as error:
        parsed = error
    settled = await _settled(ctx, link, context)
    if isinstance(settled, LinkError):  # whatever the call and its arguments: nothing done or activated (§6.1)
        link.trace_refused(params.name, settled, context)
        return _failure(settled)
    context = settled
    if isinstance(parsed, LinkError):
        link.trace_refused(params.name, parsed, context)
        if activates_session(parsed, in_herdr=link.in_herdr):  # a bad argument activates as a good one would
            await _activate(ctx, wait=False)
        return _failure(parsed)
    turn = ctx.lifespan_context.order.begin()
    try:
        activation = isinstance(parsed.call, Activate)
        # A direct Tier 1 call while dormant activates, then runs; an activation the front answered
        # (its result already sent) waits for no re-list.
        await _activate(ctx, wait=activation and not answered_early(ctx.request_id))
        if activation:
            return _activation_result(ctx)
        if isinstance(parsed.call, CloseCall):
            await turn.after_earlier()  # spec §4.5: a final send completes before the close
        if isinstance(parsed.call, StartCall):
            context = dataclasses.replace(context, directory=await _roots_directory(ctx))
        receipt = await link.run(parsed, context)
        return types.CallToolResult(content=[_text(receipt.to_json())])
    except LinkError as error:
        return _failure(error)
    finally:
        turn.end()


def create_server(
    link: Link,
    *,
    namespace: str = DEFAULT_NAMESPACE,
    relist_wait: float = RELIST_WAIT,
    bootstrap: bool = True,
    seal: Seal | None = None,
) -> Server[ConnectionState]:
    """Build the server for one process (one stdio connection in production): the module's handlers
    over each connection's :class:`ConnectionState`.

    Args:
        link: the control layer; outside Herdr every call fails with ``NOT_IN_HERDR``.
        namespace: the name the host registered the server under, used in the presentation.
        relist_wait: how long the activation result waits for a host known to re-list (an unknown one
            waits at most :data:`~._clients.UNKNOWN_RELIST_WAIT`).
        bootstrap: run the self identity bootstrap in the background when a connection opens.
        seal: the connection's seal, shared with the transport that closes it (``inbox_transport``).
    """
    settings = ServerSettings(link, namespace, relist_wait, bootstrap, seal=seal or Seal())
    return Server(
        SERVER_NAME,
        version=__version__,
        lifespan=_lifespan(settings),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(settings.bus),
    )


def initialization_options(server: Server[ConnectionState]) -> Any:
    """Options that advertise ``tools.listChanged`` on the handshake era."""
    return server.create_initialization_options(NotificationOptions(tools_changed=True))
