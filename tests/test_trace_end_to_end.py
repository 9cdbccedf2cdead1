"""The trace through real adapters: two agents, each with its own ``herdr-link-mcp`` in the simulated
Herdr, switched on by the user's settings file (as a host starts our server: from the user's HOME),
then read back with the ``herdr-link trace`` command by the id the send answered."""

import json
import sys
from pathlib import Path

import anyio
import pytest

from herdr_link import agent_session
from herdr_link_testkit import HerdrSim

TRACE_COMMAND = [str(Path(sys.executable).parent / "herdr-link"), "trace"]


@pytest.mark.anyio
async def test_a_message_is_found_by_its_id_from_the_call_to_herdrs_answer(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "herdr-link").mkdir(parents=True)
    (home / ".config" / "herdr-link" / "config.toml").write_text('[trace]\nfile = "~/trace.jsonl"\n')
    with HerdrSim() as sim:
        left = sim.create_workspace()
        right = sim.split(left)
        sim.add_agent(left, "claude", name="alpha")
        sim.add_agent(right, "claude", name="beta")
        alpha = {**sim.env(left), "HOME": str(home)}
        beta = {**sim.env(right), "HOME": str(home)}
        async with agent_session(alpha) as session:
            await session.call_tool("herdr_link", {})
            result = await session.call_tool("herdr_link_send", {"to": "beta", "message": "please review"})
            sent = json.loads(result.content[0].text)  # type: ignore[union-attr]
        async with agent_session(beta) as session:
            await session.call_tool("herdr_link_peers", {})
    events = [json.loads(line) for line in (home / "trace.jsonl").read_text().splitlines()]
    assert {"activation", "call", "herdr"} <= {e["event"] for e in events}
    call = next(e for e in events if e.get("id") == sent["id"])
    assert call["adapter"] == "mcp" and call["caller"] == "alpha" and call["target"] == "beta"
    shown = await anyio.run_process(
        [*TRACE_COMMAND, "--id", sent["id"]], env={"HOME": str(home), "PATH": "/usr/bin:/bin"}, check=False
    )
    stdout = shown.stdout.decode()
    assert shown.returncode == 0, shown.stderr
    assert f"herdr agent prompt {right} <" in stdout and "exit 0" in stdout  # typed into the pane resolved
    assert "peers beta" in stdout.split("inferred by name and time")[1]  # beta's next call, inferred
    assert "please review" not in (home / "trace.jsonl").read_text()
