"""The JSON-lines bridge, in process: contract, concurrency, the close ordering rule, errors."""

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from scripted_herdr import agent, err, got, link, ok, scripted

from herdr_link_control.bridge import BRIDGE_CONTRACT, BRIDGE_OPS, BridgeReply, BridgeServer
from herdr_link_protocol import MAX_LINE_BYTES, Cause, JsonLine, JsonLineReader, LinkError

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
HELLO = {"type": "hello", "contract": BRIDGE_CONTRACT, "protocol": "herdr-link/1", "client": "test/1"}


class Harness:
    """A bridge fed line by line; replies collected as parsed JSON."""

    def __init__(self, table: dict[Any, Any]) -> None:
        self.runner = scripted(table)
        self.replies: list[dict[str, Any]] = []
        self.arrived = anyio.Event()
        self.server = BridgeServer(link(self.runner), "9.9.9", self._collect)
        self.send_lines, self.receive_lines = anyio.create_memory_object_stream[bytes](100)

    def _collect(self, line: bytes) -> None:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        self.replies.append(json.loads(line))

    async def lines(self) -> AsyncIterator[JsonLine]:
        reader = JsonLineReader()
        async for chunk in self.receive_lines:
            for line in reader.feed(chunk):
                yield line
        for line in reader.end():
            yield line

    async def line(self, value: Any) -> None:
        await self.send_lines.send((value if isinstance(value, str) else json.dumps(value)).encode() + b"\n")

    async def until(self, count: int) -> None:
        # Replies are written from the bridge's writer thread, where an anyio.Event cannot be set: poll,
        # with a bound generous enough for 2 busy cores (5 s once ran out there, in my CI12's herdr_0_9).
        with anyio.fail_after(60):
            while len(self.replies) < count:  # noqa: ASYNC110
                await anyio.sleep(0.005)

    def reply(self, request_id: Any) -> dict[str, Any]:
        return next(r for r in self.replies if r.get("id") == request_id)


async def run(harness: Harness, body: Any) -> None:
    async with harness.receive_lines, anyio.create_task_group() as group:
        group.start_soon(harness.server.serve, harness.lines())
        await body()
        await harness.send_lines.aclose()


BASE = {
    SELF: got(agent("brain")),
    ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2")),
    ("agent", "list"): ok({"result": {"agents": [agent("brain"), agent("reviewer", pane="w1:p2")]}}),
    ("agent", "prompt"): ok({"result": {}}),
    ("pane", "close"): ok({"result": {"type": "ok"}}),
}


async def test_hello_then_every_op_answers_with_its_receipt():
    harness = Harness(BASE)

    async def body() -> None:
        await harness.line(HELLO)
        await harness.until(1)
        for index, (op, args) in enumerate(
            [
                ("bootstrap", {}),
                ("peers", {}),
                ("send", {"to": "reviewer", "message": "hi"}),
                ("close", {"agent": "reviewer"}),
            ]
        ):
            await harness.line({"id": f"r{index}", "op": op, "args": args, "context": {"session": "s1"}})
            await harness.until(index + 2)

    await run(harness, body)
    assert harness.replies[0] == {
        "type": "hello",
        "contract": BRIDGE_CONTRACT,
        "protocol": "herdr-link/1",
        "bridge": "9.9.9",
        "ops": list(BRIDGE_OPS),
    }
    assert harness.reply("r0") == {"id": "r0", "result": {"name": "brain"}}
    assert harness.reply("r1")["result"] == {
        "self": {"name": "brain", "state": "idle"},
        "peers": [{"name": "reviewer", "state": "idle"}],
    }
    assert harness.reply("r2")["result"]["status"] == "sent"
    assert harness.reply("r3") == {"id": "r3", "result": {"status": "closed", "agent": "reviewer"}}
    for reply in harness.replies[1:]:
        BridgeReply.model_validate(reply)


@pytest.mark.parametrize("hello", [{**HELLO, "contract": 0}, {**HELLO, "protocol": "herdr-link/2"}, {"type": "hello"}])
async def test_an_incompatible_stub_is_told_clearly(hello):
    harness = Harness(BASE)

    async def body() -> None:
        await harness.line(hello)
        await harness.line({"id": 1, "op": "peers"})
        await harness.until(2)

    await run(harness, body)
    assert harness.replies[0]["error"] == {
        "code": "NOT_IN_HERDR",
        "message": str(LinkError(Cause.BRIDGE_INCOMPATIBLE)),
    }
    assert harness.replies[1] == {
        "id": 1,
        "error": {"code": "INVALID_CALL", "message": "INVALID_CALL: send hello first"},
    }
    assert harness.runner.calls == []


async def test_malformed_lines_get_clear_errors_and_the_bridge_keeps_serving():
    harness = Harness(BASE)

    async def body() -> None:
        await harness.line(HELLO)
        for bad in (
            "not json",
            "[1,2]",
            {"id": "a", "op": "fly"},
            {"id": "b", "op": "send", "args": []},
            {"op": "peers"},
            {"id": "c", "op": "send", "args": {"to": "reviewer"}},
        ):
            await harness.line(bad)
        await harness.line({"id": "ok", "op": "peers"})
        await harness.until(8)

    await run(harness, body)
    codes = [(r.get("id"), r["error"]["code"]) for r in harness.replies[1:] if "error" in r]
    assert codes == [
        (None, "INVALID_CALL"),
        (None, "INVALID_CALL"),
        ("a", "INVALID_CALL"),
        ("b", "INVALID_CALL"),
        (None, "INVALID_CALL"),
        ("c", "SEND_FAILED"),
    ]
    assert harness.reply("c")["error"]["message"] == 'SEND_FAILED: "message" must be a string'
    assert "result" in harness.reply("ok")


async def test_requests_run_concurrently_and_replies_come_out_of_order():
    release = anyio.Event()

    async def slow_prompt(argv: Any) -> Any:
        await release.wait()
        return ok({"result": {}})

    harness = Harness({**BASE, ("agent", "prompt"): slow_prompt})

    async def body() -> None:
        await harness.line(HELLO)
        await harness.line(
            {"id": "slow", "op": "send", "args": {"to": "reviewer", "message": "x"}, "context": {"session": "a"}}
        )
        await harness.line({"id": "fast", "op": "peers", "context": {"session": "b"}})
        await harness.until(2)
        assert harness.replies[1]["id"] == "fast"  # answered while the send is still running
        release.set()
        await harness.until(3)

    await run(harness, body)
    assert [r.get("id") for r in harness.replies[1:]] == ["fast", "slow"]


@pytest.mark.parametrize(
    "close_a",
    [
        {"op": "close", "args": {"agent": "reviewer"}},
        {"op": "gateway", "args": {"action": "close", "agent": "reviewer"}},  # the same close, through the gateway
    ],
)
async def test_close_waits_for_every_earlier_request_of_its_session_only(close_a):
    release = anyio.Event()

    async def slow_prompt(argv: Any) -> Any:
        await release.wait()
        return ok({"result": {}})

    harness = Harness({**BASE, ("agent", "prompt"): slow_prompt})

    async def body() -> None:
        await harness.line(HELLO)
        await harness.line(
            {"id": "send", "op": "send", "args": {"to": "reviewer", "message": "final"}, "context": {"session": "a"}}
        )
        await harness.line({"id": "close-a", **close_a, "context": {"session": "a"}})
        await harness.line({"id": "close-b", "op": "close", "args": {"agent": "reviewer"}, "context": {"session": "b"}})
        await harness.until(2)
        assert harness.replies[1]["id"] == "close-b"  # another session is not held back
        closes = [c for c in harness.runner.calls if c[:2] == ("pane", "close")]
        assert len(closes) == 1  # session a's close has not started
        release.set()
        await harness.until(4)

    await run(harness, body)
    order = [r.get("id") for r in harness.replies[1:]]
    assert order.index("send") < order.index("close-a")
    prompt_at = next(i for i, c in enumerate(harness.runner.calls) if c[:2] == ("agent", "prompt"))
    close_calls = [i for i, c in enumerate(harness.runner.calls) if c[:2] == ("pane", "close")]
    assert close_calls[-1] > prompt_at


async def test_eof_finishes_and_answers_what_is_still_running():
    started, release = anyio.Event(), anyio.Event()

    async def slow(argv: Any) -> Any:
        started.set()
        await release.wait()
        return ok({"result": {}})

    harness = Harness({**BASE, ("agent", "prompt"): slow})

    async def body() -> None:
        await harness.line(HELLO)
        await harness.line({"id": 1, "op": "send", "args": {"to": "reviewer", "message": "x"}})
        with anyio.fail_after(5):
            await started.wait()
        await harness.send_lines.aclose()  # EOF while the send is still running
        await anyio.wait_all_tasks_blocked()
        assert len(harness.replies) == 1
        release.set()

    with anyio.fail_after(5):
        await run(harness, body)
    assert harness.replies[1]["id"] == 1 and harness.replies[1]["result"]["status"] == "sent"


DEEP = "[" * 5000 + "]" * 5000


async def test_hostile_lines_get_one_answer_each_under_their_own_id_and_never_end_the_bridge():
    harness = Harness(BASE)

    async def body() -> None:
        await harness.line(HELLO)
        for raw in (
            "[" * 5000,  # not JSON at any depth: id null
            DEEP,  # JSON, but not an object: id null
            f'{{"id":"deep-args","op":"peers","args":{{"x":{DEEP}}}}}',  # too deep below a readable top level
            f'{{"id":{DEEP},"op":"peers"}}',  # an id that cannot be read: id null
            '{"id":"cr",\r"op":"peers",\r"args":{}}\r',  # raw CRs are whitespace, a CRLF ending is an ending
            '{"\\u0069d":"escaped","op":"peers"}',  # an escaped key is still the id
            '{"id":"decoy","op":"peers","id":"last"}',  # duplicate keys: the last one wins
            '{"id":"x\\ud800","op":"peers"}',  # a lone surrogate in the id comes back exactly
        ):
            await harness.line(raw)
        await harness.line({"id": "ok", "op": "peers"})
        await harness.until(10)

    await run(harness, body)
    replies = harness.replies[1:]
    assert [r.get("id") for r in replies if "error" in r] == [None, None, "deep-args", None]
    assert harness.reply("deep-args")["error"] == {
        "code": "INVALID_CALL",
        "message": "INVALID_CALL: nested deeper than 128 levels",
    }
    assert all("result" in harness.reply(i) for i in ("cr", "escaped", "last", "x\ud800", "ok"))
    assert len(replies) == 9


async def test_a_line_over_the_size_limit_is_answered_under_an_early_id_and_the_next_line_is_served():
    harness = Harness(BASE)

    async def body() -> None:
        await harness.line(HELLO)
        filler = "y" * (MAX_LINE_BYTES + 10)
        await harness.line(f'{{"id":"long","op":"send","args":{{"to":"reviewer","message":"{filler}"}}}}')
        await harness.line({"id": "next", "op": "peers"})
        await harness.until(3)

    await run(harness, body)
    assert harness.reply("long")["error"]["message"] == f"INVALID_CALL: the line is longer than {MAX_LINE_BYTES} bytes"
    assert "result" in harness.reply("next")
    assert not [c for c in harness.runner.calls if c[:2] == ("agent", "prompt")]  # the cut send was not served


async def test_a_failed_operation_tells_the_operator_log_what_the_stub_is_not_told(caplog):
    """The reason goes to the stub (and its model); Herdr's code and the fix go to the operator log."""
    harness = Harness({**BASE, ("agent", "prompt"): err("agent_blocked", "agent reviewer is blocked")})

    async def body() -> None:
        await harness.line(HELLO)
        await harness.line({"id": "s", "op": "send", "args": {"to": "reviewer", "message": "hi"}, "context": {}})
        await harness.until(2)

    with caplog.at_level("WARNING", "herdr_link"):
        await run(harness, body)
    assert harness.reply("s")["error"]["message"] == str(LinkError(Cause.SEND_TARGET_BLOCKED))
    assert "agent reviewer is blocked" not in json.dumps(harness.replies)
    assert "send: SEND_FAILED" in caplog.text and "agent reviewer is blocked" in caplog.text


@pytest.mark.parametrize(
    "args",
    [{"action": "send", "to": "reviewer"}, {"action": "send", "to": "reviewer", "message": 5}, {}, {"action": "peers"}],
    ids=["no-message", "message-not-text", "activation", "peers"],
)
async def test_a_session_refused_for_its_pane_activates_nothing_whatever_its_arguments(args):
    """A stub whose process cannot show its pane for a host that shares one process between panes: every
    gateway call is refused for the pane and activates nothing (issue 70: a bad argument answered the
    argument error with ``activates: true``)."""
    from scripted_herdr import ENV

    from herdr_link_control import Link, PaneEvidence, TerminalPane

    harness = Harness(BASE)
    unproven = PaneEvidence(TerminalPane.NONE, "test: no controlling terminal")
    harness.server = BridgeServer(Link(ENV, runner=harness.runner, pane_evidence=unproven), "9.9.9", harness._collect)

    async def body() -> None:
        await harness.line({**HELLO, "client": "codex-mcp-client"})
        await harness.line({"id": "g", "op": "gateway", "args": args})
        await harness.until(2)

    await run(harness, body)
    reply = harness.reply("g")
    assert reply["activates"] is False
    assert reply["error"]["code"] == "SELF_UNNAMED" and "several panes may share" in reply["error"]["message"]
    assert harness.runner.calls == []  # nothing asked of Herdr
