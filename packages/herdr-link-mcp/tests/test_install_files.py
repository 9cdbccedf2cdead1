"""A user's files are theirs: install then uninstall gives back the same bytes, only our leaves are
ever changed, a user's value we replace is put back, and nothing is lost or exposed on the way."""

import json
import os
import re
import stat
import tomllib
from pathlib import Path

import pytest
from install_corpus import AMP_COMMENTED, DEVIN_COMMENTED, GROK, KIMI, MAKI, Case, corpus

from herdr_link_control.userfiles import json_value
from herdr_link_mcp import wiring
from herdr_link_mcp._install import InstallError, apply, plan


def _run(home: Path, host: str, *, uninstall: bool = False, trust: list[str] | None = None) -> tuple[int, list[str]]:
    said: list[str] = []
    chosen = wiring(host, home=home, environ={}, trust=trust or ())
    decided = plan(chosen, home, home, uninstall=uninstall, environ={})
    if not decided.changed and decided.record_after == decided.record_before:
        return 0, [*decided.describe(), "unchanged"]
    described = decided.describe()
    return apply(decided, {}, home, said.append), [*described, *said]


TRUSTING = {"claude", "codex", "gemini", "copilot", "grok"}


@pytest.mark.parametrize("case", corpus(), ids=lambda c: c.name)
def test_install_then_uninstall_gives_back_the_same_bytes(tmp_path: Path, case: Case) -> None:
    home = tmp_path / "home"
    target = home / case.path
    target.parent.mkdir(parents=True)
    target.write_bytes(case.data)
    trust = [str(home / "work")] if case.host in TRUSTING else []
    status, said = _run(home, case.host, trust=trust)
    assert status == 0, said
    installed = target.read_bytes()
    assert installed != case.data or case.path.endswith("trustedFolders.json") and not trust, said
    status, said = _run(home, case.host, uninstall=True, trust=trust)
    assert status == 0, said
    assert target.read_bytes() == case.data, said


def test_the_corpus_is_large_enough() -> None:
    assert len(corpus()) >= 40


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def test_codex_dotted_keys_stay_where_the_user_put_them(tmp_path: Path) -> None:
    home = _home(tmp_path)
    (home / ".codex").mkdir()
    config = home / ".codex" / "config.toml"
    config.write_text('mcp_servers.other.command = "x"\nmodel = "gpt-5"\nhooks.other = 1\n')
    assert _run(home, "codex")[0] == 0
    parsed = tomllib.loads(config.read_text())
    assert parsed["model"] == "gpt-5" and "model" not in parsed["mcp_servers"]["herdr_link"]
    assert parsed["hooks"]["other"] == 1


def test_codex_trust_names_the_place_our_hook_really_has(tmp_path: Path) -> None:
    home = _home(tmp_path)
    codex = home / ".codex"
    codex.mkdir()
    theirs = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "mine", "timeout": 5}]}]}}
    (codex / "hooks.json").write_text(json.dumps(theirs, indent=2))
    user_key = f"{codex / 'hooks.json'}:session_start:0:0"
    (codex / "config.toml").write_text(f'[hooks.state."{user_key}"]\ntrusted_hash = "sha256:users"\n')
    status, said = _run(home, "codex")
    assert status == 0, said
    state = tomllib.loads((codex / "config.toml").read_text())["hooks"]["state"]
    hooks = json.loads((codex / "hooks.json").read_text())["hooks"]["SessionStart"]
    assert state[user_key] == {"trusted_hash": "sha256:users"}  # the user's trust is untouched
    ours = f"{codex / 'hooks.json'}:session_start:1:0"
    assert "hint" in hooks[1]["hooks"][0]["command"] and state[ours]["trusted_hash"].startswith("sha256:")
    printed = wiring("codex", home=home, environ={}).files[0].content
    assert ours in printed  # wiring prints the same key
    assert _run(home, "codex", uninstall=True)[0] == 0
    assert tomllib.loads((codex / "config.toml").read_text())["hooks"]["state"] == {
        user_key: {"trusted_hash": "sha256:users"}
    }


@pytest.mark.parametrize("host", ["claude", "gemini"])
def test_a_users_hook_in_the_group_of_ours_stays(tmp_path: Path, host: str) -> None:
    home = _home(tmp_path)
    chosen = wiring(host, home=home, environ={})
    settings_file = next(f for f in chosen.files if "hooks" in f.data)
    path = home / settings_file.path.removeprefix("~/")
    group = json.loads(json.dumps(settings_file.data["hooks"]["SessionStart"][0]))
    group["matcher"] = "startup|resume"
    group["hooks"].insert(0, {"type": "command", "command": "my-own-hook"})
    path.parent.mkdir(parents=True, exist_ok=True)
    original = json.dumps({"hooks": {"SessionStart": [group]}}, indent=2) + "\n"
    path.write_text(original)
    assert _run(home, host)[0] == 0
    assert json.loads(path.read_text())["hooks"]["SessionStart"] == [group]  # ours found in it: nothing to do
    # The first install finds no record: an install by 0.1.0 (or the user) put our hook there, and
    # uninstall takes out that item alone, not the group around it.
    assert _run(home, host, uninstall=True)[0] == 0
    left = json.loads(path.read_text())["hooks"]["SessionStart"]
    assert left == [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "my-own-hook"}]}]


def test_what_the_user_had_before_install_stays_after_uninstall(tmp_path: Path) -> None:
    home = _home(tmp_path)
    (home / ".config" / "herdr-link").mkdir(parents=True)
    (home / ".config" / "herdr-link" / "installed.json").write_text('{"version": 1, "files": {}}')  # not 0.1.0
    (home / ".claude").mkdir()
    settings = home / ".claude" / "settings.json"
    original = '{\n  "permissions": {\n    "allow": [\n      "mcp__herdr_link"\n    ]\n  },\n  "hooks": {}\n}\n'
    settings.write_text(original)
    assert _run(home, "claude")[0] == 0
    status, said = _run(home, "claude", uninstall=True)
    assert status == 0
    assert settings.read_text() == original and any("before install: kept" in line for line in said), said


def test_a_distrust_replaced_with_yes_is_put_back(tmp_path: Path) -> None:
    home = _home(tmp_path)
    (home / ".gemini").mkdir()
    folders = home / ".gemini" / "trustedFolders.json"
    original = json.dumps({str(home / "work"): "DO_NOT_TRUST"}, indent=2) + "\n"
    folders.write_text(original)
    chosen = wiring("gemini", home=home, environ={}, trust=[str(home / "work")])
    decided = plan(chosen, home, home, environ={})
    assert any("DO_NOT_TRUST" in conflict for conflict in decided.conflicts)
    assert apply(decided, {}, home, lambda line: None) == 0
    assert json.loads(folders.read_text())[str(home / "work")] == "TRUST_FOLDER"
    status, said = _run(home, "gemini", uninstall=True, trust=[str(home / "work")])
    assert status == 0 and folders.read_text() == original, said


def test_a_repository_grok_build_was_told_not_to_trust_is_put_back(tmp_path: Path) -> None:
    home = _home(tmp_path)
    repo = home / "code" / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (home / ".grok").mkdir()
    folders = home / ".grok" / "trusted_folders.toml"
    original = f'[folders."{home / "code"}"]\ntrusted = true\n\n[folders."{repo}"]\ntrusted = false\ndecided_at = 1\n'
    folders.write_text(original)
    status, said = _run(home, "grok", trust=[str(repo / "src")])  # a folder in it: Grok keys trust by the root
    assert status == 0, said
    assert tomllib.loads(folders.read_text())["folders"][str(repo)] == {"trusted": True, "decided_at": 1796515200}
    status, said = _run(home, "grok", uninstall=True, trust=[str(repo / "src")])
    assert status == 0 and folders.read_text() == original, said


def test_keys_the_user_added_to_our_entry_stay(tmp_path: Path) -> None:
    home = _home(tmp_path)
    assert _run(home, "claude")[0] == 0
    state = home / ".claude.json"
    value = json.loads(state.read_text())
    value["mcpServers"]["herdr_link"]["env"] = {"HERDR_LINK_LOG_LEVEL": "DEBUG"}
    value["mcpServers"]["herdr_link"]["timeout"] = 9
    state.write_text(json.dumps(value, indent=2))
    assert _run(home, "claude")[0] == 0
    entry = json.loads(state.read_text())["mcpServers"]["herdr_link"]
    assert entry["env"] == {"HERDR_LINK_LOG_LEVEL": "DEBUG"} and entry["timeout"] == 9


GROK_RULE = "MCPTool(herdr_link__*)"


@pytest.mark.parametrize("text", GROK, ids=[f"grok-config-{i}" for i in range(len(GROK))])
def test_grok_gets_its_rule_beside_the_users_rules_and_uninstall_takes_out_only_ours(tmp_path: Path, text: str) -> None:
    home = _home(tmp_path)
    (home / ".grok").mkdir()
    config = home / ".grok" / "config.toml"
    config.write_bytes(text.encode())
    theirs = tomllib.loads(text).get("permission", {}).get("allow", [])
    status, said = _run(home, "grok")
    assert status == 0, said
    ours = [] if GROK_RULE in theirs else [GROK_RULE]
    assert tomllib.loads(config.read_text())["permission"]["allow"] == [*theirs, *ours]
    added = f'- add (to )?permission.allow: "{re.escape(GROK_RULE)}", the rule that lets Herdr Link\'s tools run'
    assert bool(re.search(added, "\n".join(said))) == (GROK_RULE not in theirs), said
    status, said = _run(home, "grok", uninstall=True)
    assert status == 0 and config.read_bytes() == text.encode(), said
    if GROK_RULE in theirs:  # written by hand: the user's, kept
        assert any(f'permission.allow held "{GROK_RULE}" before install: kept' in line for line in said), said


def test_grok_rules_the_user_adds_after_install_stay_after_uninstall(tmp_path: Path) -> None:
    home = _home(tmp_path)
    (home / ".grok").mkdir()
    config = home / ".grok" / "config.toml"
    config.write_text('[permission]\nallow = [\n  "Read",\n]\n')
    assert _run(home, "grok")[0] == 0
    config.write_text(config.read_text().replace(f'"{GROK_RULE}",\n', f'"{GROK_RULE}",\n  "Grep",  # later\n'))
    status, said = _run(home, "grok", uninstall=True)
    assert status == 0, said
    assert config.read_text() == '[permission]\nallow = [\n  "Read",\n  "Grep",  # later\n]\n'


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ('[permission]\nallow = "Bash(git *)"\n', "permission.allow is not a list here"),
        ('permission = "ask"\n', "permission is not a table here"),
    ],
)
def test_a_grok_permission_that_is_not_a_list_is_refused_and_nothing_written(
    tmp_path: Path, text: str, refused: str
) -> None:
    from herdr_link_mcp._install import InstallError

    home = _home(tmp_path)
    (home / ".grok").mkdir()
    config = home / ".grok" / "config.toml"
    config.write_text(text)
    with pytest.raises(InstallError, match=rf"\.grok/config\.toml: {refused}, so nothing of ours can go in it"):
        _run(home, "grok")
    assert config.read_text() == text and not (home / ".config" / "herdr-link").exists()


def test_a_symlinked_dotfile_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    home = _home(tmp_path)
    dotfiles = home / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "claude.json").write_text('{"numStartups": 1}')
    (dotfiles / "claude.json").chmod(0o600)
    (home / ".claude.json").symlink_to(dotfiles / "claude.json")
    assert _run(home, "claude")[0] == 0
    assert (home / ".claude.json").is_symlink()
    assert "herdr_link" in json.loads((dotfiles / "claude.json").read_text())["mcpServers"]
    assert stat.S_IMODE((dotfiles / "claude.json").stat().st_mode) == 0o600
    assert _run(home, "claude", uninstall=True)[0] == 0
    assert (home / ".claude.json").is_symlink() and (dotfiles / "claude.json").read_text() == '{"numStartups": 1}'


def test_a_dangling_link_is_refused_with_its_path(tmp_path: Path) -> None:
    from herdr_link_mcp._install import InstallError

    home = _home(tmp_path)
    (home / ".claude.json").symlink_to(home / "gone" / "claude.json")
    with pytest.raises(InstallError, match=r"\.claude\.json is a symbolic link to .*gone/claude\.json"):
        _run(home, "claude")
    assert (home / ".claude.json").is_symlink() and not (home / "gone").exists()


def test_a_duplicate_key_on_our_path_is_refused_with_the_file_named(tmp_path: Path) -> None:
    from herdr_link_mcp._install import InstallError

    home = _home(tmp_path)
    original = '{"mcpServers": {}, "mcpServers": {"a": {}}}'
    (home / ".claude.json").write_text(original)
    with pytest.raises(InstallError, match=r"\.claude\.json: the key mcpServers is there 2 times; nothing was changed"):
        _run(home, "claude")
    assert (home / ".claude.json").read_text() == original


def test_backups_are_private_and_say_which_path_they_came_from(tmp_path: Path) -> None:
    home = _home(tmp_path)
    (home / ".claude").mkdir()
    (home / ".claude.json").write_text('{"primaryApiKey": "sk-secret"}')
    (home / ".claude.json").chmod(0o600)
    (home / ".claude" / "settings.json").write_text("{}")
    assert _run(home, "claude")[0] == 0
    root = home / ".config" / "herdr-link" / "backups"
    state_backups = list((root / home.relative_to("/")).glob(".claude.json.*"))
    settings_backups = list((root / home.relative_to("/") / ".claude").glob("settings.json.*"))
    assert len(state_backups) == 1 and len(settings_backups) == 1
    assert stat.S_IMODE(state_backups[0].stat().st_mode) == 0o600
    folder = root
    while folder != home / ".config" / "herdr-link":
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        folder = folder.parent
    assert stat.S_IMODE(state_backups[0].parent.stat().st_mode) == 0o700
    record = home / ".config" / "herdr-link" / "installed.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600


def test_a_file_a_host_writes_while_we_write_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host's write placed at each step of the write path, up to and just after the compare before
    the file is swapped in (the swap gives back a write that landed after the compare): it is never
    lost, and the run says "run again"."""
    import shutil

    for step in ("backup copy", "fsync", "chmod", "compare", "after the compare"):
        home = tmp_path / step.replace(" ", "-")
        home.mkdir()
        state = home / ".claude.json"
        state.write_text('{"numStartups": 1}')
        decided = plan(wiring("claude", home=home, environ={}), home, home, environ={})
        host_write = b'{"numStartups": 2}'
        reads = 0

        def write_then(original, *args, _state=state, _host_write=host_write, **kwargs):
            _state.write_bytes(_host_write)
            return original(*args, **kwargs)

        def read_bytes(self: Path, _real=Path.read_bytes, _state=state, _host_write=host_write, _step=step):
            nonlocal reads
            if self != _state:
                return _real(self)
            reads += 1
            # The first read checks the plan; the second is the compare before the file is swapped in.
            if reads == 2 and _step == "compare":
                _state.write_bytes(_host_write)
            data = _real(self)
            if reads == 2 and _step == "after the compare":
                _state.write_bytes(_host_write)
            return data

        with monkeypatch.context() as patch:
            if step == "backup copy":
                patch.setattr(shutil, "copyfileobj", lambda *a, _o=shutil.copyfileobj: write_then(_o, *a))
            elif step == "fsync":
                patch.setattr(os, "fsync", lambda *a, _o=os.fsync: write_then(_o, *a))
            elif step == "chmod":
                patch.setattr(os, "chmod", lambda *a, _o=os.chmod, **k: write_then(_o, *a, **k))
            else:
                patch.setattr(Path, "read_bytes", read_bytes)
            said: list[str] = []
            status = apply(decided, {}, home, said.append)
        assert state.read_bytes() == host_write, (step, said)
        assert status == 1 and said[-1].startswith("state: ~/.claude.json unchanged"), (step, said)


def test_a_rollback_never_restores_over_a_hosts_later_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second file fails; before the first is put back, the host writes it: its write stays."""
    home = _home(tmp_path)
    state = home / ".claude.json"
    state.write_text('{"numStartups": 1}')
    (home / ".claude" / "settings.json.herdr-link.partial").mkdir(parents=True)  # the second write fails
    decided = plan(wiring("claude", home=home, environ={}), home, home, environ={})
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args, _real=real_mkdir, **kwargs):  # the second file's folder: ours is in place
        if self == home / ".claude" and json.loads(state.read_text()).get("mcpServers"):
            state.write_bytes(b'{"numStartups": 9}')  # now the host writes
        return _real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    said: list[str] = []
    assert apply(decided, {}, home, said.append) == 1
    assert state.read_bytes() == b'{"numStartups": 9}'
    assert any("written by another program after this run wrote it: left as it is" in line for line in said), said


def _tree(home: Path) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode)) for p in home.rglob("*") if p.is_file()}


def test_a_kill_at_any_file_system_call_leaves_nothing_readable_and_the_next_run_clears_up(tmp_path: Path) -> None:
    """Killed at each file-system call of the write path (a real process, ended by ``os._exit``): the
    files are their old or their new whole version, no copy of the 0600 state file is readable by
    others, and the next run removes every partial copy and finishes."""
    import shutil
    import subprocess
    import sys

    script = Path(__file__).with_name("kill_at.py")
    original = b'{\n  "primaryApiKey": "sk-secret",\n  "numStartups": 3\n}\n'

    def fresh(name: str) -> Path:
        home = tmp_path / name
        (home / ".claude").mkdir(parents=True)
        (home / ".claude.json").write_bytes(original)
        (home / ".claude.json").chmod(0o600)
        (home / ".claude" / "settings.json").write_text('{\n  "model": "opus"\n}\n')
        return home

    def run(home: Path, kill_at: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), str(home), str(kill_at)], capture_output=True, text=True,
                              timeout=120, env={**os.environ, "HOME": str(home)})  # fmt: skip

    whole = fresh("whole")
    counted = run(whole, -1)
    assert counted.returncode == 0, counted.stderr
    calls = int(counted.stdout)
    installed = (whole / ".claude.json").read_bytes()
    assert calls >= 20
    for kill_at in range(calls):
        home = fresh(f"kill-{kill_at}")
        killed = run(home, kill_at)
        assert killed.returncode == 137, (kill_at, killed.stderr)
        for path, (data, mode) in _tree(home).items():
            if b"sk-secret" in data:
                assert mode & 0o077 == 0, (kill_at, path, oct(mode))
        assert (home / ".claude.json").read_bytes() in (original, installed.replace(b"/whole/", b"/whole/")), kill_at
        again = run(home, -1)
        assert again.returncode == 0, (kill_at, again.stderr)
        assert not [p for p in home.rglob("*") if p.name.endswith(".partial")], kill_at
        assert (
            b"herdr_link" in (home / ".claude.json").read_bytes()
            and b"sk-secret" in (home / ".claude.json").read_bytes()
        )
        shutil.rmtree(home)


HOST_WRITER = """
import json, os, random, sys, time
state, stop = sys.argv[1], sys.argv[2]
rng, last, lost, written = random.Random(47), 0, 0, 0
while not os.path.exists(stop):
    current = json.loads(open(state).read())
    if current["numStartups"] < last:
        lost += 1
    current["numStartups"] = last = last + 1
    scratch = state + ".host"
    with open(scratch, "w") as handle:
        handle.write(json.dumps(current, indent=2))
    os.replace(scratch, state)
    written += 1
    time.sleep(rng.uniform(0.001, 0.010))
print(json.dumps({"written": written, "lost": lost}))
"""


def test_soak_against_a_host_writing_every_few_milliseconds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """200 installs and uninstalls while a stand-in for Claude Code, in a process of its own as the host
    is, rewrites ``~/.claude.json`` (whole, atomically) every 1-10 ms. Each run either writes or stops
    with "run again"; the host's keys are always there. A host write lost in the compare -> rename
    window is counted and reported (the figure in the closing note), not asserted: it depends on the
    machine's timing."""
    import subprocess
    import sys

    home = _home(tmp_path)
    state = home / ".claude.json"
    state.write_text('{"numStartups": 0}')
    stop = tmp_path / "stop"
    host = subprocess.Popen([sys.executable, "-c", HOST_WRITER, str(state), str(stop)], stdout=subprocess.PIPE)
    outcomes = {"written": 0, "run again": 0}
    try:
        # 200 runs that each have something to write: install when our entry is absent, else uninstall
        # (a run stopped by "run again" is retried in the same direction), and until one has written.
        while sum(outcomes.values()) < 200 or (outcomes["written"] == 0 and sum(outcomes.values()) < 2000):
            said: list[str] = []
            installed = "herdr_link" in json.loads(state.read_text()).get("mcpServers", {})
            decided = plan(wiring("claude", home=home, environ={}), home, home, uninstall=installed, environ={})
            assert decided.changed, decided.describe()
            status = apply(decided, {}, home, said.append)
            outcome = "written" if status == 0 else "run again"
            if status != 0:
                assert "run again" in capsys.readouterr().err, said
            outcomes[outcome] += 1
    finally:
        stop.touch()
        report, _ = host.communicate(timeout=60)
    assert host.returncode == 0 and outcomes["written"] > 0
    assert json.loads(state.read_text())["numStartups"] > 0
    host_said = json.loads(report)
    with capsys.disabled():
        print(f"\nsoak: {outcomes}, host writes {host_said['written']}, lost {host_said['lost']}")


def test_a_read_only_file_is_changed_only_with_yes_and_keeps_its_mode(tmp_path: Path) -> None:
    home = _home(tmp_path)
    state = home / ".claude.json"
    state.write_text('{"numStartups": 1}\n')
    state.chmod(0o444)
    decided = plan(wiring("claude", home=home, environ={}), home, home, environ={})
    assert any("is read-only (mode 0444)" in conflict for conflict in decided.conflicts), decided.describe()
    assert apply(decided, {}, home, lambda line: None) == 0  # what --yes then does
    assert "herdr_link" in json.loads(state.read_text())["mcpServers"]
    assert stat.S_IMODE(state.stat().st_mode) == 0o444


def test_what_stays_after_a_rollback_stopped_by_a_host_write_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host rewrites ~/.claude.json on top of ours (keeping our entry) before the rollback; the
    rollback leaves its write, and the record names our entry, so --uninstall still takes it out."""
    home = _home(tmp_path)
    state = home / ".claude.json"
    state.write_text('{"numStartups": 1}')
    (home / ".claude" / "settings.json.herdr-link.partial").mkdir(parents=True)  # the second write fails
    decided = plan(wiring("claude", home=home, environ={}), home, home, environ={})
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args, _real=real_mkdir, **kwargs):
        if self == home / ".claude" and "mcpServers" in (current := json.loads(state.read_text())):
            state.write_text(json.dumps({**current, "numStartups": 2}))  # the host, on top of ours
        return _real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    said: list[str] = []
    assert apply(decided, {}, home, said.append) == 1
    monkeypatch.undo()
    assert any("the install record names what this run added" in line for line in said), said
    (home / ".claude" / "settings.json.herdr-link.partial").rmdir()
    status, said = _run(home, "claude", uninstall=True)
    assert status == 0, said
    assert json.loads(state.read_text()) == {"numStartups": 2}  # the host's write stays, ours is gone


def test_an_entry_a_host_puts_back_after_uninstall_is_still_ours(tmp_path: Path) -> None:
    """Claude Code rewrites ~/.claude.json from a copy it read just before the uninstall: our entry is
    back. The record's ``taken_out`` knows it for ours: uninstall takes it out again, install adopts it."""
    home = _home(tmp_path)
    state = home / ".claude.json"
    state.write_text('{"numStartups": 1}')
    assert _run(home, "claude")[0] == 0
    stale = json.loads(state.read_text())  # what the host read
    assert _run(home, "claude", uninstall=True)[0] == 0
    state.write_text(json.dumps({**stale, "numStartups": 2}))  # the host's write, from its stale copy
    status, said = _run(home, "claude", uninstall=True)
    assert status == 0 and json.loads(state.read_text()) == {"numStartups": 2}, said
    state.write_text(json.dumps({**stale, "numStartups": 3}))
    assert _run(home, "claude")[0] == 0  # adopted: nothing to add
    assert _run(home, "claude", uninstall=True)[0] == 0
    assert json.loads(state.read_text()) == {"numStartups": 3}


def test_copilots_hook_file_is_ours_whole_and_goes_with_uninstall(tmp_path: Path) -> None:
    home = _home(tmp_path)
    hooks = home / ".copilot" / "hooks"
    hooks.mkdir(parents=True)
    other = hooks / "audit.json"  # another hook file in the folder Copilot loads every *.json of
    other.write_text('{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "audit"}]}}\n')
    before = other.read_bytes()
    assert _run(home, "copilot")[0] == 0
    ours = json.loads((hooks / "herdr-link.json").read_text())
    assert ours["version"] == 1
    [start] = ours["hooks"]["sessionStart"]
    assert start["type"] == "command" and start["bash"].endswith(" hint --host copilot") and "command" not in start
    [allow] = ours["hooks"]["permissionRequest"]
    assert allow["matcher"] == "herdr_link/.*" and allow["bash"] == """echo '{"behavior":"allow"}'"""
    status, said = _run(home, "copilot")
    assert status == 0 and said[-1] == "unchanged", said
    assert json.loads((hooks / "herdr-link.json").read_text()) == ours  # a second install adds nothing twice
    assert _run(home, "copilot", uninstall=True)[0] == 0
    assert not (hooks / "herdr-link.json").exists() and other.read_bytes() == before


def test_a_foreign_copilot_hook_file_of_our_name_is_refused_and_left_alone(tmp_path: Path) -> None:
    home = _home(tmp_path)
    hooks = home / ".copilot" / "hooks"
    hooks.mkdir(parents=True)
    foreign = hooks / "herdr-link.json"
    foreign.write_text('{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "my-herdr-script"}]}}')
    before = foreign.read_bytes()
    chosen = wiring("copilot", home=home, environ={})
    with pytest.raises(InstallError, match="herdr-link.json is not Herdr Link's.*nothing was changed"):
        plan(chosen, home, home, environ={})
    assert foreign.read_bytes() == before and not (home / ".copilot" / "mcp-config.json").exists()
    status, said = _run(home, "copilot", uninstall=True)
    assert status == 0 and foreign.read_bytes() == before
    assert any("not Herdr Link's" in line and "left alone" in line for line in said), said


def _installed(tmp_path: Path, host: str, path: str, text: str) -> tuple[Path, Path, str]:
    home = _home(tmp_path)
    target = home / path
    target.parent.mkdir(parents=True)
    target.write_text(text)
    status, said = _run(home, host)
    assert status == 0, said
    return home, target, target.read_text()


def test_amps_server_goes_under_its_one_dotted_key_and_comes_out_again(tmp_path: Path) -> None:
    home, target, after = _installed(tmp_path, "amp", ".config/amp/settings.json", AMP_COMMENTED)
    data = json_value(after, jsonc=True)
    assert "amp" not in data  # "amp.mcpServers" is one key, as `amp mcp add` writes it, not amp → mcpServers
    assert set(data["amp.mcpServers"]) == {"playwright", "herdr_link"}
    assert set(data["amp.mcpServers"]["herdr_link"]) == {"command", "args"}
    assert data["amp.permissions"] == [{"tool": "Bash", "matches": {"cmd": "*git push*"}, "action": "ask"}]
    assert "// Amp settings" in after and "/* servers */" in after
    assert _run(home, "amp", uninstall=True)[0] == 0
    assert target.read_text() == AMP_COMMENTED


def test_devins_server_and_its_allow_rule_join_the_users_own_and_leave_them_as_they_were(tmp_path: Path) -> None:
    home, target, after = _installed(tmp_path, "devin", ".config/devin/config.json", DEVIN_COMMENTED)
    data = json_value(after, jsonc=True)
    assert data["permissions"] == {"allow": ["Read(**)", "Exec(git)", "mcp__herdr_link__*"], "deny": [], "ask": []}
    assert set(data["mcpServers"]) == {"github", "herdr_link"}
    assert set(data["mcpServers"]["herdr_link"]) == {"command", "args"}
    assert after.startswith("// ~/.config/devin/config.json\n") and "// MCP servers" in after
    assert _run(home, "devin", uninstall=True)[0] == 0
    assert target.read_text() == DEVIN_COMMENTED


def test_amp_is_wired_at_user_scope_only(tmp_path: Path) -> None:
    # a workspace's .amp/settings.json server runs only once `amp mcp approve` (an online login) approved it
    with pytest.raises(ValueError, match="only the user scope"):
        wiring("amp", scope="project", home=_home(tmp_path), environ={})


def test_devins_project_config_gets_the_server_and_the_rule_and_gives_them_back(tmp_path: Path) -> None:
    home, project = _home(tmp_path), tmp_path / "work"
    config = project / ".devin" / "config.json"
    config.parent.mkdir(parents=True)
    original = '{\n  // shared with the team\n  "permissions": {\n    "allow": ["Exec(npm run)"]\n  }\n}\n'
    config.write_text(original)
    for uninstall in (False, True):
        chosen = wiring("devin", scope="project", home=home, environ={})
        assert apply(plan(chosen, home, project, uninstall=uninstall, environ={}), {}, home, lambda _: None) == 0
        if not uninstall:
            data = json_value(config.read_text(), jsonc=True)
            assert data["permissions"]["allow"] == ["Exec(npm run)", "mcp__herdr_link__*"]
            assert "herdr_link" in data["mcpServers"] and not (home / ".config" / "devin").exists()
    assert config.read_text() == original


def test_makis_server_is_herdr_link_with_a_hyphen_told_its_name_and_always_loaded(tmp_path: Path) -> None:
    # maki refuses a server name with an underscore (maki-config is_valid_server_name)
    home, target, after = _installed(tmp_path, "maki", ".config/maki/mcp.toml", MAKI[2])
    data = tomllib.loads(after)
    ours = data["mcp"]["herdr-link"]
    assert "herdr_link" not in data["mcp"] and set(data["mcp"]) == {"filesystem", "github", "herdr-link"}
    assert ours["command"][-2:] == ["--namespace", "herdr-link"] and ours["always_load"] is True
    assert "herdr-link-mcp" in " ".join(ours["command"]) or "herdr_link_mcp" in " ".join(ours["command"])
    assert after.startswith(MAKI[2]) and data["defer_tools"] == 20  # the user's file, ours after it
    assert _run(home, "maki", uninstall=True)[0] == 0
    assert target.read_text() == MAKI[2]


def test_a_hand_written_herdr_link_entry_in_maki_is_ours_to_replace_whole_after_asking(tmp_path: Path) -> None:
    home = _home(tmp_path)
    target = home / ".config" / "maki" / "mcp.toml"
    target.parent.mkdir(parents=True)
    original = '[mcp.herdr-link]\ncommand = ["/bin/true"]\ntimeout = 5000\n'
    target.write_text(original)
    decided = plan(wiring("maki", home=home, environ={}), home, home, environ={})
    assert any("mcp.herdr-link" in conflict for conflict in decided.conflicts)  # asked, as for herdr_link elsewhere
    assert apply(decided, {}, home, lambda _: None) == 0
    command = tomllib.loads(target.read_text())["mcp"]["herdr-link"]["command"]
    assert "/bin/true" not in command and command[-2:] == ["--namespace", "herdr-link"]  # replaced, not appended to
    assert _run(home, "maki", uninstall=True)[0] == 0
    assert target.read_text() == original


KIMI_RULE = {"decision": "allow", "pattern": "mcp__herdr_link__*"}


@pytest.mark.parametrize("text", KIMI, ids=[f"kimi-config-{i}" for i in range(len(KIMI))])
def test_kimi_gets_its_rule_table_after_the_users_rules_and_uninstall_takes_out_only_ours(
    tmp_path: Path, text: str
) -> None:
    home = _home(tmp_path)
    (home / ".kimi-code").mkdir()
    config = home / ".kimi-code" / "config.toml"
    config.write_bytes(text.encode())
    theirs = tomllib.loads(text).get("permission", {}).get("rules", [])
    status, said = _run(home, "kimi")
    assert status == 0, said
    ours = [] if KIMI_RULE in theirs else [KIMI_RULE]
    assert tomllib.loads(config.read_text())["permission"]["rules"] == [*theirs, *ours]
    status, said = _run(home, "kimi", uninstall=True)
    assert status == 0 and config.read_bytes() == text.encode(), said
    if KIMI_RULE in theirs:  # written by hand: the user's, kept
        assert any("permission.rules held" in line and "before install: kept" in line for line in said), said


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ('[permission]\nrules = "allow"\n', "permission.rules is not a list here"),
        ('[permission.rules]\ndecision = "allow"\n', "permission.rules is not a list here"),
        ('permission = "ask"\n', "permission is not a table here"),
    ],
)
def test_a_kimi_permission_rules_that_is_not_an_array_of_tables_is_refused_and_nothing_written(
    tmp_path: Path, text: str, refused: str
) -> None:
    home = _home(tmp_path)
    (home / ".kimi-code").mkdir()
    config = home / ".kimi-code" / "config.toml"
    config.write_text(text)
    with pytest.raises(InstallError, match=rf"\.kimi-code/config\.toml: {refused}, so nothing of ours can go in it"):
        _run(home, "kimi")
    assert config.read_text() == text and not (home / ".kimi-code" / "mcp.json").exists()


def _kimi_record(home: Path, folder: Path) -> Path:
    from herdr_link_control.hosts import host_for_kind, trust_record

    kimi = host_for_kind("kimi")
    assert kimi is not None and kimi.trust is not None
    return home / trust_record(kimi.trust, str(folder)).user[2:]


def test_kimi_trust_is_a_record_file_of_the_folders_own_that_uninstall_takes_away(tmp_path: Path) -> None:
    home = _home(tmp_path)
    work = tmp_path / "My App"
    work.mkdir()
    status, said = _run(home, "kimi", trust=[str(work)])
    assert status == 0, said
    record = _kimi_record(home, work)
    assert record.name.startswith("wd_my-app_") and json.loads(record.read_text()) == {"root": str(work)}
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    status, said = _run(home, "kimi", uninstall=True, trust=[str(work)])
    assert status == 0, said
    assert not (home / ".kimi-code").exists()


def test_a_folder_kimi_code_trusts_already_keeps_its_record_byte_for_byte(tmp_path: Path) -> None:
    home = _home(tmp_path)
    work = tmp_path / "app"
    work.mkdir()
    record = _kimi_record(home, work)
    record.parent.mkdir(parents=True)
    kimis = json.dumps({"root": str(work), "trustedAt": 1765000000000}, separators=(",", ":")).encode()
    record.write_bytes(kimis)  # as Kimi Code writes it (JSON.stringify)
    status, said = _run(home, "kimi", trust=[str(work)])
    assert status == 0 and record.read_bytes() == kimis, said
    status, said = _run(home, "kimi", uninstall=True, trust=[str(work)])
    assert status == 0 and record.read_bytes() == kimis, said
