"""Would a host stop at a question only its user may answer? Predicted from the host's own files.

Herdr reads some first-run questions as idle (Gemini CLI's folder-trust dialog has no rule in its
detection), so ``agent prompt`` would type a message into them and its Enter would answer for the
user. Link may not read the pane (spec §8), but the host's own files say in advance whether it asks:
a start that would leave a worker at such a question creates nothing, and a send to an agent sitting
at one types nothing. The rules are the host table's (``Host.trust``); the files are read by
:func:`folder_trust`. A host whose files are absent (never run as this user) or unreadable is not
predicted: the operation goes ahead as before, and the operator log says why.
"""

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import anyio

from herdr_link_protocol import Host, hosts_with

from ._trust import TrustUnknown, folder_trust, git_root, trust_command

__all__ = ["HostQuestions", "Question"]

log: Final = logging.getLogger("herdr_link")


@dataclass(frozen=True)
class Question:
    """The question a host would stop at, for the operator: what, where, and the command that answers it
    for the user (never shown to a model: a model with a shell would run it)."""

    host: Host
    folder: Path
    root: Path | None
    """The git repository ``folder`` is in, if any."""

    @property
    def fix(self) -> str:
        return trust_command(self.host, self.folder, self.root)

    def __str__(self) -> str:
        assert self.host.trust is not None
        return f"{self.host.trust.question.format(folder=self.folder, root=self.root)}; the user can run: {self.fix}"


class HostQuestions:
    """Predicts, for a host kind and a folder, the question its program would ask first."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)
        home = environ.get("HOME") or environ.get("USERPROFILE")
        self.home = Path(home) if home else None
        """The user's home the host files are under; ``None`` (no ``HOME``): nothing is predicted."""

    def __repr__(self) -> str:
        return f"HostQuestions(home={str(self.home)!r})"

    def _asker(self, kind: str, folder: str) -> Host | None:
        """The host of ``kind`` if it has a trust question and there is something to read, else ``None``."""
        if not folder or self.home is None:
            return None
        return next((host for host in hosts_with("trust") if host.kind == kind), None)

    async def ahead_async(self, kind: str, folder: str) -> Question | None:
        """:meth:`ahead` in a worker thread: a long-used ``~/.claude.json`` takes tens of milliseconds to
        read, which must not hold up the other calls in flight."""
        host = self._asker(kind, folder)
        return None if host is None else await anyio.to_thread.run_sync(self._ahead, host, Path(folder))

    def ahead(self, kind: str, folder: str) -> Question | None:
        """The question a ``kind`` agent in ``folder`` stops at before its composer, or ``None`` when its
        files say it does not, or cannot say (logged)."""
        host = self._asker(kind, folder)
        return None if host is None else self._ahead(host, Path(folder))

    def _ahead(self, host: Host, folder: Path) -> Question | None:
        assert self.home is not None
        try:
            verdict = folder_trust(host, folder, self.environ, self.home, strict=True)
        except TrustUnknown as unknown:
            level = logging.INFO if unknown.absent else logging.WARNING
            log.log(level, "whether %s asks first in %s is not predicted: %s", host.title, folder, unknown)
            return None
        except (OSError, ValueError) as error:
            log.warning("could not read %s's folder trust for %s (%s): not predicted", host.title, folder, error)
            return None
        return Question(host, folder, git_root(folder.resolve())) if verdict is None else None
