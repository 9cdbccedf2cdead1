"""The whole story with five kinds of real host in one workspace (issue: real hosts, part 4).

A Claude Code ``lead`` runs as one long-lived session in a pane of the simulated Herdr (its MCP
server, activation and round-robin cursor live through every turn). It starts a Codex reviewer (new
tab, explicit), a Gemini CLI researcher (beside ``lead``, explicit), an OpenCode coder and a Pi worker
(both from ``.agents/agent_config.json``'s round-robin entry, new tabs). When the simulator records
``agent start`` for a pane, the rig runs that kind's real host in that pane, with the pane's
``HERDR_*`` environment, for every wrapper delivered there. ``lead`` hands out tasks; each worker
replies to ``from`` and messages the next worker once (a ring: reviewer → researcher → coder →
worker → reviewer), whose reply goes back to ``from``; every reply to ``lead`` is a new turn of its
session; ``lead`` closes every worker. ``nox -s real_hosts -- -k story`` runs it alone.
"""

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fake_model import (
    Anthropic,
    Body,
    ChatCompletions,
    Dialect,
    FakeModelServer,
    Gate,
    Gemini,
    Responses,
    ScriptedModel,
    Step,
)
from hosts import ClaudeCode, Codex, GeminiCli, OpenCode, Pi
from matrix import STORY, size
from scenarios import CANONICAL

from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrError, HerdrSim

LEAD_NAMES = {tool: f"mcp__herdr_link__{tool}" for tool in CANONICAL}


@dataclass
class Kind:
    """One worker kind: its name in the workspace, its host, dialect and tool names."""

    agent: str
    label: str
    dialect: Dialect
    names: dict[str, str]
    prefix: str


KINDS = {
    "codex": Kind("reviewer", "Codex 0.171.0", Responses(), {t: f"mcp__herdr_link.{t}" for t in CANONICAL},
                  "mcp__herdr_link"),
    "gemini": Kind("researcher", "Gemini CLI 0.61.0", Gemini(), {t: f"mcp_herdr_link_{t}" for t in CANONICAL},
                   "mcp_herdr_link_"),
    "opencode": Kind("coder", "OpenCode 1.18.33", ChatCompletions(), {t: t for t in CANONICAL}, "herdr_link"),
    "pi": Kind("worker", "Pi 1.6.0", ChatCompletions(), {t: t for t in CANONICAL}, "herdr_link"),
}  # fmt: skip
RING = ["reviewer", "researcher", "coder", "worker"]
"""Each worker messages the next once; the last messages the first."""
TASKS = {name: f"task for {name}: summarise part {n} of the design" for n, name in enumerate(RING, 1)}
CONFIG = {
    "agents": {
        "helper": {
            "placement": {"mode": "new_tab", "label": "helpers"},
            "strategy": "round-robin",
            "variants": [{"kind": "opencode", "args": []}, {"kind": "pi", "args": []}],
        }
    }
}


def _replies_seen(body: Body) -> bool:
    """Whether the lead's conversation holds a reply from every worker."""
    prompt = Anthropic().prompt(body)
    senders = {line for line in RING if f'"from":"{line}"' in prompt}
    return senders == set(RING)


def lead_steps() -> list[Step | Gate]:
    starts = [
        Step("herdr_link_start", {"name": "reviewer", "kind": "codex", "args": []}),  # new tab, explicit
        Step("herdr_link_start", {"name": "researcher", "kind": "gemini", "args": [], "with": "lead"}),
        Step("herdr_link_start", {"name": "coder", "config_agent": "helper"}),  # round-robin: opencode
        Step("herdr_link_start", {"name": "worker", "config_agent": "helper"}),  # round-robin: pi
    ]
    sends = [Step("herdr_link_send", {"to": name, "message": TASKS[name]}) for name in RING]
    closes = [Step("herdr_link_close", {"agent": name}) for name in RING]
    return [Step("herdr_link"), *starts, *sends, Gate(_replies_seen), *closes]


def worker_steps(kind: Kind, envelope: Any) -> list[Step | Gate]:
    """What a worker's model does with one inbound message, by what the message is."""
    me = kind.agent
    following = RING[(RING.index(me) + 1) % len(RING)]
    if envelope.from_ == "lead":
        return [
            Step("herdr_link"),
            Step("herdr_link_send", {"to": envelope.from_, "message": f"result from {me} for {envelope.id}"}),
            Step("herdr_link_send", {"to": following, "message": f"ring: hello from {me}"}),
        ]
    if envelope.message.startswith("ring:"):
        return [Step("herdr_link"), Step("herdr_link_send", {"to": envelope.from_, "message": f"ring-ack from {me}"})]
    return []  # a ring-ack: read, nothing to answer


@dataclass
class Worker:
    """A started agent and the real host the rig runs in its pane."""

    kind: Kind
    pane: str
    workdir: Path
    host: Any
    handled: int = 0
    runs: list[tuple[str, ScriptedModel, float]] = field(default_factory=list)
    first_text: str = ""


@dataclass
class Story:
    """Who sent what to whom, as the panes received it, in order."""

    lines: list[str] = field(default_factory=list)
    deliveries: int = 0

    def saw(self, pane: str, text: str, to: str, sim: HerdrSim) -> None:
        envelope = extract_envelope(text)
        assert envelope is not None and envelope.to == to, text
        self.lines.append(f"{envelope.from_} → {envelope.to}: {envelope.message}")
        self.deliveries += 1


def _launch(kind_name: str, pane: str, root: Path, env: dict[str, str]) -> Worker:
    kind = KINDS[kind_name]
    workdir = root / kind.agent
    workdir.mkdir(parents=True, exist_ok=True)
    host: Any
    if kind_name == "codex":
        host = Codex(workdir)
    elif kind_name == "gemini":
        host = GeminiCli(workdir)
    elif kind_name == "opencode":
        host = OpenCode(workdir)
        host.prepare_config()
        done = host.install(env, "--runtime", "v1")
        assert done.returncode == 0, done.stderr
    else:
        host = Pi(workdir)
        assert host.install(env).returncode == 0
    return Worker(kind, pane, workdir, host)


def _run_worker(worker: Worker, text: str, env: dict[str, str]) -> None:
    envelope = extract_envelope(text)
    assert envelope is not None
    worker.first_text = worker.first_text or text
    model = ScriptedModel(worker.kind.dialect, worker.kind.names, worker_steps(worker.kind, envelope))
    with FakeModelServer(model) as api:
        if isinstance(worker.host, Pi):
            session = worker.host.run([text], env, api.url)
            assert session.returncode == 0, session.stderr[-2000:]
            spawned = session.spawned
        else:
            done = worker.host.run(text, env, api.url)
            assert done.returncode == 0, done.stderr[-2000:]
            spawned = done.spawned
    expected = sum(isinstance(step, Step) for step in worker_steps(worker.kind, envelope))
    assert len(worker.kind.dialect.calls(model.primary_requests[-1])) == expected, worker.kind.label
    worker.runs.append((envelope.message, model, spawned))


def test_the_story_five_kinds_of_real_host_in_one_workspace(herdr_sim: HerdrSim, tmp_path: Path):
    began = time.monotonic()
    project = tmp_path / "lead"  # lead's working directory: its roots, where the config is read
    (project / ".agents").mkdir(parents=True)
    (project / ".agents" / "agent_config.json").write_text(json.dumps(CONFIG))
    lead_pane = herdr_sim.create_workspace(str(project))
    herdr_sim.add_agent(lead_pane, "claude", name="lead")
    before = (_panes(herdr_sim), _tabs(herdr_sim))
    story = Story()
    lead_model = ScriptedModel(Anthropic(), LEAD_NAMES, lead_steps())
    workers: dict[str, Worker] = {}
    lead_handled = 0
    trace = tmp_path / "trace.jsonl"  # the README's "A message never arrived": the user switches the trace on
    lead_host = ClaudeCode(project)
    _trace_on(lead_host.home, trace)
    with FakeModelServer(lead_model) as api, lead_host.session(herdr_sim.env(lead_pane), api.url) as lead:
        first = lead.turn(
            "Start a reviewer, a researcher, a coder and a worker, hand out the tasks, collect the results."
        )
        assert first.get("is_error") is False, first
        for name in RING:  # the simulator recorded each start: run that kind's real host in its pane
            info = herdr_sim.agent(name)
            kind = next(k for k, v in KINDS.items() if v.agent == name)
            assert info.get("agent") == kind  # the round-robin entry gave opencode, then pi
            workers[name] = _launch(kind, info["pane_id"], tmp_path / "workers", herdr_sim.env(info["pane_id"]))
            _trace_on(workers[name].host.home, trace)
        deadline = time.monotonic() + 1200
        while time.monotonic() < deadline:
            progressed = False
            for name, worker in workers.items():  # workers first: ring traffic drains before lead closes
                delivered = _deliveries(herdr_sim, worker.pane)
                while worker.handled < len(delivered):
                    delivery = delivered[worker.handled]
                    worker.handled += 1
                    story.saw(worker.pane, delivery.text, name, herdr_sim)
                    assert delivery.raw_controls == () and not delivery.splits
                    _run_worker(worker, delivery.text, herdr_sim.env(worker.pane))
                    progressed = True
                    delivered = _deliveries(herdr_sim, worker.pane)
            if progressed:
                continue
            inbound = herdr_sim.deliveries(lead_pane)
            if lead_handled < len(inbound):
                delivery = inbound[lead_handled]
                lead_handled += 1
                story.saw(lead_pane, delivery.text, "lead", herdr_sim)
                assert delivery.raw_controls == () and not delivery.splits
                result = lead.turn(delivery.text)  # a new turn of the same session
                assert result.get("is_error") is False, result
                continue
            break
    wall = time.monotonic() - began

    # Every reply reached lead, and lead's model saw each (they are in its conversation).
    final = lead_model.primary_requests[-1]
    assert _replies_seen(final)
    assert lead_model.paths(final).count("Tier 1") == 12  # four starts, four sends, four closes
    # Every envelope went from the right sender to the right receiver with its message intact.
    expected = {f"lead → {name}: {TASKS[name]}" for name in RING}
    for me, following in zip(RING, RING[1:] + RING[:1], strict=True):
        expected |= {f"{me} → {following}: ring: hello from {me}", f"{following} → {me}: ring-ack from {following}"}
    results = [line for line in story.lines if line.endswith(tuple(f"for {i}" for i in _task_ids(workers)))]
    assert set(story.lines) - set(results) == expected and len(story.lines) == len(set(story.lines))
    assert sorted(results) == sorted(f"{n} → lead: result from {n} for {_task_id(workers[n])}" for n in RING)
    # Each worker: its task from lead, one ring message in, one ring-ack in.
    for name, worker in workers.items():
        received = [message for message, _, _ in worker.runs]
        assert received[0] == TASKS[name] and len(received) == 3, (name, received)
        assert any(m.startswith("ring: hello from") for m in received)
        assert any(m.startswith("ring-ack from") for m in received)
    # Exactly one delivery per send: every send receipt in every conversation has its delivery.
    sends = 4 + sum(
        sum(1 for c in w.kind.dialect.calls(m.primary_requests[-1]) if _is_send(c, w.kind)) for w in workers.values()
        for _, m, _ in w.runs
    )  # fmt: skip
    assert story.deliveries == sends == 4 + 4 + 4 + 4  # tasks, results, ring messages, ring-acks
    # Every started pane and tab is gone, and nothing else was closed.
    for name in RING:
        with pytest.raises(HerdrError):
            herdr_sim.agent(name)
    assert (_panes(herdr_sim), _tabs(herdr_sim)) == before
    assert herdr_sim.agent("lead")["pane_id"] == lead_pane

    _report(lead_model, lead.spawned, workers, story, wall)
    _traced(trace, story, workers)


def _trace_on(home: Path, trace: Path) -> None:
    """The user's Herdr Link settings with the trace switched on (the README's step), in this HOME."""
    settings = home / ".config" / "herdr-link" / "config.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(f'[trace]\nfile = "{trace}"\n')


def _traced(trace: Path, story: Story, workers: dict[str, Worker]) -> None:
    """Every call of the story is in the trace, from every adapter (MCP servers of Claude Code, Codex and
    Gemini CLI; the bridge of OpenCode and Pi), and ``herdr-link trace --id`` shows a message's path."""
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    sends = [e for e in events if e["event"] == "call" and e.get("action") == "send" and e["code"] == "ok"]
    assert len(sends) == story.deliveries  # every send of the story, each once
    assert {e["caller"] for e in sends} == {"lead", *RING}
    assert {e["adapter"] for e in sends} == {"mcp", "bridge"}
    closes = [e for e in events if e["event"] == "call" and e.get("action") == "close" and e["code"] == "ok"]
    starts = [e for e in events if e["event"] == "call" and e.get("action") == "start" and e["code"] == "ok"]
    assert len(closes) == len(starts) == len(RING)
    prompts = [e for e in events if e["event"] == "herdr" and e["role"] == "prompt" and e["exit"] == 0]
    assert {e["call"] for e in prompts} == {e["call"] for e in sends}  # each send's agent prompt, under it
    task = _task_id(workers[RING[0]])
    command = [str(Path(sys.executable).parent / "herdr-link"), "trace", "--file", str(trace), "--id", task]
    shown = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert shown.returncode == 0, shown.stderr
    pane = workers[RING[0]].pane
    assert f"send lead → {RING[0]} {task}" in shown.stdout and f"herdr agent prompt {pane} <" in shown.stdout
    assert f"send {RING[0]} → lead" in shown.stdout.split("inferred by name and time")[1]  # its result, inferred


def _task_id(worker: Worker) -> str:
    """The envelope id of the task lead sent this worker (its first inbound message)."""
    envelope = extract_envelope(worker.first_text)
    assert envelope is not None
    return envelope.id


def _task_ids(workers: dict[str, Worker]) -> list[str]:
    return [_task_id(worker) for worker in workers.values()]


def _deliveries(sim: HerdrSim, pane: str) -> list[Any]:
    """The pane's deliveries; none once the pane is closed (lead closes its workers at the end)."""
    try:
        return sim.deliveries(pane)
    except KeyError:
        return []


def _is_send(call: Any, kind: Kind) -> bool:
    return bool(call.name == kind.names["herdr_link_send"] or call.arguments.get("action") == "send")


def _panes(sim: HerdrSim) -> set[str]:
    return {pane["pane_id"] for pane in sim.request("pane.list")["panes"]}


def _tabs(sim: HerdrSim) -> set[str]:
    return {tab["tab_id"] for tab in sim.request("tab.list")["tabs"]}


def _report(lead: ScriptedModel, spawned: float, workers: dict[str, Worker], story: Story, wall: float) -> None:
    rows: list[str] = []

    def row(label: str, model: ScriptedModel, prefix: str, started: float, path: list[str]) -> None:
        requests = model.primary_requests
        active = next((r for r in requests if any('"status":"active"' in t for t in model.dialect.results(r))), None)
        sizes = [size(model.dialect.ours(r, prefix)) for r in (requests[0], active, requests[-1]) if r is not None]
        shown = " · ".join(f"{b} B / {t}" for b, t in sizes)
        offered = model.first_offering(started)
        rows.append(
            f"| {label} | {', '.join(dict.fromkeys(p for p in path if p != 'gateway')) or '—'} | {shown} | "
            f"{'—' if offered is None else f'{offered:.1f} s'} |"
        )

    row("Claude Code 2.1.332 (lead, one session)", lead, "mcp__herdr_link__", spawned, lead.paths(lead.requests[-1]))
    for worker in workers.values():
        for message, model, started in worker.runs:
            label = f"{worker.kind.label} ({worker.kind.agent}: {message.split(':')[0]})"
            row(label, model, worker.kind.prefix, started, model.paths(model.primary_requests[-1]))
    STORY.clear()
    STORY.update({"sequence": story.lines, "rows": rows, "wall": f"{wall:.0f} s"})
