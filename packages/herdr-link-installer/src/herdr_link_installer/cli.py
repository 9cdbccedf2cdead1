"""``herdr-link-opencode-install [--runtime v1|v2] [--dry-run] [--yes]``."""

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
    install_dialogue,
    run_command,
)
from herdr_link_control.userfiles import bridge_command, failure_reason, location_file

from ._install import EXIT_DUPLICATE, InstallError, install, plan_install
from ._paths import current_platform

__all__ = ["main"]

PROG = "herdr-link-opencode-install"


def main(argv: Sequence[str] | None = None) -> int:
    """Install Herdr Link's OpenCode plugin; returns the exit status (see the epilog)."""
    return run_command(PROG, _main, argv)


def _main(argv: list[str]) -> int:
    parser = command_parser(
        PROG,
        description="Install Herdr Link's OpenCode plugin as <config>/plugins/herdr-link.js.",
    )
    parser.add_argument(
        "--version", action="version", version=f"herdr-link-opencode-install {version('herdr-link-installer')}"
    )
    parser.add_argument(
        "--runtime",
        choices=["v1", "v2"],
        default=None,
        help="which OpenCode you run: v1, OpenCode 1.x; v2, OpenCode 2 (experimental); without it, the "
        "OpenCode on PATH decides (1.x when there is none). The file installed loads in both; it says which "
        "half's prerequisites are checked (the OpenCode 1.x half needs @opencode-ai/plugin)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print what would happen and write nothing")
    parser.add_argument(
        "--yes", action="store_true", help="confirm replacing a foreign or edited file, or a runtime switch"
    )
    parser.add_argument(
        "--force-runtime",
        action="store_true",
        help="no longer needed (every file loads in OpenCode 1.x and 2); accepted and noted",
    )
    parser.add_argument(
        "--uninstall",
        action="store_true",
        help="remove our plugin file (an edited one is backed up first, another's is left alone) and the "
        "bridge location when nothing else uses it",
    )
    parser.epilog = (
        "Exit status: 0 done or nothing to do; 1 refused, declined or failed (the last line says what each "
        f"file is); {EXIT_DUPLICATE} installed, but another Herdr Link file stays where OpenCode loads it "
        f"(remove it); --dry-run: 0 the real run would go ahead (after its question, if it asks one), 1 it would "
        f"be refused; {EXIT_STATUSES}"
    )
    args = parser.parse_args(argv)

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")

    if args.uninstall:
        from ._uninstall import uninstall

        if args.yes or args.force_runtime:
            raise UsageError("--yes and --force-runtime confirm an install, not --uninstall")
        return uninstall(os.environ, Path.home(), current_platform(), say=say, dry_run=args.dry_run)
    try:
        plan = plan_install(
            args.runtime, os.environ, Path.home(), Path.cwd(), current_platform(), force_runtime=args.force_runtime
        )
        location = location_file(os.environ, Path.home())
        proposal = Proposal(
            plan.describe(),
            question=plan.needs_confirmation,
            refusals=plan.blockers,
            dry_run_notes=[f"would point the bridge location {location} at {' '.join(bridge_command())}"],
        )

        def apply(confirmed: bool) -> int:
            return install(plan, confirmed=confirmed, environ=os.environ, home=Path.home(), say=say, show_plan=False)

        return install_dialogue(PROG, proposal, apply, dry_run=args.dry_run, yes=args.yes, say=say)
    except InstallError as error:
        sys.stderr.write(f"{PROG}: {error}\n")
    except OSError as error:
        sys.stderr.write(f"{PROG}: {failure_reason(error)}; nothing was changed\n")
    say(NOTHING_CHANGED)  # refused before anything was written
    return 1
