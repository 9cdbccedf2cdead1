"""The OpenCode bundle: one generated JavaScript stub over ``herdr-link-bridge`` that loads in OpenCode
1.x and 2 (1.x calls its ``server``, 2 its ``setup``), and its manifest.

Generation is deterministic. Every text a model can see enters the template as JSON serialised from
``herdr_link_protocol``; nothing is spliced in as raw text.
"""

import hashlib
import json
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path
from typing import Any, Final

from herdr_link_control.bridge import bridge_client_data, bridge_client_js
from herdr_link_control.hosts import host_extension
from herdr_link_protocol import (
    CAPABILITIES,
    DISPATCH_ACTION_DESCRIPTION,
    DISPATCH_ARGUMENTS_DESCRIPTION,
    GATEWAY_ACTIVATE,
    GATEWAY_TOOL,
    TOOL_SPECS,
    ActiveReceipt,
    Cause,
    LinkError,
    PresentationForm,
    active_presentation,
)

__all__ = [
    "BUNDLE_FILE",
    "GENERATOR",
    "MANIFEST_FILE",
    "OPENCODE_V2_REVISION",
    "OPENCODE_V2_SETUP",
    "PLUGIN_APIS",
    "build",
    "bundle_text",
    "id_line",
    "link_data",
    "manifest",
    "packaged_dir",
]

GENERATOR: Final = "herdr-link-opencode-bridge"
"""The generator's name: first word of every bundle's ID line, and the client name in ``hello``."""
MANIFEST_FILE: Final = "herdr-link.opencode.manifest.json"
"""The manifest beside the bundle: its file, SHA-256 (current and earlier) and plugin APIs."""
BUNDLE_FILE: Final = "herdr-link.opencode.js"
"""The bundle's file name in the package (installed as ``plugins/herdr-link.js``)."""
TEMPLATE: Final = "opencode.js"


OPENCODE_V2_REVISION: Final = "anomalyco/opencode V2 plugin API @1001f905"
"""The OpenCode 2 plugin API the V2 bundle is modelled on (files and commits: docs/opencode-v2.md)."""
OPENCODE_V2_SETUP: Final = host_extension("opencode").shared_setup
"""The OpenCode 2 set-up Herdr Link always serves, as told to the user (never to a model): a server of
its own per pane, started inside Herdr. OpenCode 2's shared server serves a session only when it was
itself started in a Herdr pane (docs/opencode-v2.md). Held by the host table's OpenCode row."""
PLACE_TIMEOUT_MS: Final = 5000
"""How long the plugin's ``context`` hook waits for the session rule before it leaves the tool shown."""

PLUGIN_APIS: Final = {"v1": "@opencode-ai/plugin ^1.18.13", "v2": f"{OPENCODE_V2_REVISION} (experimental)"}
"""The plugin API each half of the bundle is written against: OpenCode 1.x's, OpenCode 2's."""


def _field_descriptions() -> dict[str, dict[str, Any]]:
    # "activate" and null are the gateway's {} too (PROTOCOL.md §4.1); OpenCode 2 checks a tool's input
    # against this schema before the plugin sees it, so it admits every form the parse accepts.
    fields: dict[str, dict[str, Any]] = {
        "action": {"enum": [*CAPABILITIES, GATEWAY_ACTIVATE, None], "description": DISPATCH_ACTION_DESCRIPTION}
    }
    fields["arguments"] = {"type": "object", "description": DISPATCH_ARGUMENTS_DESCRIPTION}
    for name in ("herdr_link_send", "herdr_link_close", "herdr_link_start"):
        for key, prop in TOOL_SPECS[name].input_schema["properties"].items():
            fields.setdefault(key, {"type": prop["type"], "description": prop["description"]})
    return fields


def _dispatcher_input(fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The dispatcher's input as plain JSON Schema, which OpenCode 2's ``Tool.ValueSchema`` accepts."""
    properties: dict[str, Any] = {}
    for key, field in fields.items():
        prop: dict[str, Any] = {"type": ["string", "null"]} if "enum" in field else {"type": field["type"]}
        if field.get("type") == "array":
            prop["items"] = {"type": "string"}
        properties[key] = {**prop, **field}
    return {"type": "object", "properties": properties}


def link_data() -> dict[str, Any]:
    """Everything the bundle needs from the protocol, as plain JSON values."""
    package_version = version("herdr-link-opencode-bridge")
    fields = _field_descriptions()
    dispatcher: dict[str, Any] = {
        "description": TOOL_SPECS[GATEWAY_TOOL].description,
        "input": _dispatcher_input(fields),  # OpenCode 2 takes it as it is; the 1.x half builds zod from it
    }
    stub = bridge_client_data(f"{GENERATOR}/{package_version}")
    return {
        "version": package_version,
        **stub,
        "gateway": GATEWAY_TOOL,
        "dispatcher": dispatcher,
        "activation": ActiveReceipt().to_json(),
        "presentation": active_presentation(PresentationForm.GATEWAY_DISPATCH),
        "errors": {
            **stub["errors"],
            "session": str(LinkError(Cause.SESSION_PANE_AMBIGUOUS)),
            "sessionCode": Cause.SESSION_PANE_AMBIGUOUS.code.value,
        },
        "operator": {
            "outsideHerdr": (
                "herdr-link: this OpenCode server was started outside Herdr, so herdr_link is off for every "
                f"session it serves; {OPENCODE_V2_SETUP}"
            ),
            "placeTimeoutMs": PLACE_TIMEOUT_MS,
        },
    }


def id_line() -> str:
    """The bundle's first line: how installers recognise ours."""
    return (
        f"// {GENERATOR} {version(GENERATOR)} | OpenCode 1.x: {PLUGIN_APIS['v1']}; OpenCode 2: {PLUGIN_APIS['v2']} | "
        f"generated from herdr_link_protocol: do not edit, regenerate with `{GENERATOR} build`\n"
    )


def _template(name: str) -> str:
    return (files("herdr_link_opencode_bridge") / "templates" / name).read_text(encoding="utf-8")


def bundle_text() -> str:
    """The complete bundle."""
    data = json.dumps(link_data(), ensure_ascii=False, indent=2)
    body = _template(TEMPLATE)
    body = body.replace("/*@HERDR_LINK_DATA@*/", data).replace("/*@BRIDGE_CLIENT@*/", bridge_client_js())
    return id_line() + body


def _released() -> list[str]:
    value: list[str] = json.loads((files("herdr_link_opencode_bridge") / "released.json").read_text())["sha256"]
    return value


def manifest(text: str) -> dict[str, Any]:
    """The manifest for the bundle ``text``."""
    data = text.encode("utf-8")
    entry = {
        "file": BUNDLE_FILE,
        "version": version(GENERATOR),
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "plugin_apis": PLUGIN_APIS,
        "earlier_sha256": _released(),
    }
    return {
        "$schema": "manifest.schema.json",
        "generator": GENERATOR,
        "version": version(GENERATOR),
        "bundles": [entry],
    }


def packaged_dir() -> Path:
    """Where the shipped bundle and its manifest live inside the installed package."""
    return Path(str(files("herdr_link_opencode_bridge") / "bundles"))


def build(out: Path, *, check: bool = False) -> list[str]:
    """Write (or with ``check``, compare) the bundle and its manifest; returns the files that differ."""
    text = bundle_text()
    outputs = {BUNDLE_FILE: text, MANIFEST_FILE: json.dumps(manifest(text), indent=2) + "\n"}
    differ = []
    for name, text in outputs.items():
        path = out / name
        current = path.read_bytes().decode("utf-8") if path.exists() else None
        if current != text:
            differ.append(name)
            if not check:
                out.mkdir(parents=True, exist_ok=True)
                path.write_bytes(text.encode("utf-8"))
    return differ
