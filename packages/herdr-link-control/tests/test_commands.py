from pathlib import Path

import pytest

from herdr_link_control import HerdrCommandError, Role, RunResult, classify
from herdr_link_control._herdr_argv import (
    CLASSIFICATION,
    HERDR_ERROR_CODES,
    TRANSPORT_CODES,
    parse_agent_record,
    parse_agent_rows,
    tab_create,
)
from herdr_link_protocol import AgentState, Cause, ErrorCode, LinkError

ARGV = ["agent", "get", "x"]


def _raise(role: Role, result: RunResult, argv: list[str] = ARGV) -> LinkError:
    with pytest.raises(LinkError) as caught:
        classify(argv, role, result)
    return caught.value


@pytest.mark.parametrize(
    ("role", "code", "cause"),
    [
        (Role.SELF, "agent_not_found", Cause.SELF_NOT_DETECTED),
        (Role.SELF, "agent_target_ambiguous", Cause.NO_STABLE_NAME),
        (Role.CALLER_WORKSPACE, "agent_not_found", Cause.CALLER_NOT_REPORTED),
        (Role.START_CALLER, "agent_not_found", Cause.START_CALLER_NOT_REPORTED),
        (Role.TARGET, "agent_not_found", Cause.NOT_A_PEER),
        (Role.ANCHOR, "agent_not_found", Cause.NOT_A_PEER),
        (Role.PROMPT, "agent_blocked", Cause.SEND_TARGET_BLOCKED),
        (Role.PROMPT, "agent_not_ready", Cause.SEND_TARGET_NOT_READY),
        (Role.PROMPT, "agent_launch_pending", Cause.SEND_REJECTED),
        (Role.PROMPT, "agent_prompt_failed", Cause.SEND_REJECTED),
        (Role.PROMPT, "agent_not_found", Cause.NOT_A_PEER),
        (Role.CLOSE, "pane_not_found", Cause.CLOSE_REJECTED),
        (Role.CLOSE, "confirmation_required", Cause.CLOSE_REJECTED),
        (Role.AGENT_START, "agent_not_found", Cause.START_REJECTED),
        (Role.AGENT_START, "agent_pane_busy", Cause.START_REJECTED),
        (Role.AGENT_START, "timeout", Cause.START_REJECTED),
        (Role.AGENT_START, "agent_not_ready", Cause.START_AGENT_WAITING),
        (Role.AGENT_START, "agent_blocked", Cause.START_REJECTED),
        (Role.AGENT_START, "agent_name_taken", Cause.START_NAME_TAKEN),
        (Role.AGENT_START, "unsupported_agent_kind", Cause.START_KIND_UNSUPPORTED),
        (Role.TAB_CREATE, "workspace_not_found", Cause.START_PLACEMENT_REFUSED),
        (Role.PANE_SPLIT, "pane_split_failed", Cause.START_PLACEMENT_REFUSED),
        (Role.PANE_LIST, "internal_error", Cause.START_PLACEMENT_REFUSED),
        (Role.PEERS, "internal_error", Cause.PEERS_REFUSED),
        (Role.PROMPT, "internal_error", Cause.SEND_REJECTED),
        (Role.PROMPT, "invalid_request", Cause.SEND_REJECTED),
        (Role.CLOSE, "not_implemented", Cause.CLOSE_REJECTED),
        (Role.TARGET, "internal_error", Cause.NOT_A_PEER),
        (Role.BOOTSTRAP_RENAME, "agent_launch_pending", Cause.NO_STABLE_NAME),
    ],
)
def test_structured_errors_map_by_role(role, code, cause):
    for result in (
        RunResult(1, "", f'{{"error":{{"code":"{code}","message":"m"}},"id":"cli:x"}}\n'),
        RunResult(1, f'{{"error":{{"code":"{code}","message":"m"}},"id":"cli:x"}}\n', ""),
        RunResult(0, f'{{"error":{{"code":"{code}"}}}}', ""),
    ):
        error = _raise(role, result)
        assert error.cause is cause and isinstance(error, HerdrCommandError) and error.herdr_code == code


@pytest.mark.parametrize("code", sorted(TRANSPORT_CODES))
@pytest.mark.parametrize("role", list(Role))
def test_herdr_being_unusable_is_not_in_herdr_for_every_role(role, code):
    assert (
        _raise(role, RunResult(1, "", f'{{"error":{{"code":"{code}","message":"m"}}}}')).code is ErrorCode.NOT_IN_HERDR
    )


@pytest.mark.parametrize(
    "result",
    [
        RunResult(0, "", ""),
        RunResult(0, "not json", ""),
        RunResult(0, "[1]", ""),
        RunResult(1, "", "boom"),
        RunResult(101, "", "thread 'main' panicked"),
        RunResult(-9, "", ""),
    ],
)
@pytest.mark.parametrize("role", list(Role))
def test_anything_but_json_or_a_structured_error_is_not_in_herdr(role, result):
    assert _raise(role, result).code is ErrorCode.NOT_IN_HERDR


@pytest.mark.parametrize("role", [role for role in Role if role is not Role.AGENT_START])
def test_a_usage_error_outside_agent_start_is_not_in_herdr(role):
    assert _raise(role, RunResult(2, "", "usage: herdr agent get")).code is ErrorCode.NOT_IN_HERDR


def test_agent_starts_usage_refusal_is_start_failed():
    error = _raise(
        Role.AGENT_START, RunResult(2, "", "unsupported interactive agent kind: vim\n"), ["agent", "start", "w"]
    )
    assert error.cause is Cause.START_KIND_UNSUPPORTED and error.code is ErrorCode.START_FAILED
    assert str(error) == str(LinkError(Cause.START_KIND_UNSUPPORTED))


def _protocol_md_outcomes() -> dict[str, tuple[str, dict[str, str]]]:
    text = (Path(__file__).resolve().parents[3] / "PROTOCOL.md").read_text(encoding="utf-8")
    table = text.split("<!-- herdr-outcomes:begin -->\n", 1)[1].split("<!-- herdr-outcomes:end -->", 1)[0]
    rows = {}
    for line in table.strip().split("\n")[2:]:
        role, _call, refusal, exceptions = (cell.strip() for cell in line.strip("|").split("|"))
        pairs = [part.split(" → ") for part in exceptions.split("; ")] if exceptions != "—" else []
        rows[role.strip("`")] = (refusal.strip("`"), {code.strip("`"): text.strip("`") for code, text in pairs})
    return rows


def test_protocol_md_states_the_outcome_table_of_the_code():
    documented = _protocol_md_outcomes()
    assert list(documented) == [role.value for role in CLASSIFICATION]
    for role, (default, exceptions) in CLASSIFICATION.items():
        assert documented[role.value] == (
            str(LinkError(default)),
            {k: str(LinkError(v)) for k, v in exceptions.items()},
        )


@pytest.mark.parametrize("herdr_code", HERDR_ERROR_CODES)
@pytest.mark.parametrize("role", list(Role))
def test_every_role_answers_every_herdr_code_as_protocol_md_says(role, herdr_code):
    error = _raise(role, RunResult(1, "", f'{{"error":{{"code":"{herdr_code}","message":"pane w1:p2 m"}}}}'))
    if herdr_code in TRANSPORT_CODES:
        assert error.code is ErrorCode.NOT_IN_HERDR
        return
    refusal, exceptions = _protocol_md_outcomes()[role.value]
    assert str(error) == exceptions.get(herdr_code, refusal)
    assert "w1:p2" not in str(error) and "w1:p2" in error.detail


def test_a_non_string_herdr_message_is_read_as_empty():
    error = _raise(Role.PROMPT, RunResult(1, "", '{"error":{"code":"agent_blocked","message":{"pane":"w1:p2"}}}'))
    assert error.cause is Cause.SEND_TARGET_BLOCKED and error.detail == "herdr agent get: agent_blocked: "


def test_a_json_reply_is_returned():
    assert classify(ARGV, Role.TARGET, RunResult(0, '{"result":{"type":"ok"}}\n', "")) == {"result": {"type": "ok"}}


def test_every_role_has_a_table_row():
    assert set(CLASSIFICATION) == set(Role)


@pytest.mark.parametrize(
    "reply",
    [
        {"result": {"agent": {"name": "brain", "workspace_id": "w1", "pane_id": "w1:p1", "agent_status": "working"}}},
        {"agent": {"name": "brain", "workspace_id": "w1", "pane_id": "w1:p1", "agent_status": "working"}},
        {"result": {"name": "brain", "workspace_id": "w1", "pane_id": "w1:p1", "status": "WORKING"}},
        {"name": "brain", "workspace_id": "w1", "pane_id": "w1:p1", "agent_status": "working"},
    ],
)
def test_agent_records_are_read_from_every_known_shape(reply):
    record = parse_agent_record(reply)
    assert record is not None
    assert (record.name, record.workspace_id, record.pane_id, record.state) == (
        "brain",
        "w1",
        "w1:p1",
        AgentState.WORKING,
    )


def test_invalid_names_and_states_are_normalised():
    record = parse_agent_record(
        {"result": {"agent": {"name": "Not Valid", "pane_id": "w1:p1", "agent_status": "on_fire"}}}
    )
    assert (
        record is not None and record.name is None and record.state is AgentState.UNKNOWN and record.workspace_id == ""
    )


def test_agent_rows_accept_wrapped_and_bare_rows():
    rows = parse_agent_rows(
        {"result": {"agents": [{"agent": {"name": "a", "pane_id": "w1:p1"}}, {"name": "b", "pane_id": "w1:p2"}, 3]}}
    )
    assert [r.name for r in rows] == ["a", "b"]
    assert parse_agent_rows({"result": {"agents": "nope"}}) == []


def test_tab_create_puts_the_label_between_cwd_and_no_focus():
    assert tab_create("w1", "/p", "docs") == [
        "tab",
        "create",
        "--workspace",
        "w1",
        "--cwd",
        "/p",
        "--label",
        "docs",
        "--no-focus",
    ]
    assert tab_create("w1", "/p", None) == ["tab", "create", "--workspace", "w1", "--cwd", "/p", "--no-focus"]
