"""hint, wiring and probe (the doctor's checks of the printed wiring: ``herdr-link``'s tests)."""

import hashlib
import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from ruamel.yaml import YAML

from herdr_link_control.hosts import find_host
from herdr_link_mcp import (
    command_hook_hash,
    hint_hosts,
    hint_output,
    server_command,
    wiring,
    wiring_hosts,
)
from herdr_link_mcp._hint import _json_string
from herdr_link_protocol import TIER1_TOOLS, PresentationForm, dormant_tools_list, tier0_hint
from herdr_link_testkit import HerdrSim

INSIDE = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/b", "HERDR_PANE_ID": "w1:p1"}


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "herdr_link_mcp", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("host", hint_hosts())
def test_hints_name_the_gateway_and_never_the_tier1_tools(host):
    output = hint_output(host, INSIDE)
    assert "herdr_link" in output and not any(tool in output for tool in TIER1_TOOLS)
    assert "Herdr Link" in output and len(output.encode()) < 600


def test_each_host_gets_its_hook_format():
    claude = json.loads(hint_output("claude", INSIDE))["hookSpecificOutput"]
    assert claude["hookEventName"] == "SessionStart"
    assert claude["additionalContext"] == tier0_hint(PresentationForm.MCP_PREFIXED, "herdr_link")
    assert "select:mcp__herdr_link__herdr_link" in claude["additionalContext"]
    pi = hint_output("pi", {})  # plain, for a prompt file; Pi has no tool search to be told about
    assert pi == tier0_hint(PresentationForm.MCP_PREFIXED, "herdr_link", tool_search=False)
    assert "tool search" not in pi and "mcp__herdr_link__herdr_link tool." in pi
    codex = json.loads(hint_output("codex", INSIDE))
    assert codex["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "tool_search" in codex["hookSpecificOutput"]["additionalContext"]
    agy = json.loads(hint_output("agy", INSIDE))
    assert 'ServerName "herdr_link"' in agy["injectSteps"][0]["ephemeralMessage"]
    gemini = json.loads(hint_output("gemini", INSIDE))
    assert "mcp_herdr_link_herdr_link" in gemini["hookSpecificOutput"]["additionalContext"]


def test_each_hook_prints_exactly_what_json_dumps_prints():
    forms = {
        "claude": PresentationForm.MCP_PREFIXED,
        "codex": PresentationForm.MCP_NAMESPACED,
        "gemini": PresentationForm.MCP_SINGLE_PREFIX,
        "agy": PresentationForm.MCP_WRAPPER,
    }
    hint = {host: tier0_hint(form, "herdr_link") for host, form in forms.items()}
    expected = {
        "claude": {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": hint["claude"]}},
        "codex": {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": hint["codex"]}},
        "gemini": {"hookSpecificOutput": {"additionalContext": hint["gemini"]}},
        "agy": {"injectSteps": [{"ephemeralMessage": hint["agy"]}]},
    }
    for host, document in expected.items():
        assert hint_output(host, INSIDE) == json.dumps(document, ensure_ascii=False)


@given(st.text())
def test_the_hooks_string_escaping_is_json_dumps(text):
    assert _json_string(text) == json.dumps(text, ensure_ascii=False)


def test_copilots_session_start_hook_prints_a_top_level_additional_context():
    hint = tier0_hint(PresentationForm.SERVER_DASH, "herdr_link", tool_search=False)
    assert "herdr_link-herdr_link" in hint  # the name Copilot CLI gives our gateway
    assert hint_output("copilot", INSIDE) == json.dumps({"additionalContext": hint}, ensure_ascii=False)
    assert hint_output("copilot", {}) == ""  # outside Herdr: no output, so no context
    done = run("hint", "--host", "copilot", env={"PATH": "/usr/bin:/bin", **INSIDE})
    assert done.returncode == 0 and json.loads(done.stdout) == {"additionalContext": hint}


def test_outside_herdr_hooks_add_nothing():
    assert hint_output("codex", {}) == "" and hint_output("claude", {}) == ""
    assert hint_output("agy", {}) == "{}" and hint_output("gemini", {}) == "{}"


def test_the_hint_command_prints_exactly_the_hook_output(tmp_path):
    done = run("hint", "--host", "agy", env={"PATH": "/usr/bin:/bin", **INSIDE})
    assert done.returncode == 0 and json.loads(done.stdout) == json.loads(hint_output("agy", INSIDE))
    outside = run("hint", "--host", "agy", env={"PATH": "/usr/bin:/bin"})
    assert outside.stdout == "{}" and "not in a Herdr pane" in outside.stderr  # says why no hint is added
    pi = run("hint", "--host", "pi", env={"PATH": "/usr/bin:/bin"})
    assert (
        pi.returncode == 0 and pi.stdout == hint_output("pi", {}) + "\n" and "mcp__herdr_link__herdr_link" in pi.stdout
    )
    assert run("hint", "--host", "opencode").returncode == 2


@pytest.mark.parametrize("host", wiring_hosts())
def test_every_printed_config_parses_with_its_formats_parser(host):
    result = wiring(host)
    assert result.files
    record = find_host(host)
    servers = record.servers if record is not None else None
    assert servers is not None
    for item in result.files:
        if item.format == "json":
            value = json.loads(item.content)
        elif item.format == "toml":
            value = tomllib.loads(item.content)
        else:
            continue
        assert servers.name in json.dumps(value) or "hint --host" in json.dumps(value)
    machine = json.loads(run("wiring", "--host", host, "--json").stdout)
    assert machine["host"] == host and [f["path"] for f in machine["files"]] == [f.path for f in result.files]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


@pytest.mark.parametrize("host", ["claude", "codex", "gemini", "agy", "pi"])
def test_the_uvx_launcher_runs_the_pinned_version_for_the_server_and_every_hook(host):
    from herdr_link_mcp import __version__

    result = wiring(host, launcher="uvx", find_links=["wheels"])
    pinned = [
        "uvx",
        "--compile-bytecode",
        "--find-links",
        str(Path("wheels").resolve()),
        f"herdr-link-mcp@{__version__}",
    ]
    strings = [text for item in result.files for text in _strings(dict(item.data))]
    assert "uvx" in strings and pinned[1:] == strings[strings.index("uvx") + 1 : strings.index("uvx") + 5]
    hooks = [text for text in strings if " hint --host " in text]
    assert hooks == ([] if host == "pi" else [shlex.join([*pinned, "hint", "--host", host])])
    assert not any(sys.executable in text or "bin/herdr-link-mcp" in text for text in strings)
    if host == "codex":  # uvx starts slower than Codex waits for a server that is not required
        assert tomllib.loads(result.files[0].content)["mcp_servers"]["herdr_link"]["required"] is True
    with pytest.raises(ValueError, match="--launcher uvx only"):
        wiring(host, find_links=["wheels"])
    with pytest.raises(ValueError, match="unknown launcher"):
        wiring(host, launcher="pipx")


@pytest.mark.parametrize("host", ["claude", "gemini", "agy", "pi"])
def test_only_codex_can_be_wired_required(host):
    with pytest.raises(ValueError, match="--required applies to codex"):
        wiring(host, required=True)
    assert run("wiring", "--host", host, "--required").returncode == 2


def test_registrations_use_the_herdr_link_namespace_and_this_environments_command():
    command, *args = server_command()
    claude = json.loads(wiring("claude").files[0].content)
    assert claude["mcpServers"]["herdr_link"] == {"type": "stdio", "command": command, "args": args, "env": {}}
    settings = json.loads(wiring("claude").files[1].content)
    assert settings["permissions"]["allow"] == ["mcp__herdr_link"] and wiring("claude").launcher == ""
    assert settings["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith("hint --host claude")
    codex = tomllib.loads(wiring("codex").files[0].content)
    server = codex["mcp_servers"]["herdr_link"]
    assert server["env_vars"] == ["HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID", "HERDR_SOCKET_PATH"]
    assert server["default_tools_approval_mode"] == "approve" and "required" not in server
    assert "features" not in codex  # hooks are on by default in Codex 0.171
    required = tomllib.loads(wiring("codex", required=True).files[0].content)["mcp_servers"]["herdr_link"]
    assert required["required"] is True and required["startup_timeout_sec"] == 30
    hooks = json.loads(wiring("codex").files[1].content)
    assert hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith("hint --host codex")
    agy_hooks = json.loads(wiring("agy").files[1].content)
    assert agy_hooks["herdr-link"]["PreInvocation"][0]["type"] == "command"  # handlers sit directly in the list
    gemini = json.loads(wiring("gemini").files[0].content)
    assert gemini["mcpServers"]["herdr_link"]["trust"] is True
    pi = json.loads(wiring("pi").files[0].content)
    assert pi["mcpServers"]["herdr_link"]["exposure"] == "direct"
    assert Path(command).exists()


def test_probe_reports_what_a_host_sees_in_both_eras(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    done = run("probe", "--json", env=herdr_sim.env(pane))
    assert done.returncode == 0, done.stderr
    handshake, modern = json.loads(done.stdout)
    assert handshake["era"] == "handshake" and modern["era"] == "2026-07-28"
    for report in (handshake, modern):
        assert report["dormant_tools"] == ["herdr_link"]
        # the dormant `tools` array, as the README and docs/benchmarks.md measure it
        assert report["dormant_bytes"] == len(json.dumps(dormant_tools_list(), separators=(",", ":")).encode())
        assert report["change_signalled"] is True and len(report["active_tools"]) == 5
        assert report["activation"] == '{"status":"active","capabilities":["start","peers","send","close"]}'
    assert handshake["list_changed"] is True
    text = run("probe", env=herdr_sim.env(pane)).stdout
    assert text.rstrip().endswith(
        "OK: a host sees the gateway, activates it and then sees all five tools, in both eras"
    )
    assert "dormant tools: herdr_link" in text and "['" not in text  # plain words, no Python reprs
    size = handshake["dormant_bytes"]
    assert f"dormant `tools` array (compact JSON, what a model reads): {size} bytes" in text  # labelled


def test_probe_outside_herdr_and_with_a_broken_command(tmp_path):
    outside = run("probe", "--json", env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    reports = json.loads(outside.stdout)
    assert reports[0]["dormant_tools"] == [] and reports[0]["call_outside"].startswith("NOT_IN_HERDR")
    broken = run("probe", "--", "/no/such/server")
    assert broken.returncode == 1 and "error" in broken.stdout
    assert broken.stdout.rstrip().splitlines()[-1].startswith("FAIL: the server did not answer")


def test_probe_says_what_happened_to_a_server_that_exits_at_once():
    quits = json.loads(run("probe", "--json", "--", sys.executable, "-c", "pass").stdout)
    for report in quits:  # the cause, not "unhandled errors in a TaskGroup (1 sub-exception)"
        assert report["error"] == "MCPError: Connection closed"
    text = run("probe", "--", sys.executable, "-c", "pass").stdout
    assert text.rstrip().endswith("FAIL: the server did not answer in the handshake and 2026-07-28 eras")


def test_probe_says_each_step_on_stderr_before_it_starts_and_json_stays_clean(tmp_path):
    """Each server it starts copies what the probe had said by then (its stderr file) into a record."""
    said, record = tmp_path / "said", tmp_path / "record"
    server = "import sys; open(sys.argv[2], 'a').write(open(sys.argv[1]).read() + '\\f')"
    with said.open("w") as stderr:
        done = subprocess.run(
            [sys.executable, "-m", "herdr_link_mcp", "probe", "--json", "--", sys.executable, "-c", server,
             str(said), str(record)],
            stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=120,
        )  # fmt: skip
    assert [report["era"] for report in json.loads(done.stdout)] == ["handshake", "2026-07-28"]
    first, second, _ = record.read_text().split("\f")
    command = shlex.join([sys.executable, "-c", server, str(said), str(record)])
    step = "herdr-link-mcp probe: {} of 2, the {} era: starting {} as a host would, then listing its tools and "
    one = step.format(1, "handshake", command) + "activating them (at most 30 s)\n"
    two = step.format(2, "2026-07-28", command) + "activating them (at most 30 s)\n"
    assert (first, second) == (one, one + two)
    assert said.read_text() == one + two


def test_the_default_scope_is_the_users_and_the_project_form_is_on_request(monkeypatch, tmp_path):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home = tmp_path / "home"
    user = {host: [f.path for f in wiring(host, home=home).files] for host in ("claude", "gemini", "agy", "pi")}
    assert user == {
        "claude": ["~/.claude.json", "~/.claude/settings.json"],
        "gemini": ["~/.gemini/settings.json"],
        "agy": ["~/.gemini/config/mcp_config.json", "~/.gemini/antigravity-cli/hooks.json"],
        "pi": ["~/.pi/agent/mcp.json"],
    }
    project = {
        host: [f.path for f in wiring(host, scope="project").files] for host in ("claude", "gemini", "agy", "pi")
    }
    assert project == {
        "claude": [".mcp.json", ".claude/settings.json"],
        "gemini": [".gemini/settings.json"],
        "agy": ["~/.gemini/config/mcp_config.json", ".agents/hooks.json"],
        "pi": [".pi/mcp.json"],
    }
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    assert [f.path for f in wiring("claude", home=home).files] == [
        str(tmp_path / "cc" / ".claude.json"),
        str(tmp_path / "cc" / "settings.json"),
    ]
    with pytest.raises(ValueError, match="only the user scope"):
        wiring("codex", scope="project")


def test_trust_is_recorded_only_when_asked_and_only_for_the_folders_named(tmp_path):
    for host in ("claude", "codex", "gemini"):
        data = json.dumps([f.data for f in wiring(host).files])
        assert not any(word in data for word in ("projects", "TRUST_FOLDER", "hasTrustDialogAccepted", "trust_level"))
    folder = tmp_path / "work"
    claude = wiring("claude", trust=[str(folder)]).files[0].data
    assert claude["projects"] == {str(folder): {"hasTrustDialogAccepted": True}}
    codex = tomllib.loads(wiring("codex", trust=[str(folder)]).files[0].content)
    assert codex["projects"] == {str(folder): {"trust_level": "trusted"}}
    gemini = wiring("gemini", trust=[str(folder)]).files
    assert [f.path for f in gemini] == ["~/.gemini/settings.json", "~/.gemini/trustedFolders.json"]
    assert json.loads(gemini[1].content) == {str(folder): "TRUST_FOLDER"} and gemini[1].private
    with pytest.raises(ValueError, match="no folder trust"):
        wiring("pi", trust=[str(folder)])


def test_grok_build_trust_is_recorded_for_the_repository_it_looks_up(tmp_path):
    repo = tmp_path / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    plain = tmp_path / "notes"
    chosen = wiring("grok", trust=[str(repo / "src"), str(repo), str(plain)], home=tmp_path / "home", environ={})
    folders = next(f for f in chosen.files if f.path == "~/.grok/trusted_folders.toml")
    assert tomllib.loads(folders.content) == {
        "folders": {str(repo): {"trusted": True, "decided_at": 1796515200}, str(plain): {"trusted": True,
                    "decided_at": 1796515200}}
    }  # fmt: skip
    assert folders.private and "--trust DIR records DIR's repository" in " ".join(chosen.notes)
    assert "trusted_folders" not in json.dumps([f.path for f in wiring("grok", home=tmp_path / "home").files])
    with pytest.raises(ValueError, match="never records trust for"):
        wiring("grok", trust=[str(tmp_path / "home")], home=tmp_path / "home", environ={})


@pytest.mark.parametrize("host", wiring_hosts())
def test_the_printed_content_is_what_install_merges(host, tmp_path):
    trust = [str(tmp_path)] if host in ("claude", "codex", "gemini") else []
    for item in wiring(host, trust=trust).files:
        if item.format == "toml":
            parsed = tomllib.loads(item.content)
        elif item.format == "yaml":
            parsed = YAML(typ="safe").load(item.content)
        else:
            parsed = json.loads(item.content)
        assert parsed == json.loads(json.dumps(item.data))


def test_codex_wiring_trusts_exactly_its_own_hint_hook(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    result = wiring("codex")
    folder = tmp_path / "codex"
    assert [f.path for f in result.files] == [str(folder / "config.toml"), str(folder / "hooks.json")]
    config = tomllib.loads(result.files[0].content)
    [(key, state)] = config["hooks"]["state"].items()
    assert key == f"{tmp_path / 'codex' / 'hooks.json'}:session_start:0:0"
    handler = json.loads(result.files[1].content)["hooks"]["SessionStart"][0]["hooks"][0]
    # Codex's own hash of this handler (its normalized identity as sorted compact JSON, SHA-256).
    identity = {"event_name": "session_start", "hooks": [{**handler, "async": False}]}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert state == {"trusted_hash": f"sha256:{digest}"}


def test_codex_hash_matches_one_codex_0_171_reported():
    # codex app-server hooks/list, Codex 0.171.0, for {"type":"command","command":"/usr/bin/echo hi","timeout":10}
    expected = "sha256:1772a4a79cbef30174d1255e2494b7f52d59eb71ca51ad7f77d2ebe42f78c262"
    assert command_hook_hash("session_start", "/usr/bin/echo hi", 10) == expected


def test_in_a_herdr_core_terminal_probe_and_server_say_so_apart_from_the_verdict(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HC_TERMINAL_ID": "t-1", "HC_SESSION": "s-1"}
    done = run("probe", env=env)
    assert done.returncode == 0
    lines = done.stdout.rstrip().splitlines()
    assert lines[-1] == "OK outside Herdr: the server lists no tools, as it should outside a Herdr pane"
    assert "herdr-core" not in lines[-1] and "herdr-core terminal" in done.stderr  # the probe's own word
    block = lines.index("[the server's stderr, handshake era: its operator log, not the probe's verdict]")
    assert "this is a herdr-core terminal" in lines[block + 1] and lines[block + 1].startswith("  | ")
    assert all(line.startswith(("[", "  ")) or line == "" for line in lines[:-1])  # the verdict stands apart
    reports = json.loads(run("probe", "--json", env=env).stdout)
    assert all(any("herdr-core terminal" in line for line in r["server_log"]) for r in reports)
    served = subprocess.run([sys.executable, "-m", "herdr_link_mcp"], input=b"", capture_output=True, env=env,
                            timeout=120)  # fmt: skip
    assert served.stderr.decode().count("this is a herdr-core terminal") == 1  # said once
    plain = run("probe", env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert "herdr-core" not in plain.stdout + plain.stderr


@pytest.mark.parametrize(
    ("host", "said"), [("opencode", "OpenCode is wired by its own installer: run herdr-link-opencode-install")]
)
def test_a_kind_link_does_not_wire_over_mcp_is_a_usage_error_that_says_why(host, said, tmp_path):
    done = run("install", "--host", host, "--dry-run", env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 2 and said in done.stderr and not list(tmp_path.iterdir())


def test_a_kind_link_cannot_wire_is_a_usage_error_that_says_why(tmp_path, monkeypatch, capsys):
    """Every kind Herdr runs is wired today (oh-my-pi was the example): a made-up unwired row on the public
    table."""
    from herdr_link_control import hosts
    from herdr_link_control.hosts import Host
    from herdr_link_mcp.cli import main

    made_up = "its file is not known"
    rows = tuple(Host(r.name, r.title, kind=r.kind, unwired=made_up) if r.kind == "omp" else r for r in hosts.HOSTS)
    monkeypatch.setattr(hosts, "HOSTS", rows)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["install", "--host", "omp", "--dry-run"]) == 2
    assert f"Link does not wire oh-my-pi: {made_up}" in capsys.readouterr().err and not list(tmp_path.iterdir())


@pytest.mark.parametrize("host", ["github-copilot", "QWEN", "kilo-code", "hermes-agent"])
def test_an_alias_herdr_accepts_names_its_host(host, tmp_path):
    done = run("wiring", "--host", host, "--json", env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["host"] in ("copilot", "qwen", "kilo", "hermes")


def test_droids_approval_names_our_server_by_the_digest_droid_takes_of_its_launch():
    """Factory Droid 0.225 ignores a ``persistentPermissions`` record whose ``serverIdentity`` is not the
    first 32 hex digits of the SHA-256 of ``{"type":"stdio","command":…,"args":[…]}`` (compact JSON)."""
    import hashlib

    from herdr_link_mcp import wiring

    data = next(f for f in wiring("droid").files if f.path == "~/.factory/mcp.json").data
    entry = data["mcpServers"]["herdr_link"]
    launch = json.dumps({"type": "stdio", "command": entry["command"], "args": entry["args"]}, separators=(",", ":"))
    record = data["persistentPermissions"]["servers"]["herdr_link"]
    assert record["serverIdentity"] == hashlib.sha256(launch.encode()).hexdigest()[:32]
    assert record["impactLevel"] == "high" and record["approvedAt"]


def test_pis_wiring_names_an_install_of_the_extension_that_an_os_managed_python_allows():
    """``pip install`` is refused on a PEP 668 system; ``uv tool install`` gives the command an environment."""
    text = run("wiring", "--host", "pi").stdout
    assert "pip install" not in text
    assert (
        "uv tool install herdr-link-pi-bridge, from a clone with --find-links dist, then herdr-link-pi-bridge install"
        in text
    )


def test_omps_entry_is_its_plain_server_in_its_agent_folder_which_its_variable_moves(tmp_path):
    """oh-my-pi 18.2.3 reads user servers from ``<agent dir>/mcp.json`` (``~/.omp/agent``, or
    ``PI_CODING_AGENT_DIR``), passes its own environment to them and needs no key beyond command and
    args: its default ``tools.xdev`` mounts MCP tools as ``xd://`` devices, so no YAML setting is written."""
    from herdr_link_mcp import wiring

    [default] = wiring("omp", home=tmp_path, environ={}).files
    assert default.path == "~/.omp/agent/mcp.json"
    assert list(default.data) == ["mcpServers"]
    assert list(default.data["mcpServers"]["herdr_link"]) == ["command", "args"]
    [moved] = wiring("omp", home=tmp_path, environ={"PI_CODING_AGENT_DIR": "/srv/omp/agent"}).files
    assert moved.path == "/srv/omp/agent/mcp.json"
