"""The doctor's wiring and hint checks against what ``herdr-link-mcp wiring`` prints: configured,
misconfigured (with the fix) or not configured."""

import json
from pathlib import Path

import pytest

from herdr_link._hint_checks import hint_checks
from herdr_link._wiring_checks import wiring_checks
from herdr_link_control.hosts import hosts_with
from herdr_link_mcp import server_command, wiring, wiring_hosts


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_checks_skip_hosts_that_are_not_configured(tmp_path):
    checks = wiring_checks(tmp_path / "home", tmp_path / "project")
    assert [c.status for c in checks] == ["SKIP"] * len(wiring_hosts())


def _write_wiring(host: str, home: Path, **options: object) -> None:
    for item in wiring(host, home=home, environ={}, **options).files:  # type: ignore[arg-type]
        _write(home / item.path[2:] if item.path.startswith("~/") else Path(item.path), item.content)


def test_checks_pass_for_the_printed_wiring(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    for host in wiring_hosts():  # every host of the table, each wired as its own wiring prints
        _write_wiring(host, home)
    checks = [(c.name, c.status) for c in wiring_checks(home, project)]
    assert checks == [(host.title, "PASS") for host in hosts_with("servers")]
    assert [name for name, _ in checks][:5] == ["Claude Code", "Codex", "AGY", "Gemini CLI", "Pi (built-in MCP)"]


@pytest.mark.parametrize(
    ("path", "content", "name", "fix_part"),
    [
        (".codex/config.toml", '[mcp_servers.herdr_link]\ncommand = "/bin/true"\n', "Codex", "env_vars"),
        (
            ".codex/config.toml",
            '[mcp_servers.herdr-link]\ncommand = "/bin/true"\n',
            "Codex",
            'rename the entry to "herdr_link"',
        ),
        (".codex/config.toml", "[mcp_servers.herdr_link\n", "Codex", "syntax"),
        (
            ".codex/config.toml",
            '[mcp_servers.herdr_link]\ncommand = "/no/such/herdr-link-mcp"\n',
            "Codex",
            "herdr-link-mcp install --host codex",
        ),
        (
            ".gemini/settings.json",
            '{"mcpServers":{"herdr_link":{"command":"/bin/true"}}}',
            "Gemini CLI",
            '"trust": true',
        ),
        (
            ".pi/agent/mcp.json",
            '{"mcpServers":{"herdr_link":{"command":"/bin/true"}}}',
            "Pi (built-in MCP)",
            "exposure",
        ),
        (".claude.json", '{"mcpServers":{"herdr-link":{"command":"/bin/true"}}}', "Claude Code", "rename"),
        (
            ".omp/agent/mcp.json",
            '{"mcpServers":{"herdr_link":{"command":"/no/such/herdr-link-mcp"}}}',
            "oh-my-pi",
            "herdr-link-mcp install --host omp",
        ),
        (".omp/agent/mcp.json", '{\n  // mine\n  "mcpServers": {}\n}\n', "oh-my-pi", "syntax"),
        (  # maki refuses an underscore in a server's name: there ours is herdr-link
            ".config/maki/mcp.toml",
            '[mcp.herdr_link]\ncommand = ["/bin/true"]\n',
            "maki",
            'rename the entry to "herdr-link"',
        ),
        (  # Kimi Code reads mcp.json with JSON.parse: one comment and it loads no server
            ".kimi-code/mcp.json",
            '{\n  // mine\n  "mcpServers": {"herdr_link": {"command": "/bin/true"}}\n}\n',
            "Kimi Code CLI",
            "syntax",
        ),
        (
            ".hermes/config.yaml",
            "# mine\nmcp_servers:\n  herdr_link:\n    command: /bin/true\n    env:\n      HERDR_ENV: ${HERDR_ENV}\n",
            "Hermes Agent",
            "does not forward HERDR_BIN_PATH, HERDR_PANE_ID, HERDR_SOCKET_PATH",
        ),
        (".hermes/config.yaml", "mcp_servers: [\n", "Hermes Agent", "is not valid YAML"),
    ],
)
def test_checks_report_misconfiguration_with_the_fix(tmp_path, path, content, name, fix_part):
    home = tmp_path / "home"
    _write(home / path, content)
    check = next(c for c in wiring_checks(home, tmp_path / "project") if c.name == name)
    assert check.status == "FAIL" and fix_part in check.fix + check.detail
    assert "fix:" in check.render()


def test_the_claude_check_wants_its_tools_allowed_and_prefers_the_user_scope(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    claude = lambda: next(c for c in wiring_checks(home, project) if c.name == "Claude Code")  # noqa: E731
    registration, settings = wiring("claude", home=home, environ={}).files
    _write(home / ".claude.json", registration.content)
    assert claude().status == "FAIL" and "permission prompt" in claude().detail
    assert claude().fix == "herdr-link-mcp install --host claude"
    _write(home / ".claude" / "settings.json", settings.content)
    assert claude().status == "PASS" and "for every folder" in claude().detail
    (home / ".claude.json").unlink()
    _write(project / ".mcp.json", wiring("claude", scope="project").files[0].content)
    assert claude().status == "WARN" and "asks once per project" in claude().detail


def test_the_grok_check_wants_its_rule_in_a_permission_list(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("GROK_HOME", raising=False)
    grok = lambda: next(c for c in wiring_checks(home, project) if c.name == "Grok Build")  # noqa: E731
    entry = '[mcp_servers.herdr_link]\ncommand = "/bin/true"\nargs = []\n'
    _write(home / ".grok" / "config.toml", entry + '\n[permission]\nallow = ["Bash(git *)"]\n')
    assert grok().status == "FAIL" and "permission prompt" in grok().detail
    assert grok().fix == "herdr-link-mcp install --host grok"
    rules = '\n[permission]\nallow = [\n  "Read",  # mine\n  "MCPTool(herdr_link__*)",\n]\n'
    _write(home / ".grok" / "config.toml", entry + rules)
    assert grok().status == "PASS" and f"{home / '.grok' / 'config.toml'} holds its allow rule" in grok().detail
    claudes = 'permission = { allow = ["mcp__herdr_link"] }\n'  # Claude Code's spelling, which Grok Build reads
    _write(home / ".grok" / "config.toml", claudes + entry)
    assert grok().status == "PASS"
    _write(home / ".grok" / "config.toml", entry)
    _write(project / ".grok" / "config.toml", '[permission]\nallow = ["MCPTool(herdr_link__*)"]\n')
    assert grok().status == "PASS" and f"{project / '.grok' / 'config.toml'} holds its allow rule" in grok().detail


def test_the_hint_checks_follow_the_printed_wiring(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setattr(Path, "home", lambda: home)
    statuses = lambda: {c.name: c.status for c in hint_checks(home, project)}  # noqa: E731
    unwired = {f"{host.title} hint hook": "SKIP" for host in hosts_with("hook") if host.servers is not None}
    assert set(statuses().values()) == {"SKIP"}  # nothing wired: nothing to hint
    registration, settings = wiring("claude", home=home, environ={}).files
    _write(home / ".claude.json", registration.content)
    _write(home / ".claude" / "settings.json", settings.content.replace("hint --host claude", "true"))
    _write(home / ".codex" / "config.toml", wiring("codex").files[0].content)
    _write(home / ".gemini" / "settings.json", wiring("gemini").files[0].content)  # carries its hook
    assert statuses() == {
        **unwired, "Claude Code hint hook": "WARN", "Codex hint hook": "WARN", "AGY hint hook": "SKIP",
        "Gemini CLI hint hook": "PASS",
    }  # fmt: skip
    codex = wiring("codex").files[1]
    _write(home / ".claude" / "settings.json", settings.content)
    _write(home / ".codex" / "hooks.json", codex.content)
    assert set(statuses().values()) == {"PASS", "SKIP"} and statuses()["AGY hint hook"] == "SKIP"
    _write(home / ".claude" / "settings.json", settings.content.replace(server_command()[0], "/gone/herdr-link-mcp"))
    _write(home / ".codex" / "hooks.json", codex.content.replace(server_command()[0], "/gone/herdr-link-mcp"))
    assert statuses() == {
        **unwired, "Claude Code hint hook": "FAIL", "Codex hint hook": "FAIL", "AGY hint hook": "SKIP",
        "Gemini CLI hint hook": "PASS",
    }  # fmt: skip


def test_the_copilot_hint_line_reads_its_bash_hook_and_its_permission_hook(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.setattr(Path, "home", lambda: home)
    hint = lambda: next(c for c in hint_checks(home, project) if c.name == "GitHub Copilot CLI hint hook")  # noqa: E731
    registration, hooks = wiring("copilot", home=home, environ={}).files
    assert hooks.path == "~/.copilot/hooks/herdr-link.json"
    _write(home / ".copilot" / "mcp-config.json", registration.content)
    assert hint().status == "WARN" and "has no hint hook" in hint().detail
    hook_file = home / ".copilot" / "hooks" / "herdr-link.json"
    _write(hook_file, hooks.content)
    assert hint().status == "PASS" and "hint --host copilot" in hint().detail
    assert "permissionRequest hook allows herdr_link/.*" in hint().detail
    document = json.loads(hooks.content)
    document["hooks"]["permissionRequest"][0]["matcher"] = ".*"  # allows every tool: not the rule we write
    _write(hook_file, json.dumps(document))
    assert hint().status == "WARN" and "every Herdr Link call asks first" in hint().detail
    del document["hooks"]["permissionRequest"]
    _write(hook_file, json.dumps(document).replace(server_command()[0], "/gone/herdr-link-mcp"))
    assert hint().status == "FAIL" and "cannot be run" in hint().detail


def test_the_codex_checks_warn_of_what_codex_skips_silently(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setattr(Path, "home", lambda: home)
    config, hooks = (item.content for item in wiring("codex").files)
    _write(home / ".codex" / "hooks.json", hooks)
    codex = lambda: next(c for c in [*wiring_checks(home, project), *hint_checks(home, project)] if c.name == "Codex")  # noqa: E731
    hint = lambda: next(c for c in hint_checks(home, project) if c.name == "Codex hint hook")  # noqa: E731
    _write(home / ".codex" / "config.toml", config)
    assert (codex().status, hint().status) == ("PASS", "PASS") and "(trusted)" in hint().detail
    untrusted = config.split("[hooks.state.")[0]
    _write(home / ".codex" / "config.toml", untrusted)
    assert codex().status == "PASS" and "(required" not in codex().detail  # not required is the default
    _write(home / ".codex" / "config.toml", wiring("codex", required=True).files[0].content)
    assert codex().status == "PASS" and "(required: Codex waits for it)" in codex().detail
    _write(home / ".codex" / "config.toml", untrusted)
    assert hint().status == "WARN" and "does not trust it" in hint().detail and "install --host codex" in hint().fix
    _write(home / ".codex" / "config.toml", config)
    _write(home / ".codex" / "hooks.json", hooks.replace('"timeout": 10', '"timeout": 20'))
    assert hint().status == "WARN" and "changed since it was trusted" in hint().detail


def test_the_codex_check_warns_of_what_0_1_0_left_wrong(tmp_path, monkeypatch):
    """A key 0.1.0 moved into our table, and its trust entry on the user's own hook (the layout its
    installer wrote, as in herdr-link-mcp's repair tests)."""
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setattr(Path, "home", lambda: home)
    config, hooks = wiring("codex").files
    theirs = {"hooks": [{"type": "command", "command": "echo mine"}]}
    groups = {"hooks": {"SessionStart": [theirs, *hooks.data["hooks"]["SessionStart"]]}}
    _write(home / ".codex" / "hooks.json", json.dumps(groups))
    digest = next(iter(config.data["hooks"]["state"].values()))["trusted_hash"]
    server = "".join(f"{k} = {json.dumps(v)}\n" for k, v in config.data["mcp_servers"]["herdr_link"].items())
    key = f"{home / '.codex' / 'hooks.json'}:session_start"
    right = f'[hooks.state."{key}:1:0"]\ntrusted_hash = "{digest}"\n'
    codex = lambda: next(c for c in wiring_checks(home, project) if c.name == "Codex")  # noqa: E731
    _write(home / ".codex" / "config.toml", f"x.y = 1\n\n[mcp_servers.herdr_link]\n{server}\n{right}")
    assert codex().status == "PASS"
    _write(home / ".codex" / "config.toml", f'x.y = 1\n\n[mcp_servers.herdr_link]\n{server}model = "o3"\n\n{right}')
    assert codex().status == "WARN" and "model sits in [mcp_servers.herdr_link]" in codex().detail
    assert "install --host codex --yes" in codex().fix
    stray = f'[hooks.state."{key}:0:0"]\ntrusted_hash = "{digest}"\n'
    _write(home / ".codex" / "config.toml", f"[mcp_servers.herdr_link]\n{server}\n{stray}")
    assert codex().status == "WARN" and "group 0, handler 0 holds Herdr Link's hash" in codex().detail


def test_a_uvx_entry_without_uv_names_a_way_to_uv_that_a_debian_python_allows(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no uvx
    _write(home / ".codex" / "config.toml", '[mcp_servers.herdr_link]\ncommand = "uvx"\nargs = ["herdr-link-mcp"]\n')
    check = next(c for c in wiring_checks(home, tmp_path / "project") if c.name == "Codex")
    assert check.status == "FAIL" and "no uvx on PATH" in check.detail
    # pip install --user is refused by an externally managed Python (PEP 668: Debian 12's, Ubuntu's own)
    assert "pipx install uv" in check.fix and "pip install --user" not in check.fix


def test_the_kimi_check_wants_its_rule_table_in_permission_rules(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.delenv("KIMI_CODE_HOME", raising=False)
    kimi = lambda: next(c for c in wiring_checks(home, project) if c.name == "Kimi Code CLI")  # noqa: E731
    _write(home / ".kimi-code" / "mcp.json", '{"mcpServers": {"herdr_link": {"command": "/bin/true"}}}')
    config = home / ".kimi-code" / "config.toml"
    _write(config, '[[permission.rules]]\ndecision = "allow"\npattern = "Read"\n')
    assert kimi().status == "FAIL" and "permission prompt" in kimi().detail
    assert kimi().fix == "herdr-link-mcp install --host kimi"
    _write(config, '[[permission.rules]]\ndecision = "deny"\npattern = "mcp__herdr_link__*"\n')  # a deny is no allow
    assert kimi().status == "FAIL"
    rule = '\n[[permission.rules]]\ndecision = "allow"\npattern = "mcp__herdr_link__*"\nscope = "user"\n'
    _write(config, "[permission]\n# mine\n" + rule)
    assert kimi().status == "PASS" and f"{config} holds its allow rule" in kimi().detail
