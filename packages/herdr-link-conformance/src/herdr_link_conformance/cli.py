"""``herdr-link-conformance (--mcp CMD | --bridge CMD | --stub RUNTIME:FILE) [--only S]... [--skip S]... [--json]``."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

import anyio

from herdr_link_control.commandline import EXIT_STATUSES, UsageError, command_parser, run_command
from herdr_link_testkit import DEFAULT_RELEASE, RELEASES

from ._adapters import CAPABILITY_MEANINGS, STUB_RUNTIMES, AdapterSpec
from ._checks import CHECKS, CheckSpec
from ._runner import Result, list_json, run_checks, selected, to_json

EXIT_MISSING = 4
"""No check was run: the adapter's program, the file it runs or its stub file, or Node for a stub, is missing."""

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Check one adapter; returns the exit status (0 no check failed, 1 a check failed, 2 usage)."""
    return run_command("herdr-link-conformance", _main, argv)


def _main(argv: list[str]) -> int:
    parser = command_parser(
        "herdr-link-conformance",
        description="Check a herdr-link/1 adapter against PROTOCOL.md on a simulated Herdr: a stdio MCP server "
        "(--mcp), a JSON-lines bridge (--bridge), or a JavaScript stub (--stub) run under Node in the kit's host "
        "shim, which offers the stub's tools the way its host would (the tools listed now, the tool's result or "
        "thrown error, what the stub adds to the system prompt); a shim is not the host: what the host itself "
        "does (validating arguments, its UI, its model) only a real host shows. Commands are split like a shell "
        "would, but no shell runs; the program is found from here (a path, or on PATH), and the adapter then "
        "runs in the simulated workspace's folder, so name files in its arguments by absolute path.",
        epilog="Exit status: 0 every check passed or was skipped; 1 a check failed; 3 also when the kit itself "
        "failed on a check (ERROR: a bug in herdr-link-conformance, not in the adapter); 4 no check was run: what "
        "it needs is missing (the adapter's program, the file it runs or the stub file, Node for --stub); "
        f"{EXIT_STATUSES}",
    )
    parser.add_argument(
        "--version", action="version", version=f"herdr-link-conformance {version('herdr-link-conformance')}"
    )
    target = parser.add_mutually_exclusive_group()  # one is required, unless --list
    target.add_argument("--mcp", metavar="CMD", help='a stdio MCP server, e.g. "herdr-link-mcp"')
    target.add_argument(
        "--bridge", metavar="CMD", help='a JSON-lines bridge (docs/bridge.md), e.g. "herdr-link-bridge"'
    )
    target.add_argument(
        "--stub",
        metavar="RUNTIME:FILE",
        help=f"a JavaScript stub, RUNTIME one of {', '.join(STUB_RUNTIMES)}, e.g. pi:herdr-link.js; it finds "
        "its bridge as in its host (HERDR_LINK_BRIDGE, the installer's location file, herdr-link-bridge on PATH), "
        "and an OpenCode 1.x stub must resolve @opencode-ai/plugin from its folder",
    )
    parser.add_argument("--node", default="node", metavar="CMD", help="the Node that runs --stub (default: node)")
    parser.add_argument("--only", action="append", default=[], metavar="S", help="only sections (4.2, §6) or check ids")
    parser.add_argument("--skip", action="append", default=[], metavar="S", help="leave out sections or check ids")
    parser.add_argument(
        "--lacks", action="append", default=[], metavar="CAP",
        help="a capability it does not claim, whose checks are then skipped: "
        + "; ".join(f"{name}: {meaning}" for name, meaning in CAPABILITY_MEANINGS.items()),
    )  # fmt: skip
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"checks": [{"id","section","status","detail","promise"}]}; with --list, '
        '{"checks": [{"id","section","promise","addition","needs"}]}',
    )
    parser.add_argument(
        "--herdr-version",
        default=DEFAULT_RELEASE,
        choices=list(RELEASES),
        help="the Herdr to simulate (a release the testkit models)",
    )
    parser.add_argument("--list", action="store_true", help="list the checks (section, id, promise) and exit")
    args = parser.parse_args(argv)
    checks = selected(args.only, args.skip)
    if args.list and args.json:  # the checks need no adapter to be listed
        sys.stdout.write(list_json(checks) + "\n")
        return 0
    if args.list:
        for check in checks:
            sys.stdout.write(
                f"§{check.section:<5} {check.id}: {check.title}{' (addition)' if check.addition else ''}\n"
            )
        return 0
    chosen = [(k, v) for k, v in (("mcp", args.mcp), ("bridge", args.bridge), ("stub", args.stub)) if v]
    if not chosen:
        parser.error("one of the arguments --mcp --bridge --stub is required (or --list)")
    kind, command = chosen[0]
    if kind == "stub" and shutil.which(args.node) is None:
        sys.stderr.write(
            f"herdr-link-conformance: Node ({args.node}) was not found, and a --stub runs under Node: install "
            "Node 20 or later, or name it with --node CMD. No check was run.\n"
        )
        return EXIT_MISSING
    try:
        spec = AdapterSpec.parse(kind, command, frozenset(args.lacks), node=args.node)
    except ValueError as error:
        parser.error(str(error))
    if not checks:
        raise UsageError("--only/--skip left no check to run (see herdr-link-conformance --list)")
    located = _located(spec)
    if isinstance(located, str):
        sys.stderr.write(f"herdr-link-conformance: {located}; no check was run\n")
        return EXIT_MISSING
    spec = located

    def report(result: Result, check: CheckSpec) -> None:
        if not args.json:
            sys.stdout.write(result.line(check) + "\n")
            sys.stdout.flush()

    results = anyio.run(lambda: run_checks(spec, checks, herdr_version=args.herdr_version, report=report))
    failed = sum(r.status == "FAIL" for r in results)
    errors = sum(r.status == "ERROR" for r in results)
    if args.json:
        sys.stdout.write(to_json(results) + "\n")
    else:
        passed, skipped = sum(r.status == "PASS" for r in results), sum(r.status == "SKIP" for r in results)
        kit_errors = f", {errors} kit errors" if errors else ""
        left_out = len(CHECKS) - len(checks)
        unrun = f"; {left_out} of the kit's {len(CHECKS)} left out by --only/--skip" if left_out else ""
        sys.stdout.write(
            f"{passed} passed, {failed} failed, {skipped} skipped{kit_errors}, of {len(results)} checks{unrun}\n"
        )
    if errors:
        sys.stderr.write(f"herdr-link-conformance: the kit itself failed on {errors} checks (ERROR lines)\n")
        return 3
    return 1 if failed else 0


def _located(spec: AdapterSpec) -> AdapterSpec | str:
    """``spec`` with its program found from the current folder (the adapter runs in another), or what
    is missing, said before any check runs: a check would only blame the adapter."""
    if spec.kind == "stub":
        stub = Path(spec.argv[-1])
        return spec if stub.is_file() else f"--stub names {stub}, which is not a file"
    program = spec.argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program).expanduser().absolute()
        if not (path.is_file() and os.access(path, os.X_OK)):
            return f"--{spec.kind}: {path} is not an executable file"
        found = str(path)
    else:
        which = shutil.which(program)
        if which is None:
            return f"--{spec.kind}: {program} was not found on PATH"
        found = os.path.abspath(which)
    script = _script_missing(spec.argv[1:])
    if script is not None:
        return f"--{spec.kind}: {script}"
    return dataclasses.replace(spec, argv=(found, *spec.argv[1:]))


def _script_missing(arguments: Sequence[str]) -> str | None:
    """What is wrong with the file the program runs (``node /path/x.js``), if anything: the first argument
    that is not an option, when it is written as a path (``/…``, ``./…``, ``../…``, ``~…``)."""
    script = next((argument for argument in arguments if not argument.startswith("-")), None)
    if script is None or not script.startswith(("/", "./", "../", "~")):
        return None
    if script.startswith("~"):
        return f"{script} would reach the adapter as written (no shell runs to expand ~): name it by absolute path"
    path = Path(script)
    if not path.exists():
        return f"{path.absolute()}, the file it runs, does not exist"
    if not path.is_absolute():
        return f"{script} is relative and the adapter runs in another folder: name it by absolute path"
    return None
