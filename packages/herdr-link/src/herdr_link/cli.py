"""``herdr-link``: ``demo`` (the whole story on a simulated Herdr), ``doctor`` (a read-only diagnosis) and
``trace`` (what Link did, from the user's opt-in trace)."""

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from herdr_link_control.commandline import EXIT_STATUSES, add_trace_arguments, command_parser, run_command, run_trace

STARTED = time.perf_counter()
"""Soon after the command started (the interpreter's start and the few imports above are before it): the
demo's closing time counts from here, so loading what it runs is counted too."""

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``herdr-link``; returns the exit status (doctor: 1 only when a check fails)."""
    return run_command("herdr-link", _main, argv)


def _main(argv: list[str]) -> int:
    parser = command_parser(
        "herdr-link",
        description="Herdr Link: messaging between coding agents in Herdr panes.",
        epilog=f"Exit status: 0 done; 1 the demo failed, a doctor check failed or trace had nothing to show; "
        f"{EXIT_STATUSES}",
    )
    parser.add_argument("--version", action="store_true", help="print the versions and exit")
    commands = parser.add_subparsers(dest="command")
    demo = commands.add_parser("demo", help="run two scripted agents through Herdr Link on a simulated Herdr")
    demo.add_argument("--configured", action="store_true", help="start the worker from .agents/agent_config.json")
    demo.add_argument("--show-envelopes", action="store_true", help="print the envelopes and wrappers in full")
    doctor = commands.add_parser(
        "doctor",
        help="check this pane, Herdr and every host's wiring (reads only); exit 1 when a check fails",
    )
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    trace = commands.add_parser("trace", help="show what Herdr Link did, from the trace (when switched on)")
    add_trace_arguments(trace)
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        names = (
            "herdr-link",
            "herdr-link-protocol",
            "herdr-link-control",
            "herdr-link-mcp",
            "herdr-link-opencode-bridge",
            "herdr-link-pi-bridge",
            "herdr-link-installer",
            "herdr-link-testkit",
            "herdr-link-conformance",
        )
        sys.stdout.write("\n".join(f"{name} {version(name)}" for name in names) + "\n")
        return 0
    if args.command == "demo":
        import anyio

        from ._demo import run_demo

        events = anyio.run(
            lambda: run_demo(
                sys.stdout, configured=args.configured, show_envelopes=args.show_envelopes, started=STARTED
            )
        )
        return 0 if events and "gone" in events[-1].result else 1
    if args.command == "doctor":
        from ._doctor import diagnose, render, to_json

        checks = diagnose(os.environ, Path.cwd(), Path.home())
        sys.stdout.write(to_json(checks) if args.json else render(checks))
        return 1 if any(check.status == "FAIL" for check in checks) else 0
    if args.command == "trace":
        return run_trace(args, os.environ)
    parser.error("choose a command: demo, doctor or trace")  # raises UsageError: one line, exit 2
