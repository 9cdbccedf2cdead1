"""A scripted fake Anthropic Messages API on loopback: it decides each reply from the request's
content (offered and deferred tools, calls and results already in the history), never from a turn
counter, and records every request.
"""

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOL_SEARCH = "ToolSearch"


@dataclass
class Step:
    """One tool call the scripted model wants to make; ``input`` may be computed from the request."""

    tool: str
    input: dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]] = field(default_factory=dict)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def tool_uses(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every tool_use block the assistant already made in this conversation, in order."""
    return [
        b
        for m in request.get("messages", [])
        if m.get("role") == "assistant"
        for b in _blocks(m)
        if b.get("type") == "tool_use"
    ]


def tool_results(request: dict[str, Any]) -> list[str]:
    """The text of every tool_result in the history, in order."""
    texts = []
    for message in request.get("messages", []):
        for block in _blocks(message):
            if block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, list):
                    texts.append("".join(c.get("text", "") for c in content if isinstance(c, dict)))
                else:
                    texts.append(str(content or ""))
    return texts


def callable_tools(request: dict[str, Any]) -> set[str]:
    """Tools the model may call now: listed in full (not deferred), or loaded by a tool search."""
    names = {t["name"] for t in request.get("tools", []) if "name" in t and not t.get("defer_loading")}
    for use in tool_uses(request):
        if use.get("name") == TOOL_SEARCH:
            query = str(use.get("input", {}).get("query", ""))
            if query.startswith("select:"):
                names.update(query.removeprefix("select:").split(","))
    return names


class ScriptedModel:
    """Replies to Claude Code's requests by working through ``steps`` in order."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def primary(self, request: dict[str, Any]) -> bool:
        """The agent loop's requests offer tools; side requests (titles, summaries) offer none."""
        return bool(request.get("tools"))

    def decide(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]] | str:
        if not self.primary(request):
            return "ok"
        done = [use["name"] for use in tool_uses(request) if use.get("name") != TOOL_SEARCH]
        if len(done) >= len(self.steps):
            return "done"
        step = self.steps[len(done)]
        if step.tool not in callable_tools(request):
            offered = {t.get("name") for t in request.get("tools", [])}
            if TOOL_SEARCH in offered:
                return TOOL_SEARCH, {"query": f"select:{step.tool}", "max_results": 5}
            return f"cannot call {step.tool}"
        value = step.input(request) if callable(step.input) else step.input
        return step.tool, value


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


def reply_events(
    decision: tuple[str, dict[str, Any]] | str, model: str, number: int
) -> list[tuple[str, dict[str, Any]]]:
    """One streamed Messages response: a text block, or one tool_use block."""
    message: dict[str, Any] = {
        "id": f"msg_{number:04d}", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1},
    }  # fmt: skip
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": message})]
    block: dict[str, Any]
    if isinstance(decision, str):
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": decision}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": decision[0], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(decision[1])}
        stop = "tool_use"
    events += [
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return events


class FakeAnthropic:
    """``POST /v1/messages`` on 127.0.0.1, answered by a :class:`ScriptedModel`."""

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                if not self.path.startswith("/v1/messages") or self.path.startswith("/v1/messages/count_tokens"):
                    payload = json.dumps({"input_tokens": 10}).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                with outer.model.lock:
                    outer.model.requests.append(body)
                    number = len(outer.model.requests)
                    decision = outer.model.decide(body)
                payload = _sse(reply_events(decision, body.get("model", "claude"), number))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "FakeAnthropic":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
