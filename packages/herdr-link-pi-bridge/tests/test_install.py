"""``herdr-link-pi-bridge install`` (and ``--uninstall``, ``uninstall``, ``--dry-run``) and ``build``:
the plan first, a backup of whatever it replaces or removes, never over a write it did not see,
refusals that change nothing, and a last line that says what each file is."""

import json
import os
import time
from pathlib import Path

import pytest

from herdr_link_control.userfiles import backup_folder, backups_root, location_file, write_location_file
from herdr_link_pi_bridge import apply, extension_state, id_line, install, packaged_extension, plan, uninstall
from herdr_link_pi_bridge._extension import build
from herdr_link_pi_bridge.cli import main

MINE = "export default function mine(pi) {}\n"
OLDER = "// herdr-link-pi-bridge 0.0.1 | runtime pi | old\nexport default () => {};\n"


def _target(home: Path) -> Path:
    return home / ".pi" / "agent" / "extensions" / "herdr-link.js"


def _backups(home: Path) -> list[Path]:
    folder = backup_folder(backups_root({}, home), _target(home))
    return sorted(folder.glob("herdr-link.js.*")) if folder.is_dir() else []


def _put(home: Path, text: str) -> Path:
    target = _target(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return target


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run the command as a user would, with ``tmp_path`` as HOME and working folder."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> tuple[int, str, str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        return status, out, err

    return run


def test_install_puts_the_extension_where_pi_discovers_it_and_writes_the_bridge_location(tmp_path):
    result = install(tmp_path, tmp_path, {})
    assert result.action == "installed" and result.path == _target(tmp_path)
    assert result.path.read_bytes() == packaged_extension().read_bytes()
    command = json.loads(location_file({}, tmp_path).read_text())["command"]
    assert Path(command[0]).exists()
    assert sorted(p.name for p in result.path.parent.iterdir()) == ["herdr-link.js"]  # no stray temporary file
    assert result.messages[-1].startswith(f"state: {result.path} is the current extension; bridge location ")


def test_install_is_idempotent_and_updates_older_copies_of_ours_with_a_backup(tmp_path):
    install(tmp_path, tmp_path, {})
    assert install(tmp_path, tmp_path, {}).action == "unchanged" and _backups(tmp_path) == []
    target = _put(tmp_path, OLDER)
    updated = install(tmp_path, tmp_path, {})
    assert updated.action == "updated" and target.read_bytes() == packaged_extension().read_bytes()
    [backup] = _backups(tmp_path)
    assert backup.read_text() == OLDER and f"backup: {backup}" in updated.messages


@pytest.mark.parametrize("text", [MINE, id_line() + "// my own change\n"], ids=["foreign", "edited"])
def test_a_foreign_file_or_an_edited_copy_is_replaced_only_with_yes_and_kept(tmp_path, text):
    target = _put(tmp_path, text)
    assert extension_state(target.read_bytes()) == ("foreign" if text == MINE else "edited")
    decided = plan(tmp_path, tmp_path, {})
    assert decided.needs_yes and any(line.strip().startswith("! ") for line in decided.describe())
    refused = install(tmp_path, tmp_path, {})
    assert refused.action == "refused" and any(
        m.startswith("refused: ") and m.endswith("; nothing was changed") for m in refused.messages
    )
    assert target.read_text() == text and _backups(tmp_path) == []
    replaced = install(tmp_path, tmp_path, {}, yes=True)
    assert replaced.action == "replaced" and target.read_bytes() == packaged_extension().read_bytes()
    [backup] = _backups(tmp_path)
    assert backup.read_text() == text and str(backup) in replaced.messages[-1]
    assert sorted(p.name for p in target.parent.iterdir()) == ["herdr-link.js"]  # nothing else Pi would load


def test_uninstall_backs_up_what_it_removes_and_leaves_anothers_file(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / ".config"), "PATH": "/usr/bin:/bin"}
    target = _put(tmp_path, id_line() + "// my own change\n")
    removed = uninstall(tmp_path, tmp_path, env)
    assert removed.action == "removed" and not target.exists()
    [backup] = sorted(backup_folder(backups_root(env, tmp_path), target).glob("herdr-link.js.*"))
    assert backup.read_text() == id_line() + "// my own change\n"
    assert uninstall(tmp_path, tmp_path, env).action == "absent"
    _put(tmp_path, MINE)
    assert uninstall(tmp_path, tmp_path, env).action == "refused" and target.read_text() == MINE


def test_the_shared_bridge_location_stays_while_another_runtime_uses_it(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / ".config"), "PATH": "/usr/bin:/bin"}
    installed = install(tmp_path, tmp_path, env)
    assert any("pi is not on PATH" in m for m in installed.messages)  # a warning: it still installs
    location = location_file(env, tmp_path)
    write_location_file(location, json.loads(location.read_text())["command"], user="opencode")
    removed = uninstall(tmp_path, tmp_path, env)
    assert removed.action == "removed" and location.exists()  # OpenCode still uses it
    assert removed.messages[-1].endswith("kept (another runtime may use it)")


def test_a_failed_write_changes_nothing_and_says_so(tmp_path):
    target = _put(tmp_path, OLDER)
    (target.parent / "herdr-link.js.herdr-link.partial").mkdir()  # the partial copy cannot be written
    result = install(tmp_path, tmp_path, {})
    assert result.action == "failed" and result.messages[-1] == f"state: {target} is unchanged"
    assert target.read_text() == OLDER


def test_a_write_the_run_did_not_see_is_never_overwritten(tmp_path):
    target = _put(tmp_path, OLDER)
    decided = plan(tmp_path, tmp_path, {})
    target.write_text(OLDER + "// written after the plan\n")
    result = apply(decided, {}, tmp_path)
    assert result.action == "failed" and "run again" in result.messages[0]
    assert target.read_text() == OLDER + "// written after the plan\n"
    decided = plan(tmp_path, tmp_path, {}, uninstall=True)
    target.write_text(OLDER)
    assert apply(decided, {}, tmp_path).action == "failed" and target.read_text() == OLDER


def test_what_a_killed_run_left_is_cleared_by_the_next(tmp_path):
    target = _put(tmp_path, OLDER)
    (target.parent / "herdr-link.js.herdr-link.partial").write_text("half")
    (target.parent / ".herdr-link.js.tmp").write_text("half, from an older release")
    assert install(tmp_path, tmp_path, {}).action == "updated"
    assert sorted(p.name for p in target.parent.iterdir()) == ["herdr-link.js"]


def test_a_failed_location_write_still_says_the_extension_is_installed(tmp_path):
    (tmp_path / ".config").write_text("a file where the config directory should be\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / ".config")}
    result = install(tmp_path, tmp_path, env)
    assert result.action == "failed" and result.path.read_bytes() == packaged_extension().read_bytes()
    assert result.messages[-1].startswith(f"state: {result.path} is the current extension; bridge location not written")


def test_project_install_mentions_trust(tmp_path):
    result = install(tmp_path / "home", tmp_path / "project", {}, project=True)
    assert result.path == tmp_path / "project" / ".pi" / "extensions" / "herdr-link.js"
    assert any("trusted" in message for message in result.messages)


def test_the_command_shows_its_plan_and_a_dry_run_writes_nothing(cli, tmp_path):
    target = _target(tmp_path)
    status, out, _ = cli("install", "--dry-run")
    assert status == 0 and out.startswith("plan (install Herdr Link's Pi extension):\n")
    assert f"  {target}: create" in out and out.endswith("dry run: nothing was written\nstate: nothing was changed\n")
    assert not target.exists() and not (tmp_path / ".config").exists()
    status, out, _ = cli("install")
    assert status == 0 and out.startswith("plan (install") and out.splitlines()[-1].startswith("state: ")
    for args in (["install", "--uninstall", "--dry-run"], ["uninstall", "--dry-run"]):
        status, out, _ = cli(*args)
        assert status == 0 and f"  {target}: remove (backup kept)" in out and target.exists()
    status, out, _ = cli("install", "--uninstall")
    assert status == 0 and not target.exists() and out.splitlines()[-1].startswith(f"state: {target} removed")
    status, out, _ = cli("uninstall")  # the alias, with nothing left to take out
    assert status == 0 and "nothing to take out" in out and out.splitlines()[-1].startswith(f"state: {target} absent")


def test_a_dry_run_over_a_foreign_file_says_the_real_run_asks_first(cli, tmp_path):
    target = _put(tmp_path, MINE)
    status, out, _ = cli("install", "--dry-run")
    assert status == 0 and "the real run asks first: replace it (" in out and "(--yes confirms)" in out
    assert out.endswith("state: nothing was changed\n") and target.read_text() == MINE
    target.unlink()
    target.mkdir()  # a folder at its place: the real run would be refused
    status, out, _ = cli("install", "--dry-run")
    assert status == 1 and "asks first" not in out and out.endswith("state: nothing was changed\n")


def test_a_foreign_file_is_refused_without_yes_on_the_command_line(cli, tmp_path):
    target = _put(tmp_path, MINE)
    status, out, err = cli("install")
    assert (
        status == 1 and "refused without confirmation" in err and "is not a Herdr Link file" in err and "--yes" in err
    )
    assert out.splitlines()[-1] == "state: nothing was changed" and target.read_text() == MINE
    status, out, _ = cli("install", "--yes")
    assert status == 0 and target.read_bytes() == packaged_extension().read_bytes()


@pytest.mark.parametrize("kind", ["folder", "link"])
def test_a_folder_or_a_link_at_its_place_is_refused_and_named(cli, tmp_path, kind):
    target = _target(tmp_path)
    target.parent.mkdir(parents=True)
    if kind == "folder":
        target.mkdir()
    else:
        (tmp_path / "dotfiles.js").write_text(MINE)
        target.symlink_to(tmp_path / "dotfiles.js")
    for args in (["install", "--yes"], ["uninstall"]):
        status, out, err = cli(*args)
        assert status == 1 and str(target) in err and "Traceback" not in err, err
        assert out.splitlines()[-1] == "state: nothing was changed"
    assert (
        target.is_dir() if kind == "folder" else target.is_symlink() and (tmp_path / "dotfiles.js").read_text() == MINE
    )


def test_usage_errors_exit_2(cli):
    status, out, err = cli("install", "--no-such-option")
    assert status == 2 and out == "" and err.count("\n") == 1 and "--no-such-option" in err
    status, out, err = cli("install", "--project", "extra")
    assert status == 2 and out == "" and "unrecognized arguments: extra" in err


def test_the_shipped_extension_is_current(tmp_path):
    assert build(packaged_extension().parent, check=True) is False
    assert main(["build", "--check"]) == 0
    assert build(tmp_path) is True and (tmp_path / "herdr-link.js").read_bytes() == packaged_extension().read_bytes()


def test_build_stays_out_of_an_installed_packages_way(tmp_path, monkeypatch, capsys):
    from herdr_link_pi_bridge import cli

    monkeypatch.setattr(cli, "in_source_checkout", lambda _file: False)
    assert cli.main(["build"]) == 2 and "a developer command" in capsys.readouterr().err
    assert cli.main(["build", "--out", str(tmp_path)]) == 0 and (tmp_path / "herdr-link.js").is_file()


def test_backups_sort_by_utc_so_a_clock_zone_change_never_prunes_the_newer(tmp_path, monkeypatch):
    target = _target(tmp_path)
    target.parent.mkdir(parents=True)
    written = []
    for zone in ("ASIA-14", "AMER+12"):  # 26 hours apart on the wall clock, written a moment apart
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        target.write_text(f"export default function {zone[:4].lower()}(pi) {{}}\n")
        written.append(target.read_text())
        assert install(tmp_path, tmp_path, {}, yes=True).action == "replaced"
    monkeypatch.delenv("TZ")
    time.tzset()
    assert [b.read_text() for b in _backups(tmp_path)] == written  # name order is the order they were made
    assert os.stat(_backups(tmp_path)[0].parent).st_mode & 0o777 == 0o700


def test_a_read_only_copy_of_ours_is_replaced_only_with_yes(tmp_path):
    target = _put(tmp_path, OLDER)
    target.chmod(0o444)
    decided = plan(tmp_path, tmp_path, {})
    assert "is read-only (mode 0444" in decided.needs_yes
    assert install(tmp_path, tmp_path, {}).action == "refused" and target.read_text() == OLDER
    assert install(tmp_path, tmp_path, {}, yes=True).action == "updated"
    assert target.read_bytes() == packaged_extension().read_bytes() and target.stat().st_mode & 0o777 == 0o444


@pytest.mark.parametrize(
    ("entry", "typescript"),
    [
        ("npm:herdr-link", True),
        ("npm:herdr-link@0.5.1", True),
        ("git:github.com/LZHcode1986/herdr-link", True),
        ("https://github.com/LZHcode1986/herdr-link", True),
        ({"source": "npm:herdr-link", "extensions": ["./src/pi.ts"]}, True),
        ("npm:herdr-link-mcp", False),
        ("npm:herdr-linker", False),
        ("git:github.com/someone/herdr-link", False),
        (3, False),
    ],
)
def test_the_typescript_herdr_link_is_known_by_its_package_sources(entry, typescript):
    from herdr_link_pi_bridge._typescript import is_typescript_source

    assert is_typescript_source(entry) is typescript


def test_a_folder_named_herdr_link_that_is_not_the_typescript_extension_is_left_alone(cli, tmp_path):
    folder = tmp_path / ".pi" / "agent" / "extensions" / "herdr-link"
    folder.mkdir(parents=True)
    (folder / "index.ts").write_text("export default function (pi) {}\n")  # someone else's
    status, out, _ = cli("install", "--dry-run")
    assert status == 0 and "TypeScript" not in out


def test_uninstall_takes_out_the_folders_install_made_and_only_those(cli, tmp_path):
    status, _, _ = cli("install")
    assert status == 0 and (tmp_path / ".pi" / "agent" / "extensions").is_dir()
    status, out, _ = cli("uninstall")
    assert status == 0 and "(empty; the install had made it)" in out and not (tmp_path / ".pi").exists()
    (tmp_path / ".pi" / "agent").mkdir(parents=True)  # Pi has run: its folder is Pi's
    assert cli("install")[0] == 0 and cli("uninstall")[0] == 0
    assert (tmp_path / ".pi" / "agent").is_dir() and not (tmp_path / ".pi" / "agent" / "extensions").exists()


def test_where_the_extension_goes_is_the_host_tables_pi_row(tmp_path):
    """One fact, one place: the table's row (``herdr_link_control.hosts``) names Pi's extension files."""
    from herdr_link_control.hosts import find_host
    from herdr_link_pi_bridge import EXTENSION_FILE, target_path

    pi = find_host("pi")
    assert pi is not None and pi.extension is not None
    assert pi.extension.folder.user == "~/.pi/agent" and pi.extension.file == "extensions/" + EXTENSION_FILE
    home, work = tmp_path / "home", tmp_path / "work"
    assert target_path(home, work, project=False) == home / ".pi" / "agent" / "extensions" / EXTENSION_FILE
    assert target_path(home, work, project=True) == work / ".pi" / "extensions" / EXTENSION_FILE


def test_a_refused_plan_says_why_once_in_a_dry_run_and_in_the_real_run(tmp_path, monkeypatch, capsys):
    target = _put(tmp_path, OLDER)
    target.unlink()
    target.symlink_to(tmp_path / "elsewhere.js")  # a link at our place: refused, never written through
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path))
    monkeypatch.chdir(tmp_path)
    for args in (["install", "--dry-run"], ["install"]):
        assert main(args) == 1
        out, err = capsys.readouterr()
        assert (out + err).count("symbolic link") == 1, out + err  # the plan says "refused", the reason once
        assert f"  {target}: refused\n" in out and out.endswith("state: nothing was changed\n")


_SETTINGS = '{\n  "theme": "dark",\n  "packages": ["npm:first", "npm:herdr-link", "npm:last"]\n}\n'
"""Pi's settings with the TypeScript Herdr Link listed between two other packages."""


def _typescript_pi(home: Path) -> tuple[Path, Path]:
    """The TypeScript Herdr Link wired into the user's Pi as its README does: a package entry and a copy."""
    settings = home / ".pi" / "agent" / "settings.json"
    folder = home / ".pi" / "agent" / "extensions" / "herdr-link"
    folder.mkdir(parents=True)
    (folder / "index.ts").write_text('pi.registerTool({ name: "herdr_link" });\n')
    settings.write_text(_SETTINGS)
    return settings, folder


def test_a_set_aside_that_fails_and_cannot_be_undone_says_what_changed_and_uninstall_gives_it_back(
    tmp_path, monkeypatch
):
    home = tmp_path / "home"
    home.mkdir()
    from herdr_link_control.userfiles import replace_file as replace_file_of_userfiles
    from herdr_link_pi_bridge import _typescript
    from herdr_link_pi_bridge._install import apply, plan, uninstall

    settings, folder = _typescript_pi(home)
    decided = plan(home, home, {})
    real_replace, calls = replace_file_of_userfiles, []

    def replace_file(*args, **kwargs):
        calls.append(args)
        if len(calls) > 1:  # giving the settings back fails (a full disk)
            raise OSError(28, "No space left on device", str(settings))
        return real_replace(*args, **kwargs)

    def rename(*args):
        raise OSError(13, "Permission denied", str(folder))  # moving the copied folder fails

    with monkeypatch.context() as patched:
        patched.setattr(_typescript, "replace_file", replace_file)
        patched.setattr(os, "rename", rename)
        result = apply(decided, {}, home, yes=True)
    assert result.action == "failed" and result.messages[-1] != "state: nothing was changed", result.messages
    assert "without the TypeScript Herdr Link's package entry" in result.messages[-1]
    assert "npm:herdr-link" not in settings.read_text() and (folder / "index.ts").is_file()
    uninstall(home, home, {})
    assert settings.read_text() == _SETTINGS  # the note was written first: uninstall gives the entry back
