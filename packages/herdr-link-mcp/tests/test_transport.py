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

from herdr_link_mcp._transport import decode_line
from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


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
        ('{"jsonrpc":"2.0","id":"x\\ud800","method":"ping"}', types.INVALID_REQUEST),
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
    assert decode_line("   \n") is None


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
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
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


def _fuzz_line(rng: random.Random, request_id: int) -> tuple[str, bool]:
    """One hostile line and whether it is a request with a usable id (so it must be answered)."""
    methods = ["ping", "tools/list", "tools/call", "initialize", "resources/list", "no/such", "notifications/x"]
    values: list[object] = [[], [1], "s", 0, 1.5, True, None, {}, {"name": "herdr_link"}, {"name": "herdr_link_send"}]
    kind = rng.randrange(10)
    if kind == 0:
        return rng.choice(["{", "}", "nul\x00l", "[]", '{"jsonrpc":', "\ud800", '{"id":1']), False
    method = rng.choice(methods)
    params = rng.choice(values)
    if kind == 1:  # a notification: never answered
        return request(None, method, params).replace('"id": null, ', ""), False
    if kind == 2:  # an id nobody can answer with, still answered (with null)
        return request(rng.choice([True, 1.5, None, [], {}]), method, params), False
    text = "".join(rng.choice(["a", "\u2028", "\x1b[201~", "\ud800", "\udfff", "é", "\x00"]) for _ in range(5))
    if kind == 3 and isinstance(params, dict):
        params = {**params, "arguments": {"to": "reviewer", "message": text, "extra": text}}
    line = request(request_id, method, params)
    if kind == 4:
        line = line.replace('"jsonrpc": "2.0"', '"jsonrpc": "1.0"')
    return line, True


def test_fuzz_every_request_with_an_id_is_answered_exactly_once():
    count = int(os.environ.get("HERDR_LINK_FUZZ_COUNT", "1000"))
    rng = random.Random(20261201)
    lines: list[str] = []
    expected: set[object] = {"init"}
    for index in range(count):
        line, answered = _fuzz_line(rng, 1000 + index)
        lines.append(line)
        if answered:
            expected.add(1000 + index)
    server = Server(outside_herdr())
    try:
        server.send(json.dumps(INITIALIZE), json.dumps(INITIALIZED))
        for start in range(0, len(lines), 200):
            server.send(*lines[start : start + 200])
        found = server.wait_for(expected, timeout=300)
        missing = expected - found.keys()
        assert not missing, (
            f"{len(missing)} of {len(expected)} requests unanswered, e.g. {sorted(map(str, missing))[:5]}"
        )
        assert [i for i in expected if len(found[i]) != 1] == []
        assert server.process.poll() is None  # no line ended the server
    finally:
        assert server.close() == 0
