import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from herdr_link_protocol import (
    CLOSE_TOOL,
    COMMUNICATION_CONTRACT,
    GATEWAY_TOOL,
    PEERS_TOOL,
    SEND_TOOL,
    START_TOOL,
    Cause,
    PresentationForm,
    active_presentation,
    presented_tool_name,
    tier0_hint,
)

REPOSITORY = Path(__file__).resolve().parents[3]


def _protocol_contract_block() -> str:
    text = (REPOSITORY / "PROTOCOL.md").read_text(encoding="utf-8")
    section = text.split("\n## 3. ", 1)[1].split("\n## 4. ", 1)[0]
    blocks = re.findall(r"```text\n(.*?)\n```", section, flags=re.DOTALL)
    assert len(blocks) == 1, "PROTOCOL.md §3 must hold exactly one text block: the contract"
    return str(blocks[0])


def test_contract_is_byte_identical_to_protocol_md():
    assert _protocol_contract_block() == COMMUNICATION_CONTRACT


def test_contract_is_one_intro_line_and_exactly_six_rules():
    intro, blank, *rules = COMMUNICATION_CONTRACT.split("\n")
    assert intro == "Herdr Link is the agent channel for the current Herdr workspace." and blank == ""
    assert [rule.split(".", 1)[0] for rule in rules] == ["1", "2", "3", "4", "5", "6"]


def test_contract_names_the_communication_tools_by_their_own_names():
    for tool in (SEND_TOOL, PEERS_TOOL, CLOSE_TOOL):
        assert re.search(rf"\b{tool}\b", COMMUNICATION_CONTRACT), tool


NAMESPACED_FORMS = [
    PresentationForm.MCP_PREFIXED,
    PresentationForm.MCP_NAMESPACED,
    PresentationForm.MCP_SINGLE_PREFIX,
    PresentationForm.MCP_WRAPPER,
    PresentationForm.SERVER_DASH,
    PresentationForm.SERVER_UNDERSCORE,
    PresentationForm.SERVER_DOUBLE_UNDERSCORE,
    PresentationForm.SERVER_TRIPLE_UNDERSCORE,
    PresentationForm.XD_DEVICE,
]


@pytest.mark.parametrize("form", list(PresentationForm))
def test_each_presentation_is_the_contract_plus_its_golden_appendix(form, golden):
    namespace = "herdr_link" if form in NAMESPACED_FORMS else None
    text = active_presentation(form, namespace)
    assert text.startswith(COMMUNICATION_CONTRACT + "\n\n")
    golden(f"presentation-{form.value}.txt", text)


@pytest.mark.parametrize("form", NAMESPACED_FORMS)
def test_namespaced_forms_have_no_default_namespace(form):
    for namespace in (None, "", "bad name", "x" * 65):
        with pytest.raises(ValueError):
            active_presentation(form, namespace)


_NAMESPACE_RULE = re.compile(r"[A-Za-z0-9_-]{1,64}")


@given(
    st.one_of(
        st.text(max_size=70),
        st.text(alphabet="ab_-9Zé\n\u0130", max_size=66),
        st.from_regex(_NAMESPACE_RULE, fullmatch=True),
    )
)
def test_a_namespace_is_1_to_64_ascii_letters_digits_underscores_or_hyphens(namespace):
    form = PresentationForm.MCP_PREFIXED
    try:
        accepted = presented_tool_name(GATEWAY_TOOL, form, namespace) == f"mcp__{namespace}__{GATEWAY_TOOL}"
    except ValueError:
        accepted = False
    assert accepted == bool(_NAMESPACE_RULE.fullmatch(namespace))


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        (PresentationForm.MCP_PREFIXED, "mcp__herdr_link__herdr_link_send"),
        (PresentationForm.MCP_NAMESPACED, "herdr_link_send"),
        (PresentationForm.MCP_SINGLE_PREFIX, "mcp_herdr_link_herdr_link_send"),
        (PresentationForm.MCP_WRAPPER, "herdr_link_send"),
        (PresentationForm.MCP_PLAIN, "herdr_link_send"),
        (PresentationForm.GATEWAY_DISPATCH, 'herdr_link action "send"'),
        (PresentationForm.DEFERRED_TOOLS, "herdr_link_send"),
        (PresentationForm.SERVER_DASH, "herdr_link-herdr_link_send"),
        (PresentationForm.SERVER_UNDERSCORE, "herdr_link_herdr_link_send"),
        (PresentationForm.SERVER_DOUBLE_UNDERSCORE, "herdr_link__herdr_link_send"),
        (PresentationForm.SERVER_TRIPLE_UNDERSCORE, "herdr_link___herdr_link_send"),
        (PresentationForm.XD_DEVICE, "mcp__herdr_link_send"),
    ],
)
def test_presented_names_end_with_the_canonical_name_or_map_to_an_action(form, expected):
    assert presented_tool_name(SEND_TOOL, form, "herdr_link") == expected


def test_presented_name_matches_the_typescript_example(ts_fixtures):
    name = presented_tool_name(SEND_TOOL, PresentationForm.MCP_PREFIXED, "herdr_link")
    assert name == ts_fixtures["presented_name_example"]


def test_every_mcp_presentation_teaches_the_gateway_dispatch_fallback():
    for form in (*NAMESPACED_FORMS, PresentationForm.MCP_PLAIN, PresentationForm.GATEWAY_DISPATCH):
        text = active_presentation(form, "herdr_link" if form in NAMESPACED_FORMS else None)
        assert '"action":"send"' in text and "start, peers, send, close" in text


def test_prefixed_presentation_names_every_tool_as_the_host_shows_it():
    text = active_presentation(PresentationForm.MCP_PREFIXED, "herdr_link")
    for tool in (GATEWAY_TOOL, START_TOOL, PEERS_TOOL, SEND_TOOL, CLOSE_TOOL):
        assert f"mcp__herdr_link__{tool}" in text


def test_the_xd_device_form_names_each_device_as_oh_my_pi_mounts_it():
    """oh-my-pi 18.2.3 names an MCP tool ``mcp__<server>_<tool>``, dropping the tool's own ``<server>_``
    (``mintMCPToolName``), and runs a device by a write to ``xd://<device>``."""
    form = PresentationForm.XD_DEVICE
    assert presented_tool_name(GATEWAY_TOOL, form, "herdr_link") == "mcp__herdr_link_herdr_link"
    assert presented_tool_name(PEERS_TOOL, form, "links") == "mcp__links_herdr_link_peers"
    text = active_presentation(form, "herdr_link")
    for device in ("mcp__herdr_link_start", "mcp__herdr_link_peers", "mcp__herdr_link_send", "mcp__herdr_link_close"):
        assert f"xd://{device}" in text
    assert "write" in text and "to xd://mcp__herdr_link_herdr_link" in text
    hint = tier0_hint(form, "herdr_link")
    assert "xd://mcp__herdr_link_herdr_link" in hint and "tool search" not in hint


def test_unknown_tools_have_no_presented_name():
    with pytest.raises(ValueError):
        presented_tool_name("herdr_link_wait", PresentationForm.MCP_PLAIN)


def test_protocol_md_argument_table_matches_the_code():
    from herdr_link_protocol import ARGUMENT_ERRORS

    text = (REPOSITORY / "PROTOCOL.md").read_text(encoding="utf-8")
    table = text.split("<!-- argument-errors:begin -->\n", 1)[1].split("<!-- argument-errors:end -->", 1)[0]
    rows = [
        tuple(cell.strip().strip("`") for cell in line.strip("|").split("|")) for line in table.strip().split("\n")[2:]
    ]
    shown = {"topology": "(raw id or layout)"}

    def code(entry: object) -> str:
        return entry.code.value if isinstance(entry, Cause) else "protocol-level" if entry is None else str(entry)

    expected = [
        (tool, shown.get(field, field), code(entry))
        for tool, fields in ARGUMENT_ERRORS.items()
        for field, entry in fields.items()
    ]
    assert rows == expected


def test_protocol_md_names_every_raw_id_key_the_code_refuses():
    from herdr_link_protocol._arguments import TOPOLOGY_KEYS

    text = (REPOSITORY / "PROTOCOL.md").read_text(encoding="utf-8")
    section = text.split("### 7.2", 1)[1].split("### 7.3", 1)[0]
    assert all(f"`{key}`" in section for key in TOPOLOGY_KEYS)


def _marked_table(name: str) -> list[tuple[str, ...]]:
    text = (REPOSITORY / "PROTOCOL.md").read_text(encoding="utf-8")
    table = text.split(f"<!-- {name}:begin -->\n", 1)[1].split(f"<!-- {name}:end -->", 1)[0]
    return [
        tuple(cell.strip().strip("`") for cell in line.strip("|").split("|")) for line in table.strip().split("\n")[2:]
    ]


def test_protocol_md_lists_every_agent_facing_reason_the_code_has():
    assert _marked_table("reasons") == [(cause.code.value, cause.template) for cause in Cause]


@pytest.mark.parametrize(
    ("form", "arguments"),
    [
        ("`{}`", {}),
        ('`{"action":"activate"}`', {"action": "activate"}),
        ('`{"action":null}`', {"action": None}),
        ('`{"action": A, "arguments": {...}}`', {"action": "peers", "arguments": {}}),
        ('`{"action":"close","agent":"worker"}`', {"action": "close", "agent": "worker"}),
    ],
)
def test_protocol_md_describes_every_gateway_form_the_code_reads(form, arguments):
    from herdr_link_protocol._tools import parse_gateway_call

    section = (REPOSITORY / "PROTOCOL.md").read_text(encoding="utf-8").split("### 4.1", 1)[1].split("### 4.2", 1)[0]
    assert form in section
    parse_gateway_call(arguments)  # the form is one the code reads


@pytest.mark.parametrize("form", list(PresentationForm))
def test_tier0_hints_name_only_the_gateway(form):
    from herdr_link_protocol import TIER1_TOOLS

    namespace = "herdr_link" if form in NAMESPACED_FORMS else None
    hint = tier0_hint(form, namespace)
    assert presented_tool_name(GATEWAY_TOOL, form, namespace) in hint
    assert not any(tool in hint for tool in TIER1_TOOLS) and COMMUNICATION_CONTRACT not in hint
    assert len(hint.encode()) < 400
