"""The one place Herdr is called: run an argv with its timeout, then classify the outcome."""

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from herdr_link_protocol import Cause, LinkError

from ._commands import Role, classify
from ._runner import Runner, SpawnFailed

__all__ = ["DEFAULT_TIMEOUTS", "HerdrCLI", "Timeouts"]

log: Final = logging.getLogger("herdr_link")


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds each kind of Herdr call may take before it is killed and fails with ``NOT_IN_HERDR``.

    ``command`` (default 10 s) covers every call but ``agent start``. ``start`` (default 45 s) is
    above Herdr's own wait for a starting agent (30 s of readiness polling plus up to 2 s of retries
    while the new pane's shell initialises), so Link never abandons a start Herdr would complete.

    A timed-out ``agent prompt`` may still have reached the peer: Herdr may have accepted the text
    before the deadline. The agent is told so, and Link never retries it.
    """

    command: float = 10.0
    start: float = 45.0


DEFAULT_TIMEOUTS: Final = Timeouts()


class HerdrCLI:
    """Runs Herdr commands through a :class:`Runner` with timeouts and one classification table."""

    def __init__(self, runner: Runner, timeouts: Timeouts = DEFAULT_TIMEOUTS) -> None:
        self.runner = runner
        self.timeouts = timeouts

    def __repr__(self) -> str:
        return f"HerdrCLI({self.runner!r}, {self.timeouts!r})"

    async def call(self, argv: Sequence[str], role: Role) -> dict[str, Any]:
        """Run ``herdr argv...`` and return its JSON reply.

        Raises:
            LinkError: as :func:`classify` decides, or ``NOT_IN_HERDR`` on a timeout or spawn failure.
        """
        timeout = self.timeouts.start if argv[:2] == ["agent", "start"] else self.timeouts.command
        command = " ".join(argv[:2])
        try:
            result = await self.runner.run(argv, timeout=timeout)
        except TimeoutError:
            cause = Cause.SEND_TIMEOUT if role is Role.PROMPT else Cause.HERDR_TIMEOUT
            log.warning("herdr %s timed out after %.1f s; the child was killed", command, timeout)
            raise LinkError(cause, f"herdr {command} timed out after {timeout} s") from None
        except SpawnFailed as error:
            log.warning("herdr %s could not be started: %s", command, error)
            raise LinkError(Cause.HERDR_UNREACHABLE, str(error)) from error  # the cause tells a spawn failure
        try:
            return classify(argv, role, result)
        except LinkError as error:
            log.info("herdr %s failed: %s", command, error.detail)
            raise
