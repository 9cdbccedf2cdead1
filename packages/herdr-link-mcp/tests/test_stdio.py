"""``python -m herdr_link_mcp`` as a real stdio subprocess inside the simulated Herdr, in both MCP eras."""

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from herdr_link_protocol import COMMUNICATION_CONTRACT, Cause, LinkError, extract_envelope
from herdr_link_testkit import HerdrSim, pane_terminal

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def params(env: dict[str, str], terminal: tuple[str, ...] = ()) -> StdioServerParameters:
    """The server as a host in the pane spawns it: in the pane's terminal (``terminal``: its prefix)."""
    command, *args = (*terminal, sys.executable, "-m", "herdr_link_mcp")
    return StdioServerParameters(command=command, args=args, env=env)


def text(result: types.CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


@asynccontextmanager
async def handshake_session(
    env: dict[str, str], notices: list[Any], terminal: tuple[str, ...] = ()
) -> AsyncIterator[ClientSession]:
    """The handshake era (2025-11-25), as Codex and Pi speak it."""

    async def on_message(message: Any) -> None:
        notices.append(message)

    async with (
        stdio_client(params(env, terminal)) as (read, write),
        ClientSession(read, write, message_handler=on_message) as s,
    ):
        await s.initialize()
        yield s


@pytest.fixture
def team(herdr_sim: HerdrSim, tmp_path) -> tuple[str, str]:
    brain = herdr_sim.create_workspace(str(tmp_path))
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "claude", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    return brain, reviewer


async def test_handshake_era_full_flow(herdr_sim: HerdrSim, team, herdr_pane_terminal):
    brain, reviewer = team
    notices: list[Any] = []
    async with handshake_session(herdr_sim.env(brain), notices, herdr_pane_terminal) as session:
        assert [t.name for t in (await session.list_tools()).tools] == ["herdr_link"]
        activation = await session.call_tool("herdr_link", {})
        assert text(activation) == '{"status":"active","capabilities":["start","peers","send","close"]}'
        assert [type(n).__name__ for n in notices] == ["ToolListChangedNotification"]
        assert len((await session.list_tools()).tools) == 5
        started = await session.call_tool(
            "herdr_link_start", {"name": "worker", "kind": "pi", "args": [], "with": "reviewer"}
        )
        assert json.loads(text(started)) == {"status": "started", "agent": "worker", "kind": "pi"}
        peers = json.loads(text(await session.call_tool("herdr_link_peers", {})))
        assert peers == {
            "self": {"name": "brain", "state": "idle"},
            "peers": [{"name": "reviewer", "state": "idle"}, {"name": "worker", "state": "idle"}],
        }
        sent = json.loads(text(await session.call_tool("herdr_link_send", {"to": "reviewer", "message": "review"})))
        assert sent["status"] == "sent"
        missing = await session.call_tool("herdr_link_send", {"to": "ghost", "message": "x"})
        assert missing.is_error and text(missing) == str(LinkError(Cause.NOT_A_PEER))
        worker_pane = herdr_sim.agent("worker")["pane_id"]
        closed = await session.call_tool("herdr_link_close", {"agent": "worker"})
        assert json.loads(text(closed)) == {"status": "closed", "agent": "worker"}
    assert not herdr_sim.exists(worker_pane)
    [delivery] = herdr_sim.deliveries(reviewer)
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.id == sent["id"] and envelope.message == "review"


async def test_the_2026_era_signals_through_the_listen_stream(herdr_sim: HerdrSim, team, herdr_pane_terminal):
    brain, _ = team
    async with Client(params(herdr_sim.env(brain), herdr_pane_terminal)) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["herdr_link"]
        async with client.listen(tools_list_changed=True) as subscription:
            result = await client.call_tool("herdr_link", {})
            with anyio.fail_after(5):
                async for event in subscription:
                    assert type(event).__name__ == "ToolsListChanged"
                    break
        presentation = result.content[1]
        assert isinstance(presentation, types.TextContent) and presentation.text.startswith(COMMUNICATION_CONTRACT)
        assert len((await client.list_tools()).tools) == 5
        peers = json.loads(text(await client.call_tool("herdr_link_peers", {})))
        assert peers["self"]["name"] == "brain"


async def test_a_host_that_never_re_lists_works_through_the_gateway(herdr_sim: HerdrSim, team, herdr_pane_terminal):
    brain, reviewer = team
    async with Client(params(herdr_sim.env(brain), herdr_pane_terminal), mode="legacy") as client:
        await client.list_tools()  # the one listing such a host ever makes
        await client.call_tool("herdr_link", {})
        sent = await client.call_tool("herdr_link", {"action": "send", "arguments": {"to": "reviewer", "message": "x"}})
        assert json.loads(text(sent))["status"] == "sent"
    assert len(herdr_sim.deliveries(reviewer)) == 1


async def test_two_agents_exchange_a_message_and_a_reply(herdr_sim: HerdrSim, team, herdr_pane_terminal):
    with pane_terminal() as reviewers_terminal:
        await _exchange(herdr_sim, team, herdr_pane_terminal, reviewers_terminal)


async def _exchange(herdr_sim: HerdrSim, team, brains_terminal, reviewers_terminal):
    brain, reviewer = team
    async with (
        Client(params(herdr_sim.env(brain), brains_terminal), mode="legacy") as brain_client,
        Client(params(herdr_sim.env(reviewer), reviewers_terminal), mode="legacy") as reviewer_client,
    ):
        await brain_client.call_tool("herdr_link", {})
        await brain_client.call_tool("herdr_link_send", {"to": "reviewer", "message": "Is the design sound?"})
        # The reviewer's model reads the wrapper in its prompt, activates its gateway, replies to "from".
        received = extract_envelope(herdr_sim.wait_for_delivery(reviewer)[0].text)
        assert received is not None and received.from_ == "brain"
        await reviewer_client.call_tool("herdr_link", {})
        reply = await reviewer_client.call_tool("herdr_link_send", {"to": received.from_, "message": "Yes, ship it."})
        assert not reply.is_error
    answer = extract_envelope(herdr_sim.wait_for_delivery(brain)[0].text)
    assert answer is not None and (answer.from_, answer.to, answer.message) == ("reviewer", "brain", "Yes, ship it.")


async def test_a_close_sent_right_after_a_send_runs_after_it(herdr_sim: HerdrSim, team, herdr_pane_terminal):
    brain, _ = team
    worker = herdr_sim.split(brain)
    delivered: list[str] = []
    herdr_sim.add_agent(worker, "pi", name="worker", on_prompt=lambda delivery: delivered.append(delivery.text))
    async with Client(params(herdr_sim.env(brain), herdr_pane_terminal), mode="legacy") as client:
        await client.call_tool("herdr_link", {})
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "herdr_link_send", {"to": "worker", "message": "final words"})
            await anyio.wait_all_tasks_blocked()
            group.start_soon(client.call_tool, "herdr_link_close", {"agent": "worker"})
    commands = [c[:2] for c in herdr_sim.log.commands()]
    assert commands.index(("agent", "prompt")) < commands.index(("pane", "close"))
    assert len(delivered) == 1 and not herdr_sim.exists(worker)


async def test_outside_herdr_the_process_lists_nothing_and_refuses_calls(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    notices: list[Any] = []
    async with handshake_session(env, notices) as session:
        assert (await session.list_tools()).tools == []
        result = await session.call_tool("herdr_link", {})
        assert result.is_error and text(result) == str(LinkError(Cause.ENVIRONMENT_MISSING))
    assert notices == []


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_the_stop_signals_hosts_send_end_the_server(herdr_sim: HerdrSim, team, stop):
    import signal
    import subprocess

    initialize = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}) + "\n"
    with subprocess.Popen(
        [sys.executable, "-m", "herdr_link_mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=herdr_sim.env(team[0]),
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(request.encode())
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1
        process.send_signal(getattr(signal, stop))  # stdin stays open, as a host's does
        try:
            assert process.wait(timeout=30) == -getattr(signal, stop)
        finally:
            process.kill()
        assert b"Traceback" not in process.stderr.read()


def _serve_once(env: dict[str, str], calls: list[dict[str, object]], terminal: tuple[str, ...]) -> bytes:
    """Run the server over real stdio for ``calls`` (after the handshake); returns its stderr."""
    import subprocess

    initialize = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": call} for i, call in enumerate(calls)),
    ]
    with subprocess.Popen(
        [*terminal, sys.executable, "-m", "herdr_link_mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        process.stdin.flush()
        answered: list[int] = []
        while len(answered) < len(calls) + 1:  # notifications (list_changed) come in between
            message = json.loads(process.stdout.readline())
            if "id" in message:
                answered.append(message["id"])
        assert sorted(answered) == list(range(len(calls) + 1))
        process.stdin.close()
        process.wait(timeout=30)
        return process.stderr.read()


def test_a_failed_call_leaves_herdrs_diagnostic_in_the_operator_log(herdr_sim: HerdrSim, team, herdr_pane_terminal):
    calls: list[dict[str, object]] = [
        {"name": "herdr_link_close", "arguments": {"agent": "ghost"}},  # Herdr's agent get refuses it
        {"name": "herdr_link_peers", "arguments": {}},
    ]
    stderr = _serve_once(herdr_sim.env(team[0]), calls, herdr_pane_terminal).decode()
    assert "PEER_NOT_FOUND" in stderr and "agent_not_found" in stderr  # the Herdr code reaches the operator
    assert "herdr_link_peers" not in stderr  # a call that worked says nothing


def test_the_operator_log_can_be_turned_up(herdr_sim: HerdrSim, team, herdr_pane_terminal):
    env = {**herdr_sim.env(team[0]), "HERDR_LINK_LOG_LEVEL": "debug"}
    calls: list[dict[str, object]] = [{"name": "herdr_link_peers", "arguments": {"wait_for_previous": True}}]
    assert "wait_for_previous" in _serve_once(env, calls, herdr_pane_terminal).decode()


def test_started_in_a_terminal_it_says_once_what_it_is_and_how_to_leave():
    import os
    import subprocess

    said = "this is an MCP server; it reads JSON-RPC on stdin"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    controller, terminal = os.openpty()
    try:
        server = subprocess.Popen([sys.executable, "-m", "herdr_link_mcp"], stdin=terminal,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)  # fmt: skip
        os.close(terminal)
        os.write(controller, b"\x04")  # Ctrl-D: end of input
        out, err = server.communicate(timeout=120)
    finally:
        os.close(controller)
    assert server.returncode == 0 and out == b""
    assert err.decode().count(said) == 1 and "Ctrl-D or Ctrl-C ends it" in err.decode()
    piped = subprocess.run([sys.executable, "-m", "herdr_link_mcp"], input=b"", capture_output=True, env=env,
                           timeout=120)  # fmt: skip
    assert piped.returncode == 0 and said not in piped.stderr.decode()  # a host's pipe: not a word
