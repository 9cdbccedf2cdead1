"""Codex 0.171.0's shared app-server daemon, in real panes (issue 60): a plain ``codex`` runs its session in
one background process that spawns our server with the environment of the pane that started it. Each pane
answers as itself or is refused; nothing ever goes out under another pane's name.

A user followed the README (``herdr-link-mcp install --host codex``) and typed ``codex`` into panes of the
simulated Herdr, then a request into each composer. One scripted Responses model serves every session
(each conversation carries its own progress): activate, peers, then a send to the agent the request names.
"""

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import threading
from contextlib import ExitStack
from functools import partial
from pathlib import Path

import pytest
from fake_model import Body, Call, Decision, FakeModelServer, Responses, ScriptedModel, Step, Text
from hosts import HOSTS, install_wiring
from interactive import ENTER, WAIT, Machine, at_prompt, lead_pane, say, settled, status, user_machine
from matrix import SCENARIOS
from scenarios import CANONICAL

from herdr_link_protocol import Cause, LinkError, extract_envelope
from herdr_link_testkit import HerdrSim

NAMES = {tool: f"mcp__herdr_link.{tool}" for tool in CANONICAL}
DIALECT = Responses()
UNPROVEN = str(LinkError(Cause.SELF_UNPROVEN))


@pytest.fixture
def allowed_lookups() -> frozenset[str]:
    """Interactive Codex fetches its announcement tip from raw.githubusercontent.com; nothing waits for it."""
    return frozenset({"raw.githubusercontent.com"})


def _target(body: Body) -> dict[str, str]:
    # the user's request, wherever it is in the conversation (a message from another agent may have
    # arrived as a later user turn while this one ran: Codex adds it to the running turn)
    named = re.search(r"Tell (\w+) hello", json.dumps(body))
    return {"to": named.group(1) if named else "nobody", "message": "hello"}


class _OnRequest(ScriptedModel):
    """Acts only in a session whose user asked it to tell someone hello; a session whose first turn is a
    message from another agent just notes it (and acts once its user asks)."""

    def decide(self, body: Body) -> Decision:
        if self.dialect.primary(body) and "Tell " not in json.dumps(body):
            return Text("noted")
        return super().decide(body)


def _model() -> ScriptedModel:
    steps = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", _target)]
    return _OnRequest(DIALECT, NAMES, steps)


def _codex_pane(sim: HerdrSim, workspace: str | None, folder: Path, name: str, command: str) -> str:
    """A pane in ``folder`` named ``name`` in Herdr, where the user typed ``command`` and waits for its composer."""
    folder.mkdir(parents=True, exist_ok=True)
    pane = sim.create_workspace(str(folder)) if workspace is None else sim.new_tab(workspace, cwd=str(folder))
    at_prompt(sim, pane)
    sim.type_text(pane, f"{command}\r")
    sim.wait_for(lambda: status(sim, pane) is not None, timeout=WAIT, what=f"Codex detected in {pane}")
    sim.wait_for(lambda: sim.bracketed_paste(pane), timeout=WAIT, what="its composer")
    settled(sim, pane, quiet=1.0)
    sim.request("agent.rename", target=pane, name=name)
    return pane


def _results_of(model: ScriptedModel, name: str) -> list[str]:
    """Every tool result in the newest request of the session the user asked to tell ``name`` hello."""
    mine = [b for b in model.primary_requests if f"Tell {name} hello" in json.dumps(b)]
    return DIALECT.results(mine[-1]) if mine else []


def _turn_done(model: ScriptedModel, name: str) -> bool:
    return len(_results_of(model, name)) >= 3  # activation, peers, send: each answered


def _daemon_env(home: Path) -> dict[str, str]:
    """The environment of the user's running Codex app-server daemon (found in /proc by its command line:
    an ``app-server`` installed under this user's ``~/.codex``, not its updater loop)."""
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            raw = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(home).encode() in argv[0] and b"app-server" in argv and b"pid-update-loop" not in argv:
            return dict(item.decode("utf-8", "replace").split("=", 1) for item in raw if b"=" in item)
    return {}


def _daemon_started_in_alpha(sim: HerdrSim, machine: Machine) -> str:
    """Pane alpha, in the project's folder ``a``, where the user typed a plain ``codex``: its Codex started
    the daemon, which has alpha's environment; every later plain ``codex`` joins it."""
    alpha = _codex_pane(sim, None, machine.project / "a", "alpha", "codex")
    started = lambda: _daemon_env(machine.home).get("HERDR_PANE_ID") == alpha  # noqa: E731
    sim.wait_for(started, timeout=WAIT, what="Codex's app-server daemon, started from alpha")
    return alpha


def _tell(sim: HerdrSim, model: ScriptedModel, pane: str, name: str) -> None:
    """The user asks the Codex in ``pane`` to tell ``name`` hello, and the turn runs to its end."""
    say(sim, pane, f"Tell {name} hello")
    sim.wait_for(partial(_turn_done, model, name), timeout=WAIT * 2, what=f"the turn telling {name}")


def _took_its_message(sim: HerdrSim, model: ScriptedModel, pane: str, sender: str, name: str) -> None:
    """The Codex in ``pane`` (``name``) ran the turn the message ``sender`` sent it started, to its end: its
    model was asked and answered ("noted"), the answer shows in the pane, and the pane has settled (a person
    waits for that before typing: keys typed meanwhile may be lost)."""

    def asked() -> bool:
        envelopes = (extract_envelope(DIALECT.prompt(body)) for body in model.primary_requests)
        return any(e is not None and (e.from_, e.to) == (sender, name) for e in envelopes)

    sent = _results_of(model, name)[-1:]  # what the sender's Link answered its send (a refusal says why)
    sim.wait_for(
        lambda: len(sim.deliveries(pane)) >= 1, timeout=WAIT * 2, what=f"{sender}'s message in {pane} (sent: {sent})"
    )
    sim.wait_for(asked, timeout=WAIT * 2, what=f"{name}'s turn for {sender}'s message")
    sim.wait_for(lambda: "noted" in sim.read(pane), timeout=WAIT * 2, what=f"{name}'s answer shown in {pane}")
    settled(sim, pane, quiet=2.0)


def _say_until_shown(sim: HerdrSim, pane: str, text: str, attempts: int = 3) -> None:
    """:func:`say`, typing ``text`` again (what was read of it deleted first) when it never shows: a
    TUI busy under load may drop keys typed while it draws."""
    for attempt in range(attempts):
        sim.type_text(pane, text)
        try:
            sim.wait_for(lambda: text in sim.read(pane), timeout=WAIT, what=f"{text!r} in the composer of {pane}")
            break
        except TimeoutError:
            if attempt == attempts - 1:
                raise TimeoutError(f"{text!r} never showed in {pane}:\n{sim.read(pane)}") from None
            sim.type_text(pane, "\x7f" * len(text))
            settled(sim, pane, quiet=1.0)
    settled(sim, pane, quiet=0.5)  # a person looks at what they typed before pressing Enter
    sim.type_text(pane, ENTER)


def _no_token_under(folder: Path) -> list[str]:
    """Files under ``folder`` holding a bearer token (the TUI's endpoint token must stay in its memory)."""
    found = []
    for path in folder.rglob("*"):
        try:
            if path.is_file() and re.search(rb"Bearer [0-9a-f]{8}-", path.read_bytes()):
                found.append(str(path))
        except OSError:
            continue
    return found


def test_plain_codex_panes_on_one_daemon_each_speak_as_themselves(tmp_path: Path) -> None:
    """Issue 70: a plain ``codex`` in each pane, every session in the one daemon (started from alpha, so its
    servers have alpha's environment): each call is placed by its own thread (the daemon's status of the
    thread's ``codex_tui`` endpoint, the one TUI listening there, that TUI's pane), so each pane answers as
    itself and its message arrives from its own name; nothing ever goes out as another pane."""
    model = _model()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        install_wiring("codex", machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _daemon_started_in_alpha(sim, machine)
            workspace = alpha.split(":")[0]
            beta = _codex_pane(sim, workspace, machine.project / "b", "beta", "codex")
            # the trap: a pane in alpha's own folder, one with -C naming it, and one in another workspace
            gamma = _codex_pane(sim, workspace, machine.project / "a", "gamma", "codex")
            delta = _codex_pane(sim, workspace, machine.project / "b", "delta", f"codex -C {machine.project / 'a'}")
            elsewhere = _codex_pane(sim, None, machine.project / "e", "epsilon", "codex")
            # one turn at a time: a message that reached a pane before its user's request would be its turn
            for pane, name in (
                (alpha, "beta"),
                (beta, "alpha"),
                (gamma, "delta"),
                (delta, "gamma"),
                (elsewhere, "zeta"),
            ):
                _tell(sim, model, pane, name)
            panes = {"alpha": alpha, "beta": beta, "gamma": gamma, "delta": delta, "epsilon": elsewhere}
            received = {name: [extract_envelope(d.text) for d in sim.deliveries(pane)] for name, pane in panes.items()}
            names = {name: sim.agent(pane).get("name") for name, pane in panes.items()}
        tokens = _no_token_under(machine.home / ".codex")
    for sender, receiver in (("alpha", "beta"), ("beta", "alpha"), ("gamma", "delta"), ("delta", "gamma")):
        results = _results_of(model, receiver)
        assert any(f'"self":{{"name":"{sender}"' in text for text in results), (sender, results)
        assert [(e.from_, e.to) for e in received[receiver] if e is not None] == [(sender, receiver)], received
    lonely = _results_of(model, "zeta")  # another workspace: itself, none of the others, nothing sent
    assert any('"self":{"name":"epsilon"' in text and '"peers":[]' in text for text in lonely), lonely
    assert received["epsilon"] == [] and all(UNPROVEN not in text for text in lonely)
    assert names == {name: name for name in panes}  # nobody renamed
    assert tokens == []  # the TUIs' endpoint tokens never reach ~/.codex
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "plain `codex` in five panes on its shared app-server daemon (two in one folder, one with "
            "`-C` naming another pane's folder, one in another workspace)",
            "outcome": "each call placed by its own thread (daemon → the thread's `codex_tui` endpoint → the one "
            "TUI listening → its pane): each answers `peers` as itself, each message arrives from its sender's "
            "name, the other workspace sees no peer; no endpoint token under `~/.codex`",
            "prompts": [],
        }
    )


def _self_in(model: ScriptedModel, target: str) -> str | None:
    """Whom the turn that told ``target`` hello answered ``peers`` as (``None``: refused, or no peers result)."""
    for text in _results_of(model, target):
        found = re.search(r'"self":\{"name":"([^"]+)"', text)
        if found:
            return found.group(1)
    return None


def test_the_open_cases_each_act_as_the_owner_pane_or_are_refused(tmp_path: Path) -> None:
    """Issue 70's open cases with real TUIs on one daemon (PROTOCOL.md §6.1 states each rule): ``codex resume
    --last`` in another pane while the thread's first TUI still runs it; ``/new`` in a pane; the daemon
    restarted from a shell pane, then a new plain ``codex`` (the new daemon has that shell's environment).
    Each call acts as a pane whose TUI is the thread's endpoint, or is refused; never another pane."""
    model = _model()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        install_wiring("codex", machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _daemon_started_in_alpha(sim, machine)
            workspace = alpha.split(":")[0]
            beta = _codex_pane(sim, workspace, machine.project / "b", "beta", "codex")
            turns: dict[str, str | None] = {}

            def turn(pane: str, target: str) -> None:
                _tell(sim, model, pane, target)
                turns[target] = _self_in(model, target)

            turn(beta, "alpha")  # beta's thread; its message becomes a turn of alpha's thread (noted)
            sim.wait_for(lambda: len(sim.deliveries(alpha)) == 1, timeout=WAIT, what="beta's message in alpha")
            settled(sim, alpha, quiet=1.0)
            # alpha's thread (the newest in folder a) resumed in a third pane while alpha's TUI still runs it
            epsilon = _codex_pane(sim, workspace, machine.project / "a", "epsilon", "codex resume --last")
            turn(epsilon, "lambda")
            # /new in beta: a new thread, started by beta's TUI
            say(sim, beta, "/new")
            settled(sim, beta, quiet=1.0)
            turn(beta, "kappa")
            # the daemon restarted from a shell pane: it now has that pane's environment
            shell = sim.new_tab(workspace, cwd=str(machine.project))
            at_prompt(sim, shell)
            sim.type_text(shell, f"{HOSTS['codex'].executable} app-server daemon restart\r")
            restarted = lambda: _daemon_env(machine.home).get("HERDR_PANE_ID") == shell  # noqa: E731
            sim.wait_for(restarted, timeout=WAIT, what="the daemon restarted from the shell pane")
            zeta = _codex_pane(sim, workspace, machine.project / "z", "zeta", "codex")
            turn(zeta, "nu")
            delivered = [extract_envelope(d.text) for d in sim.deliveries(alpha)]
    assert turns["alpha"] == "beta" and turns["kappa"] == "beta" and turns["nu"] == "zeta", turns
    assert turns["lambda"] == "alpha", turns  # the thread's endpoint stays its first TUI's: the owner pane
    assert [(e.from_, e.to) for e in delivered if e is not None] == [("beta", "alpha")]
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "open cases on the daemon: `codex resume --last` of a running thread in another pane, `/new` "
            "in a pane, a new plain `codex` after the daemon was restarted from a shell pane",
            "outcome": f"the resumed thread: {turns['lambda'] or 'refused'}; `/new`: the pane itself; after the "
            "restart: the new pane itself (the daemon's environment names the shell)",
            "prompts": [],
        }
    )


def _tuis(home: Path) -> list[int]:
    """The Codex TUIs of the user whose HOME is ``home`` (processes named ``codex``, not the daemon)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if (proc / "comm").read_text().strip() != "codex" or b"app-server" in (proc / "cmdline").read_bytes():
                continue
            if f"HOME={home}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _tui_pid(home: Path) -> int:
    """The one Codex TUI of the user whose HOME is ``home``."""
    found = _tuis(home)
    assert len(found) == 1, found
    return found[0]


def _tui_port(home: Path) -> int:
    """A loopback port a Codex TUI of that user listens on (its ``codex_tui`` endpoint), found in /proc."""
    inodes = {}
    for row in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = row.split()
        if fields[3] == "0A" and fields[1].startswith("0100007F:"):
            inodes[f"socket:[{fields[9]}]"] = int(fields[1].split(":")[1], 16)
    for pid in _tuis(home):
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                if (port := inodes.get(os.readlink(fd))) is not None:
                    return port
        except OSError:
            continue
    raise AssertionError("no Codex TUI listens on a loopback port")


class _AppServerClient:
    """Another client of the daemon's control socket (as the desktop app or a script would be): starts
    threads and turns of its own, and reads every message the daemon sends until closed."""

    def __init__(self, home: Path) -> None:
        from websockets.sync.client import unix_connect

        control = os.path.realpath(home / ".codex" / "app-server-control" / "app-server-control.sock")
        self.held = ExitStack()
        self.socket = self.held.enter_context(unix_connect(control, "ws://localhost/rpc"))
        self.answers: dict[int, dict[str, object]] = {}
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.ask(1, "initialize", {"clientInfo": {"name": "forger", "version": "1"}})
        self.socket.send(json.dumps({"method": "initialized"}))

    def _read(self) -> None:
        try:
            for raw in self.socket:
                message = json.loads(raw)
                if isinstance(message.get("id"), int):
                    with self.arrived:
                        self.answers[message["id"]] = message
                        self.arrived.notify_all()
        except Exception:  # noqa: BLE001 - the connection closed
            return

    def ask(self, request_id: int, method: str, params: dict[str, object]) -> dict[str, object]:
        self.socket.send(json.dumps({"id": request_id, "method": method, "params": params}))
        with self.arrived:
            assert self.arrived.wait_for(lambda: request_id in self.answers, timeout=WAIT), method
        answer = self.answers[request_id]
        assert "result" in answer, answer
        result = answer["result"]
        assert isinstance(result, dict)
        return result

    def turn(self, request_id: int, config: dict[str, object], cwd: Path, text: str) -> None:
        started = self.ask(request_id, "thread/start", {"cwd": str(cwd), "config": config})
        thread = started["thread"]
        assert isinstance(thread, dict)
        self.ask(request_id + 1, "turn/start", {"threadId": thread["id"], "input": [{"type": "text", "text": text}]})


def test_threads_another_client_started_are_refused(tmp_path: Path) -> None:
    """Issue 70: a thread another app-server client started with ``codex_tui`` pointed at a TUI's port but
    without its token, and a thread with no ``codex_tui`` at all: every call refused, nothing typed anywhere."""
    model = _model()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        install_wiring("codex", machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _daemon_started_in_alpha(sim, machine)
            beta = _codex_pane(sim, alpha.split(":")[0], machine.project / "b", "beta", "codex")
            forger = _AppServerClient(machine.home)
            try:
                forged: dict[str, object] = {
                    "mcp_servers.codex_tui": {"url": f"http://127.0.0.1:{_tui_port(machine.home)}/mcp"}
                }
                forger.turn(10, forged, machine.project / "a", "Tell beta hello")
                sim.wait_for(partial(_turn_done, model, "beta"), timeout=WAIT * 2, what="the forged thread's turn")
                forger.turn(20, {}, machine.project / "a", "Tell alpha hello")
                sim.wait_for(partial(_turn_done, model, "alpha"), timeout=WAIT * 2, what="the bare thread's turn")
            finally:
                forger.held.close()
            delivered = sim.deliveries(alpha) + sim.deliveries(beta)
    for target in ("beta", "alpha"):
        results = _results_of(model, target)
        assert results and all(UNPROVEN in text for text in results), results
    assert delivered == []
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "threads another app-server client started on the daemon: one with `codex_tui` pointed at a "
            "TUI's port without its token, one without `codex_tui`",
            "outcome": f"every call `{UNPROVEN.split(':')[0]}` (the endpoint is not connected, or there is none); "
            "nothing typed anywhere",
            "prompts": [],
        }
    )


class _HeldTurn(_OnRequest):
    """The model holds the first request of the turn telling beta hello until :attr:`release` is set."""

    def __init__(self) -> None:
        super().__init__(DIALECT, NAMES, [Step("herdr_link"), Step("herdr_link_peers")])
        self.arrived = threading.Event()
        self.release = threading.Event()

    def decide(self, body: Body) -> Decision:
        if self.dialect.primary(body) and "Tell beta hello" in json.dumps(body) and not self.dialect.calls(body):
            self.arrived.set()
            self.release.wait(WAIT * 2)
        return super().decide(body)


def test_a_thread_still_running_after_its_tui_quit_is_refused(tmp_path: Path) -> None:
    """Issue 70's open case: a turn of alpha's thread keeps running in the daemon after alpha's TUI is gone
    (killed), and another process now listens on the TUI's old port: each of its calls is refused."""
    model = _HeldTurn()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        install_wiring("codex", machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _daemon_started_in_alpha(sim, machine)
            say(sim, alpha, "Tell beta hello")
            assert model.arrived.wait(WAIT), "the turn's first model request"
            port, tui = _tui_port(machine.home), _tui_pid(machine.home)
            os.kill(tui, signal.SIGKILL)  # the TUI is gone; the daemon runs the turn on
            sim.wait_for(lambda: not Path(f"/proc/{tui}").exists(), timeout=WAIT, what="the TUI gone")
            with socket.socket() as squatter:  # another process now listens on the old port
                squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                squatter.bind(("127.0.0.1", port))
                squatter.listen()
                model.release.set()
                sim.wait_for(lambda: len(_results_of(model, "beta")) >= 2, timeout=WAIT * 2, what="both calls")
            delivered = sim.deliveries(alpha)
    results = _results_of(model, "beta")
    assert all(UNPROVEN in text for text in results), results
    assert delivered == []
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "a turn of a thread still running in the daemon after its TUI was killed, another process "
            "listening on the TUI's old port",
            "outcome": f"every call `{UNPROVEN.split(':')[0]}`; nothing typed anywhere",
            "prompts": [],
        }
    )


def _our_servers(daemon_home: Path) -> int:
    """How many of our servers the daemon runs (its children running herdr-link-mcp)."""
    daemons = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _is_daemon(p, daemon_home)]
    count = 0
    for proc in Path("/proc").iterdir():
        try:
            parent = (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
            if any(parent == d.name for d in daemons) and b"herdr-link-mcp" in (proc / "cmdline").read_bytes():
                count += 1
        except (OSError, IndexError):
            continue
    return count


def _is_daemon(proc: Path, home: Path) -> bool:
    try:
        argv = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return str(home).encode() in argv[0] and b"app-server" in argv and b"pid-update-loop" not in argv


def test_with_codexs_connection_sharing_each_call_is_placed_by_its_own_thread(tmp_path: Path) -> None:
    """Issue 70's open case: Codex's connection-sharing feature on (``[features] mcp_connection_sharing``,
    under development in 0.171.0): one server of ours serves the threads of two panes in one folder (the
    feature shares a server between threads of one folder), and each call still acts as its own thread's pane."""
    model = _model()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        config = machine.home / ".codex" / "config.toml"
        config.write_text(config.read_text().replace("[features]\n", "[features]\nmcp_connection_sharing = true\n", 1))
        install_wiring("codex", machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _daemon_started_in_alpha(sim, machine)
            beta = _codex_pane(sim, alpha.split(":")[0], machine.project / "a", "beta", "codex")
            for pane, name in ((alpha, "beta"), (beta, "alpha")):
                _tell(sim, model, pane, name)
            servers = _our_servers(machine.home)
            received = {name: [extract_envelope(d.text) for d in sim.deliveries(pane)]
                        for name, pane in (("alpha", alpha), ("beta", beta))}  # fmt: skip
    for sender, receiver in (("alpha", "beta"), ("beta", "alpha")):
        results = _results_of(model, receiver)
        assert any(f'"self":{{"name":"{sender}"' in text for text in results), results
        assert [(e.from_, e.to) for e in received[receiver] if e is not None] == [(sender, receiver)]
    assert servers == 1  # the feature is on: one server for both threads
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "Codex's `mcp_connection_sharing` feature on: one server of ours for the threads of two panes "
            "in one folder",
            "outcome": "each call acts as its own thread's pane; each message arrives from its sender's name",
            "prompts": [],
        }
    )


class _Spawning(_OnRequest):
    """The pane's session spawns a sub-agent (Codex's ``collaboration.spawn_agent``, a thread of its own, with
    no parent history) whose task is to tell beta hello; the sub-agent then works through the steps."""

    def decide(self, body: Body) -> Decision:
        if self.dialect.primary(body) and "Spawn a helper" in json.dumps(body):
            if self.dialect.calls(body):
                return Text("spawned")
            task = {"task_name": "helper", "message": "Tell beta hello", "fork_turns": "none"}
            return Call("collaboration.spawn_agent", task)
        return super().decide(body)


def test_a_sub_agent_thread_acts_as_its_parents_pane_or_is_refused(tmp_path: Path) -> None:
    """Issue 70's open case: a sub-agent thread (Codex's ``multi_agent_v2`` feature on) of alpha's session
    calls Link: it acts as alpha, whose TUI is its parent's endpoint (never another pane)."""
    model = _Spawning(DIALECT, NAMES, [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", _target)])
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        config = machine.home / ".codex" / "config.toml"
        config.write_text(config.read_text().replace("[features]\n", "[features]\nmulti_agent_v2 = true\n", 1))
        install_wiring("codex", machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _codex_pane(sim, None, machine.project / "a", "alpha", "codex")
            beta = _codex_pane(sim, alpha.split(":")[0], machine.project / "b", "beta", "codex")

            def helper_done() -> bool:
                mine = [b for b in model.primary_requests if "Spawn a helper" not in json.dumps(b)]
                return any(len(DIALECT.results(b)) >= 3 for b in mine if "Tell beta hello" in json.dumps(b))

            say(sim, alpha, "Spawn a helper")
            sim.wait_for(helper_done, timeout=WAIT * 2, what="the sub-agent's three calls")
            helper = [b for b in model.primary_requests if "Spawn a helper" not in json.dumps(b)][-1]
            results = DIALECT.results(helper)
            received = [extract_envelope(d.text) for d in sim.deliveries(beta)]
    found = [re.search(r'"self":\{"name":"([^"]+)"', text) for text in results]
    speaks_as = {match.group(1) for match in found if match}
    assert speaks_as == {"alpha"}, results  # its parent's pane: its configuration carries alpha's endpoint
    assert [(e.from_, e.to) for e in received if e is not None] == [("alpha", "beta")], received
    outcome = "acts as alpha, its parent's pane"
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "a sub-agent thread (`multi_agent_v2` on) of a plain `codex` pane's session calls Link",
            "outcome": f"the sub-agent {outcome}",
            "prompts": [],
        }
    )


def test_codex_no_daemon_panes_answer_as_themselves_while_a_daemon_runs(tmp_path: Path) -> None:
    model = _model()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        install_wiring("codex", machine.home)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            lead, link = lead_pane(sim, machine.project)
            workspace = lead.split(":")[0]
            alpha = _codex_pane(sim, workspace, machine.project / "a", "alpha", "codex")  # starts the daemon
            running = lambda: _daemon_env(machine.home).get("HERDR_PANE_ID") == alpha  # noqa: E731
            sim.wait_for(running, timeout=WAIT, what="Codex's app-server daemon, started from alpha")
            beta = _codex_pane(sim, workspace, machine.project / "a", "beta", "codex --no-daemon")
            delta = _codex_pane(sim, workspace, machine.project / "d", "delta", "codex --no-daemon")
            # a worker the lead starts while the daemon runs: Link asks for its own process
            asyncio.run(link.start({"name": "worker", "kind": "codex", "args": [], "cwd": str(machine.project / "a")}))
            worker = sim.agent("worker")["pane_id"]
            sim.wait_for(lambda: sim.bracketed_paste(worker), timeout=WAIT, what="the worker's composer")
            settled(sim, worker, quiet=1.0)
            typed = next(c for c in sim.log.commands() if c[:2] == ("agent", "start"))
            # one turn at a time: a message that reached a pane before its user's request would be its turn
            for pane, name in ((worker, "beta"), (beta, "delta"), (delta, "worker")):
                _tell(sim, model, pane, name)
            received = {name: [extract_envelope(d.text) for d in sim.deliveries(pane)]
                        for name, pane in (("beta", beta), ("delta", delta), ("worker", worker))}  # fmt: skip
            assert sim.deliveries(alpha) == []
    assert typed[typed.index("--") + 1 :] == ("--no-daemon",)
    for sender, receiver in (("beta", "delta"), ("delta", "worker"), ("worker", "beta")):
        results = _results_of(model, receiver)
        assert any(f'"self":{{"name":"{sender}"' in text for text in results), results
        assert [(e.from_, e.to) for e in received[receiver] if e is not None] == [(sender, receiver)], results
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "`codex --no-daemon` in two panes (one in the daemon pane's folder), and a Codex worker Link "
            "started, while the daemon runs",
            "outcome": "the worker is started as `codex --no-daemon`; each answers `peers` as itself and its "
            "message reaches the next from its own name",
            "prompts": [],
        }
    )


def _doctor(sim: HerdrSim, pane: str, home: Path) -> str:
    """``herdr-link doctor`` as the user runs it in ``pane``."""
    env = {**sim.env(pane), "HOME": str(home)}
    done = subprocess.run(["herdr-link", "doctor"], env=env, capture_output=True, text=True, timeout=120)
    return done.stdout


def test_the_doctor_names_a_daemon_started_outside_herdr_or_from_another_pane(tmp_path: Path) -> None:
    model = _model()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, models={"codex": api.url})
        install_wiring("codex", machine.home)
        codex = str(HOSTS["codex"].executable)
        # the user started Codex's daemon from a terminal outside Herdr
        outside = {k: v for k, v in machine.env.items() if not k.startswith("HERDR_")}
        started = subprocess.run([codex, "app-server", "daemon", "start"], env=outside, cwd=machine.home,
                                 capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
        assert started.returncode == 0, started.stderr
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _codex_pane(sim, None, machine.project / "a", "alpha", "codex")
            say(sim, alpha, "Tell beta hello")
            sim.wait_for(lambda: "cannot call" in sim.read(alpha), timeout=WAIT * 2, what="the model without the tool")
            before = _doctor(sim, alpha, machine.home)
            # the user restarts the daemon from another pane
            third = sim.new_tab(alpha.split(":")[0], cwd=str(machine.project))
            at_prompt(sim, third)
            sim.type_text(third, f"{codex} app-server daemon restart\r")
            restarted = lambda: _daemon_env(machine.home).get("HERDR_PANE_ID") == third  # noqa: E731
            sim.wait_for(restarted, timeout=WAIT, what="the daemon restarted from the third pane")
            after = _doctor(sim, alpha, machine.home)
    assert not any(NAMES["herdr_link"] in DIALECT.callable(b) for b in model.primary_requests)  # no tools at all
    line = next(line for line in before.splitlines() if "Codex shared process" in line)
    assert line.startswith("WARN") and "started outside Herdr" in line, before
    assert "codex --no-daemon" in before
    line = next(line for line in after.splitlines() if "Codex shared process" in line)
    assert f"was started from Herdr pane {third}" in line, after
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "its daemon started outside Herdr, then restarted from another pane",
            "outcome": "a plain `codex` gets no Herdr Link tools; `herdr-link doctor` warns which it is and names "
            "`codex --no-daemon`",
            "prompts": [],
        }
    )


def test_the_consented_alternative_keeps_every_plain_codex_in_its_pane(tmp_path: Path) -> None:
    """Issue 70, item 3: ``install --host codex --no-shared-daemon`` adds exactly one key to the user's
    config; every plain ``codex`` then runs in its own pane with no daemon process and answers as itself; a
    daemon the user starts afterwards is named by the doctor; ``--uninstall`` gives the config back."""
    import tomllib

    model = _model()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path / "with", models={"codex": api.url})
        plain = user_machine(tmp_path / "without", models={"codex": api.url})
        config = machine.home / ".codex" / "config.toml"
        original = config.read_bytes()
        install_wiring("codex", plain.home)
        install_wiring("codex", machine.home, "--no-shared-daemon")

        def read(home: Path) -> dict[str, object]:
            text = (home / ".codex" / "config.toml").read_text().replace(str(home), "HOME")
            return tomllib.loads(text.replace(str(api.url), "MODEL"))

        wired, reference = read(machine.home), read(plain.home)
        features = reference.get("features")
        assert isinstance(features, dict) and "daemon_auto_start" not in features
        assert wired == {**reference, "features": {**features, "daemon_auto_start": False}}  # the one key, no other
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            alpha = _codex_pane(sim, None, machine.project / "a", "alpha", "codex")
            workspace = alpha.split(":")[0]
            beta = _codex_pane(sim, workspace, machine.project / "a", "beta", "codex")
            assert _daemon_env(machine.home) == {}  # no daemon: each plain codex runs in its pane
            _tell(sim, model, alpha, "beta")
            # beta runs the turn alpha's message started before its user types (typed meanwhile, it was lost)
            _took_its_message(sim, model, beta, "alpha", "beta")
            _say_until_shown(sim, beta, "Tell alpha hello")
            sim.wait_for(partial(_turn_done, model, "alpha"), timeout=WAIT * 2, what="the turn telling alpha")
            received = {name: [extract_envelope(d.text) for d in sim.deliveries(pane)]
                        for name, pane in (("alpha", alpha), ("beta", beta))}  # fmt: skip
            assert _daemon_env(machine.home) == {}
            # the user starts a daemon afterwards, from a shell pane (remote control would do the same)
            shell = sim.new_tab(workspace, cwd=str(machine.project))
            at_prompt(sim, shell)
            sim.type_text(shell, f"{HOSTS['codex'].executable} app-server daemon start\r")
            running = lambda: _daemon_env(machine.home).get("HERDR_PANE_ID") == shell  # noqa: E731
            sim.wait_for(running, timeout=WAIT, what="the daemon the user started")
            doctor = _doctor(sim, alpha, machine.home)
            subprocess.run([str(HOSTS["codex"].executable), "app-server", "daemon", "stop"], env=machine.env,
                           cwd=machine.home, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
        install_wiring("codex", machine.home, "--uninstall")
    for sender, receiver in (("alpha", "beta"), ("beta", "alpha")):
        results = _results_of(model, receiver)
        assert any(f'"self":{{"name":"{sender}"' in text for text in results), results
        assert [(e.from_, e.to) for e in received[receiver] if e is not None] == [(sender, receiver)]
    line = next(line for line in doctor.splitlines() if "Codex shared process" in line)
    assert f"was started from Herdr pane {shell}" in line, doctor
    codex_wrote = b"screen_reader_detection_done = true\n"  # Codex's own first-run note, written meanwhile
    assert config.read_bytes().replace(codex_wrote, b"") == original  # byte for byte, but for Codex's own line
    SCENARIOS.append(
        {
            "host": "Codex 0.171.0",
            "case": "`herdr-link-mcp install --host codex --no-shared-daemon`, then plain `codex` in two panes of "
            "one folder, then a daemon the user starts",
            "outcome": "the config gains `features.daemon_auto_start = false` only; no daemon runs, each pane "
            "answers as itself; the doctor names the later daemon; `--uninstall` gives the config back byte "
            "for byte",
            "prompts": [],
        }
    )
