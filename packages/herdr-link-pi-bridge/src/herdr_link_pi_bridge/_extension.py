"""The Pi extension: generated JavaScript over ``herdr-link-bridge``, and its installation.

Every model-facing text enters the template as JSON serialised from ``herdr_link_protocol``.
"""

import json
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path
from typing import Any, Final, Literal

from herdr_link_control.bridge import bridge_client_data, bridge_client_js
from herdr_link_control.userfiles import made_by
from herdr_link_protocol import (
    ACTION_TOOLS,
    CLOSE_TOOL,
    GATEWAY_TOOL,
    TIER1_TOOLS,
    TOOL_ACTIONS,
    TOOL_SPECS,
    WAIT_GUARD_REASON,
    ActiveReceipt,
    PresentationForm,
    active_presentation,
)

__all__ = [
    "EXTENSION_FILE",
    "GENERATOR",
    "ExtensionState",
    "build",
    "extension_state",
    "extension_text",
    "id_line",
    "link_data",
    "packaged_extension",
]

GENERATOR: Final = "herdr-link-pi-bridge"
"""The generator's name: first word of the extension's ID line, and the client name in ``hello``."""
EXTENSION_FILE: Final = "herdr-link.js"
"""The extension's file name in Pi's extensions directory."""
PRESENTING_TOOL: Final = TIER1_TOOLS[0]
"""The Tier 1 tool whose prompt guideline carries the active presentation (Pi shows a tool's
guidelines exactly while it is active, from the next model request on)."""
_LABELS: Final = {
    GATEWAY_TOOL: "Herdr Link",
    **{tool: "Herdr Link " + action.title() for action, tool in ACTION_TOOLS.items()},
}


def link_data() -> dict[str, Any]:
    """Everything the extension needs from the protocol, as plain JSON values."""
    tools = []
    for name in (GATEWAY_TOOL, *TIER1_TOOLS):
        spec = TOOL_SPECS[name]
        tool: dict[str, Any] = {
            "name": name,
            "label": _LABELS[name],
            "description": spec.description,
            "parameters": dict(spec.input_schema),
        }
        if name != GATEWAY_TOOL:
            tool["op"] = TOOL_ACTIONS[name]
        if name in (CLOSE_TOOL, GATEWAY_TOOL):  # the gateway dispatches close too (spec §4.5 ordering)
            tool["sequential"] = True
        if name == PRESENTING_TOOL:
            tool["guidelines"] = [active_presentation(PresentationForm.DEFERRED_TOOLS)]
        tools.append(tool)
    package_version = version(GENERATOR)
    return {
        "version": package_version,
        "runtime": "pi",
        **bridge_client_data(f"{GENERATOR}/{package_version} (pi)"),
        "gateway": GATEWAY_TOOL,
        "tools": tools,
        "activation": ActiveReceipt().to_json(),
        "guardReason": WAIT_GUARD_REASON,
        "command": "Herdr Link status (dormant or active)",
    }


def id_line() -> str:
    """The first line: how the installer recognises our file."""
    return (
        f"// {GENERATOR} {version(GENERATOR)} | runtime pi | Pi 1.6 extension | "
        f"generated from herdr_link_protocol: do not edit, regenerate with `{GENERATOR} build`\n"
    )


def extension_text() -> str:
    """The complete extension."""
    template = (files("herdr_link_pi_bridge") / "templates" / "pi-extension.js").read_text(encoding="utf-8")
    data = json.dumps(link_data(), ensure_ascii=False, indent=2)
    return id_line() + template.replace("/*@HERDR_LINK_DATA@*/", data).replace(
        "/*@BRIDGE_CLIENT@*/", bridge_client_js()
    )


def packaged_extension() -> Path:
    """The shipped, built extension."""
    return Path(str(files("herdr_link_pi_bridge") / "extension" / EXTENSION_FILE))


ExtensionState = Literal["current", "older", "edited", "foreign", "absent"]
"""What a file at the extension's place is: the shipped extension, an older one of ours, one of ours
(this version's ID line) that someone edited, another's, or none."""


def extension_state(data: bytes | None) -> ExtensionState:
    """What ``data`` (a file's bytes; ``None``: no file) is, by its bytes and its ID line."""
    if data is None:
        return "absent"
    if data == packaged_extension().read_bytes():
        return "current"
    if not made_by(data, GENERATOR):
        return "foreign"
    return "edited" if data.startswith(id_line().encode()) else "older"


def build(out: Path, *, check: bool = False) -> bool:
    """Write (or with ``check``, compare) the extension; returns whether it differed."""
    text = extension_text()
    path = out / EXTENSION_FILE
    differs = not path.exists() or path.read_bytes().decode("utf-8") != text
    if differs and not check:
        out.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return differs
