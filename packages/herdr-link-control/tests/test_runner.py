import gc
import json
import os
import sys
from pathlib import Path

import anyio
import pytest

from herdr_link_control import ProcessRunner, SpawnFailed

pytestmark = pytest.mark.anyio


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "herdr"
    path.write_text(f"#!{sys.executable}\nimport json, os, sys, time\n{body}\n")
    path.chmod(0o755)
    return str(path)


async def test_arguments_reach_the_binary_verbatim_without_a_shell(tmp_path):
    binary = _script(tmp_path, "print(json.dumps(sys.argv[1:]))")
    tricky = ["agent", "prompt", "x", "$(touch pwned); `id` | rm -rf ~ \"'\n--wait", "*", "-"]
    result = await ProcessRunner(binary).run(tricky, timeout=10)
    assert result.returncode == 0 and json.loads(result.stdout) == tricky
    assert not (tmp_path / "pwned").exists()


async def test_the_environment_is_passed_on(tmp_path):
    binary = _script(tmp_path, "print(os.environ.get('HERDR_SOCKET_PATH'))")
    result = await ProcessRunner(binary, {"HERDR_SOCKET_PATH": "/s", "PATH": os.environ["PATH"]}).run([], timeout=10)
    assert result.stdout.strip() == "/s"


async def test_a_timed_out_child_is_killed_and_reaped(tmp_path):
    pid_file = tmp_path / "pid"
    binary = _script(tmp_path, f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)")
    with pytest.raises(TimeoutError):
        await ProcessRunner(binary).run([], timeout=0.5)
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, and reaped (a zombie would still accept signal 0)


def test_a_child_cancelled_at_any_step_is_reaped_before_its_loop_ends(tmp_path):
    # Cancelled while asyncio was still connecting its pipes, a child was killed but never reaped:
    # when the event loop ended first (a test's, a server's), its pipes and process were left over.
    # Each step of a run is tried in a loop of its own, ended straight after the cancellation.
    runner = ProcessRunner(_script(tmp_path, "time.sleep(60)"))
    left_over: list[str] = []

    async def cancel_after(steps: int) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: runner.run([], timeout=30))
            for _ in range(steps):
                await anyio.lowlevel.checkpoint()
            group.cancel_scope.cancel()

    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: left_over.append(repr(unraisable.exc_value))
    try:
        for steps in range(30):
            anyio.run(cancel_after, steps)
            gc.collect()
            assert left_over == [], f"cancelled after {steps} steps"
    finally:
        sys.unraisablehook = hook


async def test_a_missing_binary_is_a_spawn_failure(tmp_path):
    with pytest.raises(SpawnFailed):
        await ProcessRunner(str(tmp_path / "nope")).run(["agent", "list"], timeout=5)


async def test_a_non_executable_binary_is_a_spawn_failure(tmp_path):
    path = tmp_path / "herdr"
    path.write_text("not a program")
    with pytest.raises(SpawnFailed):
        await ProcessRunner(str(path)).run([], timeout=5)


async def test_large_outputs_are_read_whole(tmp_path):
    binary = _script(tmp_path, "sys.stdout.write('x' * 3_000_000)")
    assert len((await ProcessRunner(binary).run([], timeout=20)).stdout) == 3_000_000


async def test_runs_proceed_in_parallel(tmp_path):
    # Each child checks in, then waits for all four: run one after another, the first would give up.
    binary = _script(
        tmp_path,
        f"d = {str(tmp_path)!r}; open(os.path.join(d, f'in-{{os.getpid()}}'), 'w').close()\n"
        "deadline = time.monotonic() + 10\n"
        "while len([n for n in os.listdir(d) if n.startswith('in-')]) < 4:\n"
        "    if time.monotonic() > deadline: sys.exit(3)\n"
        "    time.sleep(0.01)",
    )
    runner = ProcessRunner(binary)
    codes: list[int] = []

    async def one() -> None:
        codes.append((await runner.run([], timeout=20)).returncode)

    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(one)
    assert codes == [0, 0, 0, 0]
