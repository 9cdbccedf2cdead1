"""``herdr-link-pi-bridge build [--check]``, ``install [--project] [--yes] [--dry-run] [--uninstall]`` and
``uninstall`` (the same as ``install --uninstall``)."""

import os
import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from herdr_link_control.commandline import (
    EXIT_STATUSES,
    NOTHING_CHANGED,
    Proposal,
    UsageError,
    command_parser,
    in_source_checkout,
    install_dialogue,
    run_command,
)
from herdr_link_control.userfiles import failure_reason

from ._extension import build, packaged_extension
from ._install import apply, plan

__all__ = ["main"]

PROG = "herdr-link-pi-bridge"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (1 when a check fails or an install is refused)."""
    return run_command(PROG, _main, argv)


def _main(argv: list[str]) -> int:
    parser = command_parser(
        "herdr-link-pi-bridge",
        description="Herdr Link's native Pi extension: install, uninstall, or regenerate it.",
        epilog="Exit status: 0 done or nothing to do; 1 refused, declined, failed (the last line, state:, says what "
        f"each file is), or stale (build --check); --dry-run: 0 the real run would go ahead (after its question, if "
        f"it asks one), 1 it would be refused; {EXIT_STATUSES}",
    )
    parser.add_argument(
        "--version", action="version", version=f"herdr-link-pi-bridge {version('herdr-link-pi-bridge')}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="regenerate the packaged extension")
    build_parser.add_argument("--check", action="store_true", help="only report whether it is current")
    build_parser.add_argument("--out", type=Path, default=None, help="directory (default: the package's extension/)")
    install_parser = commands.add_parser(
        "install", help="install the extension where Pi discovers it (--uninstall takes it out)"
    )
    uninstall_parser = commands.add_parser("uninstall", help="take our extension out (the same as install --uninstall)")
    for sub in (install_parser, uninstall_parser):
        where = "into" if sub is install_parser else "from"
        sub.add_argument("--project", action="store_true", help=f"{where} .pi/extensions of this directory")
        sub.add_argument("--dry-run", action="store_true", help="print the plan and write nothing")
        sub.add_argument(
            "--yes",
            action="store_true",
            help="replace a file that is not ours, or an edited copy of ours (backed up); taking out needs none",
        )
    install_parser.add_argument(
        "--uninstall", action="store_true", help="take our extension out (backed up first; another's file stays)"
    )
    args = parser.parse_args(argv)

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")

    if args.command == "build":
        if args.out is None and not in_source_checkout(Path(__file__)):
            raise UsageError(
                "build is a developer command for a source checkout; the installed files are already current. "
                "Pass --out DIR to write them elsewhere."
            )
        out = args.out or packaged_extension().parent
        stale = build(out, check=args.check)
        if stale:
            sys.stdout.write(f"{'stale' if args.check else 'wrote'}: {out}\n")
        return 1 if args.check and stale else 0
    taking_out = args.command == "uninstall" or getattr(args, "uninstall", False)
    try:
        decided = plan(Path.home(), Path.cwd(), os.environ, project=args.project, uninstall=taking_out)
    except OSError as error:  # a file the plan had to read could not be
        sys.stderr.write(f"{PROG}: {failure_reason(error)}; nothing was changed\n")
        say(NOTHING_CHANGED)
        return 1
    asks = bool(decided.needs_yes) and not decided.uninstall
    proposal = Proposal(
        decided.describe(),
        question=decided.question if asks else "",
        refusals=[decided.refused or f"{decided.target} is not Herdr Link's: left alone"]
        if decided.refused or (decided.uninstall and decided.state == "foreign")
        else [],
    )

    def apply_plan(confirmed: bool) -> int:
        result = apply(decided, os.environ, Path.home(), yes=confirmed)
        failed = result.action in ("refused", "failed")
        *steps, state = result.messages
        if steps:
            (sys.stderr if failed else sys.stdout).write("\n".join(steps) + "\n")
        say(state)
        return 1 if failed else 0

    return install_dialogue(PROG, proposal, apply_plan, dry_run=args.dry_run, yes=args.yes, say=say)
