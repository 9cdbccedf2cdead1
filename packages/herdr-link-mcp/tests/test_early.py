"""The dormant surface before the SDK has loaded (``_early``, ``_front``).

The real server runs with the SDK's import held at a gate this test opens: what it answers while
the gate is shut was answered without the SDK. Its bytes are compared with what the SDK's own path
(the same server and transport, in-process, nothing answered early) writes for the same lines, for
every protocol version the server accepts, in both eras, inside and outside Herdr.
"""

import json
import logging
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from herdr_link_control import Link, PaneEvidence, TerminalPane
from herdr_link_mcp._early import HANDSHAKE_VERSIONS, MODERN_VERSIONS, EarlyAnswers
from herdr_link_mcp._server import create_server, initialization_options
from herdr_link_mcp._transport import StdioCodec, inbox_transport
from herdr_link_mcp._wire import LIST_CHANGED, SharedWriter
from herdr_link_protocol import (
    GATEWAY_DESCRIPTION,
    GATEWAY_INPUT_SCHEMA,
    GATEWAY_TOOL,
    TOOL_SPECS,
    JsonLineReader,
    dormant_tools_list,
    parse_json_line,
    tools_list,
)
from herdr_link_testkit import HerdrSim

GATED = """
import os, sys, time

GATE = sys.argv.pop(1)


class HeldImports:
    \"\"\"Holds the import of the SDK and pydantic until the gate file exists.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mcp", "mcp_types", "pydantic", "pydantic_core"):
            deadline = time.monotonic() + 300
            while not os.path.exists(GATE) and time.monotonic() < deadline:
                time.sleep(0.01)
        return None


sys.meta_path.insert(0, HeldImports())
from herdr_link_mcp.cli import main

sys.exit(main(sys.argv[1:]))
"""
"""``herdr-link-mcp`` as its console script runs it, with the SDK held at a gate."""

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def line(request_id: object, method: str, params: Any = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def initialize(version: str, request_id: object = 1) -> str:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test-client", "version": "1"}}
    return line(request_id, "initialize", params)


CLIENT = {"name": "x", "version": "1"}
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


class GatedServer:
    """A real ``herdr-link-mcp`` whose SDK import waits for :meth:`open_gate`; answers collected as bytes."""

    def __init__(self, env: dict[str, str], gate: Path, terminal: tuple[str, ...] = ()) -> None:
        """``terminal``: run it in a pane's terminal (``herdr_pane_terminal``), as a host in the pane does."""
        self.gate = gate
        self.process = subprocess.Popen(
            [*terminal, sys.executable, "-c", GATED, str(gate)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.lines: list[bytes] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for answer in self.process.stdout:
            with self.changed:
                self.lines.append(answer)
                self.changed.notify_all()

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(f"{text}\n" for text in lines).encode())
        self.process.stdin.flush()

    def wait_for(self, count: int, timeout: float = 120.0) -> list[bytes]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.lines) >= count, timeout=timeout), self.lines
            return list(self.lines)

    def open_gate(self) -> None:
        self.gate.write_text("open")

    def sdk_loaded(self) -> bool:
        return self.gate.exists()

    def close(self) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None and self.process.stderr is not None
        self.open_gate()
        self.process.stdin.close()
        assert self.process.wait(timeout=120) == 0
        self.reader.join(timeout=60)
        self.process.stdout.close()
        with self.process.stderr:
            return self.process.stderr.read().decode()


class CapturedWire:
    """A wire that keeps what is written to it."""

    read_fd = -1
    write_fd = -1

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.lines.append(data)


def sdk_path(lines: list[str], environ: dict[str, str], answers: int, *, in_pane: bool = False) -> list[bytes]:
    """What the SDK's path writes for ``lines``: the server and transport of production, in-process,
    nothing answered early. Input ends once ``answers`` lines were written. ``in_pane``: as a server whose
    terminal shows its pane."""
    wire = CapturedWire()
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    reader = JsonLineReader()
    for text in lines:
        for read in reader.feed(f"{text}\n".encode()):
            inbox.put((read, None))
    evidence = PaneEvidence(TerminalPane.SAME, "in its pane's terminal") if in_pane else None
    server = create_server(Link(environ, pane_evidence=evidence), bootstrap=False)

    async def run() -> None:
        async with anyio.create_task_group() as group:

            async def end_input() -> None:
                with anyio.fail_after(60):
                    while len(wire.lines) < answers:  # noqa: ASYNC110 - the wire is written from a worker thread
                        await anyio.sleep(0.01)
                inbox.put(None)

            group.start_soon(end_input)
            async with inbox_transport(inbox, SharedWriter(wire)) as (read_stream, write_stream):  # type: ignore[arg-type]
                await server.run(read_stream, write_stream, initialization_options(server))

    anyio.run(run)
    return wire.lines


def outside_herdr() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}


SESSIONS = [
    *[
        pytest.param([initialize(v), INITIALIZED, line(2, "tools/list")], id=f"handshake-{v}")
        for v in (*HANDSHAKE_VERSIONS, "1999-01-01", "2026-07-28")
    ],
    pytest.param(
        [initialize("2025-06-18", "a-string-id"), INITIALIZED, line("list-1", "tools/list", {"cursor": "x"})],
        id="handshake-string-ids-and-a-cursor",
    ),
    pytest.param(
        [line(1, "server/discover", {"_meta": META}), line(2, "tools/list", {"_meta": META})], id="modern-2026-07-28"
    ),
]


@pytest.mark.parametrize("inside", [True, False], ids=["in-a-pane", "outside-herdr"])
@pytest.mark.parametrize("lines", SESSIONS)
def test_the_early_answers_are_the_sdks_bytes(lines, inside, herdr_sim: HerdrSim, tmp_path):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    env = herdr_sim.env(pane) if inside else outside_herdr()
    server = GatedServer(env, tmp_path / "gate")
    try:
        server.send(*lines)
        early = server.wait_for(2)
        assert not server.sdk_loaded()  # answered while the SDK's import was held
    finally:
        log = server.close()
    assert sdk_path(lines, env, answers=2) == early
    tools = json.loads(early[1])["result"]["tools"]
    assert [tool["name"] for tool in tools] == ([GATEWAY_TOOL] if inside else [])
    assert "otherwise than the early answer" not in log


ACTIVATE = line(3, "tools/call", {"name": GATEWAY_TOOL, "arguments": {}})


@pytest.mark.parametrize("client", ["claude-code", "test-client"])
def test_the_activation_is_answered_before_the_sdk_has_loaded_in_the_sdks_bytes(
    client, herdr_sim: HerdrSim, tmp_path, herdr_pane_terminal
):
    """The activation's signal, a re-list's active list and the result, while the SDK's import is held:
    the bytes the SDK's own path writes, in its order (the re-list first for a host that re-lists)."""
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    opening = initialize("2025-11-25").replace('"test-client"', f'"{client}"')
    lines = [opening, INITIALIZED, line(2, "tools/list"), ACTIVATE, line(4, "tools/list")]
    server = GatedServer(herdr_sim.env(pane), tmp_path / "gate", herdr_pane_terminal)
    try:
        server.send(*lines[:4])
        server.wait_for(3)  # the signal: a host re-lists when it sees it
        server.send(lines[4])
        early = server.wait_for(5)
        assert not server.sdk_loaded()  # all of it answered while the SDK's import was held
    finally:
        log = server.close()
    assert early[2] == b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
    assert sorted(early) == sorted(sdk_path(lines, herdr_sim.env(pane), answers=5, in_pane=True))
    by_id = {json.loads(answer).get("id"): json.loads(answer) for answer in early}
    assert json.loads(by_id[3]["result"]["content"][0]["text"])["status"] == "active"
    assert [tool["name"] for tool in by_id[4]["result"]["tools"]] == [tool["name"] for tool in tools_list(active=True)]
    order = [json.loads(answer).get("id") for answer in early[2:]]
    if client == "claude-code":  # a host known to re-list: the result waits for its re-list
        assert order == [None, 4, 3]
    else:  # a client the table does not know waits at most UNKNOWN_RELIST_WAIT: either order, the signal first
        assert order[0] is None and sorted(order[1:]) == [3, 4]
    assert "Traceback" not in log and "otherwise than the early answer" not in log


def test_an_activation_from_a_process_that_cannot_show_its_pane_is_left_to_the_sdk(herdr_sim: HerdrSim, tmp_path):
    """Codex's client shares one process between panes by default: with no terminal to show the pane,
    nothing is activated early, and the SDK refuses the call (PROTOCOL.md §6.1)."""
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    opening = initialize("2025-11-25").replace('"test-client"', '"codex-mcp-client"')
    server = GatedServer(herdr_sim.env(pane), tmp_path / "gate")
    try:
        server.send(opening, INITIALIZED, line(2, "tools/list"), ACTIVATE)
        server.wait_for(2)
        server.open_gate()
        answers = [json.loads(answer) for answer in server.wait_for(3)]
    finally:
        server.close()
    refused = answers[2]
    assert refused["id"] == 3 and refused["result"]["isError"] is True
    assert refused["result"]["content"][0]["text"].startswith("SELF_UNNAMED")
    assert not any(answer.get("method") == "notifications/tools/list_changed" for answer in answers)


def test_the_activation_answered_early_follows_the_rules_the_sdk_path_keeps():
    def open_connection(pane_problem=lambda client: None, in_herdr=True, client="claude-code"):
        early = EarlyAnswers(in_herdr=in_herdr, pane_problem=pane_problem)
        assert early.answer(read(initialize("2025-11-25").replace('"test-client"', f'"{client}"'))) is not None
        return early

    def call(request_id, arguments, **extra):
        return read(line(request_id, "tools/call", {"name": GATEWAY_TOOL, "arguments": arguments, **extra}))

    first = open_connection().answer(call(3, {}))
    assert first is not None and first.write == LIST_CHANGED and first.hold > 0  # the result waits for a re-list
    early = open_connection()
    early.answer(call(3, {"action": "activate"}))
    relisted = early.answer(read(line(4, "tools/list")))
    assert relisted is not None and relisted.write.startswith(relisted.answer) and relisted.write != relisted.answer
    assert early.release() is None  # given with the re-list: nothing left to give up
    again = early.answer(call(5, {}))
    assert again is not None and again.write == again.answer and again.hold == 0  # active: no second signal
    never_relists = open_connection(client="codex-mcp-client")
    codex = never_relists.answer(call(3, {}))
    assert codex is not None and codex.write == LIST_CHANGED + codex.answer  # known never to re-list: no wait
    assert codex.hold == 0 and never_relists.release() is None  # nothing held for a re-list that never comes
    held = open_connection()
    held.answer(call(3, {}))
    assert held.release() is not None and held.release() is None  # the timer gives it up once
    for refused in (
        open_connection(pane_problem=lambda client: "another pane's terminal").answer(call(3, {})),
        open_connection(pane_problem=None).answer(call(3, {})),
        open_connection(in_herdr=False).answer(call(3, {})),
        open_connection().answer(call(3, {"action": "peers"})),
        open_connection().answer(call(3, {"action": "activate", "arguments": {}})),
        open_connection().answer(call(3, {}, _meta={"progressToken": 1})),
        open_connection().answer(read(line(3, "tools/call", {"name": "herdr_link_peers", "arguments": {}}))),
    ):
        assert refused is None  # left to the SDK


def test_after_an_early_activation_the_sdk_serves_the_session_as_active_and_signals_nothing_more(
    herdr_sim: HerdrSim, tmp_path, herdr_pane_terminal
):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    herdr_sim.add_agent(herdr_sim.split(pane), "codex", name="reviewer")
    server = GatedServer(herdr_sim.env(pane), tmp_path / "gate", herdr_pane_terminal)
    try:
        server.send(initialize("2025-11-25"), INITIALIZED, line(2, "tools/list"), ACTIVATE)
        server.wait_for(4)
        assert not server.sdk_loaded()
        server.send(line(5, "tools/call", {"name": "herdr_link_peers", "arguments": {}}))  # left to the SDK
        server.open_gate()
        answers = [json.loads(answer) for answer in server.wait_for(5)]
    finally:
        log = server.close()
    peers = next(answer for answer in answers if answer.get("id") == 5)
    assert not peers["result"].get("isError"), peers
    assert json.loads(peers["result"]["content"][0]["text"])["peers"] == [{"name": "reviewer", "state": "idle"}]
    assert sum(answer.get("method") == "notifications/tools/list_changed" for answer in answers) == 1
    assert "Traceback" not in log and "otherwise than the early answer" not in log


def test_odd_requests_wait_for_the_sdk_which_answers_each_once(herdr_sim: HerdrSim, tmp_path):
    """A tools/list before initialize, an initialize without clientInfo, a non-plain id: the SDK's errors."""
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    server = GatedServer(herdr_sim.env(pane), tmp_path / "gate")
    odd = [
        line(1, "tools/list"),
        line(2, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}),
        line(3, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": 7}),
    ]
    try:
        server.send(*odd)
        server.open_gate()
        answers = server.wait_for(3)
    finally:
        server.close()
    assert sorted(json.loads(answer)["id"] for answer in answers) == [1, 2, 3]
    assert all("error" in json.loads(answer) for answer in answers)
    assert sorted(answers) == sorted(sdk_path(odd, herdr_sim.env(pane), answers=3))


def read(text: str):
    parsed = parse_json_line(text.encode())
    assert parsed is not None
    return parsed


@pytest.mark.parametrize(
    "opening",
    [
        line(1, "tools/list"),  # no initialize first
        line(1, "ping"),
        initialize("2025-11-25").replace('"jsonrpc": "2.0"', '"jsonrpc": "1.0"'),
        line(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}),  # no clientInfo
        line(1, "initialize", {"protocolVersion": 2025, "capabilities": {}, "clientInfo": CLIENT}),
        line(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {"roots": 1}, "clientInfo": CLIENT}),
        line(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT, "extra": 1}),
        initialize("2025-11-25", request_id=True),
        initialize("2025-11-25", request_id="caf\u00e9"),
        initialize("2025-11-25", request_id=2**60),
        line(1, "server/discover", {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}}),
        line(1, "server/discover", {"_meta": {**META, "io.modelcontextprotocol/clientCapabilities": []}}),
        line(1, "server/discover", {"_meta": {**META, "io.modelcontextprotocol/clientInfo": {"name": "x"}}}),
        line(1, "tools/call", {"name": "herdr_link", "arguments": {}, "_meta": META}),
    ],
)  # fmt: skip
def test_an_unusual_opening_request_is_left_to_the_sdk_and_so_is_everything_after_it(opening):
    early = EarlyAnswers(in_herdr=True)
    assert early.answer(read(opening)) is None
    assert early.answer(read(initialize("2025-11-25", 9))) is None
    assert early.answer(read(line(10, "tools/list"))) is None and not early.answering


def test_only_requests_before_the_first_left_to_the_sdk_are_answered_early():
    early = EarlyAnswers(in_herdr=True)
    assert early.answer(read(initialize("2025-11-25"))) is not None
    assert early.answer(read(INITIALIZED)) is None and early.answering  # a notification changes nothing
    assert early.answer(read('{"jsonrpc":"2.0","id":"r1","result":{}}')) is None and early.answering
    assert early.answer(read(line(2, "tools/list"))) is not None
    assert early.answer(read(initialize("2025-11-25", 3))) is None  # a second initialize is the SDK's
    assert early.answer(read(line(4, "tools/list"))) is None and not early.answering


def test_a_request_cut_for_its_length_is_left_to_the_sdk_though_its_method_and_id_were_read():
    """The transport answers a line past the size limit with its error: never an early answer read from
    the line's first members, and nothing after it is answered early."""
    early = EarlyAnswers(in_herdr=True)
    assert early.answer(read(initialize("2025-11-25"))) is not None
    padded = line(2, "tools/list", {"cursor": "x" * 200}).encode() + b"\n"
    [cut] = JsonLineReader(max_line_bytes=80).feed(padded)
    assert cut.message is not None and cut.message.get("method") == "tools/list" and cut.fault is not None
    assert early.answer(cut) is None and not early.answering
    assert early.answer(read(line(3, "tools/list"))) is None


@pytest.mark.parametrize(
    "later",
    [
        line(2, "tools/list", {"_meta": META}),  # the other era's envelope on a handshake connection
        line(2, "tools/list", {"cursor": 5}),
        line(2, "tools/list", {"filter": "x"}),
        line(2, "tools/list", []),
        "{not json",
    ],
)
def test_a_tools_list_the_sdk_would_refuse_is_left_to_it(later):
    early = EarlyAnswers(in_herdr=True)
    assert early.answer(read(initialize("2025-11-25"))) is not None
    assert early.answer(read(later)) is None and not early.answering


def test_the_modern_era_answers_discover_and_list_and_not_initialize():
    early = EarlyAnswers(in_herdr=False)
    assert early.answer(read(line(1, "server/discover", {"_meta": META}))) is not None
    answer = early.answer(read(line(2, "tools/list", {"_meta": META})))
    assert answer is not None and json.loads(answer.write)["result"]["tools"] == []
    assert early.answer(read(initialize("2025-11-25", 3))) is None and not early.answering


def test_the_version_tables_are_the_sdks():
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    assert (HANDSHAKE_VERSIONS, MODERN_VERSIONS) == (HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS)


def test_the_dormant_list_without_pydantic_is_the_generated_one():
    assert dormant_tools_list() == tools_list(active=False)
    assert TOOL_SPECS[GATEWAY_TOOL].input_schema == GATEWAY_INPUT_SCHEMA
    assert TOOL_SPECS[GATEWAY_TOOL].description == GATEWAY_DESCRIPTION
    dormant_tools_list()[0]["inputSchema"]["type"] = "changed"  # a copy each time: callers cannot alter it
    assert dormant_tools_list() == tools_list(active=False)


def served_id(decoded) -> str:
    """The id a decoded request is served under."""
    assert isinstance(decoded, SessionMessage) and isinstance(decoded.message, types.JSONRPCRequest)
    return str(decoded.message.id)


def test_a_second_answer_that_differs_from_the_early_one_is_logged_and_not_sent(caplog):
    codec = StdioCodec()
    alias = served_id(codec.decode(read(line(5, "ping")), b'{"jsonrpc":"2.0","id":5,"result":{"other":1}}\n'))
    assert alias != "5"  # served under a private alias
    with caplog.at_level(logging.WARNING, logger="herdr_link"):
        assert codec.encode(types.JSONRPCResponse(jsonrpc="2.0", id=alias, result={})) == b""
    assert "otherwise than the early answer" in caplog.text and '"id":5' in caplog.text
    same = served_id(codec.decode(read(line(6, "ping")), b'{"jsonrpc":"2.0","id":6,"result":{}}\n'))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="herdr_link"):
        assert codec.encode(types.JSONRPCResponse(jsonrpc="2.0", id=same, result={})) == b""
    assert caplog.text == ""


def test_requests_still_running_when_stdin_closes_are_answered_before_the_server_stops(
    herdr_sim: HerdrSim, herdr_pane_terminal
):
    """``printf … | herdr-link-mcp``: the input ends right after the last request, and each still gets its answer."""
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    lines = [
        initialize("2025-11-25"),
        INITIALIZED,
        line(2, "tools/call", {"name": "herdr_link_peers", "arguments": {}}),
        line(3, "ping"),
    ]
    command = [*herdr_pane_terminal, sys.executable, "-m", "herdr_link_mcp"]  # typed into its pane's shell
    done = subprocess.run(command, input="".join(f"{text}\n" for text in lines), capture_output=True, text=True,
                          env=herdr_sim.env(pane), timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}  # not list_changed
    assert sorted(answers) == [1, 2, 3]
    assert '"self"' in answers[2]["result"]["content"][0]["text"] and answers[3]["result"] == {}
