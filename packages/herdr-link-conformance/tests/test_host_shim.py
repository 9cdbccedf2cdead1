"""The kit's host shim (``host_shim.mjs``) offers a stub what its host would: Pi's active tools and
their change, a sequential tool after the calls before it, OpenCode 2's registered tool and its
system prompt, a thrown text read as a tool error or a protocol-level one, and a Tier 1 call the host
does not offer sent through the gateway. Small fake stubs, no Herdr."""

import json
import os
from pathlib import Path

import anyio
import pytest

from herdr_link_conformance import AdapterSpec, open_adapter
from herdr_link_protocol import Cause, LinkError

FAKE_PI = """
let firstStarted = false;
let firstDone = false;
const text = (value) => ({ content: [{ type: "text", text: value }] });
export default function (pi) {
  pi.registerTool({ name: "herdr_link", description: "gate", parameters: {}, async execute() {
    pi.setActiveTools([...pi.getActiveTools(), "later"]);
    return text("activated");
  } });
  pi.registerTool({ name: "later", description: "later", parameters: {}, defaultActive: false,
    promptGuidelines: ["the rules"], async execute() { return text("later ran"); } });
  pi.registerTool({ name: "started", description: "started", parameters: {}, async execute() {
    return text(String(firstStarted));
  } });
  pi.registerTool({ name: "slow", description: "slow", parameters: {}, async execute() {
    firstStarted = true;
    await new Promise((resolve) => setTimeout(resolve, 800));
    firstDone = true;
    return text("slow done");
  } });
  pi.registerTool({ name: "after", description: "after", parameters: {}, executionMode: "sequential",
    async execute() { return text(`slow was done: ${firstDone}`); } });
}
"""

FAKE_OPENCODE_V2 = """
export default { id: "fake", async setup(ctx) {
  let active = false;
  await ctx.tool.transform((editor) => editor.add({ name: "herdr_link", description: "gate", input: {},
    options: { codemode: CODEMODE },
    async execute(input) {
      if (input.throw) throw new Error(input.throw);
      active = true;
      return { content: JSON.stringify(input) };
    } }));
  await ctx.session.hook("context", (event) => {
    if (HIDE) delete event.tools.herdr_link;
    if (active) event.system.push({ type: "text", text: "the rules" });
  });
} };
"""


def _v2(codemode: bool = False, hide: bool = False) -> str:
    return FAKE_OPENCODE_V2.replace("CODEMODE", str(codemode).lower()).replace("HIDE", str(hide).lower())


def _stub(tmp_path: Path, runtime: str, source: str) -> AdapterSpec:
    file = tmp_path / "stub.mjs"
    file.write_text(source)
    return AdapterSpec.stub(runtime, str(file))


def test_pi_offers_the_active_tools_signals_their_change_and_shows_their_guidelines(tmp_path):
    async def run() -> None:
        async with open_adapter(_stub(tmp_path, "pi", FAKE_PI), os.environ, str(tmp_path)) as adapter:
            assert [t["name"] for t in await adapter.list_tools()] == ["herdr_link", "started", "slow", "after"]
            assert await adapter.context() == [] and adapter.notices == []
            result = await adapter.call("herdr_link", {})
            assert result.ok and result.blocks == ("activated", "the rules")
            assert [t["name"] for t in await adapter.list_tools()] == [
                "herdr_link",
                "later",
                "started",
                "slow",
                "after",
            ]
            assert adapter.notices == ["ToolListChanged"]

    anyio.run(run)


def test_a_sequential_pi_tool_waits_for_the_calls_before_it(tmp_path):
    async def run() -> dict[str, str]:
        texts: dict[str, str] = {}
        async with open_adapter(_stub(tmp_path, "pi", FAKE_PI), os.environ, str(tmp_path)) as adapter:

            async def call(tool: str) -> None:
                texts[tool] = (await adapter.call(tool, {})).text

            async with anyio.create_task_group() as group:
                group.start_soon(call, "slow")
                with anyio.fail_after(30):  # "after" is issued once "slow" is running, however busy the machine
                    while (await adapter.call("started", {})).text != "true":  # noqa: ASYNC110
                        await anyio.sleep(0.05)
                group.start_soon(call, "after")
        return texts

    assert anyio.run(run) == {"slow": "slow done", "after": "slow was done: true"}


@pytest.mark.parametrize(
    "thrown, protocol_error",
    [(str(LinkError(Cause.MESSAGE_EMPTY)), False), ("Unknown gateway action: teleport", True)],
)
def test_a_thrown_text_is_a_tool_error_only_as_code_and_reason(tmp_path, thrown, protocol_error):
    async def run():
        async with open_adapter(_stub(tmp_path, "opencode-v2", _v2()), os.environ, str(tmp_path)) as a:
            return await a.call("herdr_link", {"throw": thrown})

    result = anyio.run(run)
    assert (result.ok, result.text, result.protocol_error) == (False, thrown, protocol_error)


def test_a_tier1_call_the_host_does_not_offer_goes_through_the_gateway(tmp_path):
    async def run():
        async with open_adapter(_stub(tmp_path, "opencode-v2", _v2()), os.environ, str(tmp_path)) as a:
            before = await a.context()
            return before, await a.call("herdr_link_send", {"to": "reviewer", "message": "hi"})

    before, result = anyio.run(run)
    assert before == []
    assert json.loads(result.text) == {"action": "send", "arguments": {"to": "reviewer", "message": "hi"}}
    assert result.blocks[1:] == ("the rules",)


@pytest.mark.parametrize(
    ("codemode", "hide", "listed"),
    [(False, False, ["herdr_link"]), (True, False, ["execute"]), (False, True, [])],
)
def test_opencode_2_offers_by_name_only_a_direct_tool_its_context_hooks_left(tmp_path, codemode, hide, listed):
    # As released: a tool without `codemode: false` is only inside Code Mode's `execute`, and a
    # "context" hook that deletes a tool from the request's `tools` hides it from that request.
    async def run():
        async with open_adapter(_stub(tmp_path, "opencode-v2", _v2(codemode, hide)), os.environ, str(tmp_path)) as a:
            return [tool["name"] for tool in await a.list_tools()], await a.call("herdr_link", {})

    names, result = anyio.run(run)
    assert names == listed
    assert result.ok is (listed == ["herdr_link"])


def test_a_stub_of_an_unknown_shape_fails_to_load_with_the_reason(tmp_path):
    spec = _stub(tmp_path, "opencode-v2", "export default {};\n")

    async def run() -> None:
        async with open_adapter(spec, os.environ, str(tmp_path)):
            pass

    with pytest.raises(Exception, match="did not load: plugin.setup is not a function"):
        anyio.run(run)
