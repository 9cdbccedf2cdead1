"""``herdr-link doctor``: would a worker started here work? Folder trust read as each host reads it."""

import json
from pathlib import Path

import pytest

from herdr_link._worker_checks import node_check, worker_checks
from herdr_link_control import folder_trust
from herdr_link_control.hosts import find_host
from herdr_link_mcp import wiring


def _trusts(host: str, home: Path, folder: Path) -> bool | None:
    record = find_host(host)
    assert record is not None
    return folder_trust(record, folder, {}, home)


def claude_trusts(home: Path, folder: Path) -> bool | None:
    return _trusts("claude", home, folder)


def gemini_trusts(home: Path, folder: Path) -> bool | None:
    return _trusts("gemini", home, folder)


def _install(host: str, home: Path, trust: list[str] | None = None) -> None:
    for item in wiring(host, home=home, environ={}, trust=trust or ()).files:
        path = home / item.path[2:]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(item.content)


@pytest.fixture(autouse=True)
def _own_config(monkeypatch):
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)


def test_claude_trust_covers_subfolders_but_stops_at_a_git_repositorys_root(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    (work / "notes" / "a").mkdir(parents=True)
    (work / "repo" / ".git").mkdir(parents=True)
    (work / "repo" / "src").mkdir()
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"projects": {str(work): {"hasTrustDialogAccepted": True}}}))
    assert claude_trusts(home, work / "notes" / "a") is True
    assert claude_trusts(home, work / "repo" / "src") is None  # Claude Code looks no higher than the root
    assert claude_trusts(home, tmp_path) is None


@pytest.mark.parametrize(
    ("rules", "verdict"),
    [
        ({}, None),
        ({"{work}": "TRUST_FOLDER"}, True),
        ({"{work}/x": "TRUST_PARENT"}, True),
        ({"{work}": "TRUST_FOLDER", "{work}/deep": "DO_NOT_TRUST"}, False),  # the longest rule wins
        ({"{work}/other": "TRUST_FOLDER"}, None),
    ],
)
def test_gemini_trust_follows_its_longest_matching_rule(tmp_path, rules, verdict):
    home, work = tmp_path / "home", tmp_path / "work"
    (work / "deep").mkdir(parents=True)
    (home / ".gemini").mkdir(parents=True)
    filled = {rule.format(work=work): level for rule, level in rules.items()}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(filled))
    assert gemini_trusts(home, work / "deep") is verdict


def test_gemini_with_folder_trust_switched_off_asks_nothing(tmp_path):
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text('{"security": {"folderTrust": {"enabled": false}}}')
    assert gemini_trusts(home, tmp_path) is True


def test_each_worker_says_what_it_meets_and_the_fix_the_install_command_gives(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    home.mkdir()
    for host in ("claude", "codex", "gemini"):
        _install(host, home)
    checks = {c.name: c for c in worker_checks(home, work)}
    for name, host in (("Claude Code", "claude"), ("Codex", "codex"), ("Gemini CLI", "gemini")):
        check = checks[f"worker here: {name}"]
        assert check.status == "WARN" and check.fix.startswith(f"herdr-link-mcp install --host {host} --trust {work}")
    assert checks["worker here: Pi (built-in MCP)"].status == "SKIP"
    for host in ("claude", "codex", "gemini"):
        _install(host, home, trust=[str(work)])
    checks = {c.name: c for c in worker_checks(home, work)}
    assert [checks[f"worker here: {n}"].status for n in ("Claude Code", "Codex", "Gemini CLI")] == ["PASS"] * 3
    assert "comes up wired" in checks["worker here: Claude Code"].detail


def test_node_missing_or_old_is_a_warning(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert node_check().status == "WARN"
    old = tmp_path / "node"
    old.write_text("#!/bin/sh\necho v18.19.0\n")
    old.chmod(0o755)
    check = node_check()
    assert check.status == "WARN" and "v18.19.0" in check.detail


def test_a_codex_worker_that_would_offer_a_new_model_is_a_warning(monkeypatch, tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    home.mkdir()
    program = tmp_path / "bin" / "codex"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\necho codex-cli 0.171.0\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(program.parent))
    _install("codex", home)
    config = home / ".codex" / "config.toml"
    config.write_text('model = "gpt-5.5"\n' + config.read_text())

    def codex() -> tuple[str, str, str]:
        check = {c.name: c for c in worker_checks(home, work)}["worker here: Codex"]
        return check.status, check.detail, check.fix

    status, detail, fix = codex()
    assert status == "WARN" and "offering gpt-6-sol" in detail
    assert fix == "codex (once, in any folder, and answer the notice)"
    config.write_text(config.read_text() + '\n[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n')
    assert codex()[0] == "PASS"


def test_a_mastracode_worker_that_would_open_its_set_up_wizard_is_a_warning(monkeypatch, tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    home.mkdir()
    package = tmp_path / "lib" / "node_modules" / "mastracode"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "mastracode", "version": "0.32.1"}))
    (package / "dist" / "cli.js").write_text("#!/usr/bin/env node\n")
    (package / "dist" / "cli.js").chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "mastracode").symlink_to(package / "dist" / "cli.js")  # as npm links it
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("MASTRA_APP_DATA_DIR", raising=False)
    _install("mastracode", home)

    def mastracode() -> tuple[str, str, str]:
        check = {c.name: c for c in worker_checks(home, work)}["worker here: MastraCode"]
        return check.status, check.detail, check.fix

    status, detail, fix = mastracode()  # never started: a new install, which its wizard greets
    assert status == "WARN" and "Welcome to Mastra Code" in detail
    assert fix == "mastracode (once, in any folder: finish or skip its set-up)"
    settings = home / ".local" / "share" / "mastracode" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"onboarding": {"skippedAt": "2026-12-06T15:00:00.000Z", "version": 1}}))
    status, detail, _ = mastracode()
    assert "Welcome" not in detail and detail.startswith("comes up wired"), (status, detail)


def test_an_omp_worker_that_would_open_its_set_up_wizard_is_a_warning(monkeypatch, tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    home.mkdir()
    package = tmp_path / "lib" / "node_modules" / "@oh-my-pi" / "pi-coding-agent"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@oh-my-pi/pi-coding-agent", "version": "18.2.3"}))
    (package / "dist" / "cli.js").write_text("#!/usr/bin/env bun\n")
    (package / "dist" / "cli.js").chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "omp").symlink_to(package / "dist" / "cli.js")  # as npm links it
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.delenv("OMP_SKIP_SETUP", raising=False)
    _install("omp", home)
    config = home / ".omp" / "agent" / "config.yml"
    config.write_text("# mine\nsetupVersion: 1\n")

    def omp() -> tuple[str, str, str]:
        check = {c.name: c for c in worker_checks(home, work)}["worker here: oh-my-pi"]
        return check.status, check.detail, check.fix

    status, detail, fix = omp()  # an older wizard answered: the current one is shown again
    assert status == "WARN" and "set-up wizard" in detail
    assert fix == "omp (once, in any folder: finish or skip its set-up)"
    config.write_text("# mine\nsetupVersion: 2\n")
    status, detail, _ = omp()
    assert "wizard" not in detail and detail.startswith("comes up wired"), (status, detail)
