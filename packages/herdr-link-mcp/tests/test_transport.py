"""Every request with an id gets exactly one response, whatever its line holds (the stdio transport).

A seeded fuzz drives a real ``herdr-link-mcp`` process: ``HERDR_LINK_FUZZ_COUNT`` lines (1,000 by
default; ``nox -s fuzz`` sends 10,000), each request counted by its id.
"""

import json
import os
import random
import subprocess
import sys
import threading
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage
from stdio_probe import holds_null_stdin_and_stderr_stdout

from herdr_link_mcp._transport import Decoded, StdioCodec
from herdr_link_protocol import extract_envelope, parse_json_line
from herdr_link_testkit import HerdrSim

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "1"},
    },  # a per-pane host
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def decode_line(line: str | bytes) -> Decoded:
    """One input line decided on its own, as the server's reader decides it (a fresh codec); ``None`` blank."""
    data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    read = parse_json_line(data.removesuffix(b"\n"))
    return None if read is None else StdioCodec().decode(read)


def request(request_id: object, method: str, params: object = None, **extra: Any) -> str:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method, **extra}
    if params is not None:
        body["params"] = params
    return json.dumps(body)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("not json", types.PARSE_ERROR),
        ("[1, 2]", types.INVALID_REQUEST),
        ('"text"', types.INVALID_REQUEST),
        (request(True, "ping"), types.INVALID_REQUEST),
        (request(1.5, "ping"), types.INVALID_REQUEST),
        (request(None, "ping"), types.INVALID_REQUEST),
        ("[" * 5000, types.PARSE_ERROR),
        ("[" * 5000 + "]" * 5000, types.INVALID_REQUEST),
        ('{"jsonrpc":"2.0","id":' + "[" * 5000 + "]" * 5000 + ',"method":"ping"}', types.INVALID_REQUEST),
    ],
)
def test_lines_without_a_usable_id_are_answered_with_a_null_id(line, code):
    decoded = decode_line(line)
    assert isinstance(decoded, types.JSONRPCError) and decoded.id is None and decoded.error.code == code
    decoded.model_dump_json()  # always serialisable


@pytest.mark.parametrize("params", [[1], "x", 3, True])
@pytest.mark.parametrize("method", ["ping", "tools/list", "tools/call", "no/such/method"])
def test_non_object_params_are_invalid_params_with_the_requests_id(method, params):
    decoded = decode_line(request(7, method, params))
    assert isinstance(decoded, types.JSONRPCError)
    assert (decoded.id, decoded.error.code) == (7, types.INVALID_PARAMS)


def test_a_lone_surrogate_keeps_the_tool_arguments_and_is_replaced_elsewhere():
    line = (
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"herdr_link_send",'
        '"arguments":{"to":"a","message":"x\\ud800y"},"_meta":{"progressToken":"t\\udc00"}}}'
    )
    decoded = decode_line(line)
    assert isinstance(decoded, SessionMessage)
    message = decoded.message
    assert isinstance(message, types.JSONRPCRequest) and message.id == 2
    assert message.params is not None
    assert message.params["arguments"] == {"to": "a", "message": "x\ud800y"}
    assert message.params["_meta"] == {"progressToken": "t\ufffd"}


def test_readable_lines_pass_unchanged_and_unreadable_notifications_are_dropped():
    ping = decode_line(request(1, "ping"))
    assert isinstance(ping, SessionMessage) and isinstance(ping.message, types.JSONRPCRequest)
    assert decode_line('{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}') is None
    assert (
        decode_line('{"jsonrpc":"2.0","method":"notifications/x","params":{"a":' + "[" * 500 + "]" * 500 + "}}") is None
    )
    assert decode_line("   \n") is None


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc":"2.0",\r"id":4,\r"method":"ping"}',  # a raw CR is JSON whitespace
        '{"jsonrpc":"2.0","id":4,"method":"ping"}\r\n',  # a CRLF ending
        '{"jsonrpc":"2.0","\\u0069d":4,"method":"ping"}',  # an escaped key is still the id
        '{"jsonrpc":"2.0","id":"decoy","method":"ping","id":4}',  # duplicate keys: the last one wins
        '\ufeff{"jsonrpc":"2.0","id":4,"method":"ping"}',  # a byte order mark
    ],
)
def test_lines_that_read_as_a_request_are_served_under_their_id(line):
    decoded = decode_line(line)
    assert isinstance(decoded, SessionMessage) and isinstance(decoded.message, types.JSONRPCRequest)
    assert decoded.message.id == 4


@pytest.mark.parametrize("where", ["params", "arguments"])
def test_too_deep_params_are_invalid_params_with_the_requests_id(where):
    deep = "[" * 5000 + "]" * 5000
    params = f'{{"name":"herdr_link","arguments":{{"x":{deep}}}}}' if where == "arguments" else f'{{"x":{deep}}}'
    decoded = decode_line(f'{{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{params}}}')
    assert isinstance(decoded, types.JSONRPCError)
    assert (decoded.id, decoded.error.code) == ("d", types.INVALID_PARAMS)
    assert "deeper than 128" in decoded.error.message


def test_a_string_id_with_a_lone_surrogate_is_answered_under_that_exact_id():
    codec = StdioCodec()
    line = parse_json_line(b'{"jsonrpc":"2.0","id":"x\\ud800","method":"ping"}')
    assert line is not None
    decoded = codec.decode(line)
    assert isinstance(decoded, SessionMessage) and isinstance(decoded.message, types.JSONRPCRequest)
    served = decoded.message.id
    assert isinstance(served, str) and "\ud800" not in served
    answer = codec.encode(types.JSONRPCResponse(jsonrpc="2.0", id=served, result={}))
    assert answer == b'{"jsonrpc":"2.0","id":"x\\ud800","result":{}}\n'
    assert json.loads(answer)["id"] == "x\ud800"
    assert codec.encode(types.JSONRPCResponse(jsonrpc="2.0", id=served, result={})).count(b"ud800") == 0  # once


def test_an_answer_that_cannot_be_serialised_becomes_an_internal_error_under_its_id():
    codec = StdioCodec()
    unserialisable = types.JSONRPCResponse(jsonrpc="2.0", id=8, result={"text": "\ud800"})
    answer = json.loads(codec.encode(unserialisable))
    assert (answer["id"], answer["error"]["code"]) == (8, types.INTERNAL_ERROR)


class Server:
    """A real ``python -m herdr_link_mcp`` over raw pipes, its responses collected by id."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "herdr_link_mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.responses: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.changed:
                self.responses.append(json.loads(line))
                self.changed.notify_all()

    def send(self, *lines: str) -> None:
        self.send_raw([line.encode("utf-8", "surrogatepass") for line in lines])

    def send_raw(self, lines: list[bytes]) -> None:
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def wait_for(self, ids: set[object], timeout: float = 120.0) -> dict[object, list[dict[str, Any]]]:
        """Responses by id, once every id in ``ids`` has one (or the bound passes)."""
        with self.changed:
            self.changed.wait_for(lambda: ids <= {r.get("id") for r in self.responses}, timeout=timeout)
            found: dict[object, list[dict[str, Any]]] = {}
            for response in self.responses:
                found.setdefault(response.get("id"), []).append(response)
            return found

    def close(self) -> int:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=60)
        self.thread.join(timeout=60)
        self.process.stdout.close()
        return code


def outside_herdr() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}


def test_the_reported_sequence_answers_every_request_and_delivers_the_surrogate_escaped(herdr_sim: HerdrSim):
    brain = herdr_sim.create_workspace("/tmp")
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "claude", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    server = Server(herdr_sim.env(brain))
    try:
        server.send(
            json.dumps(INITIALIZE),
            json.dumps(INITIALIZED),
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"herdr_link_send",'
            '"arguments":{"to":"reviewer","message":"cut\\ud800here"}}}',
            request(3, "ping"),
            *(request(10 + i, method, [1]) for i, method in enumerate(["tools/list", "ping", "tools/call", "x/y"])),
        )
        found = server.wait_for({"init", 2, 3, 10, 11, 12, 13})
        assert all(len(found[i]) == 1 for i in ("init", 2, 3, 10, 11, 12, 13))
        assert json.loads(found[2][0]["result"]["content"][0]["text"])["status"] == "sent"
        assert [found[i][0]["error"]["code"] for i in (10, 11, 12, 13)] == [types.INVALID_PARAMS] * 4
        delivery = herdr_sim.wait_for_delivery(reviewer)[0]
        assert "cut\\ud800here" in delivery.text  # escaped on the wire (PROTOCOL.md §2.5)
        envelope = extract_envelope(delivery.text)
        assert envelope is not None and envelope.message == "cut\ud800here"
    finally:
        server.close()


DEEP = "[" * 3000 + "]" * 3000


def _member(rng: random.Random, key: str, value: str) -> str:
    """``"key":value`` with the key sometimes escaped (``\\u0069d``) and odd whitespace around."""
    if rng.random() < 0.3:
        key = "".join(f"\\u{ord(c):04x}" if rng.random() < 0.5 else c for c in key)
    space = rng.choice(["", " ", "\t", "\r", " \r\t "])
    return f'{space}"{key}"{space}:{space}{value}{space}'


def _hostile_line(rng: random.Random, serial: int) -> tuple[bytes, object, int]:
    """One hostile line, the id its one answer must carry (``MISSING`` when it is owed none), and how
    many answers with ``id: null`` it is owed (0 or 1)."""
    methods = ["ping", "tools/list", "tools/call", "initialize", "resources/list", "no/such"]
    params = [None, "[]", "[1]", '"s"', "0", "{}", '{"name":"herdr_link"}', '{"name":"herdr_link_send"}', "null"]
    kind = rng.randrange(16)
    if kind == 0:  # not JSON, or not an object: answered with id null; blank lines are owed nothing
        text = rng.choice(["{", "}", "nul\x00l", "[]", '{"jsonrpc":', '{"id":1', "[" * 3000, DEEP, '"x"', "  \t"])
        return text.encode("utf-8", "surrogatepass"), MISSING, 0 if not text.strip() else 1
    if kind == 1:  # unusable ids: answered with id null
        bad = rng.choice(["true", "1.5", "null", "[]", "{}", "1e3", DEEP])
        members = [_member(rng, "jsonrpc", '"2.0"'), _member(rng, "id", bad), _member(rng, "method", '"ping"')]
        return ("{" + ",".join(members) + "}").encode(), MISSING, 1
    if kind == 2:  # a notification, however broken: never answered
        value = rng.choice([None, "[1]", DEEP, '{"a":' + DEEP + "}"])
        members = [_member(rng, "jsonrpc", '"2.0"'), _member(rng, "method", '"notifications/x"')]
        members += [_member(rng, "params", value)] if value else []
        return ("{" + ",".join(members) + "}").encode(), MISSING, 0
    request_id: object = rng.choice(
        [serial, -serial, 10**20 + serial, f"s{serial}", f"s\ud800{serial}", f"é\u2028{serial}", f"{serial}\udfff"]
    )
    method = rng.choice(methods)
    value = rng.choice(params)
    if kind == 3:  # nested far too deep inside params or the tool's arguments
        value = rng.choice(['{"x":' + DEEP + "}", f'{{"name":"herdr_link_send","arguments":{{"to":{DEEP}}}}}', DEEP])
    if kind == 4 and method == "tools/call":  # hostile text inside the arguments
        text = "".join(
            rng.choice(["a", "\\u2028", "\\u001b[201~", "\\ud800", "\\udfff", "é", "\\u0000"]) for _ in range(5)
        )
        value = f'{{"name":"herdr_link_send","arguments":{{"to":"reviewer","message":"{text}","extra":"{text}"}}}}'
    members = [
        _member(rng, "jsonrpc", '"1.0"' if kind == 5 else '"2.0"'),
        _member(rng, "id", json.dumps(request_id)),
        _member(rng, "method", DEEP if kind == 6 else json.dumps(method)),
    ]
    if value is not None:
        members.append(_member(rng, "params", value))
    if kind == 7:  # a duplicate id: the last one wins
        members.insert(0, _member(rng, "id", '"decoy"'))
    rng.shuffle(members) if kind != 7 else None
    line = ("{" + ",".join(members) + "}").encode("utf-8", "surrogatepass")
    if kind == 8:
        line = b"\xef\xbb\xbf" + line  # a byte order mark
    if kind == 9:
        line = line.replace(b'"2.0"', b'"2.\xff0"') if rng.random() < 0.5 else line + b" \xfe"  # invalid UTF-8
        if not line.startswith(b"{") or b"\xfe" in line:
            return line, MISSING, 1  # outside a string: the line is not JSON
    if kind == 10:
        line += b"\r"  # a CRLF ending
    return line, request_id, 0


MISSING = object()


def fuzz_session(count: int, seed: int = 20261201) -> tuple[list[bytes], list[object], int]:
    """``count`` hostile lines, the ids owed exactly one answer each, and the answers owed with ``id: null``."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    owed: list[object] = []
    null_answers = 0
    for serial in range(count):
        line, request_id, nulls = _hostile_line(rng, 1000 + serial)
        lines.append(line)
        null_answers += nulls
        if request_id is not MISSING:
            owed.append(request_id)
    return lines, owed, null_answers


def test_fuzz_every_request_with_an_id_is_answered_exactly_once():
    """The closing figures (lines, answers owed, seen, crashes) are printed for the record."""
    count = int(os.environ.get("HERDR_LINK_FUZZ_COUNT", "1000"))
    lines, owed, null_answers = fuzz_session(count)
    assert len(set(map(repr, owed))) == len(owed)  # every owed id is unique, so each is counted alone
    server = Server(outside_herdr())
    try:
        server.send(json.dumps(INITIALIZE), json.dumps(INITIALIZED))
        for start in range(0, len(lines), 200):
            server.send_raw(lines[start : start + 200])
        server.send(request("last", "ping"))  # a well-behaved request after all of it
        found = server.wait_for({"init", "last", *owed}, timeout=600)
        with server.changed:
            seen = list(server.responses)
        crashed = server.process.poll() is not None
        by_id = {repr(k): len(v) for k, v in found.items()}
        print(
            f"fuzz: {len(lines)} lines, {len(owed)} answers owed by id and {null_answers} with id null, "
            f"{len(seen) - 2} answers seen, {int(crashed)} crashes"
        )
        missing = [i for i in owed if repr(i) not in by_id]
        assert not missing, f"{len(missing)} of {len(owed)} requests unanswered, e.g. {missing[:5]}"
        assert [i for i in owed if by_id[repr(i)] != 1] == []
        assert sum(1 for r in seen if r.get("id") is None) == null_answers
        assert len(seen) == len(owed) + null_answers + 2  # "init" and "last": nothing more, nothing less
        assert not crashed
    finally:
        assert server.close() == 0


def test_the_server_holds_the_null_device_on_fd_0_and_stderr_on_fd_1(herdr_sim: HerdrSim, tmp_path):
    """So a child the server starts reads end-of-file and its output misses the wire (the claim itself
    is tested with real children in herdr-link-control's ``test_stdio.py``)."""
    holds_null_stdin_and_stderr_stdout(herdr_sim, tmp_path, "herdr_link_mcp")


def test_the_shared_reader_loads_neither_the_mcp_sdk_nor_pydantic():
    """The cold-start path may answer the handshake with it before the SDK has loaded."""
    probe = (
        "import sys, herdr_link_control, herdr_link_protocol\n"
        "herdr_link_control.read_json_lines, herdr_link_control.claimed_stdio, herdr_link_protocol.JsonLineReader\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'mcp_types', 'pydantic', 'pydantic_core'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
