"""Generation: the shipped files are current, deterministic, isolated and generated from the protocol."""

import hashlib
import json
import re
from pathlib import Path

import jsonschema

from herdr_link_opencode_bridge import (
    BUNDLE_FILE,
    MANIFEST_FILE,
    OPENCODE_V2_REVISION,
    PLUGIN_APIS,
    build,
    bundle_text,
    packaged_dir,
)
from herdr_link_opencode_bridge._bundles import link_data
from herdr_link_opencode_bridge.cli import main
from herdr_link_protocol import TOOL_SPECS, ActiveReceipt, PresentationForm, active_presentation

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "herdr_link_opencode_bridge"


def test_the_shipped_bundles_match_a_fresh_build():
    assert build(packaged_dir(), check=True) == []
    assert main(["build", "--check"]) == 0


def test_a_stale_bundle_is_reported(tmp_path):
    assert set(build(tmp_path)) == {BUNDLE_FILE, MANIFEST_FILE}
    (tmp_path / BUNDLE_FILE).write_text("// edited\n")
    assert main(["build", "--check", "--out", str(tmp_path)]) == 1
    assert build(tmp_path, check=True) == [BUNDLE_FILE]


def test_generation_is_deterministic():
    assert bundle_text() == bundle_text()


def test_one_bundle_is_shipped_for_both_opencodes():
    """OpenCode 1.x and 2 load the same file: the package ships one bundle and nothing names a runtime in it."""
    assert sorted(path.name for path in packaged_dir().iterdir()) == [BUNDLE_FILE, MANIFEST_FILE]
    assert "opencode-v1" not in bundle_text() and "opencode-v2" not in bundle_text()


def test_the_manifest_matches_its_schema_and_the_bundle_bytes():
    manifest = json.loads((packaged_dir() / MANIFEST_FILE).read_text())
    jsonschema.validate(manifest, json.loads((PACKAGE / "manifest.schema.json").read_text()))
    [entry] = manifest["bundles"]
    data = (packaged_dir() / BUNDLE_FILE).read_bytes()
    assert entry["file"] == BUNDLE_FILE and entry["plugin_apis"] == PLUGIN_APIS
    assert entry["sha256"] == hashlib.sha256(data).hexdigest() and entry["bytes"] == len(data)
    assert entry["earlier_sha256"] == []


def test_the_id_line_names_generator_version_and_both_plugin_apis():
    first = (packaged_dir() / BUNDLE_FILE).read_text().split("\n", 1)[0]
    pattern = r"// herdr-link-opencode-bridge \d+\.\d+\.\d+ \| OpenCode 1\.x: .*; OpenCode 2: .* \| .*do not edit.*"
    assert re.fullmatch(pattern, first)


def test_the_bundle_cites_the_opencode_2_revision_it_is_modelled_on():
    first = (packaged_dir() / BUNDLE_FILE).read_text().split("\n", 1)[0]
    assert f"OpenCode 2: {OPENCODE_V2_REVISION} (experimental) |" in first
    assert re.search(r"@[0-9a-f]{8}\b", OPENCODE_V2_REVISION)
    docs = (Path(__file__).resolve().parents[3] / "docs" / "opencode-v2.md").read_text()
    assert OPENCODE_V2_REVISION in docs


def test_the_bundle_serves_both_runtimes_and_imports_the_plugin_package_only_for_1x():
    # One file loads in OpenCode 1.x (default export's `server`) and 2 (`setup`); its static imports are
    # Node's own, and `@opencode-ai/plugin` is imported only inside the 1.x half, when 1.x calls it.
    text = (packaged_dir() / BUNDLE_FILE).read_text()
    imports = re.findall(r'^import .* from "([^"]+)";$', text, flags=re.MULTILINE)
    assert imports and all(name.startswith("node:") for name in imports)
    assert re.findall(r"import\(([^)]*)\)", text) == ['"@opencode-ai/plugin"']
    assert "require(" not in text
    assert re.findall(r"^export .*$", text, flags=re.MULTILINE) == [
        'export default { id: "herdr-link", server: HerdrLinkPlugin, setup: HerdrLinkSetup };'
    ]


def test_every_model_facing_text_comes_from_the_protocol():
    text = (packaged_dir() / BUNDLE_FILE).read_text()
    assert json.loads(text.split("const LINK = ", 1)[1].split(";\n", 1)[0]) == link_data()
    embedded = json.loads(text.split("const LINK = ", 1)[1].split(";\n", 1)[0])
    assert embedded["presentation"] == active_presentation(PresentationForm.GATEWAY_DISPATCH)
    assert embedded["dispatcher"]["description"] == TOOL_SPECS["herdr_link"].description
    assert embedded["activation"] == ActiveReceipt().to_json()
    assert embedded["gatewayActivate"] == "activate" and embedded["bridge"]["gatewayOp"] == "gateway"
    assert "capabilities" not in embedded and "action" not in embedded["errors"]  # the bridge's parse says those


def test_build_stays_out_of_an_installed_packages_way(tmp_path, monkeypatch, capsys):
    from herdr_link_opencode_bridge import cli

    monkeypatch.setattr(cli, "in_source_checkout", lambda _file: False)
    assert cli.main(["build"]) == 2 and "a developer command" in capsys.readouterr().err
    assert cli.main(["build", "--out", str(tmp_path)]) == 0 and any(tmp_path.iterdir())


def test_the_presentation_teaches_only_calls_the_schema_declares():
    # Every call form the OpenCode presentation shows must be one the tool's schema declares:
    # the one JSON Schema input (OpenCode 2 takes it; the 1.x half builds its zod from it), per action named.
    presentation = active_presentation(PresentationForm.GATEWAY_DISPATCH)
    examples = [json.loads(m) for m in re.findall(r"\{\"action\".*?\}\}", presentation)]
    assert examples, "the presentation shows no dispatch example"
    named = re.search(r"Actions: ([a-z, ]+);", presentation)
    assert named is not None
    actions = named.group(1).split(", ")
    dispatcher = link_data()["dispatcher"]
    fields = dispatcher["input"]["properties"]  # OpenCode 2's input, and what the 1.x half builds zod from
    # the actions taught are exactly those declared, besides the activation forms of PROTOCOL.md §4.1
    assert fields["action"]["enum"] == [*actions, "activate", None]
    assert fields["arguments"]["type"] == "object"
    for example in examples:
        assert set(example) <= set(fields) and example["action"] in actions
        assert set(example["arguments"]) <= set(fields)  # flat keys are declared too
