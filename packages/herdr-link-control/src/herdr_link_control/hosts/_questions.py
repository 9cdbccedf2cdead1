"""Would a host stop at a question only its user may answer? Predicted from the host's own files.

Herdr reads some first-run questions as idle (Gemini CLI's folder-trust dialog, Codex's
model-migration notice: its detection has no rule for them), so ``agent prompt`` would type a message
into them and its Enter would answer for the user. Link may not read the pane (spec §8), but the
host's own files say in advance whether it asks: a start that would leave a worker at such a question
creates nothing, and a send to an agent sitting at one types nothing. The rules are the host table's
(``Host.trust``: :func:`folder_trust`; ``Host.migration``: :func:`pending_migration`; ``Host.setup``:
:func:`pending_setup`, for the host versions they name). A host whose files are absent (never run as
this user; but a missing set-up record is a new install, which its wizard greets) or unreadable, or
whose version the rule was not read from, is not predicted: the operation goes ahead as before, and
the operator log says why.
"""

import logging
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import anyio

from ._migrations import host_version, pending_migration
from ._setup import package_version, pending_setup
from ._table import Host, host_for_kind
from ._trust import NotPredicted, folder_trust, git_root, trust_command

__all__ = ["HostQuestions", "Question"]

log: Final = logging.getLogger("herdr_link")

QUESTION_SECONDS: Final = 10.0
"""How long a prediction may take (a host file on a stalled network disk, a ``--version`` that
hangs) before the operation goes ahead unpredicted: the worker thread is left to finish on its own."""


@dataclass(frozen=True)
class Question:
    """The question a host would stop at, for the operator: what, where, and what answers it for the
    user (never shown to a model: a model with a shell would run it)."""

    host: Host
    folder: Path
    asks: str
    """What the host would ask, in the operator's words."""
    fix: str
    """The command that answers it for the user (or lets them answer it)."""

    def __str__(self) -> str:
        return f"{self.asks}; the user can run: {self.fix}"


SYSTEM_BINS: Final = (
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "/opt/homebrew/sbin",
    "/snap/bin",
)
"""The system's own program folders, kept even when the working folder is below them (``/usr/local/src/x``)."""


def _inside(entry: str, folder: str) -> bool:
    return entry == folder or entry.startswith(folder.rstrip(os.sep) + os.sep)


def _project_folders(cwd: str, home: str) -> list[str]:
    """The working folder and every folder above it that a project could own: all but ``/`` and the
    user's home and the folders above it (``~/code/mono`` for ``~/code/mono/packages/app``)."""
    if not cwd:
        return []
    here = Path(os.path.realpath(cwd))
    above_home = (
        {str(p) for p in (Path(os.path.realpath(home)), *Path(os.path.realpath(home)).parents)} if home else set()
    )
    return [str(f) for f in (here, *here.parents) if f != f.parent and str(f) not in above_home]


def trusted_path(path: str, cwd: str, home: str = "") -> str:
    """``PATH`` without what a project could put first: relative entries (``.``, ``node_modules/.bin``), and
    absolute ones inside the working folder ``cwd`` or inside any folder above it that is neither ``/`` nor
    the user's ``home`` nor above it: a project's own ``node_modules/.bin`` (which ``npm run`` adds) and a
    monorepo root's (which a workspace's tools add), judged by the entry as written and as resolved. The
    system's program folders (:data:`SYSTEM_BINS`) and the user's own under their home (``~/.local/bin``)
    stay. Link runs a host's ``--version`` only from what remains."""
    projects = _project_folders(cwd, home)
    kept = []
    for entry in path.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        named = {os.path.normpath(entry), os.path.realpath(entry)}
        if not named & set(SYSTEM_BINS) and any(_inside(e, p) for e in named for p in projects):
            continue
        kept.append(entry)
    return os.pathsep.join(kept)


class HostQuestions:
    """Predicts, for a host kind and a folder, the question its program would ask first."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)
        home = environ.get("HOME") or environ.get("USERPROFILE")
        self.home = Path(home) if home else None
        """The user's home the host files are under; ``None`` (no ``HOME``): nothing is predicted."""
        self._versions: dict[tuple[str, int], tuple[str | None, str]] = {}

    def __repr__(self) -> str:
        return f"HostQuestions(home={str(self.home)!r})"

    def _asker(self, kind: str, folder: str) -> Host | None:
        """The host of ``kind`` if it has a question to predict and there is something to read."""
        if not folder or self.home is None:
            return None
        host = host_for_kind(kind)  # as Herdr reads a kind: any case, its aliases
        asks = host is not None and (host.trust, host.migration, host.setup) != (None, None, None)
        return host if asks else None

    async def ahead_async(self, kind: str, folder: str, args: Sequence[str] = ()) -> Question | None:
        """:meth:`ahead` in a worker thread: a long-used ``~/.claude.json`` takes tens of milliseconds to
        read, and a host's ``--version`` longer, which must not hold up the other calls in flight; past
        :data:`QUESTION_SECONDS` it is not predicted (logged), never a hang."""
        host = self._asker(kind, folder)
        if host is None:
            return None
        with anyio.move_on_after(QUESTION_SECONDS):
            return await anyio.to_thread.run_sync(self._ahead, host, Path(folder), tuple(args), abandon_on_cancel=True)
        log.warning(
            "whether %s asks first in %s is not predicted: its files took more than %g s to read",
            host.title,
            folder,
            QUESTION_SECONDS,
        )
        return None

    def ahead(self, kind: str, folder: str, args: Sequence[str] = ()) -> Question | None:
        """The question a ``kind`` agent in ``folder`` (started with ``args``, when Link starts it) stops
        at before or just after its composer, or ``None`` when its files say it does not, or cannot say
        (logged)."""
        host = self._asker(kind, folder)
        return None if host is None else self._ahead(host, Path(folder), tuple(args))

    def _ahead(self, host: Host, folder: Path, args: tuple[str, ...]) -> Question | None:
        for predict in (self._setup, self._trust, self._migration):
            try:
                question = predict(host, folder, args)
            except NotPredicted as unknown:
                level = logging.INFO if unknown.absent else logging.WARNING
                log.log(level, "whether %s asks first in %s is not predicted: %s", host.title, folder, unknown)
            except (OSError, ValueError) as error:
                log.warning("could not read %s's files for %s (%s): not predicted", host.title, folder, error)
            else:
                if question is not None:
                    return question
        return None

    def _trust(self, host: Host, folder: Path, args: tuple[str, ...]) -> Question | None:
        trust = host.trust
        if trust is None:
            return None
        assert self.home is not None
        if folder_trust(host, folder, self.environ, self.home, strict=True) is not None:
            return None
        root = git_root(folder.resolve())
        asks = trust.question.format(folder=folder, root=root)
        return Question(host, folder, asks, trust_command(host, folder, root))

    def _program(self, program: str) -> str:
        """Where ``program`` is on ``PATH``, outside what a project could put first."""
        home = str(self.home) if self.home is not None else ""
        found = shutil.which(program, path=trusted_path(self.environ.get("PATH", ""), os.getcwd(), home))
        if found is None:
            raise NotPredicted(f"no {program} on PATH outside the working folder and a project above it", absent=True)
        return found

    def _version(self, program: str, package: str | None = None) -> str:
        """``program``'s version, asked once per installed program (its path and modification time): what its
        ``--version`` prints, or, for the command of the npm package ``package``, that package's version."""
        found = self._program(program)
        key = (found, Path(found).stat().st_mtime_ns)
        if key not in self._versions:
            self._versions[key] = (
                package_version(Path(found), package) if package else host_version(found, self.environ)
            )
        version, problem = self._versions[key]
        if version is None:
            raise NotPredicted(problem, absent=False)
        return version

    def _setup(self, host: Host, folder: Path, args: tuple[str, ...]) -> Question | None:
        setup = host.setup
        if setup is None:
            return None
        assert self.home is not None
        if not pending_setup(host, self.environ, self.home, self._version(setup.program, setup.package)):
            return None
        return Question(
            host, folder, setup.question, f"{setup.program} (once, in any folder: finish or skip its set-up)"
        )

    def _migration(self, host: Host, folder: Path, args: tuple[str, ...]) -> Question | None:
        migration = host.migration
        if migration is None:
            return None
        assert self.home is not None
        chosen = [arg for arg in args if arg.split("=", 1)[0] in migration.overrides]
        if chosen:  # which model such a start uses, and whether it is offered anything, is not established
            raise NotPredicted(f"its arguments choose the model or configuration ({chosen[0]})", absent=False)
        pending = pending_migration(host, self.environ, self.home, self._version(migration.program))
        if pending is None:
            return None
        model, target = pending
        asks = migration.question.format(model=model, target=target)
        return Question(host, folder, asks, f"{migration.program} (once, in any folder, and answer the notice)")
