"""Scripted fake model APIs on loopback, one dialect per host family, and one scripted model.

The model decides each reply from the request's content (the tools offered, the calls and results
already in the history, the presentation our activation returned), never from a turn counter, and
every request is recorded. Dialects: Anthropic Messages (Claude Code), OpenAI Responses (Codex:
namespaced ``function_call``, client-executed ``tool_search_call``), Gemini
``streamGenerateContent`` (Gemini CLI, plus its schema-shaped ``generateContent`` side requests) and
OpenAI Chat Completions (OpenCode through ``@ai-sdk/openai-compatible``, Pi's ``openai-completions``).
"""

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from herdr_link_protocol import GATEWAY_TOOL, TOOL_ACTIONS

Body = dict[str, Any]
DISPATCH_FIRST = "call every Herdr Link tool through"  # the dispatch-first presentation's lead (protocol text)


@dataclass
class Step:
    """One capability the scripted model wants to use: a canonical tool and its input (may be computed)."""

    tool: str
    input: dict[str, Any] | Callable[[Body], dict[str, Any]] = field(default_factory=dict)
    search_first: bool = False
    """Look for the Tier 1 tool with the host's tool search even when taught to dispatch (a model
    that prefers the named tools), and dispatch only if the search does not find it."""
    dispatch: bool = False
    """Call a Tier 1 capability through the gateway's ``action`` dispatch even when it is listed."""


@dataclass
class Gate:
    """A pause in the script: the turn ends with ``text`` until ``ready(request)`` holds (for a
    long-lived session waiting for inbound messages, each of which is a new turn). Makes no call."""

    ready: Callable[[Body], bool]
    text: str = "waiting for the replies"


@dataclass(frozen=True)
class Call:
    """A tool call, by the name the host presents."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Search:
    """A tool search for a presented name."""

    name: str


@dataclass(frozen=True)
class Text:
    """A plain answer that ends the turn."""

    text: str


Decision = Call | Search | Text


def _texts(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


class Dialect:
    """How one model API carries tools, calls, results and prompts."""

    def model_request(self, path: str) -> bool:
        raise NotImplementedError

    def primary(self, body: Body) -> bool:
        """The agent loop's requests offer tools; side requests (titles, routing) do not."""
        raise NotImplementedError

    def callable(self, body: Body) -> set[str]:
        raise NotImplementedError

    def calls(self, body: Body) -> list[Call]:
        """Tool calls already made in this conversation (searches excluded), in order."""
        raise NotImplementedError

    def searched(self, body: Body) -> list[str]:
        """The queries of the tool searches already made, in order."""
        return []

    def search_query(self, name: str) -> str:
        """The query this host's model searches with for a presented name."""
        return name

    def can_search(self, body: Body) -> bool:
        return False

    def results(self, body: Body) -> list[str]:
        """The text of every tool result in the history, in order."""
        raise NotImplementedError

    def prompt(self, body: Body) -> str:
        """Everything the user turns say."""
        raise NotImplementedError

    def ours(self, body: Body, prefix: str) -> list[dict[str, Any]]:
        """Our tool definitions as this request carries them."""
        raise NotImplementedError

    def finish(self, call: Call, body: Body, earlier: int) -> Call:
        """What this host's model adds to a call (Gemini: ``wait_for_previous``)."""
        return call

    def respond(self, decision: Decision, body: Body, number: int) -> tuple[str, bytes]:
        raise NotImplementedError

    def side(self, path: str, body: Body) -> tuple[str, bytes]:
        return "application/json", b"{}"


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    return b"".join(
        (f"event: {name}\n" if name else "").encode() + f"data: {json.dumps(data)}\n\n".encode()
        for name, data in events
    )


# --- Anthropic Messages (Claude Code) ---------------------------------------------------------

TOOL_SEARCH = "ToolSearch"


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def tool_uses(request: Body) -> list[dict[str, Any]]:
    """Every tool_use block the assistant already made in this conversation, in order."""
    return [
        b
        for m in request.get("messages", [])
        if m.get("role") == "assistant"
        for b in _blocks(m)
        if b.get("type") == "tool_use"
    ]


class Anthropic(Dialect):
    def model_request(self, path: str) -> bool:
        return path.startswith("/v1/messages") and not path.startswith("/v1/messages/count_tokens")

    def primary(self, body: Body) -> bool:
        return bool(body.get("tools"))

    def callable(self, body: Body) -> set[str]:
        names = {t["name"] for t in body.get("tools", []) if "name" in t and not t.get("defer_loading")}
        for query in self.searched(body):
            names.update(query.split(","))
        return names

    def calls(self, body: Body) -> list[Call]:
        return [Call(u["name"], u.get("input", {})) for u in tool_uses(body) if u.get("name") != TOOL_SEARCH]

    def searched(self, body: Body) -> list[str]:
        queries = [str(u.get("input", {}).get("query", "")) for u in tool_uses(body) if u.get("name") == TOOL_SEARCH]
        return [q.removeprefix("select:") for q in queries if q.startswith("select:")]

    def can_search(self, body: Body) -> bool:
        return any(t.get("name") == TOOL_SEARCH for t in body.get("tools", []))

    def results(self, body: Body) -> list[str]:
        texts = []
        for message in body.get("messages", []):
            for block in _blocks(message):
                if block.get("type") == "tool_result":
                    content = block.get("content")
                    if isinstance(content, list):
                        texts.append("".join(c.get("text", "") for c in content if isinstance(c, dict)))
                    else:
                        texts.append(str(content or ""))
        return texts

    def prompt(self, body: Body) -> str:
        return "\n".join(
            b.get("text", "") if isinstance(b, dict) else str(b)
            for m in body.get("messages", []) if m.get("role") == "user"
            for b in (m["content"] if isinstance(m["content"], list) else [m["content"]])
        )  # fmt: skip

    def ours(self, body: Body, prefix: str) -> list[dict[str, Any]]:
        return [t for t in body.get("tools", []) if str(t.get("name", "")).startswith(prefix)]

    def respond(self, decision: Decision, body: Body, number: int) -> tuple[str, bytes]:
        message: dict[str, Any] = {
            "id": f"msg_{number:04d}", "type": "message", "role": "assistant", "model": body.get("model", "claude"),
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }  # fmt: skip
        block: dict[str, Any]
        if isinstance(decision, Text):
            block, delta, stop = {"type": "text", "text": ""}, {"type": "text_delta", "text": decision.text}, "end_turn"
        else:
            name, value = (
                (TOOL_SEARCH, {"query": f"select:{decision.name}", "max_results": 5})
                if isinstance(decision, Search)
                else (decision.name, decision.arguments)
            )
            block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": name, "input": {}}
            delta, stop = {"type": "input_json_delta", "partial_json": json.dumps(value)}, "tool_use"
        events: list[tuple[str | None, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": message}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
        return "text/event-stream", _sse(events)

    def side(self, path: str, body: Body) -> tuple[str, bytes]:
        return "application/json", json.dumps({"input_tokens": 10}).encode()


# --- OpenAI Responses (Codex) -----------------------------------------------------------------


def _namespaced(tools: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(presented name, definition)`` of every function, ``namespace.function`` inside a namespace."""
    for tool in tools:
        if tool.get("type") == "function" and "name" in tool:
            yield tool["name"], tool
        elif tool.get("type") == "namespace":
            for inner in tool.get("tools", []):
                yield f"{tool['name']}.{inner.get('name')}", inner


class Responses(Dialect):
    def model_request(self, path: str) -> bool:
        return path.rstrip("/").endswith("/responses")

    def primary(self, body: Body) -> bool:
        return bool(body.get("tools"))

    def _items(self, body: Body, kind: str) -> list[dict[str, Any]]:
        return [i for i in body.get("input", []) if isinstance(i, dict) and i.get("type") == kind]

    def _loaded(self, body: Body) -> list[dict[str, Any]]:
        """Tools a client-side tool search returned into the history."""
        return [t for item in self._items(body, "tool_search_output") for t in item.get("tools", [])]

    def callable(self, body: Body) -> set[str]:
        return {name for name, _ in _namespaced([*body.get("tools", []), *self._loaded(body)])}

    def calls(self, body: Body) -> list[Call]:
        found = []
        for item in self._items(body, "function_call"):
            name = f"{item['namespace']}.{item['name']}" if item.get("namespace") else item["name"]
            found.append(Call(name, json.loads(item.get("arguments") or "{}")))
        return found

    def searched(self, body: Body) -> list[str]:
        return [str((i.get("arguments") or {}).get("query", "")) for i in self._items(body, "tool_search_call")]

    def search_query(self, name: str) -> str:
        return name.rsplit(".", 1)[-1]

    def can_search(self, body: Body) -> bool:
        return any(t.get("type") == "tool_search" for t in body.get("tools", []))

    def results(self, body: Body) -> list[str]:
        return ["".join(_texts(item.get("output"))) for item in self._items(body, "function_call_output")]

    def prompt(self, body: Body) -> str:
        return "\n".join(
            "".join(_texts(m.get("content"))) for m in self._items(body, "message") if m.get("role") == "user"
        )

    def ours(self, body: Body, prefix: str) -> list[dict[str, Any]]:
        namespace = prefix.rstrip(".")
        return [t for t in [*body.get("tools", []), *self._loaded(body)] if t.get("name") == namespace]

    def respond(self, decision: Decision, body: Body, number: int) -> tuple[str, bytes]:
        item: dict[str, Any]
        if isinstance(decision, Text):
            item = {"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": decision.text, "annotations": []}]}  # fmt: skip
        elif isinstance(decision, Search):
            query = self.search_query(decision.name)
            item = {"type": "tool_search_call", "id": f"ts_{number}", "call_id": f"call_ts_{number}",
                    "execution": "client", "status": "completed",
                    "arguments": {"query": query, "limit": 8}}  # fmt: skip
        else:
            namespace, _, name = decision.name.rpartition(".")
            item = {"type": "function_call", "id": f"fc_{number}", "call_id": f"call_{number}", "name": name,
                    "arguments": json.dumps(decision.arguments), "status": "completed"}  # fmt: skip
            if namespace:
                item["namespace"] = namespace
        response = {"id": f"resp_{number}", "output": [item],
                    "usage": {"input_tokens": 10, "output_tokens": 1, "total_tokens": 11}}  # fmt: skip
        events: list[tuple[str | None, dict[str, Any]]] = [
            ("response.created", {"type": "response.created", "response": {"id": response["id"]}}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": response}),
        ]
        return "text/event-stream", _sse(events)


# --- Gemini (Gemini CLI) ----------------------------------------------------------------------

WAIT_FOR_PREVIOUS = "wait_for_previous"


def _declarations(body: Body) -> list[dict[str, Any]]:
    return [d for tool in body.get("tools", []) for d in tool.get("functionDeclarations", [])]


def _parts(body: Body, role: str) -> list[dict[str, Any]]:
    return [p for c in body.get("contents", []) if c.get("role") == role for p in c.get("parts", [])]


def _shaped(schema: Any) -> Any:
    """A value that satisfies a response schema's types (Gemini CLI's side requests parse it)."""
    if not isinstance(schema, dict):
        return None
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {key: _shaped(value) for key, value in props.items()}
    return {"array": [], "string": "", "boolean": False, "integer": 0, "number": 0}.get(kind)


class Gemini(Dialect):
    def model_request(self, path: str) -> bool:
        return ":streamGenerateContent" in path or ":generateContent" in path

    def primary(self, body: Body) -> bool:
        config = body.get("generationConfig") or {}
        return bool(_declarations(body)) and not (config.get("responseJsonSchema") or config.get("responseSchema"))

    def callable(self, body: Body) -> set[str]:
        return {d["name"] for d in _declarations(body)}

    def calls(self, body: Body) -> list[Call]:
        return [
            Call(p["functionCall"]["name"], p["functionCall"].get("args", {}))
            for p in _parts(body, "model")
            if "functionCall" in p
        ]

    def results(self, body: Body) -> list[str]:
        responses = [p["functionResponse"] for p in _parts(body, "user") if "functionResponse" in p]
        return ["".join(_texts(response.get("response"))) for response in responses]

    def prompt(self, body: Body) -> str:
        return "\n".join(str(p["text"]) for p in _parts(body, "user") if "text" in p)

    def ours(self, body: Body, prefix: str) -> list[dict[str, Any]]:
        return [d for d in _declarations(body) if str(d.get("name", "")).startswith(prefix)]

    def finish(self, call: Call, body: Body, earlier: int) -> Call:
        # Gemini CLI tells its model to set wait_for_previous when a call depends on earlier ones.
        declared = next((d for d in _declarations(body) if d.get("name") == call.name), {})
        schema = declared.get("parametersJsonSchema") or declared.get("parameters") or {}
        if earlier and WAIT_FOR_PREVIOUS in schema.get("properties", {}):
            return Call(call.name, {**call.arguments, WAIT_FOR_PREVIOUS: True})
        return call

    def _chunk(self, parts: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
            "modelVersion": "gemini-2.5-flash",
        }

    def respond(self, decision: Decision, body: Body, number: int) -> tuple[str, bytes]:
        if isinstance(decision, Call):
            parts: list[dict[str, Any]] = [{"functionCall": {"name": decision.name, "args": decision.arguments}}]
        else:
            parts = [{"text": decision.text if isinstance(decision, Text) else ""}]
        return "text/event-stream", f"data: {json.dumps(self._chunk(parts))}\r\n\r\n".encode()

    def side(self, path: str, body: Body) -> tuple[str, bytes]:
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        text = json.dumps(_shaped(schema)) if schema else "ok"
        chunk = self._chunk([{"text": text}])
        if "alt=sse" in path:
            return "text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode()
        return "application/json", json.dumps(chunk).encode()


# --- OpenAI Chat Completions (OpenCode's @ai-sdk/openai-compatible, Pi's openai-completions) ----


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content or [] if isinstance(part, dict))


class ChatCompletions(Dialect):
    def model_request(self, path: str) -> bool:
        return path.rstrip("/").endswith("/chat/completions")

    def primary(self, body: Body) -> bool:
        return bool(body.get("tools"))

    def callable(self, body: Body) -> set[str]:
        return {str(t.get("function", {}).get("name")) for t in body.get("tools", [])}

    def calls(self, body: Body) -> list[Call]:
        return [
            Call(call["function"]["name"], json.loads(call["function"].get("arguments") or "{}"))
            for m in body.get("messages", [])
            if m.get("role") == "assistant"
            for call in m.get("tool_calls") or []
        ]

    def results(self, body: Body) -> list[str]:
        return [_content_text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "tool"]

    def prompt(self, body: Body) -> str:
        return "\n".join(_content_text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")

    def system(self, body: Body) -> str:
        """Every system (or developer) message of the request."""
        roles = ("system", "developer")
        return "\n".join(_content_text(m.get("content")) for m in body.get("messages", []) if m.get("role") in roles)

    def ours(self, body: Body, prefix: str) -> list[dict[str, Any]]:
        return [t for t in body.get("tools", []) if str(t.get("function", {}).get("name", "")).startswith(prefix)]

    def respond(self, decision: Decision, body: Body, number: int) -> tuple[str, bytes]:
        if isinstance(decision, Call):
            call = {"index": 0, "id": f"call_{number}", "type": "function",
                    "function": {"name": decision.name, "arguments": json.dumps(decision.arguments)}}  # fmt: skip
            delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            text = decision.text if isinstance(decision, Text) else ""
            delta, finish = {"role": "assistant", "content": text}, "stop"
        model = body.get("model", "scripted")
        usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
        if not body.get("stream"):
            choice = {"index": 0, "message": delta, "finish_reason": finish}
            completion = {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": model,
                          "choices": [choice], "usage": usage}  # fmt: skip
            return "application/json", json.dumps(completion).encode()
        base = {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 0, "model": model}
        chunks = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
        ]
        payload = b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for chunk in chunks) + b"data: [DONE]\n\n"
        return "text/event-stream", payload

    def side(self, path: str, body: Body) -> tuple[str, bytes]:
        if self.model_request(path):  # a request without tools (a title, a summary): a plain answer
            return self.respond(Text("ok"), body, 0)
        return "application/json", b"{}"


# --- the scripted model and its server ----------------------------------------------------------


class ScriptedModel:
    """Works through ``steps`` in order, calling each capability the way the host lets it.

    ``names`` maps a canonical tool to the name this host presents. A step's tool is called by that
    name when it is callable. Otherwise it goes through the gateway's ``action`` dispatch: at once
    when our activation presentation leads with dispatch, else after one tool search where the
    host has one (the dormant gateway itself is found by that search).
    """

    def __init__(self, dialect: Dialect, names: Mapping[str, str], steps: Sequence[Step | Gate]) -> None:
        self.dialect = dialect
        self.names = names
        self.steps = steps
        self.requests: list[Body] = []
        self.arrivals: list[float] = []  # time.monotonic() of each request, beside it
        self.lock = threading.Lock()

    @property
    def primary_requests(self) -> list[Body]:
        return [r for r in self.requests if self.dialect.primary(r)]

    def first_offering(self, since: float) -> float | None:
        """Seconds from ``since`` to the first request in which our gateway is callable (for a host that
        defers it, the request after the model's tool search), or ``None`` if it never is."""
        gateway = self.names[GATEWAY_TOOL]
        for arrived, body in zip(self.arrivals, self.requests, strict=True):
            if gateway in self.dialect.callable(body):
                return arrived - since
        return None

    def decide(self, body: Body) -> Decision:
        if not self.dialect.primary(body):
            return Text("ok")
        done = self.dialect.calls(body)
        consumed = 0
        for item in self.steps:
            if isinstance(item, Gate):
                if not item.ready(body):
                    return Text(item.text)
            elif consumed < len(done):
                consumed += 1
            else:
                step = item
                break
        else:
            return Text("done")
        value = step.input(body) if callable(step.input) else dict(step.input)
        want, gateway = self.names[step.tool], self.names[GATEWAY_TOOL]
        offered = self.dialect.callable(body)
        dispatch = Call(gateway, {"action": TOOL_ACTIONS.get(step.tool), "arguments": value})
        taught = any(DISPATCH_FIRST in text for text in self.dialect.results(body))
        if step.dispatch and gateway in offered:
            return self.dialect.finish(dispatch, body, len(done))
        if want in offered:  # the presentations allow a listed Tier 1 tool to be called directly
            return self.dialect.finish(Call(want, value), body, len(done))
        query = self.dialect.search_query(want)
        searchable = self.dialect.can_search(body) and query not in self.dialect.searched(body)
        if step.tool != GATEWAY_TOOL and gateway in offered and taught and not (step.search_first and searchable):
            return self.dialect.finish(dispatch, body, len(done))
        if searchable:
            return Search(want)
        if step.tool != GATEWAY_TOOL and gateway in offered:
            return self.dialect.finish(dispatch, body, len(done))
        return Text(f"cannot call {want}")

    def saw_tier1(self) -> bool:
        """Whether any request made a Tier 1 tool callable (the host re-listed after activation)."""
        tier1 = {name for tool, name in self.names.items() if tool != GATEWAY_TOOL}
        return any(tier1 & self.dialect.callable(body) for body in self.requests)

    def paths(self, body: Body) -> list[str]:
        """For each call of the conversation: ``Tier 1``, ``gateway dispatch`` or ``gateway`` (activation)."""
        gateway = self.names[GATEWAY_TOOL]
        return [
            ("gateway dispatch" if "action" in call.arguments else "gateway") if call.name == gateway else "Tier 1"
            for call in self.dialect.calls(body)
        ]


class ServedModel(Protocol):
    """What :class:`FakeModelServer` needs of a model: its dialect, a record of requests, a decision."""

    dialect: Dialect
    lock: threading.Lock
    requests: list[Body]
    arrivals: list[float]

    def decide(self, body: Body) -> Decision: ...


class FakeModelServer:
    """The scripted model behind a loopback HTTP server speaking its dialect."""

    def __init__(self, model: ServedModel) -> None:
        self.model = model
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, content_type: str, payload: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                dialect = outer.model.dialect
                if not dialect.model_request(self.path) or not dialect.primary(body):
                    self._send(*dialect.side(self.path, body))
                    return
                with outer.model.lock:
                    outer.model.arrivals.append(time.monotonic())
                    outer.model.requests.append(body)
                    number = len(outer.model.requests)
                    decision = outer.model.decide(body)
                self._send(*dialect.respond(decision, body, number))

            def do_GET(self) -> None:
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "FakeModelServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- Chat Completions behind a host's tool search (Qwen Code, Factory Droid, Grok Build; issue 71) ----


@dataclass(frozen=True)
class ToolSearchForm:
    """How one host defers MCP tools behind a tool search, as its model sees it.

    The model searches with ``search`` (``{query_key: query}``). A tool is loaded when a search result
    names it and says none of ``misses``. Then either the host declares it from the next request on
    (``bridge`` is ``None``: Factory Droid's ``ToolSearch``), or the model calls it through ``bridge``
    with ``{name_key: name, input_key: arguments}`` (Qwen Code's ``tool_call``, Grok Build's ``use_tool``).
    A request whose last user message holds one of ``side_marks`` is a side request (Grok Build's
    status-line summary offers every tool)."""

    search: str
    select: bool
    """The query is ``select:<name>`` (else the name itself, as keywords)."""
    misses: tuple[str, ...]
    bridge: str | None = None
    name_key: str = "name"
    input_key: str = "arguments"
    side_marks: tuple[str, ...] = ()
    retries: int = 3
    """How often the model repeats a search that found nothing, as the history shows it, before it
    gives up on that tool."""
    pause: float = 0.0
    """Seconds the model thinks before it repeats such a search (Grok Build answers at once, with
    ``"status": "partial"``, while its MCP servers still connect)."""


QWEN_SEARCH = ToolSearchForm("tool_search", True, ("No tools found",), bridge="tool_call")
DROID_SEARCH = ToolSearchForm("ToolSearch", True, ("No deferred tools matched",))
GROK_SEARCH = ToolSearchForm(
    "search_tool", False, ('"results": []',), bridge="use_tool", name_key="tool_name", input_key="tool_input",
    side_marks=("Write an ultra-short dashboard line",), retries=60, pause=1.0,
)  # fmt: skip


class SearchingChat(ChatCompletions):
    """Chat Completions whose MCP tools are deferred behind ``form``'s tool search."""

    def __init__(self, form: ToolSearchForm) -> None:
        self.form = form

    def _declared(self, body: Body) -> set[str]:
        return super().callable(body)

    def primary(self, body: Body) -> bool:
        if self.form.search not in self._declared(body):
            return False
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        last = _content_text(users[-1].get("content")) if users else ""
        return not any(mark in last for mark in self.form.side_marks)

    def _searches(self, body: Body) -> list[tuple[str, str]]:
        """``(query, result text)`` of every search already made, in order."""
        results = {
            m.get("tool_call_id"): _content_text(m.get("content"))
            for m in body.get("messages", [])
            if m.get("role") == "tool"
        }
        return [
            (str(json.loads(c["function"].get("arguments") or "{}").get("query", "")), results.get(c.get("id"), ""))
            for m in body.get("messages", []) if m.get("role") == "assistant"
            for c in m.get("tool_calls") or [] if c["function"]["name"] == self.form.search
        ]  # fmt: skip

    def _found(self, text: str) -> bool:
        return bool(text) and not any(miss in text for miss in self.form.misses)

    def callable(self, body: Body) -> set[str]:
        names = {name for name in self._declared(body) if name not in (self.form.search, self.form.bridge)}
        if self.form.bridge is not None:
            for query, text in self._searches(body):
                if self._found(text):
                    names.update(n for n in query.removeprefix("select:").split(",") if n in text)
        return names

    def calls(self, body: Body) -> list[Call]:
        found = []
        for call in super().calls(body):
            if call.name == self.form.search:
                continue
            if call.name == self.form.bridge:
                call = Call(str(call.arguments.get(self.form.name_key)), call.arguments.get(self.form.input_key) or {})
            found.append(call)
        return found

    def searched(self, body: Body) -> list[str]:
        """Queries that found their tool, and those that missed ``SEARCH_RETRIES`` times."""
        searches = self._searches(body)
        missed = [query for query, text in searches if not self._found(text)]
        return [q for q, text in searches if self._found(text) or missed.count(q) >= self.form.retries]

    def search_query(self, name: str) -> str:
        return f"select:{name}" if self.form.select else name

    def results(self, body: Body) -> list[str]:
        """Tool results as the server wrote them: Factory Droid pretty-prints JSON at the start of a
        result (indent 2), which is put back in our compact form."""
        texts = []
        for text in super().results(body):
            try:
                value, end = json.JSONDecoder().raw_decode(text)
            except ValueError:
                texts.append(text)
                continue
            texts.append(json.dumps(value, ensure_ascii=False, separators=(",", ":")) + text[end:])
        return texts

    def can_search(self, body: Body) -> bool:
        return self.form.search in self._declared(body)

    def respond(self, decision: Decision, body: Body, number: int) -> tuple[str, bytes]:
        if isinstance(decision, Search):
            query = self.search_query(decision.name)
            if any(q == query and not self._found(text) for q, text in self._searches(body)):
                time.sleep(self.form.pause)
            decision = Call(self.form.search, {"query": query})
        elif isinstance(decision, Call) and self.form.bridge is not None and decision.name not in self._declared(body):
            decision = Call(
                self.form.bridge, {self.form.name_key: decision.name, self.form.input_key: decision.arguments}
            )
        return super().respond(decision, body, number)


# --- Cline (issue 71, item 4): Chat Completions whose tool results are the MCP result as JSON ------


class ClineChat(ChatCompletions):
    """Cline 3.0.65's (and MastraCode 0.32.1's) Chat Completions: a tool message carries the whole MCP
    result object as a JSON string (``{"content":[{"type":"text","text":…}],"isError":false}``); its
    model reads the texts."""

    def results(self, body: Body) -> list[str]:
        texts = []
        for raw in super().results(body):
            try:
                value = json.loads(raw)
            except ValueError:
                value = None
            content = value.get("content") if isinstance(value, dict) else None
            texts.append(
                "".join(_texts([c.get("text", "") for c in content if isinstance(c, dict)]))
                if isinstance(content, list)
                else raw
            )
        return texts


class HermesChat(ChatCompletions):
    """Hermes Agent 0.19.0's Chat Completions: a tool message holds the MCP result's text as JSON
    (``{"result": …}``) inside an ``<untrusted_tool_result>`` block, after a caution; its model reads the text."""

    def results(self, body: Body) -> list[str]:
        texts = []
        for raw in super().results(body):
            found = re.search(r"\n(\{.*\})\n</untrusted_tool_result>\Z", raw, re.DOTALL)
            try:
                value = json.loads(found.group(1)) if found else None
            except ValueError:
                value = None
            result = value.get("result") if isinstance(value, dict) else None
            texts.append(result if isinstance(result, str) else raw)
        return texts


# --- end of Cline ----------------------------------------------------------------------------------


# --- oh-my-pi (issue 71): Chat Completions whose MCP tools are xd:// devices --------------------------

XD_DEVICE_NOTICE = "xd:// device inventory changed."
"""The lead of oh-my-pi's system notice that lists devices mounted after the session started."""
XD_MISS = "No such tool: xd://"
"""What oh-my-pi answers a read of a device that is not mounted."""


class XdevChat(ChatCompletions):
    """oh-my-pi 18.2.3's Chat Completions: MCP tools are not declared but mounted as ``xd://`` devices,
    named in the system prompt (and, when mounted later, in a system notice); its model runs one by
    calling ``write`` with ``{"path": "xd://<device>", "content": "<JSON input>"}``. A device not listed
    (yet: ``omp -p`` waits 250 ms for its MCP servers, then mounts a slower one's tools when it is up) is
    looked for as oh-my-pi teaches, ``read {"path": "xd://<device>"}``: its docs once it is mounted, else
    "No such tool" (read again after ``pause`` seconds, at most ``retries`` times)."""

    retries = 30
    pause = 1.0

    def _declared(self, body: Body) -> set[str]:
        return super().callable(body)

    def _listings(self, body: Body) -> Iterator[str]:
        """The texts that list devices: the system prompt and oh-my-pi's own device notices."""
        yield self.system(body)
        for message in body.get("messages", []):
            text = _content_text(message.get("content"))
            if message.get("role") != "tool" and XD_DEVICE_NOTICE in text:
                yield text

    def _looks(self, body: Body) -> list[tuple[str, bool]]:
        """``(device, found)`` of every ``read xd://<device>`` already made, in order."""
        results = {
            m.get("tool_call_id"): _content_text(m.get("content"))
            for m in body.get("messages", [])
            if m.get("role") == "tool"
        }
        looks = []
        for message in body.get("messages", []):
            for call in message.get("tool_calls") or [] if message.get("role") == "assistant" else []:
                path = str(json.loads(call["function"].get("arguments") or "{}").get("path", ""))
                if call["function"]["name"] == "read" and path.startswith("xd://"):
                    text = results.get(call.get("id"), "")
                    looks.append((path.removeprefix("xd://"), bool(text) and XD_MISS not in text))
        return looks

    def callable(self, body: Body) -> set[str]:
        names = set(self._declared(body))
        for text in self._listings(body):
            names.update(re.findall(r"xd://(mcp__[A-Za-z0-9_]+)", text))
        names.update(device for device, found in self._looks(body) if found)
        return names

    def calls(self, body: Body) -> list[Call]:
        found = []
        for call in super().calls(body):
            path = str(call.arguments.get("path", ""))
            if call.name == "read" and path.startswith("xd://"):
                continue
            if call.name == "write" and path.startswith("xd://"):
                call = Call(path.removeprefix("xd://"), json.loads(str(call.arguments.get("content") or "{}")))
            found.append(call)
        return found

    def searched(self, body: Body) -> list[str]:
        """Devices a read found, and those it missed ``retries`` times."""
        looks = self._looks(body)
        missed = [device for device, found in looks if not found]
        return [device for device, found in looks if found or missed.count(device) >= self.retries]

    def can_search(self, body: Body) -> bool:
        return "read" in self._declared(body)

    def respond(self, decision: Decision, body: Body, number: int) -> tuple[str, bytes]:
        if isinstance(decision, Search):
            if (decision.name, False) in self._looks(body):
                time.sleep(self.pause)
            decision = Call("read", {"path": f"xd://{decision.name}"})
        elif isinstance(decision, Call) and decision.name not in self._declared(body):
            decision = Call("write", {"path": f"xd://{decision.name}", "content": json.dumps(decision.arguments)})
        return super().respond(decision, body, number)


# --- end of oh-my-pi --------------------------------------------------------------------------------
_MASTRA_USER = re.compile(r'<user(?: [A-Za-z_][A-Za-z0-9_.-]*="[^"]*")*>(.*?)</user>', re.DOTALL)


class MastraChat(ClineChat):
    """MastraCode 0.32.1's Chat Completions: Cline's tool messages, and each message typed into its TUI sent as
    a signal element, ``<user delivery="message">…</user>``, its text XML-escaped (``&``, ``<``, ``>``;
    ``@mastra/core`` 1.52.1 ``signalToXmlMarkup``): its model reads the text inside."""

    def prompt(self, body: Body) -> str:
        unescape = {"&lt;": "<", "&gt;": ">", "&amp;": "&"}
        return _MASTRA_USER.sub(
            lambda m: re.sub("&(?:lt|gt|amp);", lambda e: unescape[e[0]], m[1]), super().prompt(body)
        )
