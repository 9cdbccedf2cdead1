"""The one inbound parse: every tool and gateway form read once into a typed call or its error."""

import pytest

from herdr_link_protocol import (
    ACTION_TOOLS,
    CLOSE_TOOL,
    GATEWAY_TOOL,
    PEERS_TOOL,
    SEND_TOOL,
    START_TOOL,
    Activate,
    AgentName,
    CloseCall,
    ErrorCode,
    ExplicitStart,
    InvalidToolCall,
    LinkError,
    PeersCall,
    SendCall,
    StartCall,
    parse_call,
)

SEND = {"to": "reviewer", "message": "hi"}


@pytest.mark.parametrize(
    ("tool", "arguments", "expected", "via_gateway"),
    [
        (GATEWAY_TOOL, {}, Activate(), True),
        (GATEWAY_TOOL, {"action": "activate"}, Activate(), True),
        (GATEWAY_TOOL, {"action": None, "wait_for_previous": True}, Activate(), True),
        (GATEWAY_TOOL, {"action": "send", "arguments": SEND}, SendCall(AgentName("reviewer"), "hi"), True),
        (GATEWAY_TOOL, {"action": "send", **SEND}, SendCall(AgentName("reviewer"), "hi"), True),
        (GATEWAY_TOOL, {"action": "peers"}, PeersCall(), True),
        (GATEWAY_TOOL, {"action": "close", "arguments": {"agent": "w"}}, CloseCall(AgentName("w")), True),
        (PEERS_TOOL, {"reply_to": "x"}, PeersCall(), False),
        (SEND_TOOL, {**SEND, "wait_for_previous": True}, SendCall(AgentName("reviewer"), "hi"), False),
        (CLOSE_TOOL, {"agent": "w"}, CloseCall(AgentName("w")), False),
        (
            START_TOOL,
            {"name": "w", "kind": "pi", "args": ["-m", "x"]},
            StartCall(ExplicitStart(name="w", kind="pi", args=("-m", "x"))),
            False,
        ),
    ],
)
def test_every_form_reads_as_one_typed_call(tool, arguments, expected, via_gateway):
    parsed = parse_call(tool, arguments)
    assert parsed.call == expected and parsed.via_gateway is via_gateway
    assert parsed.tool == (GATEWAY_TOOL if isinstance(expected, Activate) else {
        PeersCall: PEERS_TOOL, SendCall: SEND_TOOL, CloseCall: CLOSE_TOOL, StartCall: START_TOOL
    }[type(expected)])  # fmt: skip


def test_host_keys_are_dropped_once_and_named():
    assert parse_call(SEND_TOOL, {**SEND, "wait_for_previous": True}).ignored == ("wait_for_previous",)
    assert parse_call(GATEWAY_TOOL, {"action": "activate", "_meta": {}}).ignored == ("_meta",)
    assert parse_call(GATEWAY_TOOL, {"action": "send", "arguments": {**SEND, "x": 1}}).ignored == ("x",)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("herdr_link_teleport", {}),
        (SEND_TOOL, ["to", "x"]),
        (GATEWAY_TOOL, {"action": "fly"}),
        (GATEWAY_TOOL, {"action": "send", "arguments": "x"}),
        (GATEWAY_TOOL, {"pane": "w1:p1"}),  # a raw id on an activation
        (PEERS_TOOL, {"workspace": "w1"}),
    ],
)
def test_protocol_level_faults_are_invalid_tool_calls(tool, arguments):
    with pytest.raises(InvalidToolCall):
        parse_call(tool, arguments)


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        (SEND_TOOL, {"to": "reviewer", "message": 5}, ErrorCode.SEND_FAILED),
        (SEND_TOOL, {"to": 5, "message": "x"}, ErrorCode.PEER_NOT_FOUND),
        (SEND_TOOL, {**SEND, "pane": "w1:p2"}, ErrorCode.SEND_FAILED),
        (GATEWAY_TOOL, {"action": "send", "arguments": SEND, "pane": "w1:p2"}, ErrorCode.SEND_FAILED),
        (CLOSE_TOOL, {}, ErrorCode.PEER_NOT_FOUND),
        (START_TOOL, {"name": "w", "config_agent": "a", "kind": "pi"}, ErrorCode.START_INPUT_INVALID),
        (GATEWAY_TOOL, {"action": "start", "name": "w", "tab": "w1:t1"}, ErrorCode.START_INPUT_INVALID),
    ],
)
def test_a_bad_argument_earns_its_tools_code(tool, arguments, code):
    with pytest.raises(LinkError) as caught:
        parse_call(tool, arguments)
    assert caught.value.code is code


def test_outside_herdr_a_well_formed_call_is_not_in_herdr_whatever_else_it_holds():
    for tool, arguments in [
        (GATEWAY_TOOL, {}),
        (GATEWAY_TOOL, {"action": "fly"}),
        (SEND_TOOL, {"to": 5}),
        (START_TOOL, {"pane": "w1:p1"}),
    ]:
        with pytest.raises(LinkError) as caught:
            parse_call(tool, arguments, in_herdr=False)
        assert caught.value.code is ErrorCode.NOT_IN_HERDR, (tool, arguments)
    with pytest.raises(InvalidToolCall):  # not a call of ours at all: protocol-level, in or out of Herdr
        parse_call("herdr_link_teleport", {}, in_herdr=False)


def test_the_parse_proves_the_recipient_and_knows_a_blank_message():
    """What the parse read is not checked again later (``Envelope.proven``): so the parse must prove it."""
    blank = parse_call(SEND_TOOL, {"to": "reviewer", "message": " \u3000\n"}).call
    assert blank == SendCall(AgentName("reviewer"), " \u3000\n") and isinstance(blank, SendCall) and blank.blank
    written = parse_call(SEND_TOOL, {"to": "reviewer", "message": "x"}).call
    assert written == SendCall(AgentName("reviewer"), "x") and isinstance(written, SendCall) and not written.blank
    for bad in ("Reviewer", "", "-x", "a" * 33, "w1:p2"):
        for tool, key in ((SEND_TOOL, "to"), (CLOSE_TOOL, "agent")):
            with pytest.raises(LinkError) as caught:
                parse_call(tool, {key: bad, "message": "x"} if tool == SEND_TOOL else {key: bad})
            assert caught.value.code.value == "PEER_NOT_FOUND", (tool, bad)


@pytest.mark.parametrize(
    ("tool", "arguments", "action", "target"),
    [
        (GATEWAY_TOOL, {}, "activate", None),
        (PEERS_TOOL, {}, "peers", None),
        (SEND_TOOL, SEND, "send", "reviewer"),
        (GATEWAY_TOOL, {"action": "close", "agent": "w"}, "close", "w"),
        (START_TOOL, {"name": "w", "kind": "pi", "args": []}, "start", "w"),
    ],
)
def test_each_call_says_its_tool_action_target_and_fallback(tool, arguments, action, target):
    """What kind of call it is, decided in one place: the call's class (its tool answers the call, its
    action is the gateway's, a bug in it earns its tool's fallback code)."""
    call = parse_call(tool, arguments).call
    assert (call.action, call.target) == (action, target)
    assert parse_call(tool, arguments).tool == call.tool
    if isinstance(call, Activate):
        assert call.tool == GATEWAY_TOOL and call.fallback is None
    else:
        assert ACTION_TOOLS[call.action] == call.tool and call.fallback is not None
