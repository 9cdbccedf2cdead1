"""Build every distribution into one wheelhouse, reproducibly (``nox -s dist`` runs it).

    python tests/dist/build_wheelhouse.py [OUT]     # default: dist/ at the repository root

For each distribution under ``packages/``: an sdist, and a wheel built from that sdist (``uv build``'s
default, so a file the sdist leaves out is missing from the wheel too). The build backend is the
locked hatchling (``[tool.uv] build-constraint-dependencies``), and ``SOURCE_DATE_EPOCH`` is the
last commit's time, so two builds of one commit are byte-identical. ``pip install --find-links OUT
herdr-link-mcp`` then installs from it, third-party dependencies from the index.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())
FALLBACK_EPOCH = "1764547200"
"""2025-12-01, for a checkout without git history: still the same for every build of it."""


def source_date_epoch() -> str:
    """The last commit's time (seconds), which every build of that commit shares."""
    done = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True)
    epoch = done.stdout.strip()
    return epoch if done.returncode == 0 and epoch.isdigit() else FALLBACK_EPOCH


def build(out: Path, *, wheel_from_tree: bool = False) -> list[Path]:
    """Build every distribution into ``out`` (emptied first), saying each on stderr as it starts; the
    files built.

    ``wheel_from_tree``: wheels only, straight from the source tree (not through the sdist).
    """
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch(), "UV_PYTHON_DOWNLOADS": "never"}
    what = "its wheel from the source tree" if wheel_from_tree else "its sdist, then its wheel from that sdist"
    for number, distribution in enumerate(DISTRIBUTIONS, 1):
        sys.stderr.write(f"building {distribution} ({number} of {len(DISTRIBUTIONS)}): {what}\n")
        sys.stderr.flush()
        kind = ["--wheel"] if wheel_from_tree else []
        command = ["uv", "build", "--quiet", "--package", distribution, "--out-dir", str(out), *kind]
        subprocess.run(command, cwd=ROOT, env=env, check=True)
    return sorted(p for p in out.iterdir() if p.suffix in (".whl", ".gz"))


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "dist"
    built = build(out.resolve())
    sys.stdout.write("".join(f"{path.relative_to(out.resolve().parent)}\n" for path in built))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
