"""Two scripted agents that acknowledge each other forever, each through its own ``herdr-link-mcp`` in
the simulated Herdr: the loop guard stops both within the user's limit, and the refusal reaches each
model as ``SEND_FAILED`` with nothing typed and nothing about how to raise the limit."""

from pathlib import Path

import anyio
import mcp.types as types
import pytest

from herdr_link import agent_session
from herdr_link_protocol import Cause, LinkError, extract_envelope
from herdr_link_testkit import HerdrSim

LIMIT = 5


def _text(result: types.CallToolResult) -> str:
    return next((c.text for c in result.content if isinstance(c, types.TextContent)), "")


@pytest.mark.anyio
async def test_two_agents_acknowledging_each_other_are_stopped_within_the_limit(tmp_path: Path) -> None:
    settings = tmp_path / "config.toml"
    settings.write_text(f"[loop_guard]\nmessages = {LIMIT}\nseconds = 3600\n")
    with HerdrSim() as sim:
        left = sim.create_workspace()
        right = sim.split(left)
        sim.add_agent(left, "claude", name="alpha")
        sim.add_agent(right, "claude", name="beta")
        panes = {"alpha": left, "beta": right}
        refusals: dict[str, str] = {}

        async def agent(name: str, other: str, first: bool) -> None:
            env = {**sim.env(panes[name]), "HERDR_LINK_CONFIG": str(settings)}
            async with agent_session(env) as session:
                await session.call_tool("herdr_link", {})
                seen = 0
                if first:
                    await session.call_tool("herdr_link_send", {"to": other, "message": "hello"})
                with anyio.fail_after(60):  # an event-driven wait with a generous bound, not a speed
                    while name not in refusals:
                        inbox = [extract_envelope(d.text) for d in sim.deliveries(panes[name])]
                        if len(inbox) > seen:  # a new message: acknowledge it, forever
                            seen = len(inbox)
                            result = await session.call_tool("herdr_link_send", {"to": other, "message": "ack"})
                            if result.is_error:
                                refusals[name] = _text(result)
                        elif other in refusals and len(inbox) == seen:
                            break  # the other side was stopped and nothing more will come
                        await anyio.sleep(0.01)

        async with anyio.create_task_group() as group:
            group.start_soon(agent, "alpha", "beta", True)
            group.start_soon(agent, "beta", "alpha", False)
        reason = str(LinkError(Cause.SEND_LOOP_SUSPECTED))
        assert refusals and all(text == reason for text in refusals.values()), refusals
        delivered = {name: len(sim.deliveries(pane)) for name, pane in panes.items()}
        assert delivered["beta"] == LIMIT and delivered["alpha"] <= LIMIT  # each side at most its limit
