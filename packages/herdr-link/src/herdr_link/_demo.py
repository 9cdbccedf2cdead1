"""``herdr-link demo``: the whole Herdr Link story on a simulated Herdr, with real MCP servers.

Two agents whose model turns are scripted: ``brain`` activates its gateway, starts ``worker``
beside itself, lists peers and sends a task; ``worker`` finds the message in its prompt, activates,
and sends the result back; ``brain`` reads it and closes ``worker``. Every tool call, its result,
the Herdr commands it caused and its time are printed.
"""

import json
import os
import shlex
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

from herdr_link_control import LinkSettings, settings_path
from herdr_link_mcp import server_command
from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim, pane_terminal

__all__ = ["DemoEvent", "agent_session", "run_demo"]

TASK = "Count the words in: the quick brown fox jumps over the lazy dog"


@dataclass
class DemoEvent:
    """One step of the story, for the transcript and for tests."""

    agent: str
    kind: str  # "call", "prompt", "note"
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    result: str = ""
    is_error: bool = False
    commands: list[tuple[str, ...]] = field(default_factory=list)
    millis: float = 0.0


class Transcript:
    def __init__(self, out: TextIO, sim: HerdrSim, show_envelopes: bool) -> None:
        self.out, self.sim, self.show_envelopes = out, sim, show_envelopes
        self.events: list[DemoEvent] = []
        self._seen = 0

    def new_commands(self) -> list[tuple[str, ...]]:
        commands = self.sim.log.commands()
        fresh, self._seen = commands[self._seen :], len(commands)
        return fresh

    def write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def command_line(self, argv: tuple[str, ...]) -> str:
        shown = [a if len(a) <= 60 or self.show_envelopes else f"<wrapper, {len(a.encode())} bytes>" for a in argv]
        return "    $ herdr " + shlex.join(shown)

    def record(self, event: DemoEvent) -> None:
        self.events.append(event)
        if event.kind == "call":
            args = json.dumps(event.arguments, ensure_ascii=False)
            flag = "  [error]" if event.is_error else ""
            self.write(f"[{event.agent}] {event.name} {args}\n    → {event.result}{flag}   ({event.millis:.0f} ms)")
            for argv in event.commands:
                self.write(self.command_line(argv))
        else:
            self.write(f"[{event.agent}] {event.result}")


@asynccontextmanager
async def agent_session(env: dict[str, str]) -> AsyncIterator[ClientSession]:
    """A host's MCP connection: ``herdr-link-mcp`` started with the agent's pane environment, in a terminal
    of that pane (the simulated Herdr of this process holds it), as a host in the pane starts it."""
    with pane_terminal() as terminal:
        command, *args = (*terminal, *server_command())
        params = StdioServerParameters(command=command, args=args, env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def _call(log: Transcript, agent: str, session: ClientSession, name: str, arguments: dict[str, Any]) -> str:
    started = time.perf_counter()
    result = await session.call_tool(name, arguments)
    millis = (time.perf_counter() - started) * 1000
    text = next((c.text for c in result.content if isinstance(c, types.TextContent)), "")
    log.record(DemoEvent(agent, "call", name, arguments, text, bool(result.is_error), log.new_commands(), millis))
    if result.is_error:
        raise RuntimeError(f"{agent}: {name} failed: {text}")
    return text


async def _list(log: Transcript, agent: str, session: ClientSession) -> None:
    tools = (await session.list_tools()).tools
    log.new_commands()
    log.record(DemoEvent(agent, "note", result="tools/list → " + ", ".join(t.name for t in tools)))


def _receive(log: Transcript, agent: str, pane: str) -> Any:
    delivery = log.sim.wait_for_delivery(pane)[-1]
    envelope = extract_envelope(delivery.text)
    assert envelope is not None, "the delivered text holds no envelope"
    detail = f" {envelope.to_line()}" if log.show_envelopes else ""
    log.record(
        DemoEvent(agent, "prompt", result=f"prompt received from {envelope.from_}: {envelope.message!r}{detail}")
    )
    return envelope


def _users_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The user's settings file, and its trace file, for servers whose ``HOME`` is the simulated Herdr's
    (so named by absolute path: a ``~/`` would be read in the simulation's home)."""
    path = settings_path(environ)
    trace = LinkSettings.load(environ).trace_file
    return {
        **({"HERDR_LINK_CONFIG": str(path)} if path is not None else {}),
        **({"HERDR_LINK_TRACE": str(trace)} if trace is not None else {}),
    }


async def run_demo(
    out: TextIO,
    *,
    configured: bool = False,
    show_envelopes: bool = False,
    workdir: Path | None = None,
    started: float | None = None,
) -> list[DemoEvent]:
    """Run the story and print its transcript to ``out``; returns the events. ``started`` is the
    ``time.perf_counter()`` the closing time counts from (the command's start; default: now)."""
    begun = time.perf_counter() if started is None else started
    settings = _users_settings(os.environ)
    with HerdrSim() as sim:
        project = workdir or sim.root / "project"
        project.mkdir(parents=True, exist_ok=True)
        brain_pane = sim.create_workspace(str(project))
        sim.add_agent(brain_pane, "claude", name="brain")
        log = Transcript(out, sim, show_envelopes)
        log.write("Herdr Link demo: a simulated Herdr 0.8.2 (herdr-link-testkit), real herdr-link-mcp servers,")
        log.write("and two agents whose model turns are scripted.")
        if "HERDR_LINK_TRACE" in settings:
            log.write(f"The servers trace into {settings['HERDR_LINK_TRACE']} (your trace setting).")
        log.write(f"workspace w1 in {project}: brain (claude) in {brain_pane}\n")
        start_args: dict[str, Any] = {"name": "worker", "kind": "claude", "args": [], "with": "brain"}
        if configured:
            (project / ".agents").mkdir(exist_ok=True)
            config = {"agents": {"worker": {"placement": {"mode": "with"}, "variants": [{"kind": "claude"}]}}}
            (project / ".agents" / "agent_config.json").write_text(json.dumps(config, indent=2))
            start_args = {"name": "worker", "config_agent": "worker", "with": "brain"}
            log.write("The worker is started from the project's .agents/agent_config.json, which holds:")
            log.write(f"{json.dumps(config)}\n")
        async with agent_session({**sim.env(brain_pane), **settings}) as brain:
            await _list(log, "brain", brain)
            await _call(log, "brain", brain, "herdr_link", {})
            await _list(log, "brain", brain)
            await _call(log, "brain", brain, "herdr_link_start", start_args)
            worker_pane = sim.agent("worker")["pane_id"]
            await _call(log, "brain", brain, "herdr_link_peers", {})
            await _call(log, "brain", brain, "herdr_link_send", {"to": "worker", "message": TASK})
            task = _receive(log, "worker", worker_pane)
            async with agent_session({**sim.env(worker_pane), **settings}) as worker:
                await _call(log, "worker", worker, "herdr_link", {})
                words = len(task.message.split(":", 1)[1].split())
                await _call(log, "worker", worker, "herdr_link_send", {"to": task.from_, "message": f"{words} words"})
            _receive(log, "brain", brain_pane)
            await _call(log, "brain", brain, "herdr_link_close", {"agent": "worker"})
        gone = not sim.exists(worker_pane)
        log.record(
            DemoEvent("herdr", "note", result=f"worker's pane {worker_pane} is {'gone' if gone else 'STILL THERE'}")
        )
        log.write(f"\nDone in {time.perf_counter() - begun:.1f} s, from the command's start.")
        return log.events
