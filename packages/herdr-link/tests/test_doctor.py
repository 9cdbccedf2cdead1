"""``herdr-link doctor`` inside and outside a simulated Herdr pane, with good, broken and absent setups."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from herdr_link import diagnose
from herdr_link_control import hosts
from herdr_link_control.hosts import Host, hosts_with
from herdr_link_mcp import wiring
from herdr_link_opencode_bridge import BUNDLE_FILE, packaged_dir
from herdr_link_testkit import Fault, HerdrSim

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "agent_config.example.json"


def statuses(checks) -> dict[str, str]:
    return {check.name: check.status for check in checks}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def brain(herdr_sim: HerdrSim, tmp_path) -> str:
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "claude", name="brain")
    herdr_sim.add_agent(herdr_sim.split(pane), "codex", name="reviewer")
    return pane


def test_outside_herdr_the_environment_fails_and_the_rest_is_skipped(home, tmp_path):
    checks = diagnose({"PATH": "/usr/bin"}, tmp_path, home)
    result = statuses(checks)
    assert result["environment"] == "FAIL" and result["Herdr server"] == "SKIP" and result["identity"] == "SKIP"
    assert result["agent_config.json"] == "SKIP" and result["OpenCode plugin"] == "SKIP"
    assert [c.status for c in checks if c.name in ("Claude Code", "Codex")] == ["SKIP", "SKIP"]


def test_a_good_setup_passes_everything_it_checks(herdr_sim: HerdrSim, brain, home, tmp_path):
    (tmp_path / ".agents").mkdir()
    shutil.copy(EXAMPLE, tmp_path / ".agents" / "agent_config.json")
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(wiring("codex").files[0].content)
    plugins = home / ".config" / "opencode" / "plugins"
    plugins.mkdir(parents=True)
    shutil.copy(packaged_dir() / BUNDLE_FILE, plugins / "herdr-link.js")
    from herdr_link_pi_bridge import install

    assert install(home, tmp_path, {"XDG_CONFIG_HOME": str(home / ".config")}).action == "installed"
    checks = diagnose(herdr_sim.env(brain), tmp_path, home)
    assert statuses(checks)["Pi extension"] == "PASS"
    result = statuses(checks)
    assert {
        k: result[k]
        for k in ("environment", "Herdr server", "identity", "peers", "agent_config.json", "Codex", "OpenCode plugin")
    } == dict.fromkeys(
        ("environment", "Herdr server", "identity", "peers", "agent_config.json", "Codex", "OpenCode plugin"), "PASS"
    )
    details = {c.name: c.detail for c in checks}
    assert "brain" in details["identity"] and "reviewer" in details["peers"]
    assert details["Herdr server"] == f"{herdr_sim.env(brain)['HERDR_BIN_PATH']} reaches its server"
    assert not any(c.status == "FAIL" for c in checks)
    assert not any(c[:2] == ("agent", "rename") for c in herdr_sim.log.commands())  # read-only


def test_an_unnamed_agent_is_reported_not_renamed(herdr_sim: HerdrSim, home, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "pi")
    identity = next(c for c in diagnose(herdr_sim.env(pane), tmp_path, home) if c.name == "identity")
    assert identity.status == "PASS" and "hl-<hex> on first use" in identity.detail
    assert herdr_sim.name_of(pane) is None


def test_broken_setups_fail_with_their_fix(herdr_sim: HerdrSim, brain, home, tmp_path):
    (tmp_path / ".agents").mkdir()
    (tmp_path / ".agents" / "agent_config.json").write_text('{"version":1,"agents":{}}')
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('[mcp_servers.herdr_link]\ncommand = "/bin/true"\n')
    plugins = home / ".config" / "opencode" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "herdr-link.js").write_text((packaged_dir() / BUNDLE_FILE).read_text() + "\n// edited by hand\n")
    pi_extension = home / ".pi" / "agent" / "extensions" / "herdr-link.js"
    pi_extension.parent.mkdir(parents=True)
    pi_extension.write_text("export default function mine(pi) {}\n")
    checks = {c.name: c for c in diagnose(herdr_sim.env(brain), tmp_path, home)}
    assert checks["Pi extension"].status == "FAIL" and "--yes" in checks["Pi extension"].fix
    assert checks["agent_config.json"].status == "FAIL" and checks["agent_config.json"].fix
    assert checks["Codex"].status == "FAIL" and "env_vars" in checks["Codex"].fix
    opencode = checks["OpenCode plugin"]
    assert opencode.status == "FAIL" and "an edited Herdr Link bundle" in opencode.detail
    assert opencode.fix.startswith("reinstall it: herdr-link-opencode-install --yes")  # the command that works


def _fake_opencode(bin_dir: Path, version: str, config: Path) -> None:
    """An ``opencode`` on PATH that answers ``--version`` and ``debug paths`` as OpenCode 1.18 does."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "opencode"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "--version" ]; then echo {version}; exit 0; fi\n'
        f'if [ "$1" = "debug" ]; then echo "config {config}"; exit 0; fi\n'
        "exit 1\n"
    )
    script.chmod(0o755)


def test_the_opencode_check_says_what_opencode_will_load(herdr_sim: HerdrSim, brain, home, tmp_path, monkeypatch):
    bundle = (packaged_dir() / BUNDLE_FILE).read_bytes()
    asked = tmp_path / "from-debug-paths"  # where `opencode debug paths` says the config is
    _fake_opencode(tmp_path / "bin", "1.18.33", asked)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{__import__('os').environ['PATH']}")
    check = lambda: next(c for c in diagnose(herdr_sim.env(brain), tmp_path, home) if c.name == "OpenCode plugin")  # noqa: E731
    (asked / "plugins").mkdir(parents=True)
    (asked / "plugins" / "herdr-link.js").write_bytes(bundle)
    assert check().status == "PASS" and str(asked) in check().detail  # the dir OpenCode itself names
    project = tmp_path / ".opencode" / "plugins"
    project.mkdir(parents=True)
    (project / "herdr-link.js").write_bytes(bundle)
    twice = check()
    assert twice.status == "FAIL" and "OpenCode loads 2 Herdr Link files" in twice.detail
    assert str(project / "herdr-link.js") in twice.fix
    (project / "herdr-link.js").unlink()
    (asked / "plugins" / "herdr-link.js").write_bytes(bundle)
    either = check()  # one file: on OpenCode 1.x it loads through its 1.x half
    assert either.status == "PASS" and "loads in OpenCode 1.x and 2" in either.detail
    assert "opencode --standalone" not in either.detail
    _fake_opencode(tmp_path / "bin", "opencode v2.0.18", asked)  # as released 2.0.x prints it
    v2 = check()  # the same file on OpenCode 2: the shared server's advice
    assert v2.status == "PASS" and "is the current bundle" in v2.detail
    assert "opencode --standalone" in v2.detail and "opencode service set disabled true" in v2.detail


def test_herdr_is_asked_through_its_cli_only(herdr_sim: HerdrSim, brain, home, tmp_path):
    herdr_sim.log.clear()
    diagnose(herdr_sim.env(brain), tmp_path, home)
    requests = [request["id"] for request in herdr_sim.log.requests]
    assert requests and all(str(i).startswith(("cli:", "api-client:")) for i in requests), requests
    assert {c[:2] for c in herdr_sim.log.commands()} == {("agent", "get"), ("agent", "list")}


def test_a_protocol_mismatch_is_reported_as_the_cli_reports_it(herdr_sim: HerdrSim, brain, home, tmp_path):
    herdr_sim.fault_method("ping", Fault("protocol_mismatch", protocol=22))
    server = next(c for c in diagnose(herdr_sim.env(brain), tmp_path, home) if c.name == "Herdr server")
    assert server.status == "FAIL" and "protocol_mismatch" in server.detail
    assert "client protocol 20 is older than server protocol 22; upgrade the Herdr client" in server.detail
    assert "different versions" in server.fix


def test_a_plain_shell_reports_its_workspace_peers(herdr_sim: HerdrSim, brain, home, tmp_path):
    shell = herdr_sim.split(brain)
    checks = {c.name: c for c in diagnose(herdr_sim.env(shell), tmp_path, home)}
    assert checks["identity"].status == "SKIP" and "plain shell" in checks["identity"].detail
    assert checks["peers"].detail == "2 named agent(s) in this workspace: brain, reviewer"


def test_a_removed_binary_and_a_stopped_server_fail(herdr_sim: HerdrSim, brain, home, tmp_path):
    env = herdr_sim.env(brain)
    herdr_sim.stop()
    server = next(c for c in diagnose(env, tmp_path, home) if c.name == "Herdr server")
    assert (
        server.status == "FAIL"
        and "server_not_running" in server.detail
        and server.fix.startswith("start the Herdr server")
    )
    herdr_sim.remove_binary()
    assert statuses(diagnose(env, tmp_path, home))["Herdr binary"] == "FAIL"


def test_the_command_exits_1_only_on_failure(herdr_sim: HerdrSim, brain, home, tmp_path):
    env = {**herdr_sim.env(brain), "HOME": str(home)}
    good = subprocess.run(
        [sys.executable, "-m", "herdr_link", "doctor"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "PASS  identity: this agent is named brain" in good.stdout and good.stdout.rstrip().endswith("checks")
    outside = subprocess.run(
        [sys.executable, "-m", "herdr_link", "doctor"],
        env={"PATH": "/usr/bin", "HOME": str(home)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        outside.returncode == 1 and "FAIL  environment" in outside.stdout and "fix: run this inside" in outside.stdout
    )


def test_the_shipped_example_is_the_repositorys_and_is_valid():
    from importlib.resources import files

    from herdr_link_protocol import parse_agent_config

    shipped = (files("herdr_link") / "examples" / "agent_config.example.json").read_bytes()
    assert shipped == EXAMPLE.read_bytes()
    assert set(parse_agent_config(shipped).agents) == {"example-single", "example-round-robin", "example-with"}
    json.loads(shipped)


MCP_HOSTS = [host.title for host in hosts_with("servers")]
HOOK_HOSTS = [host.title for host in hosts_with("hook") if host.servers is not None]
NAMES = [
    "environment", "Herdr binary", "Herdr server", "identity", "peers", "agent kinds", "agent_config.json", *MCP_HOSTS,
    *(f"{title} hint hook" for title in HOOK_HOSTS), "OpenCode plugin", "Pi extension", "bridge",
    *(f"worker here: {title}" for title in MCP_HOSTS),
    *(f"{host.title} shared process" for host in hosts_with("shared")), "Node", "settings", "trace", "hosts",
]  # fmt: skip
"""The doctor's lines: one per fact, and one wiring, hint hook and worker line per host of the table."""
TODAYS_HOSTS = [
    "Claude Code", "Codex", "AGY", "Gemini CLI", "Pi (built-in MCP)", "Claude Code hint hook", "Codex hint hook",
    "AGY hint hook", "Gemini CLI hint hook", "worker here: Claude Code", "worker here: Codex", "worker here: AGY",
    "worker here: Gemini CLI", "worker here: Pi (built-in MCP)",
]  # fmt: skip
"""The lines today's hosts give, in order (a host added to the table adds lines; none of these goes)."""


def test_the_lines_of_todays_hosts_stay(tmp_path):
    names = [c.name for c in diagnose({"PATH": "/usr/bin"}, tmp_path, tmp_path)]
    assert [name for name in names if name in TODAYS_HOSTS] == TODAYS_HOSTS


def test_the_same_checks_run_in_every_situation(herdr_sim: HerdrSim, brain, home, tmp_path):
    situations = [diagnose({"PATH": "/usr/bin"}, tmp_path, home), diagnose(herdr_sim.env(brain), tmp_path, home)]
    env = herdr_sim.env(brain)
    herdr_sim.stop()
    situations.append(diagnose(env, tmp_path, home))
    herdr_sim.remove_binary()
    situations.append(diagnose(env, tmp_path, home))
    assert [[c.name for c in checks] for checks in situations] == [NAMES] * 4
    nothing_wired = next(c for c in situations[0] if c.name == "hosts")
    assert nothing_wired.status == "WARN" and "nothing is wired" in nothing_wired.detail
    codex = next(c for c in situations[0] if c.name == "Codex")
    assert codex.status == "SKIP" and str(home / ".codex" / "config.toml") in codex.detail  # says where it looked


def test_a_binary_that_cannot_run_is_named_once_and_nothing_leaks_to_stderr(herdr_sim: HerdrSim, brain, home, tmp_path):
    broken = tmp_path / "herdr"
    broken.write_text("#!/no/such/interpreter\n")
    broken.chmod(0o755)
    env = {**herdr_sim.env(brain), "HERDR_BIN_PATH": str(broken), "HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link", "doctor"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stderr == ""
    assert f"FAIL  Herdr binary: {broken} cannot be run" in done.stdout
    assert "SKIP  Herdr server: the Herdr binary cannot be run" in done.stdout
    assert "plain shell" not in done.stdout


def test_an_invalid_configuration_lists_every_problem_at_its_place(home, tmp_path):
    (tmp_path / ".agents").mkdir()
    (tmp_path / ".agents" / "agent_config.json").write_text(
        '{"agents":{"rev":{"placement":{"mode":"new_tab"},"variants":[{"kind":"pi","args":"--model x"}]}}}'
    )
    check = next(c for c in diagnose({"PATH": "/usr/bin"}, tmp_path, home) if c.name == "agent_config.json")
    assert check.status == "FAIL" and "agents.rev.variants[0].args: input should be a valid array" in check.detail
    assert "pydantic" not in check.detail and "For further information" not in check.detail


def test_the_bridge_is_checked_when_a_stub_needs_it(home, tmp_path):
    env = {"PATH": "/usr/bin", "XDG_CONFIG_HOME": str(home / ".config")}
    plugins = home / ".config" / "opencode" / "plugins"
    plugins.mkdir(parents=True)
    shutil.copy(packaged_dir() / BUNDLE_FILE, plugins / "herdr-link.js")
    location = home / ".config" / "herdr-link" / "bridge.json"
    location.parent.mkdir(parents=True)
    bridge = str(Path(sys.executable).parent / "herdr-link-bridge")

    def check(command: list[str]):
        location.write_text(json.dumps({"command": command}))
        return next(c for c in diagnose(env, tmp_path, home) if c.name == "bridge")

    good = check([bridge])
    assert good.status == "PASS" and "(contract 1)" in good.detail
    gone = check([str(tmp_path / "deleted-venv" / "bin" / "herdr-link-bridge")])
    assert gone.status == "FAIL" and "does not exist" in gone.detail and "herdr-link-opencode-install" in gone.fix
    other = tmp_path / "other-bridge"
    other.write_text("#!/bin/sh\necho 'herdr-link-bridge 9.9.9 (contract 99)'\n")
    other.chmod(0o755)
    mismatched = check([str(other)])
    assert mismatched.status == "FAIL" and "contract 99" in mismatched.detail
    location.unlink()
    missing = next(c for c in diagnose(env, tmp_path, home) if c.name == "bridge")
    assert missing.status == "FAIL" and "missing" in missing.detail  # and herdr-link-bridge is not on PATH
    on_path = {**env, "PATH": f"{Path(bridge).parent}:/usr/bin"}
    fallback = next(c for c in diagnose(on_path, tmp_path, home) if c.name == "bridge")
    assert fallback.status == "PASS" and "on PATH" in fallback.detail


def test_json_output_has_every_check_and_the_verdict(herdr_sim: HerdrSim, brain, home, tmp_path):
    env = {**herdr_sim.env(brain), "HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link", "doctor", "--json"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert [c["name"] for c in report["checks"]] == NAMES and report["failed"] == 0 and report["warnings"] == 1
    assert done.returncode == 0 and report["verdict"].startswith(f"OK: 0 failed, 1 warning(s), of {len(NAMES)} checks")


def test_a_corrupt_bridge_location_is_unreadable_at_its_path_not_unconfigured(home, tmp_path):
    env = {"PATH": "/usr/bin", "XDG_CONFIG_HOME": str(home / ".config")}
    location = home / ".config" / "herdr-link" / "bridge.json"
    location.parent.mkdir(parents=True)

    def check():
        return next(c for c in diagnose(env, tmp_path, home) if c.name == "bridge")

    location.write_text('{"command": ["/x/herdr-link-bridge"')  # cut short
    unused = check()  # no plugin or extension needs a bridge yet
    assert unused.status == "WARN" and f"unreadable at {location} (not JSON)" in unused.detail
    assert "no bridge configured" not in unused.detail
    plugins = home / ".config" / "opencode" / "plugins"
    plugins.mkdir(parents=True)
    shutil.copy(packaged_dir() / BUNDLE_FILE, plugins / "herdr-link.js")
    needed = check()
    assert needed.status == "FAIL" and f"unreadable at {location} (not JSON)" in needed.detail and needed.fix
    location.write_text('{"command": "herdr-link-bridge"}')
    assert f'unreadable at {location} (no "command" list of strings)' in check().detail


def test_the_pi_check_tells_an_edited_copy_from_an_older_one(tmp_path):
    from herdr_link._files import pi_check
    from herdr_link_pi_bridge import id_line

    home = tmp_path / "home"
    extension = home / ".pi" / "agent" / "extensions" / "herdr-link.js"
    extension.parent.mkdir(parents=True)
    extension.write_text(id_line() + "// edited by hand\n")
    edited = pi_check(home, tmp_path)
    assert edited.status == "FAIL" and "an edited copy" in edited.detail and "--yes" in edited.fix
    extension.write_text("// herdr-link-pi-bridge 0.0.1 | runtime pi | old\n")
    older = pi_check(home, tmp_path)
    assert older.status == "FAIL" and "an older" in older.detail and older.fix == "herdr-link-pi-bridge install"


def test_in_a_herdr_core_terminal_the_doctor_says_what_it_is(home, tmp_path):
    core = {"PATH": "/usr/bin", "HC_TERMINAL_ID": "t-1", "HC_SESSION": "s-1"}
    environment = diagnose(core, tmp_path, home)[0]
    assert environment.status == "FAIL" and "this is a herdr-core terminal" in environment.detail
    assert "not yet in herdr-core or herdr-app terminals" in environment.detail
    plain = diagnose({"PATH": "/usr/bin"}, tmp_path, home)[0]
    assert "herdr-core" not in plain.detail and "not in a Herdr pane" in plain.detail


def test_the_settings_line_says_the_loop_guards_limit_and_where_to_set_it(tmp_path):
    def line(environ: dict[str, str]) -> tuple[str, str]:
        check = next(c for c in diagnose({"PATH": "/usr/bin", **environ}, tmp_path, tmp_path) if c.name == "settings")
        return check.status, check.detail

    status, detail = line({})
    assert status == "PASS" and "at most 50 messages" in detail
    assert str(tmp_path / ".config" / "herdr-link" / "config.toml") in detail
    settings = tmp_path / "mine.toml"
    settings.write_text("[loop_guard]\nmessages = 0\n")
    assert line({"HERDR_LINK_CONFIG": str(settings)})[0] == "WARN"
    settings.write_text("[loop_guard]\nmessages = -2\n")
    status, detail = line({"HERDR_LINK_CONFIG": str(settings)})
    assert status == "WARN" and "loop_guard.messages must be a number" in detail


def test_the_trace_line_says_whether_it_is_on_and_where(tmp_path):
    def line(environ: dict[str, str]) -> str:
        checks = diagnose({"PATH": "/usr/bin", **environ}, tmp_path, tmp_path)
        return next(c for c in checks if c.name == "trace").detail

    assert line({}).startswith("trace off") and "[trace] file" in line({})
    settings = tmp_path / "mine.toml"
    settings.write_text('[trace]\nfile = "~/t.jsonl"\n')
    assert line({"HERDR_LINK_CONFIG": str(settings)}) == f"trace on: {tmp_path / 't.jsonl'} (set in {settings})"
    assert line({"HERDR_LINK_TRACE": "/x/t.jsonl"}).endswith("HERDR_LINK_TRACE: /x/t.jsonl")


def test_an_agent_of_a_kind_link_cannot_wire_is_named_with_the_reason(
    herdr_sim: HerdrSim, brain, home, tmp_path, monkeypatch
):
    env = {**herdr_sim.env(brain), "HOME": str(home)}
    # every kind Herdr runs is wired today: the unwired path is shown with a made-up row on the public table
    rows = tuple(
        Host(row.name, row.title, kind=row.kind, unwired="its MCP file is not known") if row.kind == "kimi" else row
        for row in hosts.HOSTS
    )
    monkeypatch.setattr(hosts, "HOSTS", rows)

    def kinds():
        return next(c for c in diagnose(env, tmp_path, home) if c.name == "agent kinds")

    assert kinds().status == "PASS" and "claude" in kinds().detail
    herdr_sim.add_agent(herdr_sim.split(brain), "kimi", name="minimal")
    herdr_sim.add_agent(herdr_sim.split(brain), "copilot", name="pilot")  # wired: not named
    found = kinds()
    assert found.status == "WARN" and "minimal (kimi): its MCP file is not known" in found.detail
    assert "pilot" not in found.detail
