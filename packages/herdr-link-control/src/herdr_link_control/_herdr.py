"""The one place Herdr is called: run an argv with its timeout, then classify the outcome."""

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from herdr_link_protocol import Cause, LinkError

from ._herdr_argv import Role, classify, herdr_error_code
from ._runner import Runner, RunResult, SpawnFailed
from ._trace import Tracer, elapsed_ms

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

    def __init__(self, runner: Runner, timeouts: Timeouts = DEFAULT_TIMEOUTS, tracer: Tracer | None = None) -> None:
        self.runner = runner
        self.timeouts = timeouts
        self.tracer = tracer or Tracer()
        """Where each command and its outcome are traced (off unless the user switched it on)."""

    def __repr__(self) -> str:
        return f"HerdrCLI({self.runner!r}, {self.timeouts!r})"

    async def call(self, argv: Sequence[str], role: Role) -> dict[str, Any]:
        """Run ``herdr argv...`` and return its JSON reply.

        Raises:
            LinkError: as :func:`classify` decides, or ``NOT_IN_HERDR`` on a timeout or spawn failure.
        """
        timeout = self.timeouts.start if argv[:2] == ["agent", "start"] else self.timeouts.command
        command = " ".join(argv[:2])
        started = time.perf_counter()
        try:
            result = await self.runner.run(argv, timeout=timeout)
        except TimeoutError:
            self._trace(argv, role, started, timeout_hit=True)
            cause = Cause.SEND_TIMEOUT if role is Role.PROMPT else Cause.HERDR_TIMEOUT
            log.warning("herdr %s timed out after %.1f s; the child was killed", command, timeout)
            raise LinkError(cause, f"herdr {command} timed out after {timeout} s") from None
        except SpawnFailed as error:
            self._trace(argv, role, started, spawn_failed=str(error))
            log.warning("herdr %s could not be started: %s", command, error)
            raise LinkError(Cause.HERDR_UNREACHABLE, str(error)) from error  # the cause tells a spawn failure
        self._trace(argv, role, started, result=result)
        try:
            return classify(argv, role, result)
        except LinkError as error:
            log.info("herdr %s failed: %s", command, error.detail)
            raise

    def _trace(
        self, argv: Sequence[str], role: Role, started: float, *, result: RunResult | None = None,
        timeout_hit: bool = False, spawn_failed: str = "",
    ) -> None:  # fmt: skip
        if not self.tracer.enabled:
            return
        fields: dict[str, Any] = {"role": role.value, "argv": self.tracer.redact(argv), "ms": elapsed_ms(started)}
        if result is not None:
            fields.update(exit=result.returncode, herdr_error=herdr_error_code(result))
        fields.update(timeout=timeout_hit)
        if spawn_failed:
            fields["spawn_failed"] = spawn_failed
        self.tracer.event("herdr", **fields)
