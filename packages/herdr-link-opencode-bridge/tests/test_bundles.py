"""Generation: the shipped files are current, deterministic, isolated and generated from the protocol."""

import hashlib
import json
import re
from pathlib import Path

import jsonschema

from herdr_link_opencode_bridge import MANIFEST_FILE, RUNTIMES, build, bundle_text, packaged_dir
from herdr_link_opencode_bridge._bundles import link_data
from herdr_link_opencode_bridge.cli import main
from herdr_link_protocol import TOOL_SPECS, ActiveReceipt, PresentationForm, active_presentation

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "herdr_link_opencode_bridge"
V1 = RUNTIMES["opencode-v1"]


def test_the_shipped_bundles_match_a_fresh_build():
    assert build(packaged_dir(), check=True) == []
    assert main(["build", "--check"]) == 0


def test_a_stale_bundle_is_reported(tmp_path):
    assert set(build(tmp_path)) == {V1.file, MANIFEST_FILE}
    (tmp_path / V1.file).write_text("// edited\n")
    assert main(["build", "--check", "--out", str(tmp_path)]) == 1
    assert build(tmp_path, check=True) == [V1.file]


def test_generation_is_deterministic():
    assert bundle_text(V1) == bundle_text(V1)


def test_the_manifest_matches_its_schema_and_the_bundle_bytes():
    manifest = json.loads((packaged_dir() / MANIFEST_FILE).read_text())
    jsonschema.validate(manifest, json.loads((PACKAGE / "manifest.schema.json").read_text()))
    [entry] = manifest["bundles"]
    data = (packaged_dir() / V1.file).read_bytes()
    assert entry["sha256"] == hashlib.sha256(data).hexdigest() and entry["bytes"] == len(data)
    assert entry["runtime"] == "opencode-v1" and entry["earlier_sha256"] == []


def test_the_id_line_names_generator_version_and_runtime():
    first = (packaged_dir() / V1.file).read_text().split("\n", 1)[0]
    assert re.fullmatch(r"// herdr-link-opencode-bridge \d+\.\d+\.\d+ \| runtime opencode-v1 \| .*do not edit.*", first)


def test_the_v1_bundle_imports_only_the_plugin_package_and_node_builtins():
    text = (packaged_dir() / V1.file).read_text()
    imports = re.findall(r'^import .* from "([^"]+)";$', text, flags=re.MULTILINE)
    assert imports and all(name == "@opencode-ai/plugin" or name.startswith("node:") for name in imports)
    assert "require(" not in text and "import(" not in text
    assert len(re.findall(r"^export ", text, flags=re.MULTILINE)) == 1


def test_every_model_facing_text_comes_from_the_protocol():
    text = (packaged_dir() / V1.file).read_text()
    embedded = json.loads(text.split("const LINK = ", 1)[1].split(";\n", 1)[0])
    assert embedded == link_data(V1)
    assert embedded["presentation"] == active_presentation(PresentationForm.GATEWAY_DISPATCH)
    assert embedded["dispatcher"]["description"] == TOOL_SPECS["herdr_link"].description
    assert embedded["activation"] == ActiveReceipt().to_json()
    assert embedded["dispatcher"]["actions"] == {
        "start": ["name", "with", "cwd", "config_agent", "kind", "args"],
        "peers": [],
        "send": ["to", "message"],
        "close": ["agent"],
    }
