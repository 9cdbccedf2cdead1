"""The inputs of the identity rule (PROTOCOL.md §6.1), made strict (issue 70, item 4): one reading of a
session's client, and a refused session that activates nothing whatever it calls.

The real server runs as a subprocess in a pane of the simulated Herdr, in a session of its own with no
controlling terminal (as under a shared host process), and is spoken to line by line.
"""

import json
import subprocess
import sys
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from mcp.server.runner import ServerRunner
from pydantic import ValidationError

from herdr_link_mcp._early import EarlyAnswers
from herdr_link_protocol import GATEWAY_TOOL, parse_json_line
from herdr_link_testkit import HerdrSim

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def initialize(client: dict[str, Any], **extra: Any) -> dict[str, Any]:
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client, **extra}
    return request(1, "initialize", params)


class Server:
    """``python -m herdr_link_mcp`` with no controlling terminal, its output lines collected."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "herdr_link_mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        self.lines: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            with self.changed:
                self.lines.append(json.loads(raw))
                self.changed.notify_all()

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self.process.stdin.flush()

    def answer(self, request_id: int, timeout: float = 120.0) -> dict[str, Any]:
        with self.changed:
            answered = self.changed.wait_for(lambda: any(m.get("id") == request_id for m in self.lines), timeout)
            assert answered, self.lines
            return next(m for m in self.lines if m.get("id") == request_id)

    def close(self) -> str:
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        assert self.process.wait(timeout=120) == 0
        self.reader.join(timeout=60)
        assert self.process.stdout is not None
        self.process.stdout.close()
        with self.process.stderr:
            return self.process.stderr.read().decode()

    def signalled(self) -> bool:
        return any(m.get("method") == "notifications/tools/list_changed" for m in self.lines)


@pytest.fixture
def alpha_env(herdr_sim: HerdrSim, tmp_path) -> dict[str, str]:
    """The environment of pane alpha (beside beta), which no terminal of this server shows."""
    alpha = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(alpha, "claude", name="alpha")
    herdr_sim.add_agent(herdr_sim.split(alpha), "claude", name="beta")
    return herdr_sim.env(alpha)


def peers_call(request_id: int = 3) -> dict[str, Any]:
    return request(request_id, "tools/call", {"name": "herdr_link_peers", "arguments": {}})


MALFORMED = [
    pytest.param({"icons": "x"}, {}, id="clientInfo.icons-not-a-list"),
    pytest.param({}, {"capabilities": {"experimental": {"x": 1}}}, id="experimental-member-not-an-object"),
    pytest.param({}, {"_meta": {"progressToken": {"x": 1}}}, id="progressToken-an-object"),
    pytest.param({}, {"capabilities": {"roots": {"listChanged": "yes please"}}}, id="roots.listChanged-text"),
]


@pytest.mark.parametrize("client", ["codex-mcp-client", "claude-code"])
@pytest.mark.parametrize(("info", "extra"), MALFORMED)
def test_an_initialize_the_sdk_refuses_leaves_a_session_that_does_nothing(alpha_env, client, info, extra):
    """Before issue 70 the front answered these, the SDK refused them, and the session (no client name,
    host "") acted as the pane in its environment: peers answered ``"self":{"name":"alpha"}``."""
    server = Server(alpha_env)
    try:
        server.send(initialize({"name": client, "version": "1", **info}, **extra), INITIALIZED, peers_call())
        peers = server.answer(3)
        server.send(request(4, "tools/call", {"name": GATEWAY_TOOL, "arguments": {}}))
        gateway = server.answer(4)
    finally:
        log = server.close()
    assert "error" in server.answer(1)  # the initialize: the SDK's refusal, not an early success
    for refused in (peers, gateway):
        assert refused["result"]["isError"] is True, refused
        assert refused["result"]["content"][0]["text"].startswith("SELF_UNNAMED: this session's client did not")
    assert "alpha" not in json.dumps(peers) and not server.signalled()
    assert "Traceback" not in log


@pytest.mark.parametrize(
    "arguments",
    [{"to": "beta"}, {"to": "beta", "message": 5}, {"to": "", "message": "hi"}],
    ids=["no-message", "message-not-text", "empty-target"],
)
def test_a_session_refused_for_its_pane_activates_nothing_whatever_its_arguments(alpha_env, arguments):
    """Codex's client with no terminal to show its pane (a shared daemon's child): a Tier 1 call with a bad
    argument is refused for the pane, and the session is not activated (before issue 70 it answered the
    argument error, signalled list_changed and listed five tools)."""
    server = Server(alpha_env)
    try:
        server.send(initialize({"name": "codex-mcp-client", "version": "0.171.0"}), INITIALIZED)
        server.send(request(3, "tools/call", {"name": "herdr_link_send", "arguments": arguments}))
        sent = server.answer(3)
        server.send(request(4, "tools/list", {}))
        listed = server.answer(4)
    finally:
        server.close()
    assert sent["result"]["isError"] is True
    assert sent["result"]["content"][0]["text"].startswith("SELF_UNNAMED: this session runs in a process")
    assert not server.signalled()
    assert [tool["name"] for tool in listed["result"]["tools"]] == [GATEWAY_TOOL]


# ---- one reading: the front answers early only an initialize the SDK reads the same -----------------

ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=3),
    st.lists(st.integers(0, 1), max_size=2),
    st.dictionaries(st.sampled_from(["x", "src"]), st.integers(0, 1), max_size=2),
    st.just({}), st.just({"x": {}}), st.just([{"src": "a"}]),
)  # fmt: skip
"""Values of every JSON type, some of them the shapes a field takes and some not."""


def _members(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys), ODD, max_size=3)


def mostly(plain: st.SearchStrategy[Any], *others: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``plain`` three times in four, else one of ``others`` (so that whole handshakes are often plain)."""
    return st.integers(0, 3).flatmap(lambda n: plain if n else st.one_of(*others))


TEXT = st.text(max_size=3)
PLAIN_CAPABILITY = st.sampled_from([{}, {"listChanged": True}, {"listChanged": False}, {"x": {}}, {"form": {}}])
PLAIN_CLIENT_INFO = st.fixed_dictionaries(
    {"name": st.sampled_from(["claude-code", "codex-mcp-client"]), "version": st.just("1")},
    optional={"title": TEXT, "websiteUrl": TEXT, "description": TEXT},
)
CLIENT_INFO = mostly(
    PLAIN_CLIENT_INFO,
    st.fixed_dictionaries(
        {"name": st.sampled_from(["claude-code", "codex-mcp-client"]), "version": st.just("1")},
        optional={"title": st.one_of(TEXT, ODD), "icons": ODD, "websiteUrl": st.one_of(TEXT, ODD),
                  "description": st.one_of(TEXT, ODD), "x": ODD},
    ),
    ODD,
)  # fmt: skip
CAPABILITY_NAMES = st.sampled_from(["roots", "sampling", "elicitation", "tasks", "experimental", "extensions", "other"])
CAPABILITIES = mostly(
    st.dictionaries(CAPABILITY_NAMES, PLAIN_CAPABILITY, max_size=3),  # the forms real hosts send, and near them
    st.dictionaries(
        CAPABILITY_NAMES,
        st.one_of(ODD, _members(["listChanged", "list_changed", "x", "context", "tools", "form", "list"])),
        max_size=3,
    ),
    ODD,
)
PARAMS = st.fixed_dictionaries(
    {"protocolVersion": mostly(st.sampled_from(["2025-11-25", "2024-11-05", "1999-01-01"]), ODD),
     "capabilities": CAPABILITIES, "clientInfo": CLIENT_INFO},
    optional={"_meta": mostly(st.just({}), _members(["progressToken", "x"]), ODD)},
)  # fmt: skip


def _sdk_reading(params: dict[str, Any]) -> tuple[str, str] | None:
    """What the SDK's server makes of ``initialize`` params (its own function): the negotiated version and
    the client's name, or ``None`` when it refuses them."""
    try:
        init, version = ServerRunner._negotiate_initialize(params)
    except ValidationError:
        return None
    return version, init.client_info.name


def _front_reading(params: dict[str, Any]) -> tuple[str, str] | None:
    early = EarlyAnswers(in_herdr=True)
    line = parse_json_line(json.dumps(request(1, "initialize", params)).encode())
    assert line is not None
    answered = early.answer(line)
    if answered is None:
        return None
    return json.loads(answered.answer)["result"]["protocolVersion"], early._client  # type: ignore[return-value]


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PARAMS)
def test_every_initialize_the_front_answers_the_sdk_reads_the_same(params):
    """Over generated handshakes (valid, odd and malformed at every field): whenever the front answers an
    ``initialize`` early, the SDK accepts it with the same version and the same client name."""
    front = _front_reading(params)
    if front is not None:
        assert _sdk_reading(params) == front, params


def test_the_differential_corpus_reaches_both_outcomes():
    """The generator gives the front both kinds of handshake (so the property above is not vacuous)."""
    answered = {"front": 0, "left": 0}

    @settings(max_examples=400, deadline=None, database=None)
    @given(PARAMS)
    def count(params):
        answered["front" if _front_reading(params) is not None else "left"] += 1

    count()
    assert answered["front"] > 10 and answered["left"] > 10, answered


def test_the_differential_test_fails_for_the_earlier_looser_reading(monkeypatch):
    """The broken input the property must catch: the reading before issue 70 (any object capabilities,
    any clientInfo with a name and version, any _meta) answers handshakes the SDK refuses."""
    import herdr_link_mcp._early as early_module

    monkeypatch.setattr(early_module, "_plain_client_info", early_module._implementation)
    monkeypatch.setattr(early_module, "_plain_capabilities", early_module._objects)
    with pytest.raises(AssertionError):
        test_every_initialize_the_front_answers_the_sdk_reads_the_same()


def test_no_early_answer_is_given_outside_the_plain_forms_even_for_a_known_host():
    real_hosts = [  # the handshakes real hosts sent in tests/real_hosts (no icons, plain capabilities)
        {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}, "elicitation": {}},
         "clientInfo": {"name": "claude-code", "version": "2.1.332"}},
        {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
         "clientInfo": {"name": "codex-mcp-client", "title": "Codex", "version": "0.171.0"}},
    ]  # fmt: skip
    for params in real_hosts:
        assert _front_reading(params) is not None and _front_reading(params) == _sdk_reading(params)


def test_a_line_the_sdk_answers_otherwise_seals_the_session():
    """The second line of defence: when the SDK's answer to a line differs from the front's, every later
    tool call of the connection is refused (the seal), whatever the reason for the difference."""
    from herdr_link_mcp._transport import StdioCodec
    from herdr_link_mcp._wire import Seal

    seal = Seal()
    codec = StdioCodec(seal)
    line = parse_json_line(json.dumps(request(1, "initialize", {})).encode())
    assert line is not None
    decoded = codec.decode(line, b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
    import mcp_types as types

    assert decoded is not None and not isinstance(decoded, types.JSONRPCError)
    served = decoded.message.id  # type: ignore[union-attr]
    error = types.JSONRPCError(jsonrpc="2.0", id=served, error=types.ErrorData(code=-32602, message="no"))
    assert codec.encode(error) == b""  # the second answer is dropped...
    assert seal.reason is not None  # ...and the session is sealed
    same = StdioCodec(Seal())
    decoded = same.decode(line, b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
    result = types.JSONRPCResponse(jsonrpc="2.0", id=decoded.message.id, result={})  # type: ignore[union-attr]
    assert same.encode(result) == b"" and same._seal.reason is None


def test_a_client_id_shaped_like_a_private_alias_still_gets_its_answer():
    """The ids of requests answered early are private and unguessable: a client's own request whose id is
    what the alias used to be (``herdr-link-early:1``) is answered, not dropped as a second answer."""
    from herdr_link_mcp._transport import StdioCodec, answered_early

    codec = StdioCodec()
    first = parse_json_line(json.dumps(request(1, "initialize", {})).encode())
    assert first is not None
    early = codec.decode(first, b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
    assert early is not None and answered_early(early.message.id)  # type: ignore[union-attr]
    own = parse_json_line(json.dumps({"jsonrpc": "2.0", "id": "herdr-link-early:1", "method": "ping"}).encode())
    assert own is not None
    decoded = codec.decode(own)
    assert decoded is not None and not answered_early(decoded.message.id)  # type: ignore[union-attr]
    import mcp_types as types

    answer = types.JSONRPCResponse(jsonrpc="2.0", id="herdr-link-early:1", result={})
    assert json.loads(codec.encode(answer))["id"] == "herdr-link-early:1"
