"""herdr-link-mcp driven by the TypeScript MCP SDK (run by ``nox -s mcp_node``).

Not collected by the ordinary test run: it needs ``npm ci`` in this directory first, which the nox
session does.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim

HERE = Path(__file__).parent


def test_the_typescript_sdk_client_runs_the_whole_flow(herdr_sim: HerdrSim, tmp_path, herdr_pane_terminal):
    assert (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(), "run: npm ci (the nox session does)"
    node = shutil.which("node")
    assert node is not None
    brain = herdr_sim.create_workspace(str(tmp_path))
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "claude", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    server = json.dumps([sys.executable, "-m", "herdr_link_mcp"])
    done = subprocess.run(
        [*herdr_pane_terminal, node, str(HERE / "ts_client.mjs"), server],  # a host in its pane (its client,
        # `ts-sdk-check`, is in no host table: the server it spawns shows its pane by the terminal it inherits)
        env=herdr_sim.env(brain),
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["server"]["name"] == "herdr-link"
    assert report["capabilities"]["tools"]["listChanged"] is True
    assert report["changes"] == 1
    assert report["lists"] == [
        ["herdr_link"],
        ["herdr_link", "herdr_link_start", "herdr_link_peers", "herdr_link_send", "herdr_link_close"],
    ]
    activation = report["calls"]["activate"]
    assert activation["texts"][0] == '{"status":"active","capabilities":["start","peers","send","close"]}'
    assert json.loads(report["calls"]["peers"]["texts"][0])["peers"] == [{"name": "reviewer", "state": "idle"}]
    assert json.loads(report["calls"]["send"]["texts"][0])["status"] == "sent"
    assert report["calls"]["ghost"] == {"isError": True, "texts": ["PEER_NOT_FOUND: target agent is not a live peer"]}
    assert json.loads(report["calls"]["close"]["texts"][0]) == {"status": "closed", "agent": "reviewer"}
    assert report["unknownAction"]["code"] == -32602
    assert not herdr_sim.exists(reviewer)
    # Exactly one close, of the reviewer's pane. (Not "the last command": the server's start-up
    # bootstrap may look itself up at any moment on a busy machine.)
    assert [c for c in herdr_sim.log.commands() if c[:2] == ("pane", "close")] == [("pane", "close", reviewer)]
    prompt = next(c for c in herdr_sim.log.commands() if c[:2] == ("agent", "prompt"))
    envelope = extract_envelope(prompt[3])
    assert envelope is not None and envelope.message == "from the TypeScript SDK"
