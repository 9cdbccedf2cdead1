import json
from pathlib import Path

import pytest

from herdr_link_protocol import ErrorCode, LinkError, NewTabPlacementConfig, WithPlacementConfig, parse_agent_config

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "agent_config.example.json"


def test_the_published_example_is_valid():
    config = parse_agent_config(EXAMPLE.read_text(encoding="utf-8"))
    assert set(config.agents) == {"example-single", "example-round-robin", "example-with"}
    assert config.agents["example-single"].placement == NewTabPlacementConfig(mode="new_tab", label="example")
    assert isinstance(config.agents["example-with"].placement, WithPlacementConfig)
    assert [v.args for v in config.agents["example-round-robin"].variants][1] == ("--model", "your-provider/model-b")


def test_args_default_to_empty():
    config = parse_agent_config('{"agents":{"a":{"placement":{"mode":"with"},"variants":[{"kind":"pi"}]}}}')
    assert config.agents["a"].variants[0].args == ()


def _entry(**entry: object) -> str:
    base: dict[str, object] = {"placement": {"mode": "new_tab"}, "variants": [{"kind": "pi"}]}
    base.update(entry)
    return json.dumps({"agents": {"a": {k: v for k, v in base.items() if v is not ...}}})


@pytest.mark.parametrize(
    "text",
    [
        '{"version":1,"agents":{}}',
        '{"agents":[]}',
        '{"agents":{" ":{"placement":{"mode":"with"},"variants":[{"kind":"pi"}]}}}',
        _entry(placement=...),
        _entry(placement={"mode": "split"}),
        _entry(placement={"mode": "with", "label": "x"}),
        _entry(placement={"mode": "new_tab", "label": " "}),
        _entry(placement={"mode": "new_tab", "label": None}),
        _entry(variants=[]),
        _entry(variants=[{"kind": " "}]),
        _entry(variants=[{"kind": "pi", "args": "x"}]),
        _entry(variants=[{"kind": "pi", "args": None}]),
        _entry(variants=[{"kind": "pi", "model": "x"}]),
        _entry(variants=[{"kind": "pi"}, {"kind": "pi"}]),
        _entry(strategy="random"),
        _entry(strategy=None),
        _entry(extra=True),
    ],
)
def test_schema_violations_are_start_config_invalid(text):
    with pytest.raises(LinkError) as caught:
        parse_agent_config(text)
    assert caught.value.code is ErrorCode.START_CONFIG_INVALID


def test_one_variant_may_declare_a_strategy():
    assert parse_agent_config(_entry(strategy="round-robin")).agents["a"].strategy == "round-robin"


@pytest.mark.parametrize("text", ["", "{", "not json", b"\xff"])
def test_non_json_is_start_config_invalid(text):
    with pytest.raises(LinkError) as caught:
        parse_agent_config(text)
    assert caught.value.code is ErrorCode.START_CONFIG_INVALID
