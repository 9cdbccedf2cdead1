"""The wire protocol, spoken directly (docs/herdr.md §11)."""

import json
import socket

import pytest

from herdr_link_testkit import HerdrSim


def _exchange(sim: HerdrSim, payload: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(5)
        connection.connect(sim.socket_path)
        connection.sendall(payload)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_ping_reports_version_and_protocol_20(herdr_sim: HerdrSim):
    reply = json.loads(_exchange(herdr_sim, b'{"id":"x","method":"ping","params":{}}\n'))
    assert reply == {
        "id": "x",
        "result": {
            "type": "pong",
            "version": "0.8.2",
            "protocol": 20,
            "capabilities": {"live_handoff": True, "detached_server_daemon": False},
        },
    }


def test_raw_replies_are_in_struct_order_with_the_id_first(herdr_sim: HerdrSim):
    herdr_sim.create_workspace()
    raw = _exchange(herdr_sim, b'{"id":"r1","method":"pane.get","params":{"pane_id":"w1:p1"}}\n')
    assert raw.startswith(b'{"id":"r1","result":{"type":"pane_info","pane":{"pane_id":"w1:p1"')
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1


@pytest.mark.parametrize(
    "line",
    [
        b"not json\n",
        b'{"id":1,"method":"ping","params":{}}\n',
        b'{"id":"x","method":"ping"}\n',
        b'{"id":"x","method":"nope.nope","params":{}}\n',
    ],
)
def test_invalid_requests_get_invalid_request_with_an_empty_id(herdr_sim: HerdrSim, line):
    reply = json.loads(_exchange(herdr_sim, line))
    if b"nope.nope" in line:
        assert reply["id"] == "x"  # a well-formed request naming an unknown method keeps its id
    else:
        assert reply["id"] == ""
    assert reply["error"]["code"] == "invalid_request" and reply["error"]["message"].startswith("invalid request: ")


def test_an_empty_line_closes_without_a_reply(herdr_sim: HerdrSim):
    assert _exchange(herdr_sim, b"\n") == b""


def test_unknown_params_are_ignored(herdr_sim: HerdrSim):
    reply = json.loads(_exchange(herdr_sim, b'{"id":"x","method":"agent.list","params":{"workspace_id":"w9"}}\n'))
    assert reply["result"] == {"type": "agent_list", "agents": []}


def test_the_socket_is_private(herdr_sim: HerdrSim):
    import os
    import stat

    assert stat.S_IMODE(os.stat(herdr_sim.socket_path).st_mode) == 0o600


def test_direct_agent_start_returns_as_soon_as_the_command_is_typed(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    started = herdr_sim.request("agent.start", name="w", kind="pi", pane_id=pane, args=["-x"])
    assert started["argv"] == ["pi", "-x"]
    agent = started["agent"]
    assert agent["launch_pending"] is True and agent["agent_status"] == "unknown" and "agent" not in agent
