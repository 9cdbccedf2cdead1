"""``herdr-link-mcp``: serve Herdr Link over stdio (the default), or help wire it into a host.

herdr-link-mcp [serve] [--namespace NS]
herdr-link-mcp hint --host claude|codex|agy|gemini|pi
herdr-link-mcp wiring --host claude|codex|agy|gemini|pi [--scope user|project] [--trust DIR]... [--required]
                       [--launcher script|uvx [--find-links DIR]...] [--json]
herdr-link-mcp install --host claude|codex|agy|gemini|pi [--scope user|project] [--trust DIR]... [--required]
                       [--launcher script|uvx [--find-links DIR]...] [--dry-run] [--yes] [--uninstall]
herdr-link-mcp probe [--json] [-- COMMAND...]
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import os
import sys

from ._version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from argparse import Namespace
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from ._wiring import Wiring

__all__ = ["main"]


def _serve(namespace: str) -> int:
    import logging
    import signal

    from ._front import serve

    # The operator log: stderr, which hosts keep in their MCP logs. WARNING by default, so a failed
    # call's Herdr code and message are there and success stays quiet; HERDR_LINK_LOG_LEVEL=INFO or
    # DEBUG turns it up (DEBUG also names the arguments a host added that were ignored).
    level = os.environ.get("HERDR_LINK_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=level if level in logging.getLevelNamesMapping() else logging.WARNING,
        format="herdr-link-mcp: %(levelname)s %(message)s",
    )
    # Hosts stop stdio servers with SIGINT (Claude Code: SIGINT, then SIGTERM 100 ms later). The
    # transport reads stdin in a worker thread that cancellation cannot interrupt, so a KeyboardInterrupt would
    # never finish unwinding: end at once, as SIGTERM does. Nothing is persisted, nothing is lost.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.stdin.isatty():  # a person, not a host: say once what this is, and how to leave
        sys.stderr.write(
            "herdr-link-mcp: this is an MCP server; it reads JSON-RPC on stdin and answers on stdout, and hosts "
            "(Claude Code, Codex, Gemini CLI, AGY, Pi) start it themselves. Ctrl-D or Ctrl-C ends it; "
            "herdr-link-mcp --help lists the commands for people (install, wiring, probe, hint).\n"
        )
    return serve(namespace)


def _probe(command: list[str], as_json: bool) -> int:
    import functools
    import json

    import anyio

    from herdr_link_control import HERDR_CORE_NOTE, in_herdr_core_terminal

    from ._probe import probe, render_probe
    from ._wiring import server_command

    def say(line: str) -> None:  # on stderr, so --json's stdout stays one JSON document
        sys.stderr.write(f"herdr-link-mcp probe: {line}\n")
        sys.stderr.flush()

    reports = anyio.run(functools.partial(probe, command or server_command(), dict(os.environ), say=say))
    sys.stdout.write(json.dumps(reports, indent=2) + "\n" if as_json else render_probe(reports))
    if in_herdr_core_terminal(os.environ):
        sys.stderr.write(f"herdr-link-mcp probe: {HERDR_CORE_NOTE}\n")
    return 1 if any("error" in report for report in reports) else 0


def _hint(host: str) -> int:
    from herdr_link_control import in_herdr_pane

    from ._hint import hint_output, prints_plain

    output = hint_output(host, os.environ)
    plain = prints_plain(host)
    sys.stdout.write(output + ("\n" if output and plain else ""))
    if not plain and not in_herdr_pane(os.environ):
        sys.stderr.write(
            "herdr-link-mcp hint: not in a Herdr pane (HERDR_ENV=1, HERDR_BIN_PATH and HERDR_PANE_ID are not all "
            "set), so the hook adds no hint to this session\n"
        )
    return 0


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def _chosen_wiring(options: Namespace) -> Wiring:
    """The wiring ``wiring`` prints and ``install`` writes, from their shared options."""
    from ._wiring import off_hosts, wiring

    return wiring(
        options.host,
        scope=options.scope,
        trust=options.trust or (),
        required=options.required,
        launcher=options.launcher,
        find_links=options.find_links or (),
        # uninstalling, the setting is a claim too: put back only where the record says install wrote it
        shared_off=options.no_shared_daemon or (getattr(options, "uninstall", False) and options.host in off_hosts()),
    )


def _trust_warnings(folders: Sequence[str], home: Path) -> list[str]:
    """Folders named with ``--trust`` that a user rarely means: the root, the home folder itself, one
    that does not exist (each needs ``--yes``)."""
    from pathlib import Path

    warnings = []
    for folder in folders:
        resolved = Path(folder).expanduser().resolve()
        if resolved == Path(resolved.anchor):
            warnings.append(f"--trust {folder} trusts every folder on this machine")
        elif resolved == home.resolve():
            warnings.append(f"--trust {folder} trusts your whole home folder")
        elif not resolved.is_dir():
            warnings.append(f"--trust {folder}: {resolved} is not an existing folder")
    return warnings


def _install(options: Namespace, say: Callable[[str], None]) -> int:
    from pathlib import Path

    from ._install import InstallError, apply, clear_leftovers, plan

    if any(not folder.strip() for folder in options.trust or ()):
        sys.stderr.write("herdr-link-mcp install: --trust needs a folder; an empty value would trust the working one\n")
        return 2
    try:
        chosen = _chosen_wiring(options)
    except ValueError as error:
        sys.stderr.write(f"herdr-link-mcp install: {error}\n")
        return 2
    try:
        decided = plan(chosen, Path.home(), Path.cwd(), uninstall=options.uninstall)
    except InstallError as error:
        sys.stderr.write(f"herdr-link-mcp install: {error}\n")
        say("state: nothing was changed")
        return 1
    warnings = [] if options.uninstall else _trust_warnings(options.trust or (), Path.home())
    if not options.uninstall and options.launcher == "uvx":
        import shutil

        from ._wiring import UV_INSTALL

        if shutil.which("uvx") is None:
            warnings.append(
                "--launcher uvx: no uvx on PATH, so the host cannot start the server until uv is installed "
                f"({UV_INSTALL}), or install without --launcher uvx"
            )
    lines = [*decided.describe(), *(f"  ! {warning}" for warning in warnings)]
    from herdr_link_control.commandline import Proposal, install_dialogue

    if not decided.changed:  # the dialogue still shows the plan, and a dry run says it wrote nothing
        nothing = ("nothing to take out: Herdr Link is not installed in these files" if options.uninstall
                   else "nothing to do: every file already holds it")  # fmt: skip

        def apply_nothing(_confirmed: bool) -> int:
            clear_leftovers(decided, os.environ, Path.home())  # what a killed run left (apply does it otherwise)
            say(nothing)
            say("state: nothing was changed")
            return 0

        proposal = Proposal(lines, dry_run_notes=[nothing])
        return install_dialogue(
            "herdr-link-mcp install", proposal, apply_nothing, dry_run=options.dry_run, yes=options.yes, say=say
        )
    asks = bool(decided.conflicts or warnings)
    proposal = Proposal(lines, question="go ahead with what is marked ! above" if asks else "")

    from functools import partial

    stop = partial(_stop_shared_process, options.host) if options.no_shared_daemon and not options.uninstall else None
    return install_dialogue(
        "herdr-link-mcp install",
        proposal,
        lambda _confirmed: apply(decided, os.environ, Path.home(), say, then=stop),
        dry_run=options.dry_run,
        yes=options.yes,
        say=say,
    )


def _wired_host(name: str) -> str:
    """``--host NAME`` as given, for argparse's choices; for a kind whose row Link cannot wire over MCP, why
    not (its ``unwired`` reason, or the installer of its native extension), as the usage error."""
    import argparse

    from herdr_link_control.hosts import find_host, host_for_kind

    row = find_host(name) or host_for_kind(name)
    if row is not None and row.servers is None:
        if row.unwired:
            raise argparse.ArgumentTypeError(f"Link does not wire {row.title}: {row.unwired}")
        installer = "herdr-link-opencode-install" if row.name == "opencode" else "herdr-link-pi-bridge install"
        raise argparse.ArgumentTypeError(f"{row.title} is wired by its own installer: run {installer}")
    return row.name if row is not None else name


def _stop_shared_process(host: str) -> str:
    """Stop ``host``'s running shared process once (the user asked for it with ``--no-shared-daemon``); says what
    happened, in one line."""
    import shutil
    import subprocess

    from herdr_link_control.hosts import find_host

    record = find_host(host)
    shared = record.shared if record is not None else None
    assert shared is not None and shared.off is not None, "only offered where the host has the setting"
    command = [shared.program, *shared.off.stop]
    program = shutil.which(shared.program)
    if program is None:
        return f"{shared.program}'s daemon: not stopped (no `{shared.program}` on PATH): run `{' '.join(command)}`"
    try:
        done = subprocess.run([program, *shared.off.stop], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{shared.program}'s daemon: not stopped (`{' '.join(command)}` did not finish: {error}): run it"
    if done.returncode != 0:
        return f"{shared.program}'s daemon: not stopped (`{' '.join(command)}` exited {done.returncode}): run it"
    return f"{shared.program}'s daemon: stopped, if one ran (`{' '.join(command)}`)"


def _light(args: list[str]) -> int | None:
    """The invocations hosts run often, answered before ``argparse`` loads: the server itself (no
    arguments, or ``serve``), ``--version``, and ``hint --host H`` (a SessionStart hook in every Codex,
    Gemini and AGY session). Same behaviour as the parser's path; any other form goes through the parser."""
    if args in ([], ["serve"]):
        from ._clients import DEFAULT_NAMESPACE

        return _serve(DEFAULT_NAMESPACE)
    if args == ["--version"]:
        sys.stdout.write(f"herdr-link-mcp {__version__}\n")
        return 0
    from ._hint import hint_hosts

    if len(args) == 3 and args[:2] == ["hint", "--host"] and args[2] in hint_hosts():
        return _hint(args[2])
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``herdr-link-mcp``; returns the exit status."""
    from herdr_link_control.commandline import run_command

    return run_command("herdr-link-mcp", _main, argv)


def _main(args: list[str]) -> int:
    light = _light(args)
    if light is not None:
        return light
    import argparse

    from herdr_link_control.commandline import EXIT_STATUSES, add_trace_arguments, command_parser

    from ._clients import DEFAULT_NAMESPACE
    from ._hint import hint_hosts
    from ._wiring import LAUNCHERS, SCOPES, off_hosts, required_hosts, trust_hosts, wiring_hosts

    parser = command_parser(
        "herdr-link-mcp",
        description="Herdr Link as a stdio MCP server (the default, with no command: JSON-RPC on stdin and stdout, "
        "started by a host), and help to wire it into a host.",
        epilog="Exit status: 0 done or nothing to do (serve: when stdin closes); 1 probe found a problem, "
        "install refused, was declined or failed (its last line says what each file is), or trace had nothing to "
        f"show; --dry-run: 0 the real run would go ahead (after its question, for what is marked !), 1 it would be "
        f"refused; {EXIT_STATUSES}",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--namespace", default=DEFAULT_NAMESPACE, help="the name the host registered this server under")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("serve", help="serve MCP on stdin/stdout (the default)")
    hint = commands.add_parser(
        "hint",
        help="print the hint (the paragraph that tells a dormant model the herdr_link gateway exists) in the form "
        "a host's hook or launcher expects",
    )
    hint.add_argument("--host", required=True, choices=hint_hosts())
    wiring = commands.add_parser("wiring", help="print ready-to-paste registration for a host")
    wiring.add_argument("--host", required=True, choices=wiring_hosts(), type=_wired_host)
    wiring.add_argument("--json", action="store_true", help="machine-readable output")
    install = commands.add_parser(
        "install",
        help="write a host's wiring into your files: the plan first, then a backup, then your files edited in "
        "place (only Herdr Link's own keys change; every other byte stays as you wrote it); --uninstall takes "
        "them out again",
    )
    install.add_argument("--host", required=True, choices=wiring_hosts(), type=_wired_host)
    install.add_argument("--dry-run", action="store_true", help="show the plan and write nothing")
    install.add_argument("--yes", action="store_true", help="confirm replacing what another tool or you put there")
    install.add_argument("--uninstall", action="store_true", help="take out what install put in")
    for parser_of in (wiring, install):
        parser_of.add_argument(
            "--scope",
            choices=SCOPES,
            default="user",
            help="user: every folder of yours (default); project: this project's files",
        )
        parser_of.add_argument(
            "--trust",
            action="append",
            metavar="DIR",
            help="also record DIR (and the folders below it) as trusted in the host's own list; repeatable; "
            f"{', '.join(trust_hosts())} only",
        )
        parser_of.add_argument(
            "--required",
            action="store_true",
            help="make the host wait for the server before its first model request; the host then refuses to "
            f"start any session while the server cannot start; {', '.join(required_hosts())} only",
        )
        parser_of.add_argument(
            "--no-shared-daemon",
            action="store_true",
            help="also keep the host's panes out of its shared background process: sets the host's own setting "
            "(Codex: features.daemon_auto_start = false) and stops a running one once; it costs what the plan "
            f"says, and --uninstall puts the setting back; {', '.join(off_hosts())} only",
        )
        parser_of.add_argument(
            "--launcher",
            choices=LAUNCHERS,
            default="script",
            help="how the host starts the server and its hint hook: script, the herdr-link-mcp installed here "
            "(default); uvx, uvx herdr-link-mcp@<this version>, with nothing installed (needs uv)",
        )
        parser_of.add_argument(
            "--find-links",
            action="append",
            metavar="DIR",
            help="with --launcher uvx: also look for the distributions in this folder of wheels; repeatable",
        )
    probe = commands.add_parser("probe", help="start the server as a host would and report what the host sees")
    probe.add_argument("--json", action="store_true", help="machine-readable output")
    probe.add_argument("server", nargs=argparse.REMAINDER, help="the server command (default: this one)")
    trace = commands.add_parser("trace", help="show what Herdr Link did, from the trace (when switched on)")
    add_trace_arguments(trace)
    options = parser.parse_args(args)
    if options.version:
        sys.stdout.write(f"herdr-link-mcp {__version__}\n")
        return 0
    if options.command == "trace":
        from herdr_link_control.commandline import run_trace

        return run_trace(options, os.environ)
    if options.command == "hint":
        return _hint(options.host)
    if options.command == "wiring":
        try:
            result = _chosen_wiring(options)
        except ValueError as error:
            parser.error(str(error))
        sys.stdout.write(result.to_json() + "\n" if options.json else result.render())
        return 0
    if options.command == "install":
        return _install(options, _say)
    if options.command == "probe":
        return _probe([a for a in options.server if a != "--"], options.json)
    return _serve(options.namespace)
