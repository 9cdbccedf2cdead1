"""One boundary for every Herdr Link command: how a run ends, and what it says on stderr.

Every console script (``herdr-link``, ``herdr-link-mcp``, ``herdr-link-bridge``, the installers, the
build commands and the conformance kit) runs its body through :func:`run_command`, and parses its
arguments with :func:`command_parser`. The exit statuses are the same everywhere:

- 0 done (or nothing to do);
- 1 the command ran and something failed, was refused or declined (its own output says what);
- 2 usage error: one line on stderr that names what is valid, never argparse's usage block;
- 3 internal error: a bug in Herdr Link, one line on stderr; ``HERDR_LINK_DEBUG=1`` adds the traceback;
- 4 a command's own second outcome, one meaning per command, named in its ``--help`` (the OpenCode
  installer: installed, but another Herdr Link file stays where OpenCode loads it; the conformance kit:
  nothing was checked, something it needs is missing);
- 130 interrupted (Ctrl-C).

No command gives 3 for anything but a bug.

Standard library only, and ``argparse`` only when a parser is made: ``hint`` and ``--version`` load
nothing more for it.
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import Any, Final

__all__ = [
    "DEBUG_VARIABLE",
    "EXIT_STATUSES",
    "UsageError",
    "command_parser",
    "confirm",
    "in_source_checkout",
    "run_command",
]

DEBUG_VARIABLE: Final = "HERDR_LINK_DEBUG"
"""Set (to anything but empty or ``0``) to have an internal error print its traceback."""
EXIT_STATUSES: Final = (
    f"2 usage error; 3 internal error (a bug in Herdr Link: {DEBUG_VARIABLE}=1 prints its traceback); 130 interrupted."
)
"""The end of every command's ``Exit status:`` epilog: the statuses the boundary itself gives."""


class UsageError(Exception):
    """The command line is wrong: one line naming what is valid; exit 2, nothing done."""


def _say(prog: str, text: str) -> None:
    sys.stderr.write(f"{prog}: {text}\n")
    sys.stderr.flush()


def run_command(prog: str, body: Callable[[list[str]], int], argv: Sequence[str] | None = None) -> int:
    """Run ``body`` with the arguments (``sys.argv[1:]`` by default) and turn how it ended into an exit
    status: its own, 2 for :class:`UsageError`, 130 for an interrupt, 3 (one line) for anything else.
    ``SystemExit`` passes through (``--help``, ``--version``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return body(args)
    except UsageError as error:
        _say(prog, str(error))
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): nothing left to say it to
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (so the interpreter's final flush is quiet)
        except OSError:
            pass
        return 1
    except Exception as error:  # the one place an unexpected exception becomes an exit status
        if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
            import traceback

            traceback.print_exc()
        detail = str(error).splitlines()[0] if str(error) else ""
        _say(prog, f"internal error: {type(error).__name__}{': ' + detail if detail else ''} (a bug in Herdr Link; "
             f"{DEBUG_VARIABLE}=1 prints its traceback)")  # fmt: skip
        return 3


def command_parser(prog: str, **options: Any) -> argparse.ArgumentParser:
    """An ``argparse`` parser (and subparsers of the same kind) whose errors are one line: it raises
    :class:`UsageError` with argparse's message (which names the valid choices) and where help is."""
    import argparse

    if TYPE_CHECKING:
        subparsers = argparse._SubParsersAction[argparse.ArgumentParser]
    else:
        subparsers = argparse._SubParsersAction  # not subscriptable at run time

    class DescribedSubParsers(subparsers):
        """A command's ``help`` (its line in the list of commands) is also its own ``--help``'s description."""

        def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
            said = kwargs.get("help")
            if said and "description" not in kwargs:
                kwargs["description"] = said[0].upper() + said[1:] + ("" if said.endswith(".") else ".")
            return super().add_parser(name, **kwargs)

    class OneLineParser(argparse.ArgumentParser):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.register("action", "parsers", DescribedSubParsers)

        def error(self, message: str) -> Any:  # argparse's signature says NoReturn
            for action in self._actions:  # a missing command: name the commands there are
                if isinstance(action, argparse._SubParsersAction) and f"required: {action.dest}" in message:
                    message += f" (choose from {', '.join(action.choices)})"
            raise UsageError(f"{message} (see {self.prog} --help)")

    return OneLineParser(prog=prog, **options)


def confirm(question: str) -> bool | None:
    """Ask ``question? [y/N]`` on the terminal, as every installer does: ``True`` for y or yes, ``False``
    for anything else (Enter, Ctrl-D); ``None`` when stdin is not a terminal (nobody to ask)."""
    if not sys.stdin.isatty():
        return None
    try:
        answer = input(f"{question}? [y/N] ")
    except EOFError:  # Ctrl-D: no
        sys.stdout.write("\n")
        return False
    return answer.strip().lower() in ("y", "yes")


def in_source_checkout(module_file: str | os.PathLike[str]) -> bool:
    """Whether the module at ``module_file`` runs from its distribution's source tree (``src/`` layout,
    ``pyproject.toml`` two folders up), where a developer command that regenerates files is wanted."""
    package = os.path.dirname(os.path.abspath(module_file))
    return os.path.isfile(os.path.join(package, os.pardir, os.pardir, "pyproject.toml"))
