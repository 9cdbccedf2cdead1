"""Running ``herdr``: a narrow runner interface, the real process runner and a scripted one for tests.

The real runner passes an argument vector to :func:`anyio.open_process`, so no shell is ever
involved; a timed-out or cancelled child is killed and reaped before the call returns, including
one cancelled while it was being started.
"""

import subprocess
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import anyio
import anyio.abc

__all__ = ["ProcessRunner", "RunResult", "Runner", "ScriptedRunner", "SpawnFailed"]


@dataclass(frozen=True, slots=True)
class RunResult:
    """How one ``herdr`` invocation ended."""

    returncode: int
    stdout: str
    stderr: str


class SpawnFailed(OSError):
    """Raised when the ``herdr`` binary cannot be started (missing, not executable, ...)."""


class Runner(Protocol):
    """Runs one ``herdr`` command. ``argv`` excludes the binary itself."""

    async def run(self, argv: Sequence[str], *, timeout: float) -> RunResult:
        """Run ``herdr argv...``.

        Raises:
            TimeoutError: when ``timeout`` seconds pass first (the child has been killed and reaped).
            SpawnFailed: when the binary cannot be started.
        """
        ...


class ProcessRunner:
    """The real runner: ``<bin_path> argv...`` as a child process, without a shell."""

    def __init__(self, bin_path: str, env: Mapping[str, str] | None = None) -> None:
        self.bin_path = bin_path
        self.env = dict(env) if env is not None else None

    def __repr__(self) -> str:
        return f"ProcessRunner({self.bin_path!r})"

    async def run(self, argv: Sequence[str], *, timeout: float) -> RunResult:
        with anyio.fail_after(timeout):
            process = await self._spawn(argv)
            async with process:  # on timeout or cancellation: the child is killed and reaped here
                outputs = [b"", b""]

                async def drain(stream: anyio.abc.ByteReceiveStream, index: int) -> None:
                    outputs[index] = b"".join([chunk async for chunk in stream])

                async with anyio.create_task_group() as group:
                    assert process.stdout is not None and process.stderr is not None
                    group.start_soon(drain, process.stdout, 0)
                    group.start_soon(drain, process.stderr, 1)
                    returncode = await process.wait()
        return RunResult(returncode, outputs[0].decode("utf-8", "replace"), outputs[1].decode("utf-8", "replace"))

    async def _spawn(self, argv: Sequence[str]) -> anyio.abc.Process:
        """Start the child, shielded: asyncio cancelled mid-spawn leaves a child nobody reaps."""
        try:
            with anyio.CancelScope(shield=True):
                process = await anyio.open_process(
                    [self.bin_path, *argv],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env=self.env,
                )
        except OSError as error:
            raise SpawnFailed(error.errno, f"cannot run herdr: {error.strerror}") from error
        return process


Handler = Callable[[Sequence[str]], RunResult | Awaitable[RunResult]]


@dataclass
class ScriptedRunner:
    """A runner that answers from a script, for unit tests of code built on the control layer.

    ``handler`` receives the argv and returns a :class:`RunResult` (or an awaitable of one); it may
    raise :class:`TimeoutError` or :class:`SpawnFailed` to simulate those failures. Every argv is
    recorded in ``calls``, in the order the calls started.
    """

    handler: Handler
    calls: list[tuple[str, ...]] = field(default_factory=list)

    @staticmethod
    def ok(payload: str) -> RunResult:
        """A successful run printing ``payload``."""
        return RunResult(0, payload + "\n", "")

    @staticmethod
    def error(code: str, message: str = "", request_id: str = "cli:test") -> RunResult:
        """A failed run printing Herdr's structured error on stderr."""
        import json

        body = json.dumps({"error": {"code": code, "message": message}, "id": request_id}, separators=(",", ":"))
        return RunResult(1, "", body + "\n")

    async def run(self, argv: Sequence[str], *, timeout: float) -> RunResult:
        self.calls.append(tuple(argv))
        with anyio.fail_after(timeout):
            result = self.handler(argv)
            if not isinstance(result, RunResult):
                result = await result
        return result
