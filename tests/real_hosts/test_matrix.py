"""The host matrix writer keeps what a session did not run exactly as the file had it."""

from pathlib import Path

import matrix
import pytest


def test_a_write_that_ran_nothing_leaves_the_matrix_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    copy = tmp_path / "host-matrix.md"
    copy.write_text(matrix.MATRIX.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(matrix, "MATRIX", copy)
    monkeypatch.setattr(matrix, "ROWS", [])
    monkeypatch.setattr(matrix, "STORY", {})
    monkeypatch.setattr(matrix, "SCENARIOS", [])
    before = copy.read_text(encoding="utf-8")
    assert matrix.STORY_HEADING in before and matrix.SCENARIOS_HEADING in before
    matrix.write()
    matrix.write()
    assert copy.read_text(encoding="utf-8") == before


def test_every_host_the_table_wires_has_a_line_saying_what_ran_or_why_nothing_did():
    text = matrix.MATRIX.read_text(encoding="utf-8").split(matrix.WIRED_HEADING, 1)[1]
    wired = [host for host in matrix.HOSTS if host.servers is not None or host.extension is not None]
    for host in wired:
        assert f"| {host.title} | `{host.kind}` | " in text, host
    assert set(matrix.NOT_RUN) <= {host.name for host in wired}


def test_a_build_is_found_by_the_hosts_title_and_never_by_another_hosts(tmp_path: Path):
    runs = {"Pi 1.6.0", "Claude Code 2.1.332", "OpenCode 1.18.33 (plugin, runtime v1)", "Kilo Code 7.7.7"}
    by_name = {host.name: host for host in matrix.HOSTS}
    assert matrix.ran(by_name["pi"], runs) == ["Pi 1.6.0"]
    assert matrix.ran(by_name["opencode"], runs) == ["OpenCode 1.18.33"]
    assert matrix.ran(by_name["kilo"], runs) == ["Kilo Code 7.7.7"]
    assert matrix.ran(by_name["copilot"], runs) == []
