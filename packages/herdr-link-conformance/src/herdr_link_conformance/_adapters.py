"""The adapters under test, behind one narrow interface: list tools, call a tool, watch signals.

An MCP adapter is any stdio MCP server (``--mcp "<command>"``); a bridge adapter is any process
speaking ``docs/bridge.md`` on stdin/stdout (``--bridge "<command>"``); a stub adapter is a
JavaScript plugin of OpenCode 1.x or 2 or a Pi extension (``--stub RUNTIME:FILE``), run under Node
inside the kit's host shim (``host_shim.mjs``), which offers its tools the way that host would. All
run with the pane environment a check gives them, and every call is bounded in time.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Protocol

import anyio
import mcp.types as types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectSendStream
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from herdr_link_protocol import GATEWAY_TOOL, TOOL_ACTIONS, ErrorCode
from herdr_link_testkit import pane_terminal

__all__ = [
    "CALL_TIMEOUT",
    "CAPABILITIES",
    "CAPABILITY_MEANINGS",
    "Adapter",
    "AdapterError",
    "AdapterSpec",
    "Outcome",
    "STUB_RUNTIMES",
    "open_adapter",
    "unwrapped",
]

CALL_TIMEOUT: Final = 60.0
"""Seconds any one call may take before the check fails (a hung adapter fails, it never hangs the kit)."""

HELLO_TIMEOUT: Final = 20.0
"""Seconds a bridge may take to answer ``hello`` (its start included)."""
HELLO_OPS: Final = ("peers", "send", "close", "gateway")
"""Ops every bridge's ``hello`` answer must list (``docs/bridge.md``); ``start`` and ``bootstrap`` are capabilities."""

CAPABILITY_MEANINGS: Final = {
    "tools": "a tools list (the environment gate and the dormant surface are read from it)",
    "tier1_tools": "the four Tier 1 tools listed once active",
    "gateway": "the herdr_link gateway",
    "list_changed": "a signal when its tool list changes",
    "quiet_activation": "an activation that runs no Herdr command",
    "unlisted_calls": "calls to what it does not list (so a call outside Herdr reaches it)",
    "start": "herdr_link_start",
    "bootstrap": "the self identity bootstrap",
    "loop_guard": "a loop guard whose limit the user's settings file sets (HERDR_LINK_CONFIG)",
    "session_placement": "a caller found from its session's directory, not from the process's pane "
    "(OpenCode 2's server, shared by every pane)",
    "pane_proof": "the pane in its environment taken as the caller only where it can show it runs there "
    "(for a client whose host shares one process between panes: Codex's daemon)",
}
"""Every capability an adapter can claim, and what it means."""
CAPABILITIES_MCP: Final = frozenset(CAPABILITY_MEANINGS) - {"session_placement"}
_GUARD: Final = frozenset({"loop_guard"})
CAPABILITIES_BRIDGE: Final = frozenset({"start", "bootstrap", "unlisted_calls"}) | _GUARD
STUB_RUNTIMES: Final = {
    "opencode-v1": ("opencode", frozenset({"tools", "gateway", "quiet_activation", "start", "bootstrap"}) | _GUARD),
    "opencode-v2": ("opencode", frozenset({"tools", "gateway", "start", "bootstrap", "session_placement"}) | _GUARD),
    "pi": ("pi", CAPABILITIES_MCP - {"unlisted_calls", "pane_proof"}),
}
"""Each stub runtime the host shim runs: the agent kind of its host's pane, and what it offers. OpenCode
has one gateway tool, no Tier 1 tools and no list signal (PROTOCOL.md §6, single-gateway dispatch);
OpenCode 2's session rule asks Herdr before every call, activation included (§6); a plugin host
offers no call to a tool its plugin did not register, and none is an MCP client of a host that shares
one process between panes (``pane_proof``)."""
HOST_SHIM: Final = Path(__file__).with_name("host_shim.mjs")
"""The Node program that runs a stub the way its host would (its own header says what it offers)."""


class AdapterError(Exception):
    """The adapter, not the kit, broke a check: it would not start, died, stopped answering, or wrote
    what its protocol does not allow. A check's verdict is then FAIL; any other exception is the kit's
    own error."""


@asynccontextmanager
async def _adapter_faults(what: str) -> AsyncIterator[None]:
    """Every exception inside becomes an :class:`AdapterError` naming ``what`` was being done."""
    try:
        yield
    except AdapterError:
        raise
    except Exception as error:
        raise AdapterError(f"{what}: {_describe(error)}") from error


def unwrapped(error: BaseException) -> BaseException:
    """The one exception inside nested single-member exception groups (anyio's task groups wrap)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _describe(error: BaseException) -> str:
    error = unwrapped(error)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


@dataclass(frozen=True)
class Outcome:
    """What one call returned: a receipt, a tool error ``CODE: reason``, or a protocol-level error."""

    ok: bool
    text: str
    protocol_error: bool = False
    blocks: tuple[str, ...] = ()

    @property
    def payload(self) -> Any:
        """The receipt as JSON (``None`` when it is not JSON)."""
        try:
            return json.loads(self.text)
        except ValueError:
            return None

    @property
    def code(self) -> str:
        """The error code of a tool error (the text before ``:``)."""
        return self.text.split(":", 1)[0] if not self.ok else ""


class Adapter(Protocol):
    """What the checks need from an adapter."""

    capabilities: frozenset[str]
    notices: list[str]
    carries_lone_surrogates: bool
    """Whether the kit can send it a string holding a lone surrogate (JSON's ``\\ud800``)."""

    async def list_tools(self) -> list[dict[str, Any]]: ...

    async def context(self) -> list[str]:
        """What the adapter adds to the model's context besides its tools, now (a stub's system-prompt
        text; nothing for an MCP server or a bridge)."""
        ...

    async def call(self, tool: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> Outcome:
        """Call ``tool``; ``meta``: the request's ``_meta`` as a host adds it (MCP only: a bridge's or a stub's
        wire has none, and they ignore it)."""
        ...


CAPABILITIES: Final = CAPABILITIES_MCP | CAPABILITIES_BRIDGE | {"session_placement"}
"""What an adapter can claim (:data:`CAPABILITY_MEANINGS` says what each means)."""


@dataclass(frozen=True)
class AdapterSpec:
    """How to start the adapter: its kind (``mcp``, ``bridge`` or ``stub``), its argv (no shell), and
    what it does not claim (``lacks``: checks that need it are skipped, with the reason). A stub's
    ``runtime`` is one of :data:`STUB_RUNTIMES`, and its argv runs the host shim."""

    kind: str
    argv: tuple[str, ...]
    lacks: frozenset[str] = frozenset()
    runtime: str = ""

    @classmethod
    def parse(cls, kind: str, command: str, lacks: frozenset[str] = frozenset(), *, node: str = "node") -> AdapterSpec:
        """The adapter ``--mcp``/``--bridge`` ``command`` names, or ``--stub RUNTIME:FILE``."""
        unknown = sorted(lacks - CAPABILITIES)
        if unknown:
            raise ValueError(f"unknown capability {', '.join(unknown)}; choose from {', '.join(sorted(CAPABILITIES))}")
        if kind == "stub":
            return cls.stub(*_runtime_and_file(command), lacks=lacks, node=node)
        argv = tuple(shlex.split(command))
        if not argv:
            raise ValueError(f"--{kind} needs a command")
        return cls(kind, argv, lacks)

    @classmethod
    def stub(cls, runtime: str, file: str, *, lacks: frozenset[str] = frozenset(), node: str = "node") -> AdapterSpec:
        """The stub ``file`` (``runtime`` one of :data:`STUB_RUNTIMES`) inside the host shim, run by ``node``."""
        if runtime not in STUB_RUNTIMES:
            raise ValueError(f"unknown stub runtime {runtime!r}; choose from {', '.join(STUB_RUNTIMES)}")
        stub = str(Path(file).expanduser().resolve())
        return cls("stub", (*shlex.split(node), str(HOST_SHIM), runtime, stub), lacks, runtime)

    @property
    def capabilities(self) -> frozenset[str]:
        if self.kind == "stub":
            return STUB_RUNTIMES[self.runtime][1] - self.lacks
        return (CAPABILITIES_MCP if self.kind == "mcp" else CAPABILITIES_BRIDGE) - self.lacks

    @property
    def caller_kind(self) -> str:
        """The agent kind of the pane the adapter runs in: its host's (an MCP server or a bridge: ``claude``)."""
        return STUB_RUNTIMES[self.runtime][0] if self.kind == "stub" else "claude"

    @property
    def label(self) -> str:
        """What the adapter is, in a sentence: ``an mcp adapter``, ``an opencode-v2 stub``."""
        what = f"{self.runtime} stub" if self.kind == "stub" else f"{self.kind} adapter"
        return f"{'an' if what[0] in 'aeiou' else 'a'} {what}"


def _runtime_and_file(value: str) -> tuple[str, str]:
    runtime, colon, file = value.partition(":")
    if not colon or not file:
        raise ValueError(f"--stub needs RUNTIME:FILE (RUNTIME one of {', '.join(STUB_RUNTIMES)}), not {value!r}")
    return runtime, file


@dataclass
class _Mcp:
    session: ClientSession
    capabilities: frozenset[str] = CAPABILITIES_MCP
    notices: list[str] = field(default_factory=list)
    carries_lone_surrogates: bool = False  # the SDK's client cannot serialise one

    async def list_tools(self) -> list[dict[str, Any]]:
        async with _adapter_faults("tools/list"):
            with anyio.fail_after(CALL_TIMEOUT):
                listed = await self.session.list_tools()
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]

    async def context(self) -> list[str]:
        return []

    async def call(self, tool: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> Outcome:
        try:
            async with _adapter_faults(f"tools/call {tool}"):
                with anyio.fail_after(CALL_TIMEOUT):
                    extra: dict[str, Any] = {"meta": dict(meta)} if meta is not None else {}
                    result = await self.session.call_tool(tool, dict(arguments), **extra)
        except AdapterError as error:
            if isinstance(error.__cause__, MCPError):
                return Outcome(False, str(error.__cause__), protocol_error=True)
            raise
        texts = tuple(c.text for c in result.content if isinstance(c, types.TextContent))
        return Outcome(not result.is_error, texts[0] if texts else "", blocks=texts)


def hello_problem(answer: Mapping[str, Any], hello: Mapping[str, Any]) -> str | None:
    """What makes ``answer`` not a bridge's acceptance of ``hello`` (``docs/bridge.md``), or ``None``."""
    if answer.get("error"):
        return f"refuses it: {answer['error']}"
    if answer == hello:
        return "is the kit's own hello, echoed back: not a bridge"
    if answer.get("type") != "hello" or answer.get("contract") != hello["contract"]:
        return f"is not a contract {hello['contract']} hello answer"
    if answer.get("protocol") != hello["protocol"] or not isinstance(answer.get("bridge"), str):
        return "does not name the protocol and the bridge's version"
    ops = answer.get("ops")
    missing = [op for op in HELLO_OPS if not isinstance(ops, list) or op not in ops]
    return f"does not offer the ops {', '.join(missing)}" if missing else None


@dataclass
class _ObjectLines:
    """JSON-object lines read from a process's stdout (a bridge's or the host shim's)."""

    process: Process
    buffer: bytes = b""

    async def next(self) -> dict[str, Any]:
        """The next line as a JSON object; ``anyio.EndOfStream`` once the process's stdout ends."""
        assert self.process.stdout is not None
        while b"\n" not in self.buffer:
            self.buffer += await self.process.stdout.receive()
        line, self.buffer = self.buffer.split(b"\n", 1)
        value = json.loads(line)
        if not isinstance(value, dict):
            raise ValueError(f"a reply line that is not a JSON object: {line[:80]!r}")
        return value


async def _stop(process: Process) -> None:
    """Stop an adapter's process as a host quits: stdin closed, 10 s to exit, then terminated."""
    assert process.stdin is not None
    await process.stdin.aclose()
    with anyio.move_on_after(10):
        await process.wait()
    if process.returncode is None:
        process.terminate()


@dataclass
class _InFlight:
    """Requests by id over a process's JSON lines, several in flight, answered in any order (a bridge's
    contract, the host shim's). An answer under an id the kit never used is the adapter's fault: the
    requests in flight fail with it; a late answer to a request the kit gave up on is dropped."""

    process: Process
    lines: _ObjectLines
    _next: int = 0
    _waiting: dict[int, MemoryObjectSendStream[dict[str, Any]]] = field(default_factory=dict)
    _writing: anyio.Lock = field(default_factory=anyio.Lock)
    _fault: str = ""

    @asynccontextmanager
    async def answering(self) -> AsyncIterator[None]:
        """Answers are read while the body runs; then the process is stopped as a host quits."""
        async with anyio.create_task_group() as group:
            group.start_soon(self.read_answers)
            try:
                yield
            finally:
                await _stop(self.process)
                group.cancel_scope.cancel()

    async def read_answers(self) -> None:
        """Hand each answer line to the request waiting for its id (until stdout ends or a stray id)."""
        try:
            while True:
                answer = await self.lines.next()
                ident = answer.get("id")
                waiter = self._waiting.pop(ident, None)  # type: ignore[arg-type]
                if waiter is not None:
                    async with waiter:
                        await waiter.send(answer)
                elif not (isinstance(ident, int) and 0 < ident <= self._next):  # (a late answer is dropped)
                    self._fault = f"an answer came under id {json.dumps(ident)[:40]}, which no request had"
                    break
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        for waiter in self._waiting.values():  # a request still waiting fails: no answer will come
            await waiter.aclose()
        self._waiting.clear()

    async def request(self, message: dict[str, Any], what: str) -> tuple[int, dict[str, Any]]:
        """Write ``message`` under a fresh id; its id and its answer (``what`` names it in errors)."""
        self._next += 1
        ident = self._next
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](1)
        self._waiting[ident] = send
        assert self.process.stdin is not None
        try:
            async with _adapter_faults(what):
                with anyio.fail_after(CALL_TIMEOUT):
                    async with self._writing:
                        await self.process.stdin.send(json.dumps({"id": ident, **message}).encode() + b"\n")
                    async with receive:
                        try:
                            return ident, await receive.receive()
                        except anyio.EndOfStream:
                            fault = self._fault or "the adapter stopped before it answered"
                        raise AdapterError(f"{what}: {fault}")
        finally:
            unanswered = self._waiting.pop(ident, None)
            if unanswered is not None:
                unanswered.close()


@dataclass
class _Bridge:
    process: Process
    directory: str
    capabilities: frozenset[str] = CAPABILITIES_BRIDGE
    notices: list[str] = field(default_factory=list)
    carries_lone_surrogates: bool = True  # JSON lines written with json.dumps

    def __post_init__(self) -> None:
        self.in_flight = _InFlight(self.process, _ObjectLines(self.process))

    async def hello(self) -> dict[str, Any]:
        """The bridge's answer to ``hello``, once it is a real contract answer (``docs/bridge.md``).

        Raises:
            AdapterError: no answer in :data:`HELLO_TIMEOUT`, a refusal, or a line that is not a hello answer.
        """
        hello = {"type": "hello", "contract": 1, "protocol": "herdr-link/1", "client": "herdr-link-conformance"}
        assert self.process.stdin is not None
        async with _adapter_faults("bridge hello"):
            await self.process.stdin.send(json.dumps(hello).encode() + b"\n")
            with anyio.move_on_after(HELLO_TIMEOUT):
                answer = await self.in_flight.lines.next()
                problem = hello_problem(answer, hello)
                if problem:
                    raise AdapterError(f"the bridge's hello answer {json.dumps(answer)[:160]} {problem}")
                return answer
        raise AdapterError(f"the bridge did not answer hello within {HELLO_TIMEOUT:.0f} s")

    async def list_tools(self) -> list[dict[str, Any]]:
        raise NotImplementedError("a bridge presents no tools; its stubs do")

    async def context(self) -> list[str]:
        return []

    async def call(self, tool: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> Outcome:
        op = "gateway" if tool == GATEWAY_TOOL else TOOL_ACTIONS.get(tool)  # docs/bridge.md: the raw gateway call
        if op is None:
            raise NotImplementedError(f"a bridge has no op for {tool}")
        context = {"session": "conformance", "directory": self.directory}
        request = {"op": op, "args": dict(arguments), "context": context}
        ident, reply = await self.in_flight.request(request, f"bridge request {op!r}")
        if "result" not in reply and "error" not in reply:
            raise AdapterError(f"the answer to request {ident} ({op}) holds neither result nor error")
        if "error" in reply:
            error = reply["error"]
            return Outcome(False, str(error.get("message", "")), protocol_error=error.get("code") == "INVALID_CALL")
        return Outcome(True, json.dumps(reply.get("result"), ensure_ascii=False, separators=(",", ":")))


TOOL_ERROR: Final = re.compile("(?:" + "|".join(code.value for code in ErrorCode) + r"): ")
"""A failure's text that is a tool error (``CODE: reason``); any other thrown text is protocol-level."""


@dataclass
class _Stub:
    """A JavaScript stub inside the host shim (``host_shim.mjs``): requests by id, answered in any order."""

    process: Process
    capabilities: frozenset[str]
    notices: list[str] = field(default_factory=list)
    carries_lone_surrogates: bool = True  # JSON lines; a JavaScript string holds a lone surrogate

    def __post_init__(self) -> None:
        self.in_flight = _InFlight(self.process, _ObjectLines(self.process))

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        what = f"host shim {message.get('op')} {message.get('tool') or ''}".strip()
        _, answer = await self.in_flight.request(message, what)
        if "error" in answer:
            raise AdapterError(f"the host shim could not serve it: {answer['error']}")
        self.notices += answer.get("notices") or []
        return answer

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = (await self.request({"op": "list"}))["tools"]
        return tools

    async def context(self) -> list[str]:
        return [str(part) for part in (await self.request({"op": "system"}))["system"]]

    async def call(self, tool: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> Outcome:
        answer = await self.request({"op": "call", "tool": tool, "arguments": dict(arguments)})
        if answer.get("unknown") and tool in TOOL_ACTIONS:  # not offered: as the model would, through the gateway
            dispatch = {"action": TOOL_ACTIONS[tool], "arguments": dict(arguments)}
            answer = await self.request({"op": "call", "tool": GATEWAY_TOOL, "arguments": dispatch})
        text = str(answer.get("text", ""))
        blocks = (text, *(str(part) for part in answer.get("system") or ()))
        if answer.get("ok"):
            return Outcome(True, text, blocks=blocks)
        protocol_error = bool(answer.get("unknown")) or TOOL_ERROR.match(text) is None
        return Outcome(False, text, protocol_error=protocol_error, blocks=blocks)


DETACHED: Final = (
    "-c",
    "import os, sys\ntry:\n    os.setsid()\nexcept OSError:\n    pass\nos.execvp(sys.argv[1], sys.argv[1:])",
)
"""Run a command in a session of its own with no controlling terminal, as a host's background server
spawns our adapter (Codex's app-server daemon): ``python -c DETACHED <argv>`` (a process that already
leads its own session, as the SDK may start it, has none either)."""


@asynccontextmanager
async def open_adapter(
    spec: AdapterSpec, env: Mapping[str, str], cwd: str, *, client: str | None = None, detached: bool = False
) -> AsyncIterator[Adapter]:
    """Start the adapter in a pane's environment; stop it (stdin closed, then terminated) after.

    ``client``: the ``clientInfo.name`` an MCP adapter is told (default the SDK's); ``detached``: the
    adapter runs in a session of its own with no controlling terminal. Otherwise it leads a session whose
    controlling terminal this process (the simulated Herdr's server) holds, as a host's process in a pane
    does: its terminal shows the pane its environment names (``herdr_link_testkit.pane_terminal``).

    What goes wrong starting, running or stopping the adapter is an :class:`AdapterError`; what the
    body raises passes through unchanged (a check's verdict, or the kit's own error).
    """
    if detached:
        spec = replace(spec, argv=(sys.executable, *DETACHED, *spec.argv))
    terminal = nullcontext(()) if detached or sys.platform == "win32" else pane_terminal()
    from_body: list[BaseException] = []
    try:
        with terminal as prefix:
            spec = replace(spec, argv=(*prefix, *spec.argv))
            async with _opened(spec, env, cwd, client) as adapter:
                try:
                    yield adapter
                except BaseException as error:
                    from_body.append(error)
                    raise
    except AdapterError:
        raise
    except Exception as error:
        if from_body and (error is from_body[0] or _holds(error, from_body[0])):
            raise
        raise AdapterError(f"the adapter's process or transport failed: {_describe(error)}") from error


def _holds(group: BaseException, error: BaseException) -> bool:
    """Whether ``group`` is ``error`` or an exception group that holds it (anyio wraps task-group errors)."""
    if group is error:
        return True
    return isinstance(group, BaseExceptionGroup) and any(_holds(e, error) for e in group.exceptions)


@asynccontextmanager
async def _opened(spec: AdapterSpec, env: Mapping[str, str], cwd: str, client: str | None) -> AsyncIterator[Adapter]:
    if spec.kind == "mcp":
        notices: list[str] = []

        async def on_message(message: Any) -> None:
            notices.append(type(message).__name__)

        params = StdioServerParameters(command=spec.argv[0], args=list(spec.argv[1:]), env=dict(env), cwd=cwd)
        # The adapter's operator log is not the kit's output; opening /dev/null never blocks.
        with open(os.devnull, "w") as quiet:  # noqa: ASYNC230
            info = types.Implementation(name=client, version="1") if client else None
            async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(
                read, write, message_handler=on_message, client_info=info
            ) as session:  # fmt: skip
                async with _adapter_faults("initialize"):
                    with anyio.fail_after(CALL_TIMEOUT):
                        await session.initialize()
                yield _Mcp(session, notices=notices)
        return
    if spec.kind == "stub":
        async with _stub(spec, env, cwd) as stub:
            yield stub
        return
    async with await _spawn(spec, env, cwd) as process:
        bridge = _Bridge(process, cwd)
        await bridge.hello()
        async with bridge.in_flight.answering():
            yield bridge


async def _spawn(spec: AdapterSpec, env: Mapping[str, str], cwd: str) -> Process:
    """Start the adapter's process, shielded: asyncio cancelled mid-spawn leaves a child nobody reaps."""
    with anyio.CancelScope(shield=True):
        process = await anyio.open_process(list(spec.argv), env=dict(env), cwd=cwd, stderr=subprocess.DEVNULL)
    return process


@asynccontextmanager
async def _stub(spec: AdapterSpec, env: Mapping[str, str], cwd: str) -> AsyncIterator[_Stub]:
    """The host shim running the stub: ready once it loaded the stub; stopped as a host quits (stdin closed)."""
    async with await _spawn(spec, env, cwd) as process:
        stub = _Stub(process, spec.capabilities)
        async with _adapter_faults("the host shim's start"):
            with anyio.fail_after(HELLO_TIMEOUT):
                ready = await stub.in_flight.lines.next()
        if ready.get("type") != "ready" or ready.get("error"):
            raise AdapterError(str(ready.get("error") or f"the host shim's first line was {json.dumps(ready)[:160]}"))
        async with stub.in_flight.answering():
            yield stub
