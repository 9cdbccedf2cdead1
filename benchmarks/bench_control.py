"""Control-layer figures: Herdr calls and critical-path depth per operation, and Link's own overhead.

Run with ``nox -s bench`` (or ``uv run python benchmarks/bench_control.py``). Prints a
Markdown table. Overhead is measured with a zero-latency scripted runner, so Herdr's time is not in
it; depth is measured with a runner that makes every call take the same time and counts rounds.
"""

import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from herdr_link_control import Link, PaneEvidence, RunResult, ScriptedRunner, TerminalPane

_SETTINGS = Path(tempfile.mkdtemp(prefix="hl-bench-")) / "config.toml"
_SETTINGS.write_text("[loop_guard]\nmessages = 0\n")  # an operation's overhead, repeated: not the guard's limit
ENV = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/bench/herdr", "HERDR_PANE_ID": "w1:p1"}
ENV["HERDR_LINK_CONFIG"] = str(_SETTINGS)
IN_PANE = PaneEvidence(TerminalPane.SAME, "bench: the scripted adapter runs in its pane")
"""What a host's adapter in its own pane shows (the pane proof, PROTOCOL.md §6.1): this process has no pane."""


def _ok(value: Any) -> RunResult:
    return RunResult(0, json.dumps(value) + "\n", "")


def _agent(name: str | None, pane: str, cwd: str = "/proj") -> dict[str, Any]:
    record = {"agent_status": "idle", "cwd": cwd, "pane_id": pane, "workspace_id": "w1", "agent": "claude"}
    if name:
        record["name"] = name
    return record


class FakeHerdr:
    """A zero-latency Herdr for one caller ``brain`` (w1:p1) and a peer ``reviewer`` (w1:p2)."""

    def __init__(self, named: bool = True) -> None:
        self.names = {"w1:p1": "brain" if named else None, "w1:p2": "reviewer"}

    def answer(self, argv: Sequence[str]) -> RunResult:
        match list(argv[:2]):
            case ["agent", "get"]:
                target = argv[2]
                pane = target if target in self.names else next(p for p, n in self.names.items() if n == target)
                return _ok({"result": {"agent": _agent(self.names[pane], pane), "type": "agent_info"}})
            case ["agent", "list"]:
                return _ok({"result": {"agents": [_agent(n, p) for p, n in self.names.items()], "type": "agent_list"}})
            case ["agent", "rename"]:
                self.names[argv[2]] = argv[3]
                return _ok({"result": {"agent": _agent(argv[3], argv[2])}})
            case ["tab", "create"]:
                return _ok(
                    {"result": {"tab": {"tab_id": "w1:t2"}, "root_pane": {"pane_id": "w1:p9", "tab_id": "w1:t2"}}}
                )
            case ["pane", "split"]:
                return _ok({"result": {"pane": {"pane_id": "w1:p9", "workspace_id": "w1"}}})
            case ["pane", "list"]:  # the panes a start lists before it allocates (the leftovers guard)
                panes = [{"pane_id": p, "tab_id": "w1:t1", "cwd": "/proj"} for p in self.names]
                return _ok({"result": {"panes": panes, "type": "pane_list"}})
            case _:
                return _ok({"result": {"type": "ok"}})


OPERATIONS: dict[str, Callable[[Link], Awaitable[object]]] = {
    "peers": lambda link: link.peers(),
    "send": lambda link: link.send("reviewer", "please review the design"),
    "send to a missing peer": lambda link: _swallow(link.send("ghost", "x")),
    "close": lambda link: link.close("reviewer"),
    "start, new tab": lambda link: link.start({"name": "worker", "kind": "pi", "args": []}),
    "start, with": lambda link: link.start({"name": "worker", "kind": "pi", "args": [], "with": "reviewer"}),
}
TS = {
    "peers": (2, 3.0),
    "send": (3, 4.0),
    "send to a missing peer": (2, None),
    "close": (3, 3.5),
    "start, new tab": (4, 5.0),
    "start, with": (5, 4.7),
    "first call of an unnamed agent": (None, None),
}


async def _swallow(call: Awaitable[object]) -> None:
    try:
        await call
    except Exception:
        pass


def _missing_aware(fake: FakeHerdr) -> Callable[[Sequence[str]], RunResult]:
    def answer(argv: Sequence[str]) -> RunResult:
        if list(argv[:3]) == ["agent", "get", "ghost"]:
            return RunResult(1, "", '{"error":{"code":"agent_not_found","message":"x"},"id":"cli:agent:get"}\n')
        return fake.answer(argv)

    return answer


async def measure(
    name: str,
    op: Callable[[Link], Awaitable[object]],
    *,
    named: bool = True,
    env: Mapping[str, str] = ENV,
    runs: int = 300,
) -> dict[str, Any]:
    fake = FakeHerdr(named)
    runner = ScriptedRunner(_missing_aware(fake))
    await op(Link(env, runner=runner, pane_evidence=IN_PANE))
    calls = len(runner.calls)
    step = 0.02
    delayed = _missing_aware(FakeHerdr(named))

    async def slow(argv: Sequence[str]) -> RunResult:
        await anyio.sleep(step)
        return delayed(argv)

    started = time.perf_counter()
    await op(Link(env, runner=ScriptedRunner(slow), pane_evidence=IN_PANE))
    depth = round((time.perf_counter() - started) / step)
    samples = []
    link = Link(env, runner=ScriptedRunner(_missing_aware(FakeHerdr(True))), pane_evidence=IN_PANE)
    for _ in range(runs):
        begun = time.perf_counter()
        await op(link)
        samples.append((time.perf_counter() - begun) * 1000)
    samples.sort()
    return {
        "name": name,
        "calls": calls,
        "depth": depth,
        "p50": statistics.median(samples),
        "p99": samples[int(len(samples) * 0.99) - 1],
    }


async def rows() -> list[dict[str, Any]]:
    """One row per operation: Herdr calls, critical-path depth, overhead p50 and p99 (ms)."""
    found = [await measure(name, op) for name, op in OPERATIONS.items()]
    found.append(await measure("first call of an unnamed agent (peers)", OPERATIONS["peers"], named=False))
    with tempfile.TemporaryDirectory() as home:  # the send reads the target host's folder trust first
        _claude_state(Path(home), megabytes=5)
        env = {**ENV, "HOME": home}
        found.append(await measure(CLAUDE_STATE_ROW, OPERATIONS["send"], env=env, runs=50))
    with tempfile.TemporaryDirectory() as folder:  # the user switched the trace on (issue 51)
        env = {**ENV, "HERDR_LINK_TRACE": str(Path(folder) / "trace.jsonl")}
        found.append(await measure(TRACE_ROW, OPERATIONS["send"], env=env))
    return found


TRACE_ROW = "send, with the trace on (its events written to a file)"
CLAUDE_STATE_ROW = "send to a Claude Code agent, a 5 MB `~/.claude.json` read first"


def _claude_state(home: Path, *, megabytes: int) -> None:
    """A long-used Claude Code's ``~/.claude.json``: many projects, the target's folder trusted."""
    project = {"allowedTools": [], "history": ["x" * 200] * 3, "hasTrustDialogAccepted": True}
    count = megabytes * 1_000_000 // len(json.dumps(project))
    projects = {f"/home/user/src/project-{index:06d}": project for index in range(count)}
    (home / ".claude.json").write_text(
        json.dumps({"projects": {**projects, "/proj": {"hasTrustDialogAccepted": True}}})
    )


if __name__ == "__main__":
    for row in anyio.run(rows):
        print(row)
