"""Counts and sizes the READMEs state, checked against the code that has them, so that a README
cannot drift from a changed check list, doctor or dormant surface. Each figure is read from the text
(a pattern that no longer matches fails too), never copied here."""

import json
import re
from pathlib import Path

import pytest

from herdr_link import diagnose
from herdr_link_conformance import CHECKS, AdapterSpec
from herdr_link_protocol import WRAPPER_HEADER, dormant_tools_list

ROOT = Path(__file__).resolve().parents[1]


def _figures(path: str, pattern: str) -> list[int]:
    """Every number the pattern's group captures in the file (at least one)."""
    found = [int(n.replace(",", "")) for n in re.findall(pattern, (ROOT / path).read_text(encoding="utf-8"))]
    assert found, f"{path}: no {pattern!r} any more: reword the test with the text"
    return found


def _compact(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def test_the_doctors_check_count(tmp_path):
    count = len(diagnose({"PATH": "/usr/bin"}, tmp_path, tmp_path))
    assert _figures("packages/herdr-link/README.md", r"the same (\d+) checks every time") == [count]


def test_the_conformance_check_counts():
    bridge = AdapterSpec.parse("bridge", "herdr-link-bridge", frozenset()).capabilities
    applies = sum(check.needs <= bridge for check in CHECKS)
    assert set(_figures("README.md", r"(\d+) checks of")) == {len(CHECKS)}
    assert _figures("README.md", r"the (\d+)\s+conformance checks against our MCP server") == [len(CHECKS)]
    assert _figures("README.md", r"the (\d+) of them that apply to a bridge") == [applies]
    assert _figures("README.md", r"\| `herdr-link-bridge` \| (\d+) \|") == [applies]
    assert _figures("README.zh-CN.md", r"\| `herdr-link-bridge` \| (\d+) \|") == [applies]
    assert _figures("README.zh-CN.md", r"运行 (\d+) 项检查") == [len(CHECKS)]


def test_the_wrapper_figures():
    assert _figures("README.md", r"\| fixed wrapper text per message \| (\d+) B") == [len(WRAPPER_HEADER.encode())]
    assert _figures("README.zh-CN.md", r"\| 每条消息的固定包装文本 \| (\d+) B") == [len(WRAPPER_HEADER.encode())]
    assert _figures("docs/benchmarks.md", r"\| … of which the fixed text around the envelope \| (\d+) \|") == [
        len(WRAPPER_HEADER.encode())
    ]
    assert _figures("PROTOCOL.md", r"at most \d+ bytes \((\d+) today\)") == [len(WRAPPER_HEADER.encode())]


@pytest.mark.parametrize(
    ("path", "pattern", "measure"),
    [
        ("README.md", r"a ([\d,]+)-byte `tools` array", "array"),
        ("README.md", r"\| dormant `tools/list` \(the `tools` array\) \| ([\d,]+) B", "array"),
        ("README.zh-CN.md", r"`tools` 数组 ([\d,]+) 字节", "array"),
        ("packages/herdr-link-mcp/README.md", r"([\d,]+) bytes of the `tools/list` result", "result"),
    ],
)
def test_the_dormant_surface_sizes(path, pattern, measure):
    tools = dormant_tools_list()
    expected = _compact(tools) if measure == "array" else _compact({"tools": tools})
    assert _figures(path, pattern) == [expected]
