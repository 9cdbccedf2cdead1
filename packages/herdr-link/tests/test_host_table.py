"""The host table is the one place a host is named: a host added to it (here a made-up one, "zed", of
forms Link already writes) is taken by ``wiring``, ``install``, ``hint``, the server's presentation and
the doctor, with no other change; without the row, none of them knows it."""

import json
from pathlib import Path

import pytest

import herdr_link_control.hosts
from herdr_link import diagnose
from herdr_link_control.hosts import ARGS, COMMAND, HOSTS, Hook, Host, Place, Requirement, Servers, Trust, find_host
from herdr_link_mcp import hint_output, presentation_form, relists_tools, wiring_hosts
from herdr_link_mcp.cli import main
from herdr_link_protocol import PresentationForm

ZED = Host(
    "zed",
    "Zed",
    kind="zed",
    clients=("zed-agent",),
    presentation=PresentationForm.MCP_SINGLE_PREFIX,
    relists=False,
    hint="additional-context",
    servers=Servers(
        Place("~/.config/zed/mcp.json", ".zed/mcp.json", format="jsonc", user_note="merge into your settings"),
        "context_servers",
        (("command", COMMAND), ("args", ARGS), ("enabled", True)),
        requirements=(
            Requirement("enabled", value=True, problem="{path}: {ns} is switched off", fix="set enabled: true"),
        ),
        registered=" and enabled",
    ),
    hook=Hook(Place("~/.config/zed/hooks.json", ".zed/hooks.json"), "group", "SessionStart"),
    trust=Trust(
        Place("~/.config/zed/trusted.json", private=True),
        "folders",
        "a Zed worker started in {folder} first asks whether to trust it",
    ),
)


@pytest.fixture
def with_zed(monkeypatch):
    monkeypatch.setattr(herdr_link_control.hosts, "HOSTS", (*HOSTS, ZED))


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return home


def _help(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*args, "--help"])
    assert done.value.code == 0
    return str(capsys.readouterr().out)


def test_without_the_row_no_tool_knows_the_host(home, capsys):
    assert find_host("zed") is None and "zed" not in wiring_hosts()
    assert "zed" not in _help(capsys, "wiring")
    assert main(["install", "--host", "zed"]) == 2
    assert "invalid choice: 'zed'" in capsys.readouterr().err
    assert presentation_form("zed-agent 1.0") is PresentationForm.MCP_PLAIN
    names = [check.name for check in diagnose({"PATH": "/usr/bin"}, home, home)]
    assert not any("Zed" in name for name in names)


def test_a_row_added_to_the_table_is_wired_installed_hinted_and_diagnosed(with_zed, home, tmp_path, capsys):
    assert "zed" in _help(capsys, "wiring") and "zed" in _help(capsys, "install") and "zed" in _help(capsys, "hint")
    assert presentation_form("zed-agent 1.0") is PresentationForm.MCP_SINGLE_PREFIX
    assert not relists_tools("zed-agent 1.0")
    inside = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/b", "HERDR_PANE_ID": "w1:p1"}
    hint = json.loads(hint_output("zed", inside))["hookSpecificOutput"]["additionalContext"]
    assert "mcp_herdr_link_herdr_link" in hint

    settings = home / ".config" / "zed" / "mcp.json"
    settings.parent.mkdir(parents=True)
    mine = b'// my Zed settings\n{"context_servers": {"mine": {"command": "x"}}}\n'  # JSONC (comments), as the row says
    settings.write_bytes(mine)
    work = tmp_path / "work"
    work.mkdir()
    assert main(["install", "--host", "zed", "--trust", str(work)]) == 0
    written = capsys.readouterr().out
    assert "state:" in written and str(settings) in written
    text = settings.read_text()
    assert text.startswith("// my Zed settings") and '"enabled": true' in text and '"mine"' in text
    trusted = home / ".config" / "zed" / "trusted.json"
    assert json.loads(trusted.read_text()) == {str(work.resolve()): "TRUST_FOLDER"}
    assert trusted.stat().st_mode & 0o077 == 0  # private, as the row says

    checks = {c.name: c for c in diagnose({"PATH": "/usr/bin"}, work, home)}
    assert checks["Zed"].status == "PASS" and checks["Zed"].detail.endswith("registers herdr_link and enabled")
    assert checks["Zed hint hook"].status == "PASS"
    assert checks["worker here: Zed"].status == "PASS"
    elsewhere = {c.name: c for c in diagnose({"PATH": "/usr/bin"}, tmp_path, home)}
    assert (
        elsewhere["worker here: Zed"].status == "WARN"
        and "first asks whether to trust" in elsewhere["worker here: Zed"].detail
    )

    settings.write_text(text.replace('"enabled": true', '"enabled": false'))
    broken = {c.name: c for c in diagnose({"PATH": "/usr/bin"}, work, home)}["Zed"]
    assert broken.status == "FAIL" and "is switched off" in broken.detail
    settings.write_text(text)

    assert main(["install", "--host", "zed", "--uninstall", "--trust", str(work)]) == 0
    assert settings.read_bytes() == mine and not Path(home / ".config" / "zed" / "hooks.json").exists()
