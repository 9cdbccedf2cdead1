"""The versioning policy (``docs/versioning.md``), where a test can hold it.

* Every distribution's version is a plain ``X.Y.Z`` release, read where its build reads it.
* Every dependency on a sibling is a range with an upper bound that admits the sibling's version in
  this workspace, and is no wider than the sibling's minor series (``>=X.Y,<X.(Y+1)`` while 0.x).
* The umbrella ``herdr-link`` depends on every other distribution, so ``pip install herdr-link`` is everything.
* Every entry of ``CHANGELOG.md`` above its policy marker starts with the distributions it concerns.
"""

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECTS: dict[str, dict[str, Any]] = {
    canonicalize_name(tomllib.loads(p.read_text())["project"]["name"]): tomllib.loads(p.read_text())
    for p in sorted((ROOT / "packages").glob("*/pyproject.toml"))
}
MARKER = "<!-- Entries above this line start with the distributions they concern (docs/versioning.md). -->"


def version_of(distribution: str) -> Version:
    """The version as the build reads it: ``project.version``, or the file ``tool.hatch.version`` names."""
    project = PROJECTS[distribution]
    if "version" in project["project"]:
        return Version(project["project"]["version"])
    module = ROOT / "packages" / distribution / project["tool"]["hatch"]["version"]["path"]
    found = re.search(r'__version__[^=]*=\s*"([^"]+)"', module.read_text())
    assert found, module
    return Version(found.group(1))


def sibling_requirements() -> list[tuple[str, Requirement]]:
    return [
        (name, requirement)
        for name, project in PROJECTS.items()
        for requirement in map(Requirement, project["project"].get("dependencies", []))
        if canonicalize_name(requirement.name) in PROJECTS
    ]


@pytest.mark.parametrize("distribution", sorted(PROJECTS))
def test_every_version_is_a_plain_release(distribution):
    version = version_of(distribution)
    assert str(version) == f"{version.major}.{version.minor}.{version.micro}" and not version.is_prerelease


@pytest.mark.parametrize("dependent, requirement", sibling_requirements(), ids=lambda v: str(v))
def test_every_sibling_range_admits_the_workspace_version_within_its_minor_series(dependent, requirement):
    sibling = canonicalize_name(requirement.name)
    version = version_of(sibling)
    assert requirement.specifier.contains(version), f"{dependent} requires {requirement}; the workspace has {version}"
    upper = [spec for spec in requirement.specifier if spec.operator == "<"]
    assert upper, f"{dependent}: {requirement} has no upper bound"
    following = (
        Version(f"{version.major}.{version.minor + 1}") if version.major == 0 else Version(f"{version.major + 1}")
    )
    assert not requirement.specifier.contains(following), f"{dependent}: {requirement} admits {following}"


def test_the_umbrella_depends_on_every_other_distribution():
    umbrella = {canonicalize_name(r.name) for d, r in sibling_requirements() if d == "herdr-link"}
    assert umbrella == set(PROJECTS) - {"herdr-link"}


def changelog_entries(text: str) -> list[str]:
    """The entries above the policy marker."""
    assert MARKER in text
    return [block for block in re.split(r"\n(?=- )", text.split(MARKER, 1)[0]) if block.startswith("- ")]


LEADING = re.compile(r"^- ((?:`[a-z-]+`(?:, )?)+|Repository):")
"""An entry's start: the distributions it concerns, in backticks, or ``Repository`` (tests, docs, CI)."""


def misnamed(entries: list[str]) -> list[str]:
    """The entries that do not start with distributions of this workspace (or ``Repository``)."""
    bad = []
    for entry in entries:
        found = LEADING.match(entry)
        named = set(re.findall(r"`([a-z-]+)`", found.group(1))) if found else {"?"}
        if not named <= set(PROJECTS):
            bad.append(entry[:80])
    return bad


def test_every_new_changelog_entry_starts_with_the_distributions_it_concerns():
    entries = changelog_entries((ROOT / "CHANGELOG.md").read_text())
    assert entries and misnamed(entries) == []


@pytest.mark.parametrize(
    "entry", ["- something changed somewhere", "- `herdr-link-mcpx`: a misspelt name", "- `--launcher uvx`: a flag"]
)
def test_the_changelog_check_catches_an_entry_that_names_no_distribution(entry):
    assert misnamed([entry]) == [entry[:80]]
    assert misnamed(["- `herdr-link-mcp`, `herdr-link`: fine", "- Repository: fine"]) == []
