"""``herdr-link-opencode-bridge build [--check] [--out DIR]``."""

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from ._bundles import build, packaged_dir

__all__ = ["main"]


def _in_source_checkout() -> bool:
    """Whether the package runs from its source tree (``src/`` layout), where regenerating is wanted."""
    return (Path(__file__).resolve().parents[2] / "pyproject.toml").is_file()


def main(argv: Sequence[str] | None = None) -> int:
    """Build the OpenCode bundles and manifest (into the package by default); returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="herdr-link-opencode-bridge",
        description="Generate the OpenCode bundles.",
        epilog="Exit status: 0 written or current; 1 stale (--check); 2 usage error, or outside a source checkout "
        "without --out.",
    )
    parser.add_argument(
        "--version", action="version", version=f"herdr-link-opencode-bridge {version('herdr-link-opencode-bridge')}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="write the bundles and their manifest")
    build_parser.add_argument("--check", action="store_true", help="only report whether the files are current")
    build_parser.add_argument("--out", type=Path, default=None, help="directory (default: the package's bundles/)")
    args = parser.parse_args(argv)
    if args.out is None and not _in_source_checkout():
        sys.stderr.write(
            "herdr-link-opencode-bridge build: a developer command for a source checkout; the installed files "
            "are already current. Pass --out DIR to write them elsewhere.\n"
        )
        return 2
    out = args.out or packaged_dir()
    differ = build(out, check=args.check)
    for name in differ:
        sys.stdout.write(f"{'stale' if args.check else 'wrote'}: {out / name}\n")
    if args.check and differ:
        sys.stderr.write("bundles are out of date: run `herdr-link-opencode-bridge build`\n")
        return 1
    return 0
