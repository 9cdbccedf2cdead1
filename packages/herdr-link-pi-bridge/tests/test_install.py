"""``herdr-link-pi-bridge install`` and ``build``."""

import json
import time
from pathlib import Path

from herdr_link_control.userfiles import location_file, write_location_file
from herdr_link_pi_bridge import install, packaged_extension, plan, uninstall
from herdr_link_pi_bridge._extension import build
from herdr_link_pi_bridge.cli import main


def test_install_puts_the_extension_where_pi_discovers_it_and_writes_the_bridge_location(tmp_path):
    result = install(tmp_path, tmp_path, {})
    assert result.action == "installed" and result.path == tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
    assert result.path.read_bytes() == packaged_extension().read_bytes()
    command = json.loads(location_file({}, tmp_path).read_text())["command"]
    assert Path(command[0]).exists()
    assert sorted(p.name for p in result.path.parent.iterdir()) == ["herdr-link.js"]  # no stray temporary file


def test_install_is_idempotent_and_updates_older_copies_of_ours(tmp_path):
    install(tmp_path, tmp_path, {})
    assert install(tmp_path, tmp_path, {}).action == "unchanged"
    target = tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
    target.write_text("// herdr-link-pi-bridge 0.0.1 | runtime pi | old\nexport default () => {};\n")
    assert install(tmp_path, tmp_path, {}).action == "updated"
    assert target.read_bytes() == packaged_extension().read_bytes()


def test_a_foreign_file_is_replaced_only_with_yes(tmp_path):
    target = tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
    target.parent.mkdir(parents=True)
    target.write_text("export default function mine(pi) {}\n")
    refused = install(tmp_path, tmp_path, {})
    assert refused.action == "refused" and refused.messages[0].endswith("is not a Herdr Link file; nothing was changed")
    assert target.read_text() == "export default function mine(pi) {}\n"
    replaced = install(tmp_path, tmp_path, {}, yes=True)
    assert replaced.action == "replaced" and target.read_bytes() == packaged_extension().read_bytes()
    assert f"replaced: {target}" in replaced.messages
    [backup] = (tmp_path / ".pi" / "agent" / "herdr-link-backups").iterdir()
    assert backup.read_text() == "export default function mine(pi) {}\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["herdr-link.js"]  # nothing else Pi would load
    assert replaced.messages[-1].startswith(f"state: {target} is the current extension; bridge location ")


def test_a_failed_write_changes_nothing_and_says_so(tmp_path):
    target = tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
    target.parent.mkdir(parents=True)
    target.write_text("// herdr-link-pi-bridge 0.0.1 | runtime pi | old\n")
    (target.parent / ".herdr-link.js.tmp").mkdir()  # the temporary file cannot be written
    result = install(tmp_path, tmp_path, {})
    assert result.action == "failed"
    assert result.messages[-1] == f"state: {target} is unchanged; bridge location unchanged"
    assert target.read_text() == "// herdr-link-pi-bridge 0.0.1 | runtime pi | old\n"


def test_a_failed_location_write_still_says_the_extension_is_installed(tmp_path):
    (tmp_path / ".config").write_text("a file where the config directory should be\n")
    result = install(tmp_path, tmp_path, {"XDG_CONFIG_HOME": str(tmp_path / ".config")})
    assert result.action == "failed" and result.path.read_bytes() == packaged_extension().read_bytes()
    assert result.messages[-1].startswith(f"state: {result.path} is the current extension; bridge location not written")


def test_project_install_mentions_trust(tmp_path):
    result = install(tmp_path / "home", tmp_path / "project", {}, project=True)
    assert result.path == tmp_path / "project" / ".pi" / "extensions" / "herdr-link.js"
    assert any("trusted" in message for message in result.messages)


def test_the_shipped_extension_is_current(tmp_path):
    assert build(packaged_extension().parent, check=True) is False
    assert main(["build", "--check"]) == 0
    assert build(tmp_path) is True and (tmp_path / "herdr-link.js").read_bytes() == packaged_extension().read_bytes()


def test_dry_run_uninstall_and_the_shared_bridge_location(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / ".config"), "PATH": "/usr/bin:/bin"}
    target = tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
    lines = plan(tmp_path, tmp_path, env)
    assert lines[0] == f"would install {target}" and "would point the bridge location" in lines[1]
    assert any("pi is not on PATH" in line for line in lines) and not target.exists()
    installed = install(tmp_path, tmp_path, env)
    assert any("pi is not on PATH" in m for m in installed.messages)  # a warning: it still installs
    location = location_file(env, tmp_path)
    write_location_file(location, json.loads(location.read_text())["command"], user="opencode")
    removed = uninstall(tmp_path, tmp_path, env)
    assert removed.action == "removed" and not target.exists() and location.exists()  # OpenCode still uses it
    assert removed.messages[-1].endswith("kept (another runtime may use it)")
    assert uninstall(tmp_path, tmp_path, env).action == "absent"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("export default function mine(pi) {}\n")
    assert uninstall(tmp_path, tmp_path, env).action == "refused" and target.exists()


def test_build_stays_out_of_an_installed_packages_way(tmp_path, monkeypatch, capsys):
    from herdr_link_pi_bridge import cli

    monkeypatch.setattr(cli, "_in_source_checkout", lambda: False)
    assert cli.main(["build"]) == 2 and "a developer command" in capsys.readouterr().err
    assert cli.main(["build", "--out", str(tmp_path)]) == 0 and (tmp_path / "herdr-link.js").is_file()


def test_backups_sort_by_utc_so_a_clock_zone_change_never_prunes_the_newer(tmp_path, monkeypatch):
    target = tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
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
    backups = sorted((tmp_path / ".pi" / "agent" / "herdr-link-backups").iterdir())
    assert [b.read_text() for b in backups] == written  # name order is the order they were made
