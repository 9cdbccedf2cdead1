import pytest

from herdr_link_protocol import (
    AgentName,
    ConfiguredStart,
    ErrorCode,
    ExplicitStart,
    LinkError,
    NewTabPlacement,
    NewTabPlacementConfig,
    StartCall,
    WithPlacement,
    WithPlacementConfig,
    check_agent_kind,
    parse_call,
    resolve_placement,
)


def validate_start_input(raw: object) -> ExplicitStart | ConfiguredStart:
    """The start request the one inbound parse reads from ``raw``."""
    call = parse_call("herdr_link_start", raw).call
    assert isinstance(call, StartCall)
    return call.request


def test_explicit_start_is_validated_into_a_request():
    request = validate_start_input({"name": "worker-1", "kind": "pi", "args": ["--model", "m"], "cwd": "sub"})
    assert request == ExplicitStart(name="worker-1", kind="pi", args=("--model", "m"), cwd="sub")


def test_configured_start_is_validated_into_a_request():
    request = validate_start_input({"name": "cv-01", "config_agent": "example-with", "with": "brain"})
    assert request == ConfiguredStart(name="cv-01", config_agent="example-with", with_="brain")


@pytest.mark.parametrize(
    "raw",
    [
        {"name": "w", "kind": "pi", "args": [], "pane": "w1:p2"},
        {"kind": "pi", "args": []},
        {"name": "Worker", "kind": "pi", "args": []},
        {"name": "w", "config_agent": "x", "kind": "pi"},
        {"name": "w", "config_agent": "x", "args": []},
        {"name": "w", "config_agent": "  "},
        {"name": "w", "kind": "pi"},
        {"name": "w", "args": []},
        {"name": "w"},
        {"name": "w", "kind": "--pane", "args": []},
        {"name": "w", "kind": "", "args": []},
        {"name": "w", "kind": "pi x", "args": []},
        {"name": "w", "kind": 3, "args": []},
        {"name": "w", "kind": "pi", "args": "--x"},
        {"name": "w", "kind": "pi", "args": [1]},
        {"name": "w", "kind": "pi", "args": ["a\nb"]},
        {"name": "w", "kind": "pi", "args": ["\x1b[2J"]},
        {"name": "w", "kind": "pi", "args": [], "with": "brain", "cwd": "/x"},
        {"name": "w", "kind": "pi", "args": [], "with": "Bad"},
        {"name": "w", "kind": "pi", "args": [], "cwd": " "},
        {"name": "w", "kind": "pi", "args": [], "cwd": 5},
    ],
)
def test_bad_start_input_is_start_input_invalid(raw):
    with pytest.raises(LinkError) as caught:
        validate_start_input(raw)
    assert caught.value.code is ErrorCode.START_INPUT_INVALID


def test_a_kind_can_never_be_read_as_an_option():
    for kind in ("-x", "--help", "--pane"):
        with pytest.raises(LinkError):
            check_agent_kind(kind)
    assert check_agent_kind("claude-code") == "claude-code"


NEW_TAB = NewTabPlacementConfig(mode="new_tab", label="reviews")
WITH = WithPlacementConfig(mode="with")


@pytest.mark.parametrize(
    ("raw", "configured", "expected"),
    [
        ({"name": "w", "kind": "pi", "args": []}, None, NewTabPlacement(None)),
        ({"name": "w", "kind": "pi", "args": [], "cwd": "x"}, None, NewTabPlacement("x")),
        ({"name": "w", "kind": "pi", "args": [], "with": "brain"}, None, WithPlacement(AgentName("brain"))),
        ({"name": "w", "config_agent": "c"}, NEW_TAB, NewTabPlacement(None, "reviews")),
        ({"name": "w", "config_agent": "c", "cwd": "/p"}, NEW_TAB, NewTabPlacement("/p", "reviews")),
        ({"name": "w", "config_agent": "c", "with": "brain"}, WITH, WithPlacement(AgentName("brain"))),
    ],
)
def test_placement_matrix_accepts(raw, configured, expected):
    assert resolve_placement(validate_start_input(raw), configured) == expected


@pytest.mark.parametrize(
    ("raw", "configured"),
    [
        ({"name": "w", "config_agent": "c", "with": "brain"}, NEW_TAB),
        ({"name": "w", "config_agent": "c"}, WITH),
        ({"name": "w", "config_agent": "c", "with": "brain", "cwd": "/p"}, WITH),
    ],
)
def test_placement_matrix_refuses_before_anything_is_allocated(raw, configured):
    with pytest.raises(LinkError) as caught:
        resolve_placement(validate_start_input(raw), configured)
    assert caught.value.code is ErrorCode.START_INPUT_INVALID


def test_placement_misuse_is_a_programming_error():
    with pytest.raises(ValueError):
        resolve_placement(validate_start_input({"name": "w", "config_agent": "c"}), None)
    with pytest.raises(ValueError):
        resolve_placement(validate_start_input({"name": "w", "kind": "pi", "args": []}), NEW_TAB)
