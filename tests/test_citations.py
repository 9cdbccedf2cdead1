"""Every fact the repository relies on is cited inside it: no file points a reader at a document that is
not in the repository (the notes our sessions worked from), and every ``docs/herdr.md §N`` a file
cites names a section that page has."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"herdr-cli\.md|shared/reference|\.\./shared/|hosts-observed\.md|anchor-behaviour\.md")
"""How a reference to the notes outside the repository reads."""


def tracked() -> list[Path]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / name for name in listed.splitlines() if (ROOT / name).is_file()]


def test_no_file_cites_a_document_outside_the_repository():
    found = []
    for path in tracked():
        if path.suffix not in (".py", ".md", ".toml", ".js", ".mjs", ".ts", ".json", ".txt", ".yml", ".yaml", ""):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    found = [hit for hit in found if not hit.startswith("tests/test_citations.py")]
    assert found == []


def test_every_cited_section_of_the_herdr_page_exists():
    sections = set(re.findall(r"^##+ (\d+(?:\.\d+)?)\.? ", (ROOT / "docs" / "herdr.md").read_text(), re.M))
    cited = set()
    for path in tracked():
        if path.suffix in (".py", ".md"):
            for match in re.finditer(
                r"docs/herdr\.md`*\s*((?:§\d+(?:\.\d+)?(?:-§?\d+(?:\.\d+)?)?[,;]?\s*)+)", path.read_text()
            ):
                cited |= set(re.findall(r"(\d+(?:\.\d+)?)", match.group(1)))
    assert cited and cited <= sections, sorted(cited - sections)
