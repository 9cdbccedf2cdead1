"""docs/bridge.md is golden: its requests, replayed through a bridge, give exactly its replies."""

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from scripted_herdr import agent, err, got, link, ok, scripted

from herdr_link_control.bridge import BridgeHello, BridgeHelloReply, BridgeReply, BridgeRequest, BridgeServer
from herdr_link_protocol import JsonLine, JsonLineReader

pytestmark = pytest.mark.anyio
DOC = Path(__file__).resolve().parents[3] / "docs" / "bridge.md"
MESSAGE_ID = re.compile(r'"hl_[0-9a-z]+_[0-9a-z]+"')


def exchanges() -> list[tuple[str, str]]:
    pairs = []
    for block in re.findall(r"```text\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL):
        lines = block.strip().split("\n")
        pairs += [(lines[i].removeprefix("→ "), lines[i + 1].removeprefix("← ")) for i in range(0, len(lines), 2)]
    return pairs


def test_every_golden_line_is_a_valid_message():
    malformed = {"this is not JSON"}
    for request, reply in exchanges():
        if request not in malformed:
            hello = json.loads(request).get("type") == "hello"
            (BridgeHello if hello else BridgeRequest).model_validate_json(request)
        parsed = json.loads(reply)
        (BridgeHelloReply if parsed.get("type") == "hello" else BridgeReply).model_validate_json(reply)
        assert "id" in parsed or parsed.get("type") == "hello"


async def test_the_documented_exchanges_are_what_the_bridge_does(tmp_path):
    project = tmp_path / "home" / "u" / "proj"
    project.mkdir(parents=True)
    (tmp_path / "home" / "u" / "other").mkdir()
    me = agent("brain", status="working", cwd=str(project), agent="opencode")
    table = {
        ("agent", "get", "w1:p1"): got(me),
        ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2")),
        ("agent", "get", "ghost"): err("agent_not_found"),
        ("agent", "get", "worker"): got(agent("worker", pane="w1:p4")),
        ("agent", "list"): ok(
            {"result": {"agents": [me, agent("reviewer", pane="w1:p2", cwd=str(project), agent="codex")]}}
        ),
        ("agent", "prompt"): ok({"result": {}}),
        ("tab", "create"): ok(
            {"result": {"tab": {"tab_id": "w1:t2"}, "root_pane": {"pane_id": "w1:p4", "tab_id": "w1:t2"}}}
        ),
        ("agent", "start"): ok({"result": {"type": "agent_started"}}),
        ("pane", "close"): ok({"result": {"type": "ok"}}),
    }
    replies: list[str] = []
    server = BridgeServer(link(scripted(table)), "0.1.0", lambda line: replies.append(line.decode().rstrip("\n")))

    def localise(line: str) -> str:  # the document's /home/u lives under tmp_path here
        return line.replace('"/home/u/', f'"{tmp_path}/home/u/')

    for request, expected in exchanges():
        before = len(replies)

        async def lines(request: str = request) -> AsyncIterator[JsonLine]:
            for line in JsonLineReader().feed(localise(request).encode() + b"\n"):
                yield line

        with anyio.fail_after(5):
            await server.serve(lines())
        assert len(replies) == before + 1, request
        assert MESSAGE_ID.sub('"hl_ID"', replies[-1]) == MESSAGE_ID.sub('"hl_ID"', localise(expected)), request
