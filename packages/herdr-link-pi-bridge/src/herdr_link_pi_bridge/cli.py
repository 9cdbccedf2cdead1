"""``herdr-link-pi-bridge build [--check]`` and ``herdr-link-pi-bridge install [--project] [--yes]``."""

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from ._extension import build, packaged_extension
from ._install import install, plan, uninstall

__all__ = ["main"]


def _in_source_checkout() -> bool:
    """Whether the package runs from its source tree (``src/`` layout), where regenerating is wanted."""
    return (Path(__file__).resolve().parents[2] / "pyproject.toml").is_file()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (1 when a check fails or an install is refused)."""
    parser = argparse.ArgumentParser(
        prog="herdr-link-pi-bridge",
        description="Herdr Link's native Pi extension: install, uninstall, or regenerate it.",
        epilog="Exit status: 0 done; 1 refused, failed, or stale (build --check); 2 usage error.",
    )
    parser.add_argument(
        "--version", action="version", version=f"herdr-link-pi-bridge {version('herdr-link-pi-bridge')}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="regenerate the packaged extension")
    build_parser.add_argument("--check", action="store_true", help="only report whether it is current")
    build_parser.add_argument("--out", type=Path, default=None, help="directory (default: the package's extension/)")
    install_parser = commands.add_parser("install", help="install the extension where Pi discovers it")
    install_parser.add_argument("--project", action="store_true", help="into .pi/extensions of this directory")
    install_parser.add_argument("--yes", action="store_true", help="replace a file that is not ours")
    install_parser.add_argument("--dry-run", action="store_true", help="print what would happen and write nothing")
    uninstall_parser = commands.add_parser("uninstall", help="remove our extension (another's is left alone)")
    uninstall_parser.add_argument("--project", action="store_true", help="from .pi/extensions of this directory")
    args = parser.parse_args(argv)
    if args.command == "build":
        if args.out is None and not _in_source_checkout():
            sys.stderr.write(
                "herdr-link-pi-bridge build: a developer command for a source checkout; the installed files "
                "are already current. Pass --out DIR to write them elsewhere.\n"
            )
            return 2
        out = args.out or packaged_extension().parent
        stale = build(out, check=args.check)
        if stale:
            sys.stdout.write(f"{'stale' if args.check else 'wrote'}: {out}\n")
        return 1 if args.check and stale else 0
    if args.command == "install" and args.dry_run:
        lines = plan(Path.home(), Path.cwd(), os.environ, project=args.project)
        sys.stdout.write("\n".join([*lines, "dry run: nothing was written"]) + "\n")
        return 0
    if args.command == "uninstall":
        result = uninstall(Path.home(), Path.cwd(), os.environ, project=args.project)
    else:
        result = install(Path.home(), Path.cwd(), os.environ, project=args.project, yes=args.yes)
    failed = result.action in ("refused", "failed")
    (sys.stderr if failed else sys.stdout).write("\n".join(result.messages) + "\n")
    return 1 if failed else 0
