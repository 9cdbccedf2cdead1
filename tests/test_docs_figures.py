"""Counts and sizes the READMEs state, checked against the code that has them, so that a README
cannot drift from a changed check list, doctor or dormant surface. Each figure is read from the text
(a pattern that no longer matches fails too), never copied here."""

import json
import re
from pathlib import Path

import pytest

from herdr_link_conformance import CAPABILITIES, AdapterSpec
from herdr_link_protocol import WRAPPER_HEADER, dormant_tools_list

ROOT = Path(__file__).resolve().parents[1]


def _figures(path: str, pattern: str) -> list[int]:
    """Every number the pattern's group captures in the file (at least one)."""
    found = [int(n.replace(",", "")) for n in re.findall(pattern, (ROOT / path).read_text(encoding="utf-8"))]
    assert found, f"{path}: no {pattern!r} any more: reword the test with the text"
    return found


def _compact(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _skipped_row(path: str, label: str) -> set[str]:
    """The capability names the README's "skipped" table gives for one adapter."""
    rows = [line for line in (ROOT / path).read_text(encoding="utf-8").splitlines() if line.startswith(f"| {label} |")]
    assert len(rows) == 1, f"{path}: no single row for {label}: reword the test with the text"
    named = rows[0].split("|")[2].split(":")[0]
    return set(re.findall(r"`(\w+)`", named))


@pytest.mark.parametrize("path", ["README.md", "README.zh-CN.md"])
@pytest.mark.parametrize(
    ("labels", "spec"),
    [
        (("`herdr-link-mcp`",), ("mcp", "herdr-link-mcp")),
        (("`herdr-link-bridge`",), ("bridge", "herdr-link-bridge")),
        (("the Pi extension", "Pi 扩展"), ("stub", "pi:x.js")),
        (("the OpenCode 1.x plugin", "OpenCode 1.x 插件"), ("stub", "opencode-v1:x.js")),
        (("the OpenCode 2 plugin", "OpenCode 2 插件"), ("stub", "opencode-v2:x.js")),
    ],
)
def test_the_checks_each_adapter_skips(path, labels, spec):
    """The README names, per adapter, the capabilities whose checks it skips; no count that a new
    check would change."""
    label = labels[0] if path == "README.md" or len(labels) == 1 else labels[1]
    lacks = CAPABILITIES - AdapterSpec.parse(*spec).capabilities
    assert _skipped_row(path, label) == lacks


def test_the_wrapper_figures():
    """The READMEs and PROTOCOL.md state the cap, which the wrapper keeps; the generated benchmarks
    give this release's bytes."""
    size = len(WRAPPER_HEADER.encode())
    cap = _figures("PROTOCOL.md", r"fixed text around the envelope is at most (\d+) bytes")
    assert _figures("README.md", r"\| fixed wrapper text per message \| at most (\d+) B") == cap
    assert _figures("README.zh-CN.md", r"\| 每条消息的固定包装文本 \| 至多 (\d+) B") == cap
    assert size <= cap[0]
    assert _figures("docs/benchmarks.md", r"\| … of which the fixed text around the envelope \| (\d+) \|") == [size]


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


ADAPTER_ROWS = [
    ("`herdr-link-mcp`", ("mcp", "herdr-link-mcp")),
    ("`herdr-link-bridge`", ("bridge", "herdr-link-bridge")),
    ("the Pi extension (`--stub pi:…`)", ("stub", "pi:x.js")),
    ("the OpenCode 1.x plugin (`--stub opencode-v1:…`)", ("stub", "opencode-v1:x.js")),
    ("the OpenCode 2 plugin (`--stub opencode-v2:…`)", ("stub", "opencode-v2:x.js")),
]


def test_the_kit_size_docs_conformance_gives():
    from herdr_link_conformance import CHECKS

    assert _figures("docs/conformance.md", r"The kit has (\d+) checks") == [len(CHECKS)]
    assert _figures("docs/conformance.md", r"## Result on the TypeScript server: \d+ of (\d+) checks pass") == [
        len(CHECKS)
    ]
    assert _figures("README.md", r"36 of the kit's (\d+) checks pass") == [len(CHECKS)]
    assert _figures("README.zh-CN.md", r"该工具的 (\d+) 项检查中通过 36 项") == [len(CHECKS)]


@pytest.mark.parametrize(("label", "spec"), ADAPTER_ROWS, ids=[spec[1] for _, spec in ADAPTER_ROWS])
def test_what_each_of_our_adapters_passes_and_skips_in_docs_conformance(label, spec):
    """Each row's counts: every check whose capabilities the adapter claims passes (CI holds that), the
    others are skipped."""
    from herdr_link_conformance import CHECKS

    claimed = AdapterSpec.parse(*spec).capabilities
    passes = sum(check.needs <= claimed for check in CHECKS)
    rows = [line for line in (ROOT / "docs/conformance.md").read_text(encoding="utf-8").splitlines()
            if line.startswith(f"| {label} |")]  # fmt: skip
    assert len(rows) == 1, f"no single row for {label}: reword the test with the text"
    found = re.search(r"\| (\d+) pass(?:, (\d+) skipped)?", rows[0])
    assert found, rows[0]
    assert (int(found[1]), int(found[2] or 0)) == (passes, len(CHECKS) - passes)


def test_the_herdr_releases_the_readmes_name():
    """Each README names every release the simulator models, with the socket protocol it speaks, and no
    other: a new release's row is named there too (``docs/architecture.md``'s typical changes)."""
    from herdr_link_testkit import HERDR_VERSIONS

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    said = dict(re.findall(r"(\d+\.\d+\.\d+) \((?:socket )?protocol (\d+)\)", text))
    assert said and {version: int(protocol) for version, protocol in said.items()} == HERDR_VERSIONS
    text = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    said = dict(re.findall(r"(\d+\.\d+\.\d+)（(?:socket )?协议 (\d+)）", text))
    assert said and {version: int(protocol) for version, protocol in said.items()} == HERDR_VERSIONS
