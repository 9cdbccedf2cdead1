"""The times both READMEs state are cells of ``docs/benchmarks.md`` as ``nox -s bench`` writes it, copied
as written there (ranges are the smallest and largest of the cells they span). No timing is asserted:
only that the READMEs cannot drift from the file the bench regenerates."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _table(header: str) -> dict[str, list[str]]:
    """The rows of the ``docs/benchmarks.md`` tables whose header row starts with ``header``, by first cell."""
    rows: dict[str, list[str]] = {}
    inside = False
    for line in (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            inside = False
            continue
        if line.startswith(f"| {header}"):
            inside = True
            continue
        if inside and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows[cells[0]] = cells[1:]
    assert rows, f"docs/benchmarks.md has no table headed {header!r}"
    return rows


def _span(values: list[str]) -> str:
    ordered = sorted(values, key=float)
    return f"{ordered[0]}–{ordered[-1]}"


def expected() -> dict[str, list[str]]:
    """What each README row (by its position among the timing rows) must contain, from the bench's cells."""
    round_trips = _table("operation | ours ms | TypeScript ms")
    costs = _table("operation | Herdr calls | depth | overhead")
    rows = _table("what | ours ms | TypeScript ms | ours / TypeScript |")  # the start and activation tables
    calls = [round_trips[op] for op in ("peers", "send", "close")]
    overhead = [costs[op] for op in ("peers", "send", "send to a missing peer", "close", "start, new tab",
                                    "start, with", "first call of an unnamed agent (peers)")]  # fmt: skip
    typescript_overhead = [cells[5] for cells in overhead if cells[5] != "—"]
    kinds = ("host re-lists (Claude Code)", "host known never to re-list (Codex)", "host unknown, never re-lists")
    activation = [rows[f"activation, server up, {kind}"] for kind in kinds]
    fresh = [rows[f"activation on a fresh server, {kind}"] for kind in kinds]
    dormant = rows["spawn → dormant `tools/list` (the gateway), inside Herdr (target ≤ 2× TypeScript)"]
    first = rows["spawn → first activation (`herdr_link {}`) answered, inside Herdr"]
    tier1 = rows["spawn → first Tier 1 answer (`herdr_link_peers`), inside Herdr"]
    memory = rows["resident memory of an idle server (MiB, `VmRSS`)"]
    return {
        "activation": [" / ".join(cells[0] for cells in activation) + " ms", _span([c[1] for c in activation]) + " ms"],
        "fresh": [" / ".join(cells[0] for cells in fresh) + " ms", _span([c[1] for c in fresh]) + " ms"],
        "call": [
            " / ".join(c[0] for c in calls) + " ms",
            " / ".join(c[1] for c in calls) + " ms",
            _span([c[2] for c in calls]),
        ],
        "overhead": [_span([c[2] for c in overhead]) + " ms", _span(typescript_overhead) + " ms"],
        "spawn": [dormant[0] + " ms", dormant[1] + " ms", dormant[2].rstrip("×")],
        "first": [first[0] + " ms", first[1] + " ms", first[2].rstrip("×")],
        "tier1": [tier1[0] + " ms", tier1[1] + " ms", tier1[2].rstrip("×")],
        "memory": [memory[0] + " MiB", memory[1] + " MiB"],
    }


ROW_MARKS = {
    "activation": "`RELIST_WAIT`",
    "fresh": ("fresh server", "新启动的服务器"),
    "call": "`tools/call`",
    "overhead": "p50",
    "spawn": "`tools/list`",
    "first": ("first activation", "第一次激活"),
    "tier1": ("first Tier 1", "第一个 Tier 1"),
    "memory": "MiB",
}
"""A piece of text that picks each row out of both READMEs' measured table (the first row holding it
among those with a time): one for both, or the English README's and the Chinese one's."""


def _readme_row(path: Path, mark: str) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and mark in line and re.search(r"\d (ms|MiB)", line):
            return line
    raise AssertionError(f"{path.name}: no measured row with {mark!r}")


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
@pytest.mark.parametrize("row", sorted(ROW_MARKS))
def test_each_time_a_readme_states_is_the_benchmarks_cell(readme, row):
    mark = ROW_MARKS[row]
    line = _readme_row(ROOT / readme, mark if isinstance(mark, str) else mark[readme != "README.md"])
    missing = [fragment for fragment in expected()[row] if fragment not in line]
    assert missing == [], f"{readme}: {line}"
