"""``herdr-link-opencode-install``: every branch, crash consistency, symlinks, paths per platform."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from install_faults import CRASH_STEPS, FAIL_STEPS, PARTIAL, inject

from herdr_link_control.userfiles import backup_folder, backups_root
from herdr_link_installer import (
    EXIT_DUPLICATE,
    InstallError,
    Platform,
    ProgramFailed,
    _install as module,
    global_config_dir,
    install,
    opencode_runtime,
    opencode_version,
    plan_install,
    plugin_package_version,
    plugin_version_ok,
    uninstall,
)
from herdr_link_opencode_bridge import BUNDLE_FILE, MANIFEST_FILE, packaged_dir

NODE_DIR = Path(__file__).parent / "node"
LINUX = Platform("linux")
BUNDLE = (packaged_dir() / BUNDLE_FILE).read_bytes()
"""The one bundle: OpenCode 1.x and 2 load the same file."""


@pytest.fixture(scope="session")
def plugin_modules() -> Path:
    if not (NODE_DIR / "node_modules" / "@opencode-ai" / "plugin").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR)],
            check=True,
            capture_output=True,
            timeout=600,
        )
    return NODE_DIR / "node_modules"


@pytest.fixture
def home(tmp_path: Path, plugin_modules: Path) -> Path:
    """A HOME whose OpenCode config dir resolves @opencode-ai/plugin 1.18.33, as after OpenCode's first start."""
    config = tmp_path / ".config" / "opencode"
    (config / "plugins").mkdir(parents=True)
    (config / "node_modules").symlink_to(plugin_modules)
    return tmp_path


def config(home: Path) -> Path:
    return home / ".config" / "opencode"


def target(home: Path) -> Path:
    return config(home) / "plugins" / "herdr-link.js"


def backups(home: Path) -> Path:
    """Where every installer backs up the plugin file: its own folder mirrored under Herdr Link's backups."""
    return backup_folder(backups_root({}, home), target(home))


def run(
    home: Path, *, yes: bool = False, runtime: str = "v1", fail_at: str | None = None, monkeypatch=None
) -> tuple[int, list[str]]:
    """One install; ``fail_at`` injects an ``OSError`` at that step (``faults.py``) through ``monkeypatch``."""
    lines: list[str] = []
    plan = plan_install(runtime, {}, home, home / "project", LINUX, run=lambda argv: None)
    if fail_at is not None:
        inject(fail_at, "fail", target(home), lambda o, n, v: monkeypatch.setattr(o, n, v, raising=False))
    code = install(
        plan,
        confirmed=yes,
        environ={"XDG_CONFIG_HOME": str(home / ".config")},
        home=home,
        say=lines.append,
        complain=lines.append,
    )
    return code, lines


def test_a_fresh_install_writes_the_manifests_bytes_and_the_bridge_location(home):
    code, lines = run(home)
    assert code == 0 and target(home).read_bytes() == BUNDLE
    assert any(line.startswith("installed: ") for line in lines)
    assert json.loads((home / ".config" / "herdr-link" / "bridge.json").read_text())["command"]
    assert sorted(p.name for p in target(home).parent.iterdir()) == ["herdr-link.js"]


def test_a_second_run_has_nothing_to_do(home):
    run(home)
    code, lines = run(home)
    assert code == 0 and "already installed" in " ".join(lines)
    assert not backups(home).exists()  # nothing was replaced: no backup


def test_an_older_bundle_of_ours_is_updated_with_a_backup(home, monkeypatch):
    target(home).write_text("// herdr-link-opencode-bridge 0.0.9 | runtime opencode-v1 | old\n")
    old = target(home).read_bytes()
    monkeypatch.setattr(module, "classify_plugin", lambda data: ("older", "") if data == old else ("current", ""))
    code, lines = run(home)
    assert code == 0 and target(home).read_bytes() == BUNDLE
    [backup] = backups(home).iterdir()
    assert backup.read_bytes() == old and "older Herdr Link bundle" in " ".join(lines)


def test_the_typescript_bundle_is_replaced_only_with_yes_and_put_back_by_uninstall(home):
    # As the TypeScript Herdr Link's README installs it: its bundle copied to plugins/herdr-link.js.
    typescript = b'const x = "[herdr-link/1] inter-agent message delivered";\nexport { herdrLinkPlugin };\n'
    target(home).write_bytes(typescript)
    target(home).chmod(0o640)  # the user's own mode, given back with the bytes
    code, lines = run(home)
    assert code == 1 and "TypeScript Herdr Link's bundle" in " ".join(lines) and target(home).read_bytes() == typescript
    code, lines = run(home, yes=True)
    assert code == 0 and target(home).read_bytes() == BUNDLE
    said: list[str] = []
    environ = {"XDG_CONFIG_HOME": str(home / ".config")}
    assert uninstall(environ, home, LINUX, say=said.append, complain=said.append) == 0
    assert target(home).read_bytes() == typescript  # the same bytes back
    assert target(home).stat().st_mode & 0o777 == 0o640  # and the same mode
    assert "the TypeScript Herdr Link's bundle again" in said[-1]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("export default {};\n", "not Herdr Link's"),
        ("// herdr-link-opencode-bridge 0.1.0 | OpenCode 1.x: x; OpenCode 2: y | z\n// edited\n", "edited"),
    ],
)
def test_unknown_or_edited_files_need_confirmation(home, content, needle):
    target(home).write_text(content)
    code, lines = run(home)
    assert code == 1 and needle in " ".join(lines)
    assert lines[-1].startswith("refused without confirmation: ") and lines[-1].endswith("; nothing was changed")
    assert target(home).read_text() == content
    code, _ = run(home, yes=True)
    assert code == 0 and target(home).read_bytes() == BUNDLE
    [backup] = backups(home).iterdir()
    assert backup.read_text() == content


@pytest.mark.parametrize("version", [None, "1.17.9", "2.0.0", "not-a-version", "1.18.13-rc", "1.19.0-beta.1"])
def test_the_v1_precheck_stops_with_guidance_after_the_plan(tmp_path, version):
    plugins = tmp_path / ".config" / "opencode" / "plugins"
    plugins.mkdir(parents=True)
    if version is not None:
        package = tmp_path / ".config" / "opencode" / "node_modules" / "@opencode-ai" / "plugin"
        package.mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": "@opencode-ai/plugin", "version": version}))
    code, lines = run(tmp_path)
    assert code == 1 and lines[0].startswith("OpenCode config: ")  # the plan, then why not
    [blocker] = [line for line in lines if line.startswith("refused: ")]
    assert "@opencode-ai/plugin ^1.18.13" in blocker
    assert f"`npm install --prefix {tmp_path}/.config/opencode @opencode-ai/plugin@1.18.33`" in blocker
    assert lines[-1] == "nothing was changed" and list(plugins.iterdir()) == []


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_the_v1_remedy_runs_as_printed_before_opencode_made_its_folder(tmp_path):
    """OpenCode has never run, so its config folder is missing; the printed command, run in another
    folder, puts the package where the bundle resolves it and writes nothing where it ran."""
    home, elsewhere = tmp_path / "a home", tmp_path / "elsewhere"
    elsewhere.mkdir()
    asked = lambda argv: "1.18.33\n" if argv[1:] == ["--version"] else None  # noqa: E731
    [blocker] = plan_install("v1", {}, home, elsewhere, LINUX, run=asked).blockers
    [command] = re.findall(r"`([^`]*npm [^`]*)`", blocker)
    env = {**os.environ, "npm_config_prefer_offline": "true", "npm_config_audit": "false", "npm_config_fund": "false"}
    done = subprocess.run(["sh", "-c", command], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert list(elsewhere.iterdir()) == []
    assert plan_install("v1", {}, home, elsewhere, LINUX, run=asked).blockers == []


@pytest.mark.parametrize(
    ("text", "ok"),
    [("1.18.13", True), ("1.18.33", True), ("1.99.0", True), ("1.18.12", False), ("1.18.13-rc", False),
     ("1.19.0-beta.1", False), ("2.0.0", False), ("1.18", False), ("v1.18.13", False)],
)  # fmt: skip
def test_the_plugin_range_follows_npm_caret_rules(text, ok):
    assert plugin_version_ok(text) is ok


def test_the_plugin_package_is_resolved_as_node_resolves_it(tmp_path):
    # A package whose "exports" map hides package.json and whose main file sits in a subdirectory:
    # Node's resolver finds it; a hand walk that ignored exports would look for the wrong entry.
    package = tmp_path / "node_modules" / "@opencode-ai" / "plugin"
    (package / "dist").mkdir(parents=True)
    (package / "dist" / "index.js").write_text("export const tool = 1;\n")
    manifest = {"name": "@opencode-ai/plugin", "version": "1.18.20", "type": "module",
                "exports": {".": {"import": "./dist/index.js"}}}  # fmt: skip
    (package / "package.json").write_text(json.dumps(manifest))
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    assert plugin_package_version(plugins) == "1.18.20"
    manifest["exports"] = {"./other": "./dist/index.js"}  # no "." export: Node cannot import the package
    (package / "package.json").write_text(json.dumps(manifest))
    assert plugin_package_version(plugins) is None


@pytest.mark.parametrize(
    ("runtime", "opencode", "half"),
    [("v2", "1.18.33", "1.x half"), ("v1", "1.18.33", None), ("v1", "2.0.1", "2 half"), ("v2", "2.0.1", None)],
)
def test_no_runtime_is_refused_and_the_half_opencode_runs_is_noted(home, runtime, opencode, half):
    # Every file holds OpenCode 1.x's `server` and OpenCode 2's `setup`: a machine with both keeps working.
    asked = lambda argv: f"{opencode}\n" if argv[1:] == ["--version"] else None  # noqa: E731
    plan = plan_install(runtime, {}, home, home / "project", LINUX, run=asked)
    assert plan.opencode == opencode and plan.blockers == [], plan.blockers
    noted = [note for note in plan.notes if "half" in note]
    assert (noted[0] if noted else None) is None if half is None else half in noted[0]
    lines: list[str] = []
    code = install(plan, confirmed=False, environ={}, home=home, say=lines.append, complain=lines.append)
    assert code == 0 and target(home).read_bytes() == BUNDLE
    forced = plan_install(runtime, {}, home, home / "project", LINUX, run=asked, force_runtime=True)
    assert forced.blockers == [] and any("--force-runtime is no longer needed" in note for note in forced.notes)


def test_opencode_1x_needs_the_plugin_package_whichever_runtime_was_named(tmp_path):
    (tmp_path / ".config" / "opencode" / "plugins").mkdir(parents=True)  # no node_modules at all
    asked = lambda argv: "1.18.33\n" if argv[1:] == ["--version"] else None  # noqa: E731
    plan = plan_install("v2", {}, tmp_path, tmp_path, LINUX, run=asked)
    assert len(plan.blockers) == 1 and "needs @opencode-ai/plugin" in plan.blockers[0]
    two = lambda argv: "opencode v2.0.18\n" if argv[1:] == ["--version"] else None  # noqa: E731
    assert plan_install("v2", {}, tmp_path, tmp_path, LINUX, run=two).blockers == []


@pytest.mark.parametrize(
    ("printed", "version"),
    [("1.18.33", "1.18.33"), ("opencode v2.0.18", "2.0.18"), ("v2.1.3", "2.1.3"), ("opencode 1.18.33", "1.18.33")],
)
def test_both_opencodes_version_lines_are_read(home, printed, version):
    """OpenCode 2 prints ``opencode v2.0.18``: read as 2.0.18 (it used to be read as no version)."""
    asked = lambda argv: f"{printed}\n" if argv[1:] == ["--version"] else None  # noqa: E731
    assert opencode_version(asked) == version
    other = "v1" if version.startswith("2") else "v2"
    plan = plan_install(other, {}, home, home / "project", LINUX, run=asked)
    assert plan.opencode == version and plan.blockers == [] and any("half" in note for note in plan.notes)


def test_a_version_line_without_a_version_is_a_warning_not_a_guess(home):
    asked = lambda argv: "opencode dev\n" if argv[1:] == ["--version"] else None  # noqa: E731
    plan = plan_install("v2", {}, home, home / "project", LINUX, run=asked)
    assert plan.blockers == [] and any("printed no version" in note for note in plan.notes)


def test_without_opencode_on_path_the_file_is_installed_as_it_loads_in_either(home):
    plan = plan_install("v2", {}, home, home / "project", LINUX, run=lambda argv: None)
    assert plan.blockers == [] and not any("half" in note for note in plan.notes)


def test_v2_installs_without_the_plugin_package_and_is_called_experimental(tmp_path):
    (tmp_path / ".config" / "opencode" / "plugins").mkdir(parents=True)  # no node_modules at all
    code, lines = run(tmp_path, runtime="v2")
    assert code == 0 and target(tmp_path).read_bytes() == BUNDLE
    assert any(line.startswith("installed: ") and "(checked for OpenCode 2)" in line for line in lines)
    plan = plan_install("v2", {}, tmp_path, tmp_path, LINUX, run=lambda argv: None)
    assert "OpenCode 2 support is experimental." in plan.notes


def test_a_dry_run_that_the_real_run_would_ask_about_says_so(home):
    target(home).write_text("export default {};\n")  # a file of unknown origin where ours goes
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_installer", "--runtime", "v1", "--dry-run"],
        env=env, cwd=home, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the real run asks first: " in done.stdout and "(--yes confirms)" in done.stdout
    assert done.stdout.endswith("dry run: nothing was written\nstate: nothing was changed\n")
    assert target(home).read_text() == "export default {};\n"


def test_the_other_runtime_installs_nothing_new_and_asks_nothing(home):
    """One file for both OpenCodes: naming the other one changes which prerequisites are checked, not the file."""
    assert run(home)[0] == 0
    code, lines = run(home, runtime="v2")
    assert code == 0 and "already installed" in " ".join(lines) and target(home).read_bytes() == BUNDLE
    assert not backups(home).exists()


@pytest.mark.parametrize(
    ("flag", "printed", "runtime"),
    [("v1", "opencode v2.0.18", "v1"), ("v2", "1.18.33", "v2"), (None, "opencode v2.0.18", "v2"),
     (None, "1.18.33", "v1"), (None, None, "v1")],
)  # fmt: skip
def test_the_runtime_is_the_flag_else_the_opencode_on_path(home, flag, printed, runtime):
    asked = lambda argv: f"{printed}\n" if printed and argv[1:] == ["--version"] else None  # noqa: E731
    assert plan_install(flag, {}, home, home / "project", LINUX, run=asked).runtime == runtime
    assert opencode_runtime(flag, opencode_version(asked)) == runtime


def test_the_bundle_must_have_both_entry_points():
    assert module._export_shape_ok(BUNDLE)
    one_runtime = BUNDLE.replace(b", setup: HerdrLinkSetup }", b" }")  # the single-runtime files of before
    assert not module._export_shape_ok(one_runtime)


def test_the_manifest_entry_is_what_gets_installed():
    [entry] = json.loads((packaged_dir() / MANIFEST_FILE).read_text())["bundles"]
    assert entry["file"] == BUNDLE_FILE and "experimental" in entry["plugin_apis"]["v2"]


def test_duplicates_in_other_plugin_directories_are_reported(home):
    project_plugins = home / "project" / ".opencode" / "plugin"
    project_plugins.mkdir(parents=True)
    (project_plugins / "herdr-link.js").write_bytes(BUNDLE)
    (project_plugins / "unrelated.js").write_text("export default {};\n")
    plan = plan_install("v1", {}, home, home / "project", LINUX, run=lambda argv: None)
    assert plan.duplicates == [project_plugins / "herdr-link.js"]
    assert any("duplicate: OpenCode also loads" in line for line in plan.describe())
    lines: list[str] = []
    code = install(plan, confirmed=False, environ={}, home=home, say=lines.append, complain=lines.append)
    assert code == EXIT_DUPLICATE and target(home).read_bytes() == BUNDLE  # installed, and the exit says more


def test_a_symlinked_target_is_an_error_that_changes_nothing(home, tmp_path):
    real = tmp_path / "elsewhere.js"
    real.write_text("mine\n")
    target(home).symlink_to(real)
    with pytest.raises(InstallError, match="symbolic link"):
        plan_install("v1", {}, home, home, LINUX, run=lambda argv: None)
    assert real.read_text() == "mine\n" and target(home).is_symlink()


@pytest.mark.parametrize("step", FAIL_STEPS)
@pytest.mark.parametrize("before", [None, "export default {}; // someone's\n"])
def test_a_failure_at_any_step_leaves_the_old_state(home, step, before, monkeypatch):
    if before is not None:
        target(home).write_text(before)
    code, lines = run(home, yes=True, fail_at=step, monkeypatch=monkeypatch)
    assert code == 1 and any(line.startswith(f"error: injected failure {step}") for line in lines)
    if before is None:
        assert not target(home).exists()
    else:
        assert target(home).read_text() == before
    assert sorted(p.name for p in target(home).parent.iterdir()) == ([] if before is None else ["herdr-link.js"])
    rolled = " ".join(lines)
    assert ("rolled back" in rolled) == (step in ("after-rename", "node-check"))


@pytest.mark.parametrize("step", CRASH_STEPS)
def test_dying_at_any_step_leaves_the_old_state_or_the_manifests_bytes(home, step):
    before = "export default {}; // someone's\n"
    target(home).write_text(before)
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); from pathlib import Path;"
        "from install_faults import inject; from herdr_link_installer import install, plan_install, Platform;"
        f"home = Path({str(home)!r});"
        "plan = plan_install('v1', {}, home, home, Platform('linux'), run=lambda argv: None);"
        f"inject({step!r}, 'crash', Path({str(target(home))!r}));"
        "install(plan, confirmed=True, environ={}, home=home, say=print)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 9  # killed at the step
    assert target(home).read_bytes() in (before.encode(), BUNDLE)
    left = sorted(p.name for p in target(home).parent.iterdir())
    assert [name for name in left if name.endswith((".js", ".ts", ".mjs"))] == ["herdr-link.js"]  # nothing loadable
    assert set(left) <= {"herdr-link.js", "herdr-link.js" + PARTIAL}  # at most the partial copy, under its own name
    made = [p for p in backups(home).iterdir() if p.suffix != ".partial"]
    if step == "during-backup":
        assert made == []  # a backup exists under its real name only when complete
    else:
        [backup] = made
        assert backup.read_text() == before
    assert run(home, yes=True)[0] == 0 and target(home).read_bytes() == BUNDLE  # the next run finishes the job
    assert sorted(p.name for p in target(home).parent.iterdir()) == ["herdr-link.js"]  # and clears what was left


def test_a_failure_after_the_replace_says_the_plugin_is_the_new_bundle(home, monkeypatch):
    code, lines = run(home, yes=True, fail_at="before-location", monkeypatch=monkeypatch)
    assert code == 1 and target(home).read_bytes() == BUNDLE
    assert not any("nothing was changed" in line for line in lines)
    assert lines[-1].startswith(f"state: {target(home)} is the current bundle;")
    assert "bridge location not written: injected failure before-location" in lines[-1]


@pytest.mark.parametrize("step", FAIL_STEPS)
def test_the_last_line_says_what_each_file_is(home, step, monkeypatch):
    target(home).write_text("export default {}; // someone's\n")
    code, lines = run(home, yes=True, fail_at=step, monkeypatch=monkeypatch)
    assert code == 1 and lines[-1].startswith("state: ")
    renamed = step in ("after-rename", "node-check")
    assert ("is restored from" in lines[-1]) == renamed and ("is unchanged" in lines[-1]) == (not renamed)
    assert ("; backup " in lines[-1]) == renamed  # the backup it was restored from; an unchanged file needs none
    monkeypatch.undo()
    code, lines = run(home, yes=True)
    assert code == 0 and lines[-1].startswith(f"state: {target(home)} is the current bundle; backup ")


def test_a_broken_stdout_still_tells_the_state_on_stderr(home, capsys):
    plan = plan_install("v1", {}, home, home / "project", LINUX, run=lambda argv: None)

    def say(line: str) -> None:
        if line.startswith(("installed:", "state:")):
            raise OSError(5, "Input/output error")

    code = install(plan, confirmed=True, environ={"XDG_CONFIG_HOME": str(home / ".config")}, home=home, say=say)
    assert code == 0 and target(home).read_bytes() == BUNDLE
    assert f"state: {target(home)} is the current bundle" in capsys.readouterr().err


def test_the_command_line_dry_run_writes_nothing(home):
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_installer", "--runtime", "v1", "--dry-run"],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "dry run: nothing was written" in done.stdout
    assert not target(home).exists() and not (home / ".config" / "herdr-link").exists()
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_installer"], env=env, cwd=home, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and target(home).read_bytes() == BUNDLE


@pytest.mark.parametrize(
    ("platform", "environ", "asked", "expected"),
    [
        (Platform("linux"), {}, None, "{home}/.config/opencode"),
        (Platform("linux"), {"XDG_CONFIG_HOME": "/x/cfg"}, None, "/x/cfg/opencode"),
        (Platform("linux"), {}, "config     /from/opencode\n", "/from/opencode"),
        (Platform("darwin"), {}, None, "{home}/.config/opencode"),
        # OpenCode's xdg-basedir has no Windows branch: ~/.config/opencode there too, never %APPDATA%
        (Platform("windows"), {"APPDATA": "C:\\Users\\u\\AppData\\Roaming"}, None, "{home}/.config/opencode"),
        (
            Platform("linux", wsl=True),
            {"APPDATA": "C:\\Users\\u"},
            "config /mnt/c/Users/u/.config/opencode\n",
            "{home}/.config/opencode",
        ),
        (Platform("linux"), {"OPENCODE_CONFIG_DIR": "/extra"}, None, "{home}/.config/opencode"),
    ],
)
def test_the_global_config_dir_per_platform(tmp_path, platform, environ, asked, expected):
    found = global_config_dir(environ, tmp_path, platform, run=lambda argv: asked)
    assert str(found).replace("\\", "/") == expected.format(home=tmp_path).replace("\\", "/")


def test_uninstall_removes_ours_keeps_an_edited_copy_and_leaves_anothers(home):
    env = {"XDG_CONFIG_HOME": str(home / ".config")}
    lines: list[str] = []
    assert run(home, yes=True)[0] == 0
    location = home / ".config" / "herdr-link" / "bridge.json"
    assert json.loads(location.read_text())["users"] == ["opencode"]
    assert uninstall(env, home, LINUX, say=lines.append, complain=lines.append) == 0
    assert not target(home).exists() and not location.exists()  # no other runtime needed it
    assert lines[-1].startswith("state: plugin") and "removed" in lines[-1]
    assert run(home, yes=True)[0] == 0
    target(home).write_bytes(BUNDLE + b"\n// edited by hand\n")
    lines.clear()
    assert uninstall(env, home, LINUX, say=lines.append, complain=lines.append) == 0
    kept = backups(home).iterdir()
    assert any(b.read_bytes().endswith(b"// edited by hand\n") for b in kept) and not target(home).exists()
    target(home).write_text("export default {}; // someone's\n")
    assert uninstall(env, home, LINUX, say=lines.append, complain=lines.append) == 1
    assert target(home).read_text() == "export default {}; // someone's\n"


def test_the_bridge_location_stays_while_another_runtime_uses_it(home):
    from herdr_link_control.userfiles import release_location_file, write_location_file

    location = home / ".config" / "herdr-link" / "bridge.json"
    write_location_file(location, ["/x/herdr-link-bridge"], user="pi")
    write_location_file(location, ["/x/herdr-link-bridge"], user="opencode")
    written = json.loads(location.read_text())
    assert written["command"] == ["/x/herdr-link-bridge"] and written["users"] == ["opencode", "pi"]
    assert release_location_file(location, "opencode") == "kept" and location.exists()
    assert release_location_file(location, "pi") == "removed" and not location.exists()
    location.write_text('{"command": ["/x"]}\n')  # written before users were recorded: who needs it is unknown
    assert release_location_file(location, "opencode") == "kept"


def test_a_runtime_uninstalled_points_the_location_at_the_bridge_another_installed(home, tmp_path):
    from herdr_link_control.userfiles import reinstall_commands, release_location_file, write_location_file

    location = home / ".config" / "herdr-link" / "bridge.json"
    opencode = tmp_path / "opencode-tool" / "herdr-link-bridge"
    opencode.parent.mkdir()
    opencode.write_text("#!/bin/sh\n")
    opencode.chmod(0o755)
    pi = ["/tools/herdr-link-pi-bridge/bin/herdr-link-bridge"]  # its tool: removed after its uninstall
    write_location_file(
        location, [str(opencode)], user="opencode", reinstall="herdr-link-opencode-install --runtime v2"
    )
    write_location_file(location, pi, user="pi", reinstall="herdr-link-pi-bridge install")
    assert json.loads(location.read_text())["command"] == pi
    assert reinstall_commands(location)["opencode"] == "herdr-link-opencode-install --runtime v2"
    assert release_location_file(location, "pi", own=pi) == "re-pointed"
    body = json.loads(location.read_text())
    assert body["command"] == [str(opencode)] and body["users"] == ["opencode"] and list(body["by"]) == ["opencode"]
    assert release_location_file(location, "opencode") == "removed"


def test_backups_are_capped(home):
    for index in range(8):
        target(home).write_text(f"export default {{}}; // someone's {index}\n")
        assert run(home, yes=True)[0] == 0
    kept = sorted(backups(home).iterdir())
    assert len(kept) == 5 and kept[-1].read_text() == "export default {}; // someone's 7\n"


def test_the_question_comes_after_the_plan_and_a_no_is_said_plainly(home):
    import pty

    target(home).write_text("export default {};\n")  # a foreign file: replacing it needs a yes
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "PATH": "/usr/bin:/bin"}
    controller, terminal = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "herdr_link_installer"],
        stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=home, text=True,
    ) as process:  # fmt: skip
        os.close(terminal)
        os.write(controller, b"n\n")
        out, err = process.communicate(timeout=120)
    os.close(controller)
    assert process.returncode == 1
    assert out.index("target: ") < out.index("[y/N]")  # the plan first, then the question about it
    assert "declined: did not replace" in err and err.rstrip().endswith("nothing was changed")
    assert "Cowardly" not in out + err and target(home).read_text() == "export default {};\n"


def test_a_dry_run_shows_the_plan_and_why_it_would_be_refused(tmp_path):
    (tmp_path / ".config" / "opencode" / "plugins").mkdir(parents=True)  # no @opencode-ai/plugin
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_installer", "--dry-run"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout.startswith("OpenCode config: ")
    assert "would refuse: the V1 bundle needs @opencode-ai/plugin" in done.stderr
    assert done.stdout.endswith("dry run: nothing was written\nstate: nothing was changed\n")
    assert not target(tmp_path).exists()


def test_a_plan_asks_opencode_for_its_config_dir_once(home):
    asked: list[list[str]] = []

    def opencode(argv: list[str]) -> None:  # no opencode here: record what was asked, answer nothing
        asked.append(argv)

    plan_install("v1", {}, home, home / "project", LINUX, run=opencode)
    assert asked.count(["opencode", "debug", "paths"]) == 1 and asked.count(["opencode", "--version"]) == 1


def fake_program(directory: Path, name: str, script: str) -> None:
    directory.mkdir(exist_ok=True)
    program = directory / name
    program.write_text(f"#!/bin/sh\n{script}\n")
    program.chmod(0o755)


def test_an_opencode_that_exits_non_zero_is_reported_as_that_not_as_missing(home, tmp_path, monkeypatch):
    fake_program(tmp_path / "bin", "opencode", "echo 'config file broken' >&2; exit 3")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    plan = plan_install("v1", {}, home, home / "project", LINUX)
    [note] = [n for n in plan.notes if "opencode" in n]
    assert "exited with status 3: config file broken" in note and "not on PATH" not in note
    fake_program(tmp_path / "bin", "opencode", "echo 'a banner'")
    [note] = [n for n in plan_install("v1", {}, home, home / "project", LINUX).notes if "opencode" in n]
    assert "printed no version" in note and "not on PATH" not in note
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert [n for n in plan_install("v1", {}, home, home / "project", LINUX).notes if "opencode" in n] == []


def test_a_node_that_fails_to_run_is_reported_as_that_not_as_unresolved(tmp_path, monkeypatch):
    fake_program(tmp_path / "bin", "node", "echo 'node: bad option' >&2; exit 9")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    home = tmp_path / "home"
    (home / ".config" / "opencode" / "plugins").mkdir(parents=True)
    plan = plan_install("v1", {}, home, home / "project", LINUX, run=lambda argv: None)
    [blocker] = plan.blockers
    assert "Node (" in blocker and "failed to run the check (exit status 9): node: bad option" in blocker
    assert "it does not resolve" not in blocker
    with pytest.raises(ProgramFailed):
        plugin_package_version(home / ".config" / "opencode" / "plugins")


def test_uninstall_that_meets_an_os_error_says_the_state_and_exits_1_without_a_traceback(home, monkeypatch, capsys):
    assert run(home)[0] == 0
    real_replace = os.replace

    def refuse(source: object, destination: object) -> None:
        if Path(str(source)) == target(home):  # the install core moves the file aside to remove it
            raise PermissionError(13, "Permission denied", str(source))
        real_replace(source, destination)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    from herdr_link_installer.cli import main

    assert main(["--uninstall"]) == 1
    out, err = capsys.readouterr()
    assert f"error: Permission denied: {target(home)}" in err and "Traceback" not in out + err
    assert out.splitlines()[-1].startswith(f"state: plugin {target(home)} unchanged; bridge location ")
    assert target(home).read_bytes() == BUNDLE


def test_uninstall_shows_its_plan_and_a_dry_run_removes_nothing(home):
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "PATH": "/usr/bin:/bin"}

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "herdr_link_installer", *args]
        return subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)

    assert command().returncode == 0 and target(home).read_bytes() == BUNDLE
    dry = command("--uninstall", "--dry-run")
    assert dry.returncode == 0 and dry.stdout.startswith("plan (uninstall Herdr Link's OpenCode plugin):\n")
    assert f"  {target(home)}: remove (backup kept)\n" in dry.stdout
    assert dry.stdout.endswith("dry run: nothing was written\nstate: nothing was changed\n")
    assert target(home).read_bytes() == BUNDLE and (home / ".config" / "herdr-link" / "bridge.json").exists()
    done = command("--uninstall")
    assert done.returncode == 0 and not target(home).exists() and done.stdout.splitlines()[-1].startswith("state:")
    again = command("--uninstall")
    assert again.returncode == 0 and "nothing to take out" in again.stdout
    assert command("--uninstall", "--force-runtime").returncode == 2


def test_a_folder_at_the_plugins_place_is_named_and_nothing_changes(home):
    target(home).mkdir()
    with pytest.raises(InstallError, match="is a folder, not a file: nothing was changed"):
        plan_install("v1", {}, home, home, LINUX, run=lambda argv: None)
    assert target(home).is_dir()


def test_without_node_the_import_check_is_said_not_to_have_run(home, monkeypatch):
    import shutil

    import herdr_link_installer._install as installer

    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "node" else real_which(name))
    monkeypatch.setattr(installer, "plugin_package_version", lambda directory: "1.18.33")
    code, lines = run(home, yes=True)
    assert code == 0 and not any(line.startswith("checking that Node") for line in lines)
    assert any(line.startswith("not checked: Node is not on PATH") for line in lines), lines


def test_reinstalling_repairs_a_bridge_location_whose_tool_was_removed(home):
    # Another installer's tool environment wrote the location, then was removed (`uv tool uninstall …`):
    # the doctor says "reinstall: herdr-link-opencode-install", which must then repair it, although the
    # plugin file itself is current.
    run(home)
    location = home / ".config" / "herdr-link" / "bridge.json"
    gone = {"command": [str(home / "removed-tool" / "bin" / "herdr-link-bridge")], "users": ["pi", "opencode"]}
    location.write_text(json.dumps(gone))
    code, lines = run(home)
    assert code == 0 and any(line.startswith("repaired: ") for line in lines), lines
    command = json.loads(location.read_text())["command"]
    answered = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
    assert answered.returncode == 0 and "contract" in answered.stdout
    code, lines = run(home)  # and a working location is left alone
    assert code == 0 and not any(line.startswith("repaired: ") for line in lines)


def test_a_packaged_manifest_without_exactly_one_bundle_is_a_clear_refusal(home, tmp_path, monkeypatch):
    packaged = tmp_path / "packaged"
    packaged.mkdir()
    manifest = json.loads((packaged_dir() / MANIFEST_FILE).read_text())
    manifest["bundles"] *= 2
    (packaged / MANIFEST_FILE).write_text(json.dumps(manifest))
    monkeypatch.setattr(module, "packaged_dir", lambda: packaged)
    with pytest.raises(InstallError, match="does not name exactly one bundle"):
        plan_install("v1", {}, home, home / "project", LINUX, run=lambda argv: None)


def test_a_file_written_after_the_plan_is_never_written_over(home):
    target(home).write_text("export default {}; // someone's\n")
    plan = plan_install("v1", {}, home, home / "project", LINUX, run=lambda argv: None)
    target(home).write_text("export default {}; // written while the question waited\n")
    lines: list[str] = []
    code = install(plan, confirmed=True, environ={}, home=home, say=lines.append, complain=lines.append)
    assert code == 1 and target(home).read_text() == "export default {}; // written while the question waited\n"
    assert any("changed while this run was planning" in line and line.endswith("run again") for line in lines)
    assert lines[-1] == f"state: {target(home)} is unchanged; bridge location unchanged"


def test_install_and_uninstall_back_up_by_the_files_own_path_beside_the_other_installers(home):
    target(home).write_text("export default {}; // someone's\n")
    assert run(home, yes=True)[0] == 0
    [first] = backups(home).iterdir()
    assert first.name.startswith("herdr-link.js.") and first.read_text() == "export default {}; // someone's\n"
    assert first.stat().st_mode & 0o077 == 0 or first.parent.stat().st_mode & 0o077 == 0  # private
    said: list[str] = []
    assert uninstall({}, home, LINUX, say=said.append, complain=said.append) == 0
    assert not target(home).exists() and len(list(backups(home).iterdir())) == 2  # the removed bundle too
    assert any(line.startswith("backup: ") for line in said) and "removed (backup " in said[-1]
    assert not (config(home) / "herdr-link-install").exists()  # no second place for backups


def test_uninstall_leaves_a_symbolic_link_alone(home, tmp_path):
    real = tmp_path / "dotfiles-herdr-link.js"
    real.write_bytes(BUNDLE)
    target(home).symlink_to(real)
    said: list[str] = []
    assert uninstall({}, home, LINUX, say=said.append, complain=said.append) == 1
    assert target(home).is_symlink() and real.read_bytes() == BUNDLE
    assert any("symbolic link" in line for line in said) and said[-1].endswith("unchanged")
