"""``herdr-link-opencode-bridge build [--check] [--out DIR]``."""

import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from herdr_link_control.commandline import EXIT_STATUSES, UsageError, command_parser, in_source_checkout, run_command

from ._bundles import build, packaged_dir

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Build the OpenCode bundles and manifest (into the package by default); returns the exit status."""
    return run_command("herdr-link-opencode-bridge", _main, argv)


def _main(argv: list[str]) -> int:
    parser = command_parser(
        "herdr-link-opencode-bridge",
        description="Generate the OpenCode bundles.",
        epilog=f"Exit status: 0 written or current; 1 stale (--check); {EXIT_STATUSES} Outside a source checkout, "
        "build needs --out (a usage error without it).",
    )
    parser.add_argument(
        "--version", action="version", version=f"herdr-link-opencode-bridge {version('herdr-link-opencode-bridge')}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="write the bundles and their manifest")
    build_parser.add_argument("--check", action="store_true", help="only report whether the files are current")
    build_parser.add_argument("--out", type=Path, default=None, help="directory (default: the package's bundles/)")
    args = parser.parse_args(argv)
    if args.out is None and not in_source_checkout(Path(__file__)):
        raise UsageError(
            "build is a developer command for a source checkout; the installed files are already current. "
            "Pass --out DIR to write them elsewhere."
        )
    out = args.out or packaged_dir()
    differ = build(out, check=args.check)
    for name in differ:
        sys.stdout.write(f"{'stale' if args.check else 'wrote'}: {out / name}\n")
    if args.check and differ:
        sys.stderr.write("bundles are out of date: run `herdr-link-opencode-bridge build`\n")
        return 1
    return 0
