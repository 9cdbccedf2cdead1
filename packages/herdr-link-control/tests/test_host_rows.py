"""The host table has a row for every agent kind Herdr runs (its 22 labels and their aliases), and each
row either wires the host or says why it cannot (issue 71, ``docs/hosts.md``)."""

import json

import pytest

from herdr_link_control.hosts import HOSTS, KIND_ALIASES, host_for_client, host_for_kind
from herdr_link_testkit import AGENT_KINDS, KIND_ALIASES as ALIASES


def test_every_kind_herdr_runs_has_exactly_one_row():
    kinds = [host.kind for host in HOSTS]
    assert sorted(kinds) == sorted(AGENT_KINDS)
    assert len(set(kinds)) == len(kinds)


@pytest.mark.parametrize(("alias", "kind"), sorted(ALIASES.items()))
def test_each_alias_herdr_accepts_reaches_its_kinds_row(alias, kind):
    host = host_for_kind(alias.upper())
    assert host is not None and host.kind == kind
    assert KIND_ALIASES[alias] == kind


@pytest.mark.parametrize("host", HOSTS, ids=lambda host: host.name)
def test_a_row_wires_its_host_or_says_why_it_cannot(host):
    wired = host.servers is not None or host.extension is not None
    assert wired != bool(host.unwired), host
    if not wired:
        assert host.clients == () and host.presentation is None and host.hint is None


@pytest.mark.parametrize(
    ("client", "name"),
    [
        ("claude-code", "claude"),
        ("codex-mcp-client", "codex"),
        ("gemini-cli-mcp-client", "gemini"),
        ("pi", "pi"),
        ("herdr-link-pi-bridge/0.3.0 (pi)", "pi"),
        ("herdr-link-opencode-bridge/0.3.0", "opencode"),
        ("copilot-cli", "copilot"),
        ("qwen-cli-mcp-client-herdr_link", "qwen"),
        ("@cline/core", "cline"),
        ("kilo", "kilo"),
        ("grok-shell-herdr_link", "grok"),
        ("factory-cli", "droid"),
        ("herdr_link", "mastracode"),  # @mastra/mcp: the server's key
        ("omp-coding-agent", "omp"),  # oh-my-pi 18.2.3 (src/mcp/client.ts CLIENT_INFO)
        ("amp-mcp-client", "amp"),  # Amp 0.0.1790142911, `amp tools list`
        ("kimi-code", "kimi"),  # Kimi Code 2.1.0: its identity slug
        ("qodercli", "qodercli"),  # Qoder CLI 1.1.52's bundle (qoderclicn for its CN build)
        ("qoderclicn", "qodercli"),
        ("mcp", "hermes"),  # Hermes Agent 0.19.0 names no client: the MCP Python SDK's default
    ],
)
def test_each_hosts_client_name_as_seen_on_the_wire_finds_its_own_row(client, name):
    host = host_for_client(client)
    assert host is not None and host.name == name


@pytest.mark.parametrize(
    "client",
    [
        "picky-client",
        "kilocode-fork",
        "mcp-client",
        "",
        "python-sdk",
        "herdr_link_fork",
        "kimi-code-acp",
        "devin-review-bot",  # Devin's and maki's names are guesses (no build runs here): matched exactly
        "makina-agent",
    ],
)
def test_a_client_no_row_names_finds_none(client):
    assert host_for_client(client) is None


def _home_with(tmp_path, path: str, text: str):
    home = tmp_path / "home"
    (home / path).parent.mkdir(parents=True)
    (home / path).write_text(text, encoding="utf-8")
    return home


def test_copilots_trusted_folders_cover_the_folders_below_them(tmp_path):
    from herdr_link_control import folder_trust
    from herdr_link_control.hosts import find_host

    work = tmp_path / "work"
    (work / "app").mkdir(parents=True)
    home = _home_with(tmp_path, ".copilot/config.json", json.dumps({"trustedFolders": [str(work)], "banner": "never"}))
    copilot = find_host("copilot")
    assert copilot is not None
    assert folder_trust(copilot, work / "app", environ={}, home=home) is True
    assert folder_trust(copilot, tmp_path, environ={}, home=home) is None  # it would ask


def test_droids_trusted_folder_is_that_folder_only(tmp_path):
    from herdr_link_control import folder_trust
    from herdr_link_control.hosts import find_host

    work = tmp_path / "work"
    (work / "app").mkdir(parents=True)
    trusted = {"trustedFolders": {str(work): {"trustedAt": "x"}}}
    home = _home_with(tmp_path, ".factory/settings.json", json.dumps(trusted))
    droid = find_host("droid")
    assert droid is not None
    assert folder_trust(droid, work, environ={}, home=home) is True
    assert folder_trust(droid, work / "app", environ={}, home=home) is None  # not seen to cover its children


def test_maki_registers_our_server_under_a_name_it_accepts_and_every_other_host_under_ours():
    from herdr_link_control.hosts import SERVER_NAMESPACE, find_host, hosts_with

    maki = find_host("maki")
    assert maki is not None and maki.servers is not None
    # maki accepts ASCII letters, digits and hyphens only (maki-config is_valid_server_name)
    assert maki.servers.name == "herdr-link" and all(c.isalnum() or c == "-" for c in maki.servers.name)
    others = [host for host in hosts_with("servers") if host.name != "maki"]
    assert others and all(host.servers is not None and host.servers.name == SERVER_NAMESPACE for host in others)


@pytest.mark.parametrize(("name", "path"), [("amp", "amp/settings.json"), ("devin", "devin/config.json")])
def test_amp_and_devin_keep_servers_in_a_settings_file_read_with_comments(name, path):
    from herdr_link_control.hosts import find_host

    host = find_host(name)
    assert host is not None and host.servers is not None
    assert host.servers.place.format == "jsonc" and host.servers.place.user.endswith(path)
