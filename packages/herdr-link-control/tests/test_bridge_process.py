"""The real ``herdr-link-bridge`` process, driven by a Node client, against the simulated Herdr."""

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from herdr_link_control.bridge import BRIDGE_CONTRACT, BridgeReply
from herdr_link_protocol import Cause, LinkError, extract_envelope
from herdr_link_testkit import Fault, HerdrSim, pane_terminal

CLIENT = Path(__file__).parent / "node" / "bridge_client.mjs"
HELLO = {"type": "hello", "contract": BRIDGE_CONTRACT, "protocol": "herdr-link/1", "client": "node-test/1"}
NODE = shutil.which("node")


def drive(sim: HerdrSim, pane: str, requests: list[dict[str, Any]], hello: dict[str, Any] = HELLO) -> dict[str, Any]:
    assert NODE is not None, "Node is required (the README's set-up provides it)"
    env = {**sim.env(pane), "HERDR_LINK_BRIDGE": json.dumps([sys.executable, "-m", "herdr_link_control.bridge"])}
    with pane_terminal() as terminal:  # a host's process in its pane, which the bridge is a child of
        done = subprocess.run(
            [*terminal, NODE, str(CLIENT)],
            input=json.dumps({"hello": hello, "requests": requests}),
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.fixture
def team(herdr_sim: HerdrSim, tmp_path):
    brain = herdr_sim.create_workspace(str(tmp_path))
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "opencode")  # unnamed: the bridge's bootstrap names it
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    return brain, reviewer


def test_a_node_stub_runs_every_op_through_the_real_bridge(herdr_sim: HerdrSim, team, tmp_path):
    brain, reviewer = team
    context = {"session": "s1", "directory": str(tmp_path)}
    report = drive(
        herdr_sim,
        brain,
        [
            {"id": 1, "op": "bootstrap", "args": {}, "context": context},
        ],
    )
    name = report["replies"][0]["result"]["name"]
    assert report["hello"]["ops"] == ["bootstrap", "start", "peers", "send", "close", "gateway", "resolve_session_pane"]
    assert name.startswith("hl-") and herdr_sim.name_of(brain) == name
    report = drive(
        herdr_sim,
        brain,
        [
            {"id": "p", "op": "peers", "args": {}, "context": context},
            {"id": "s", "op": "send", "args": {"to": "reviewer", "message": "review, please"}, "context": context},
            {"id": "r", "op": "resolve_session_pane", "args": {}, "context": context},
            {"id": "t", "op": "start", "args": {"name": "worker", "kind": "pi", "args": []}, "context": context},
            {"id": "c", "op": "close", "args": {"agent": "worker"}, "context": context},
        ],
    )
    replies = {r["id"]: r for r in report["replies"]}
    assert replies["p"]["result"]["peers"] == [{"name": "reviewer", "state": "idle"}]
    assert replies["s"]["result"]["status"] == "sent"
    assert replies["r"]["result"] == {"status": "resolved"}
    assert replies["t"]["result"] == {"status": "started", "agent": "worker", "kind": "pi"}
    assert replies["c"]["result"] == {"status": "closed", "agent": "worker"}
    assert [r["id"] for r in report["replies"]].index("t") < [r["id"] for r in report["replies"]].index("c")
    envelope = extract_envelope(herdr_sim.deliveries(reviewer)[0].text)
    assert envelope is not None and envelope.from_ == name and envelope.message == "review, please"
    assert report["exit"] == 0
    for reply in report["replies"]:
        BridgeReply.model_validate(reply)


def test_replies_arrive_out_of_order_when_herdr_is_slow(herdr_sim: HerdrSim, team):
    brain, _ = team
    herdr_sim.add_agent(herdr_sim.new_tab("w1"), "pi", name="slowpoke")
    herdr_sim.fault_cli(("agent", "prompt"), Fault("delay", seconds=1.0))
    report = drive(
        herdr_sim,
        brain,
        [
            {"id": "slow", "op": "send", "args": {"to": "slowpoke", "message": "x"}, "context": {"session": "a"}},
            {"id": "fast", "op": "peers", "args": {}, "context": {"session": "b"}},
        ],
    )
    assert [r["id"] for r in report["replies"]] == ["fast", "slow"]


def test_errors_are_agent_facing_and_the_bridge_keeps_serving(herdr_sim: HerdrSim, team):
    brain, _ = team
    report = drive(
        herdr_sim,
        brain,
        [
            {"id": 1, "op": "send", "args": {"to": "ghost", "message": "x"}},
            {"id": 2, "op": "close", "args": {"agent": "Bad Name"}},
            {"id": 3, "op": "start", "args": {"name": "w", "pane": "w1:p2"}},
            {"id": 4, "op": "teleport", "args": {}},
            {"id": 5, "op": "resolve_session_pane", "args": {}, "context": {"directory": "/elsewhere"}},
            {"id": 6, "op": "peers", "args": {}},
            {"id": 7, "op": "peers", "args": {"wait_for_previous": True}},
            {"id": 8, "op": "peers", "args": {"workspace": "w1"}},
        ],
    )
    errors = {r["id"]: r.get("error") for r in report["replies"]}
    assert errors[1] == {"code": "PEER_NOT_FOUND", "message": str(LinkError(Cause.NOT_A_PEER))}
    assert errors[2]["code"] == "PEER_NOT_FOUND"
    assert errors[3] == {
        "code": "START_INPUT_INVALID",
        "message": 'START_INPUT_INVALID: "pane" is not accepted: placement comes from the configuration or "with"',
    }
    assert errors[4]["code"] == "INVALID_CALL"
    assert errors[5]["code"] == "SELF_UNNAMED"
    assert errors[6] is None and errors[7] is None  # a key a host adds is ignored
    assert errors[8]["code"] == "INVALID_CALL"  # a raw id on peers, which has no input code of its own
    assert "w1:p" not in json.dumps(report["replies"])


def test_a_version_mismatch_is_reported_at_hello(herdr_sim: HerdrSim, team):
    brain, _ = team
    report = drive(herdr_sim, brain, [{"id": 1, "op": "peers"}], hello={**HELLO, "contract": BRIDGE_CONTRACT + 1})
    assert report["hello"]["error"]["code"] == "NOT_IN_HERDR" and report["hello"]["bridge"]
    assert report["replies"][0]["error"]["code"] == "INVALID_CALL"


def test_stdout_carries_only_reply_lines_and_eof_ends_the_bridge(herdr_sim: HerdrSim, team):
    brain, _ = team
    env = {**herdr_sim.env(brain)}
    hello = json.dumps(HELLO) + "\n" + json.dumps({"id": 1, "op": "bootstrap"}) + "\n"
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_control.bridge"],
        input=hello,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(json.loads(line) for line in lines)
    assert "stub connected: node-test/1" not in done.stdout and "stub connected" in done.stderr


def test_outside_herdr_every_op_is_not_in_herdr(tmp_path):
    hello = json.dumps(HELLO) + "\n" + json.dumps({"id": 1, "op": "peers"}) + "\n"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_control.bridge"],
        input=hello,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    reply = json.loads(done.stdout.splitlines()[1])
    assert reply == {
        "id": 1,
        "error": {"code": "NOT_IN_HERDR", "message": str(LinkError(Cause.ENVIRONMENT_MISSING))},
    }


def test_no_single_line_ends_the_bridge(herdr_sim: HerdrSim, team):
    brain, _ = team
    lines = [
        json.dumps(HELLO).encode(),
        b'{"id":"x\\ud800","op":"peers"}',  # valid JSON whose id cannot be encoded as UTF-8
        b'{"id":"y","op":"peers","args":{"to":"\\udfff"}}',
        b"\xff\xfe not utf-8",
        b'{"id":"z","op":"peers","args":{}}',
    ]
    with pane_terminal() as terminal:  # started by a host's process in its pane
        done = subprocess.run(
            [*terminal, sys.executable, "-m", "herdr_link_control.bridge"],
            input=b"\n".join(lines) + b"\n",
            env=herdr_sim.env(brain),
            capture_output=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert replies[0]["type"] == "hello" and len(replies) == 5
    by_id = {reply["id"]: reply for reply in replies[1:]}
    assert "x\ud800" in by_id and "result" in by_id["x\ud800"]  # answered, the id escaped as JSON allows
    assert "result" in by_id["y"] and "result" in by_id["z"]
    assert by_id[None]["error"]["code"] == "INVALID_CALL"


def test_a_seeded_hostile_session_gets_one_reply_per_line_and_never_ends_the_bridge(tmp_path):
    """1,000 hostile lines (deep nesting everywhere, raw CRs, escaped and duplicate keys, odd ids, BOMs,
    NUL bytes, invalid UTF-8, CRLF) into a real bridge outside Herdr: every line that is not blank
    gets exactly one reply, each usable id its own, and the bridge exits 0 at EOF."""
    rng = random.Random(20261201)
    deep = "[" * 3000 + "]" * 3000
    lines: list[bytes] = [json.dumps(HELLO).encode()]
    owed: list[object] = []
    for serial in range(1000):
        request_id: object = rng.choice([serial, -serial, 10**20 + serial, f"s{serial}", f"s\ud800{serial}"])
        args = rng.choice(["{}", '{"to":"x","message":"hi"}', '{"x":' + deep + "}", "[]"])
        key = rng.choice(['"id"', '"\\u0069d"'])
        members = [f"{key}:{json.dumps(request_id)}", f'"op":{json.dumps(rng.choice(["peers", "send", "fly"]))}']
        members.append(f'"args":{args}')
        rng.shuffle(members)
        space = rng.choice(["", " ", "\r", "\t"])
        line = ("{" + space + ("," + space).join(members) + "}").encode("utf-8", "surrogatepass")
        kind = rng.randrange(6)
        if kind == 0:
            line = rng.choice([b"[" * 3000, deep.encode(), b"nul\x00l", b"\xff\xfe", b'"x"'])
        else:
            owed.append(request_id)
            variants = {2: b"\xef\xbb\xbf" + line, 3: line + b"\r", 4: b'{"id":"decoy",' + line[1:]}
            line = variants.get(kind, line)  # a BOM, a CRLF ending, a duplicate id (the last one wins)
        lines.append(line)
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_control.bridge"],
        input=b"\n".join(lines) + b"\n",
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    replies = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert len(replies) == len(lines)  # the hello's, and one for every other line
    seen = [repr(r["id"]) for r in replies[1:] if r.get("id") is not None]
    assert sorted(seen) == sorted(map(repr, owed))
