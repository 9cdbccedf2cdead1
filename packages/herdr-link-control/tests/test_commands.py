import pytest

from herdr_link_control import HerdrCommandError, Role, RunResult, classify
from herdr_link_control._commands import CLASSIFICATION, parse_agent_record, parse_agent_rows, tab_create
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
        (Role.SELF_WORKSPACE, "agent_not_found", Cause.NOT_A_PEER),
        (Role.TARGET, "agent_not_found", Cause.NOT_A_PEER),
        (Role.ANCHOR, "agent_not_found", Cause.NOT_A_PEER),
        (Role.PROMPT, "agent_blocked", Cause.SEND_REJECTED),
        (Role.PROMPT, "agent_not_ready", Cause.SEND_REJECTED),
        (Role.PROMPT, "agent_prompt_failed", Cause.SEND_REJECTED),
        (Role.PROMPT, "agent_not_found", Cause.NOT_A_PEER),
        (Role.CLOSE, "pane_not_found", Cause.CLOSE_REJECTED),
        (Role.CLOSE, "confirmation_required", Cause.CLOSE_REJECTED),
        (Role.START, "agent_not_found", Cause.START_REJECTED),
        (Role.START, "agent_pane_busy", Cause.START_REJECTED),
        (Role.START, "timeout", Cause.START_REJECTED),
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


@pytest.mark.parametrize("code", ["server_not_running", "protocol_mismatch", "server_unavailable", "internal_error"])
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
        RunResult(2, "", "usage: herdr agent get"),
    ],
)
@pytest.mark.parametrize("role", list(Role))
def test_anything_but_json_or_a_structured_error_is_not_in_herdr(role, result):
    assert _raise(role, result).code is ErrorCode.NOT_IN_HERDR


def test_agent_starts_usage_error_means_an_unsupported_kind():
    error = _raise(Role.START, RunResult(2, "", "unsupported interactive agent kind: vim\n"), ["agent", "start", "w"])
    assert error.cause is Cause.START_KIND_UNSUPPORTED and error.code is ErrorCode.START_INPUT_INVALID


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
