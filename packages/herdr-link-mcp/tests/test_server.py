"""The MCP server in process (SDK ``Client`` and ``ClientSession`` over memory streams).

Covers the TypeScript ``mcp.test.ts`` handler list, the re-list wait, concurrency, the close
ordering rule, roots and the background bootstrap. Herdr is the simulator, or scripted replies
where a test must hold a call open.
"""

import json
from collections.abc import Sequence
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams

from herdr_link_control import Link, PaneEvidence, RunResult, ScriptedRunner, TerminalPane
from herdr_link_mcp import UNKNOWN_RELIST_WAIT, create_server, initialization_options
from herdr_link_mcp._clients import relist_wait
from herdr_link_protocol import COMMUNICATION_CONTRACT, Cause, LinkError, tools_list, tools_list_json
from herdr_link_testkit import HerdrSim

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def brain(herdr_sim: HerdrSim, tmp_path) -> Link:
    """The caller ``brain`` (w1:p1) beside ``reviewer`` (w1:p2)."""
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "claude", name="brain")
    herdr_sim.add_agent(herdr_sim.split(pane), "codex", name="reviewer")
    return Link(herdr_sim.env(pane), pane_evidence=IN_PANE)


IN_PANE = PaneEvidence(TerminalPane.SAME, "the server runs in its pane's terminal session")
NO_TERMINAL = PaneEvidence(TerminalPane.NONE, "no controlling terminal (a shared daemon's child)")


async def test_a_codex_session_that_cannot_show_its_pane_is_not_activated_and_runs_nothing(herdr_sim, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "codex", name="alpha")
    info = types.Implementation(name="codex-mcp-client", version="0.171.0")
    link = Link(herdr_sim.env(pane), pane_evidence=NO_TERMINAL)
    herdr_sim.log.clear()
    async with Client(create_server(link, relist_wait=0), mode="legacy", client_info=info) as client:
        for tool, arguments in (("herdr_link", {}), ("herdr_link", {"action": "peers"}), ("herdr_link_peers", {})):
            result = await client.call_tool(tool, arguments)
            assert result.is_error and text(result) == str(LinkError(Cause.SELF_UNPROVEN))
        assert [tool.name for tool in (await client.list_tools()).tools] == ["herdr_link"]  # still dormant
    assert herdr_sim.log.commands() == []  # nothing asked of Herdr: no bootstrap, no lookup


def text(result: types.CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


def wire(result: types.ListToolsResult) -> str:
    """The tool definitions as the host receives them (the SDK's list-level cache hints left out)."""
    tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in result.tools]
    return json.dumps({"tools": tools}, ensure_ascii=False, separators=(",", ":"))


async def test_initialize_reports_the_server_and_declares_list_changed(brain):
    server = create_server(brain)
    async with create_client_server_memory_streams() as ((client_read, client_write), (server_read, server_write)):
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: server.run(server_read, server_write, initialization_options(server)))
            async with ClientSession(client_read, client_write) as session:
                result = await session.initialize()
                assert result.server_info.name == "herdr-link" and result.server_info.version == "0.1.0"
                assert result.capabilities.tools is not None and result.capabilities.tools.list_changed is True
                assert result.instructions is None  # nothing model-facing before activation
            group.cancel_scope.cancel()


async def test_outside_herdr_nothing_is_listed_and_every_call_fails_closed():
    async with Client(create_server(Link({})), mode="legacy") as client:
        assert (await client.list_tools()).tools == []
        for name, arguments in [
            ("herdr_link", {}),
            ("herdr_link_peers", {}),
            ("herdr_link_send", {"to": "a", "message": "b"}),
        ]:
            result = await client.call_tool(name, arguments)
            assert result.is_error and text(result) == str(LinkError(Cause.ENVIRONMENT_MISSING))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_listed_tools_are_exactly_the_protocol_specs(brain, mode):
    async with Client(create_server(brain), mode=mode) as client:
        dormant = await client.list_tools()
        assert json.loads(wire(dormant)) == json.loads(tools_list_json(active=False))
        assert len(wire(dormant).encode()) <= 400
        await client.call_tool("herdr_link", {})
        active = await client.list_tools()
        assert json.loads(wire(active))["tools"] == tools_list(active=True)
        assert len(wire(active).encode()) <= 2400


async def test_activation_is_idempotent_and_signalled_once(brain):
    notices: list[Any] = []

    async def on_message(message: Any) -> None:
        notices.append(message)

    async with Client(create_server(brain, relist_wait=0), mode="legacy", message_handler=on_message) as client:
        results = [await client.call_tool("herdr_link", arguments) for arguments in ({}, {"action": "activate"}, {})]
        for result in results:
            assert not result.is_error
            assert text(result) == '{"status":"active","capabilities":["start","peers","send","close"]}'
            assert result.structured_content is None  # hosts that prefer it would hide the contract
            presentation = result.content[1]
            assert isinstance(presentation, types.TextContent) and presentation.text.startswith(COMMUNICATION_CONTRACT)
    changes = [m for m in notices if isinstance(m, types.ToolListChangedNotification)]
    assert len(changes) == 1


async def test_the_activation_result_waits_for_the_host_to_re_list(brain):
    events: list[str] = []
    async with anyio.create_task_group() as group:
        client_box: dict[str, Client] = {}

        async def relist() -> None:
            await client_box["c"].list_tools()
            events.append("re-listed")

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                events.append("signal")
                group.start_soon(relist)

        # A 30 s wait that only the re-list can cut short: if the server ignored it, fail_after fires.
        server = create_server(brain, relist_wait=30)
        info = types.Implementation(name="claude-code", version="2.1.332")  # a host known to re-list
        async with Client(server, mode="legacy", message_handler=on_message, client_info=info) as client:
            client_box["c"] = client
            with anyio.fail_after(5):
                await client.call_tool("herdr_link", {})
            events.append("result")
    assert events == ["signal", "re-listed", "result"]


async def test_a_host_the_table_does_not_know_waits_no_longer_than_the_unknown_bound(brain):
    # The known-host wait is 30 s here; an unknown client waits at most UNKNOWN_RELIST_WAIT of it.
    assert relist_wait("some-new-host", 30) == UNKNOWN_RELIST_WAIT <= 0.05
    assert relist_wait("claude-code", 30) == 30 and relist_wait("codex-mcp-client", 30) == 0
    info = types.Implementation(name="some-new-host", version="1")
    async with Client(create_server(brain, relist_wait=30), mode="legacy", client_info=info) as client:
        with anyio.fail_after(20):
            result = await client.call_tool("herdr_link", {})
        assert not result.is_error


async def test_a_host_that_never_re_lists_still_gets_the_result(brain):
    async with Client(create_server(brain, relist_wait=0.01), mode="legacy") as client:
        with anyio.fail_after(5):
            result = await client.call_tool("herdr_link", {})
        assert not result.is_error


async def test_a_host_known_never_to_re_list_gets_dispatch_first_without_waiting(brain):
    # A 30 s re-list wait that no re-list will cut short: Codex must not wait for it at all.
    info = types.Implementation(name="codex-mcp-client", version="0.171.0")
    async with Client(create_server(brain, relist_wait=30), mode="legacy", client_info=info) as client:
        with anyio.fail_after(5):
            result = await client.call_tool("herdr_link", {})
        presentation = result.content[1]
        assert isinstance(presentation, types.TextContent)
        appendix = presentation.text.removeprefix(COMMUNICATION_CONTRACT)
        assert appendix.index('"action":"send"') < appendix.index("herdr_link_peers")  # dispatch leads
        assert "call every Herdr Link tool through herdr_link of namespace mcp__herdr_link" in appendix


@pytest.mark.parametrize(
    ("client_name", "expected"),
    [
        ("claude-code", "mcp__herdr_link__herdr_link_send"),
        ("codex-mcp-client", "of namespace mcp__herdr_link"),
        ("gemini-cli-mcp-client", "mcp_herdr_link_herdr_link_send"),
        ("antigravity", "call_mcp_tool"),
        ("some-new-host", "Here the tools are herdr_link_start, herdr_link_peers"),
    ],
)
async def test_the_presentation_follows_the_client(brain, client_name, expected):
    info = types.Implementation(name=client_name, version="1")
    async with Client(create_server(brain, relist_wait=0), mode="legacy", client_info=info) as client:
        presentation = (await client.call_tool("herdr_link", {})).content[1]
        assert isinstance(presentation, types.TextContent) and expected in presentation.text


async def test_a_direct_tier1_call_while_dormant_activates_and_runs(brain, herdr_sim: HerdrSim):
    async with Client(create_server(brain), mode="legacy") as client:
        result = await client.call_tool("herdr_link_peers", {})
        assert json.loads(text(result))["peers"] == [{"name": "reviewer", "state": "idle"}]
        assert [tool.name for tool in (await client.list_tools()).tools][1:] == [
            "herdr_link_start",
            "herdr_link_peers",
            "herdr_link_send",
            "herdr_link_close",
        ]


async def test_receipts_for_every_tool_and_through_the_gateway(brain, herdr_sim: HerdrSim):
    async with Client(create_server(brain, relist_wait=0), mode="legacy") as client:
        await client.call_tool("herdr_link", {})
        sent = json.loads(text(await client.call_tool("herdr_link_send", {"to": "reviewer", "message": "hi"})))
        assert sent["status"] == "sent" and sent["to"] == "reviewer"
        started = await client.call_tool(
            "herdr_link", {"action": "start", "arguments": {"name": "w", "kind": "pi", "args": []}}
        )
        assert json.loads(text(started)) == {"status": "started", "agent": "w", "kind": "pi"}
        peers = json.loads(text(await client.call_tool("herdr_link", {"action": "peers"})))
        assert [p["name"] for p in peers["peers"]] == ["reviewer", "w"]
        closed = await client.call_tool("herdr_link", {"action": "close", "agent": "w"})
        assert json.loads(text(closed)) == {"status": "closed", "agent": "w"}
        via_gateway = await client.call_tool(
            "herdr_link", {"action": "send", "arguments": {"to": "reviewer", "message": "2"}}
        )
        assert json.loads(text(via_gateway))["status"] == "sent"
    assert len(herdr_sim.deliveries("w1:p2")) == 2


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("herdr_link_send", {"message": "x"}, 'PEER_NOT_FOUND: "to" must be an Agent Name'),
        ("herdr_link_send", {"to": "reviewer", "message": 3}, 'SEND_FAILED: "message" must be a string'),
        ("herdr_link_send", {"to": "ghost", "message": "x"}, str(LinkError(Cause.NOT_A_PEER))),
        ("herdr_link_send", {"to": "reviewer", "message": " "}, str(LinkError(Cause.MESSAGE_EMPTY))),
        ("herdr_link_close", {}, 'PEER_NOT_FOUND: "agent" must be an Agent Name'),
        (
            "herdr_link_start",
            {"name": "w", "pane": "w1:p2"},
            'START_INPUT_INVALID: "pane" is not accepted: placement comes from the configuration or "with"',
        ),
        (
            "herdr_link_close",
            {"agent": "w", "pane_id": "w1:p2"},
            'CLOSE_FAILED: "pane_id" is not accepted: address agents by Agent Name',
        ),
        ("herdr_link", {"action": "send", "arguments": {"to": 1}}, 'PEER_NOT_FOUND: "to" must be an Agent Name'),
    ],
)
async def test_link_errors_are_error_results_with_the_table_codes(brain, name, arguments, expected):
    async with Client(create_server(brain, relist_wait=0), mode="legacy") as client:
        result = await client.call_tool(name, arguments)
        assert result.is_error and text(result) == expected


@pytest.mark.parametrize(
    ("name", "arguments"),
    [("nope", {}), ("herdr_link", {"action": "fly"}), ("herdr_link", {"action": "send", "arguments": "x"})],
)
async def test_protocol_level_faults_are_json_rpc_errors(brain, name, arguments):
    async with Client(create_server(brain, relist_wait=0), mode="legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool(name, arguments)
        assert caught.value.code == types.INVALID_PARAMS


def _held(release: anyio.Event, seen: list[tuple[str, ...]], prompted: anyio.Event) -> ScriptedRunner:
    """Herdr whose ``agent prompt`` holds until ``release``; ``prompted`` is set when one arrives."""
    agent = {"agent_status": "idle", "cwd": "/p", "pane_id": "w1:p1", "workspace_id": "w1", "name": "brain"}
    reviewer = {**agent, "pane_id": "w1:p2", "name": "reviewer"}

    async def answer(argv: Sequence[str]) -> RunResult:
        seen.append(tuple(argv))
        if argv[:2] == ["agent", "prompt"]:
            prompted.set()
            await release.wait()
        if argv[:2] == ["agent", "get"]:
            record = reviewer if argv[2] in ("reviewer", "w1:p2") else agent
            return RunResult(0, json.dumps({"result": {"agent": record}}), "")
        return RunResult(0, json.dumps({"result": {"type": "ok", "agents": [agent, reviewer]}}), "")

    return ScriptedRunner(answer)


ENV = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/b", "HERDR_PANE_ID": "w1:p1"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_list_and_other_calls_are_served_while_a_call_is_pending(mode):
    release, prompted = anyio.Event(), anyio.Event()
    seen: list[tuple[str, ...]] = []
    server = create_server(
        Link(ENV, runner=_held(release, seen, prompted), pane_evidence=IN_PANE), relist_wait=0, bootstrap=False
    )
    async with Client(server, mode=mode) as client, anyio.create_task_group() as group:
        await client.call_tool("herdr_link", {})
        group.start_soon(client.call_tool, "herdr_link_send", {"to": "reviewer", "message": "slow"})
        with anyio.fail_after(5):
            await prompted.wait()
            assert len((await client.list_tools()).tools) == 5
            assert not (await client.call_tool("herdr_link_peers", {})).is_error
        release.set()


async def test_close_waits_for_every_earlier_call_of_the_connection():
    release, prompted = anyio.Event(), anyio.Event()
    seen: list[tuple[str, ...]] = []
    server = create_server(
        Link(ENV, runner=_held(release, seen, prompted), pane_evidence=IN_PANE), relist_wait=0, bootstrap=False
    )
    async with Client(server, mode="legacy") as client, anyio.create_task_group() as group:
        await client.call_tool("herdr_link", {})
        group.start_soon(client.call_tool, "herdr_link_send", {"to": "reviewer", "message": "final"})
        with anyio.fail_after(5):
            await prompted.wait()
        group.start_soon(client.call_tool, "herdr_link_close", {"agent": "reviewer"})
        await anyio.wait_all_tasks_blocked()  # the close has run as far as it can
        assert not any(c[:2] == ("pane", "close") for c in seen)
        release.set()
    prompt = next(i for i, c in enumerate(seen) if c[:2] == ("agent", "prompt"))
    close = next(i for i, c in enumerate(seen) if c[:2] == ("pane", "close"))
    assert prompt < close


async def test_start_uses_the_clients_first_file_root(brain, herdr_sim: HerdrSim, tmp_path):
    root = tmp_path / "project root"
    root.mkdir()

    async def roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri())])

    async with Client(create_server(brain, relist_wait=0), mode="legacy", list_roots_callback=roots) as client:
        result = await client.call_tool("herdr_link_start", {"name": "w", "kind": "pi", "args": []})
        assert not result.is_error, text(result)
    assert herdr_sim.agent("w")["cwd"] == str(root)


async def test_the_bootstrap_runs_in_the_background_at_connection_start(herdr_sim: HerdrSim, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "codex")  # unnamed
    async with Client(create_server(Link(herdr_sim.env(pane), pane_evidence=IN_PANE)), mode="legacy") as client:
        await client.list_tools()  # served at once, whatever the bootstrap is doing
        # The simulator runs in its own threads, where an anyio.Event cannot be set: poll, bounded.
        with anyio.fail_after(10):
            while herdr_sim.name_of(pane) is None:  # noqa: ASYNC110
                await anyio.sleep(0.02)
    assert str(herdr_sim.name_of(pane)).startswith("hl-")


async def test_the_gateway_makes_no_herdr_call_and_needs_no_agent_name():
    # Every Herdr call fails: the caller is unnamed and not even detected. Activation must not care.
    runner = ScriptedRunner(lambda argv: ScriptedRunner.error("agent_not_found", "no agent in w1:p1"))
    env = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/bin/herdr", "HERDR_PANE_ID": "w1:p1"}
    async with Client(
        create_server(Link(env, runner=runner, pane_evidence=IN_PANE), bootstrap=False), mode="legacy"
    ) as client:
        for arguments in ({}, {"action": "activate"}, {"wait_for_previous": True}):
            result = await client.call_tool("herdr_link", arguments)
            assert not result.is_error and json.loads(text(result))["status"] == "active"
    assert runner.calls == []


async def test_a_host_added_key_never_breaks_send_or_close(brain, herdr_sim: HerdrSim):
    async with Client(create_server(brain, relist_wait=0), mode="legacy") as client:
        sent = await client.call_tool("herdr_link_send", {"to": "reviewer", "message": "m", "wait_for_previous": True})
        assert json.loads(text(sent))["status"] == "sent" and len(herdr_sim.deliveries("w1:p2")) == 1
        via = await client.call_tool(
            "herdr_link", {"action": "close", "arguments": {"agent": "reviewer", "force": True}, "wait_for_previous": 1}
        )
        assert json.loads(text(via)) == {"status": "closed", "agent": "reviewer"}
    assert not herdr_sim.exists("w1:p2")


async def test_a_raw_id_on_peers_is_a_protocol_error(brain):
    async with Client(create_server(brain, relist_wait=0), mode="legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("herdr_link_peers", {"workspace_id": "w1"})
        assert caught.value.error.code == types.INVALID_PARAMS and "w1" not in caught.value.error.message
