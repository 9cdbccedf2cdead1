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
