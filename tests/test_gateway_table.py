"""One table of ``herdr_link`` gateway inputs through all five adapters we ship, with one outcome each.

The MCP server (a real stdio process, through the conformance kit's MCP client), the bridge (its
``gateway`` op over JSON lines) and the three JavaScript stubs under Node (OpenCode 1.x, OpenCode 2,
the Pi extension, each in the conformance kit's host shim) each get the same raw inputs, in a fresh
session each, against the simulated Herdr. For every input all five must give the same outcome: the same
activation, success or failure, and text (the message id aside), and that outcome must be the one
the table names (``PROTOCOL.md`` §4.1 and §7.2). Among the rows are the inputs on which the stubs'
own gateway parsing once disagreed with Python's: a raw id on an activation, a raw id beside
``action``/``arguments``, and a null-valued flat key.

The inputs reach each adapter's own code as given: whatever a host checks or drops before it calls a
tool is the host's behaviour (``docs/hosts.md``; the real-host rig covers it), not the adapter's.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Final, NamedTuple

import anyio
from stub_harness import STUB_RUNTIMES, bridge_command, stub_bundle

from herdr_link_conformance import AdapterSpec, open_adapter
from herdr_link_protocol import GATEWAY_TOOL
from herdr_link_testkit import HerdrSim, pane_terminal

ADAPTERS: Final = ("mcp", "bridge", *STUB_RUNTIMES)
ACTIVE: Final = '{"status":"active","capabilities":["start","peers","send","close"]}'
MESSAGE_ID: Final = re.compile(r'"hl_[0-9a-z]+_[0-9a-z]+"')


class Row(NamedTuple):
    raw: dict[str, Any]
    active: bool
    ok: bool
    text: str
    """What the outcome's text must contain."""


TABLE: Final = (
    Row({}, True, True, ACTIVE),
    Row({"action": "activate"}, True, True, ACTIVE),
    Row({"action": None}, True, True, ACTIVE),
    Row({"wait_for_previous": True}, True, True, ACTIVE),  # a key a host adds
    Row({"pane": "w1:p1"}, False, False, 'herdr_link does not accept "pane"'),  # a raw id on an activation
    Row({"action": "peers"}, True, True, '"peers":[{"name":"reviewer","state":"idle"}]'),
    Row({"action": "send", "arguments": {"to": "reviewer", "message": "nested"}}, True, True, '"status":"sent"'),
    Row({"action": "send", "to": "reviewer", "message": "flat", "wait_for_previous": True}, True, True, '"sent"'),
    Row({"action": "send", "to": "reviewer", "message": "x", "pane": "w1:p2"}, True, False, 'SEND_FAILED: "pane"'),
    Row(  # a raw id beside action and arguments
        {"action": "send", "arguments": {"to": "reviewer", "message": "x"}, "tab": "w1:t1"},
        True,
        False,
        'SEND_FAILED: "tab" is not accepted',
    ),
    Row(  # a null-valued flat key counts as present: config_agent with kind
        {"action": "start", "name": "w", "config_agent": "reviewer", "kind": None},
        True,
        False,
        "START_INPUT_INVALID",
    ),
    Row({"action": "send", "to": "ghost", "message": "x"}, True, False, "PEER_NOT_FOUND"),
    Row({"action": "send", "to": "reviewer", "message": "   "}, True, False, "SEND_FAILED"),
    Row({"action": "close", "agent": None}, True, False, 'PEER_NOT_FOUND: "agent" must be an Agent Name'),
    Row({"action": "teleport"}, False, False, "Unknown gateway action: teleport"),
    Row({"action": 7}, False, False, "Unknown gateway action: ?"),
    Row({"action": "send", "arguments": "to reviewer"}, False, False, '"arguments" must be an object'),
)


class Outcome(NamedTuple):
    active: bool
    ok: bool
    text: str


def _normal(text: str) -> str:
    return MESSAGE_ID.sub('"hl_<id>"', text)


async def _through_kit(spec: AdapterSpec, env: dict[str, str], cwd: str) -> list[Outcome]:
    """The table through an adapter the conformance kit runs: the MCP server, or a stub in its host shim."""
    outcomes = []
    for row in TABLE:
        async with open_adapter(spec, env, cwd) as adapter:  # a fresh, dormant session per input
            result = await adapter.call(GATEWAY_TOOL, row.raw)
            # active: more than the gateway offered (MCP, Pi), or the contract in the system prompt (stubs)
            active = len(await adapter.list_tools()) > 1 or bool(await adapter.context())
        outcomes.append(Outcome(active, result.ok, _normal(result.text)))
    return outcomes


def _through_bridge(env: dict[str, str], cwd: str) -> list[Outcome]:
    with (
        pane_terminal() as terminal,
        subprocess.Popen(  # started by a host's process in its pane
            [*terminal, sys.executable, "-m", "herdr_link_control.bridge"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        ) as bridge,
    ):
        return _ask_bridge(bridge, cwd)


def _ask_bridge(bridge: "subprocess.Popen[str]", cwd: str) -> list[Outcome]:
    def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert bridge.stdin is not None and bridge.stdout is not None
        bridge.stdin.write(json.dumps(message) + "\n")
        bridge.stdin.flush()
        reply: dict[str, Any] = json.loads(bridge.stdout.readline())
        return reply

    try:
        assert "error" not in ask({"type": "hello", "contract": 1, "protocol": "herdr-link/1", "client": "table"})
        outcomes = []
        for index, row in enumerate(TABLE):
            context = {"session": f"ses_{index}", "directory": cwd}
            reply = ask({"id": index, "op": "gateway", "args": row.raw, "context": context})
            assert reply["id"] == index
            if "error" in reply:
                outcomes.append(Outcome(reply["activates"], False, reply["error"]["message"]))
            else:
                text = json.dumps(reply["result"], ensure_ascii=False, separators=(",", ":"))
                outcomes.append(Outcome(reply["activates"], True, _normal(text)))
    finally:
        assert bridge.stdin is not None
        bridge.stdin.close()
        assert bridge.wait(timeout=60) == 0
    return outcomes


def _through_stub(runtime: str, env: dict[str, str], cwd: str, scratch: Path) -> list[Outcome]:
    bundle = stub_bundle(runtime, scratch)
    try:
        spec = AdapterSpec.stub(runtime, str(bundle))
        return anyio.run(_through_kit, spec, {**env, "HERDR_LINK_BRIDGE": bridge_command()}, cwd)
    finally:
        if runtime == "opencode-v1":
            shutil.rmtree(bundle.parent, ignore_errors=True)


def _outcomes(adapter: str, tmp_path: Path) -> list[Outcome]:
    """The table through ``adapter``, against a fresh simulated Herdr: a project pane of ``brain``
    (OpenCode 2's directory rule: the one opencode pane there) and a ``reviewer``."""
    scratch = tmp_path / adapter
    project = scratch / "project"
    project.mkdir(parents=True)
    with HerdrSim() as herdr_sim:
        brain = herdr_sim.create_workspace(str(project))
        reviewer = herdr_sim.split(brain, cwd=str(scratch))
        herdr_sim.add_agent(brain, "opencode", name="brain")
        herdr_sim.add_agent(reviewer, "codex", name="reviewer")
        env, cwd = herdr_sim.env(brain), str(project)
        if adapter == "mcp":
            outcomes = anyio.run(_through_kit, AdapterSpec("mcp", (sys.executable, "-m", "herdr_link_mcp")), env, cwd)
        elif adapter == "bridge":
            outcomes = _through_bridge(env, cwd)
        else:
            outcomes = _through_stub(adapter, env, cwd, scratch)
        delivered = [d.text for d in herdr_sim.deliveries(reviewer)]
    assert len(delivered) == 2 and "nested" in delivered[0] and "flat" in delivered[1], adapter
    return outcomes


def test_the_five_adapters_give_the_tables_outcome_for_every_gateway_input(tmp_path: Path):
    every = {adapter: _outcomes(adapter, tmp_path) for adapter in ADAPTERS}
    for adapter, outcomes in every.items():
        assert len(outcomes) == len(TABLE), adapter
        for row, outcome in zip(TABLE, outcomes, strict=True):
            assert (outcome.active, outcome.ok) == (row.active, row.ok), (adapter, row.raw, outcome)
            assert row.text in outcome.text, (adapter, row.raw, outcome)
    for adapter in ADAPTERS:  # the same text from each, to the byte (the message id aside)
        assert every[adapter] == every["mcp"], adapter
