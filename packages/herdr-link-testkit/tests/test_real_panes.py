"""Real panes: each pane a pseudo-terminal running a shell as Herdr starts it, agents found by
detection, ``agent start`` typing into the shell, ``agent prompt`` typing into the TUI.

The agent here is the testkit's fake TUI (:mod:`herdr_link_testkit.fake_tui`), installed as
``claude``. Every wait is on an event with a generous bound; the only timing asserted is a lower
bound (the Enter comes no sooner than Herdr's 300 ms), which a slow machine cannot break.
"""

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr_link_testkit import HerdrError, HerdrSim
from herdr_link_testkit.fake_tui import install_fake_agent

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="real panes read /proc (Linux)")

WAIT = 30.0


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    install_fake_agent(tmp_path / "bin", "claude")
    return tmp_path / "bin"


@pytest.fixture
def sim(tmp_path: Path, bin_dir: Path) -> Iterator[HerdrSim]:
    env = {
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        "SHELL": "/bin/bash",
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        "SERVER_ONLY": "from-the-server",
        "CODEX_THREAD_ID": "outer-session",
    }
    (tmp_path / "home").mkdir()
    with HerdrSim(real_panes=True, env=env) as simulator:
        yield simulator


def _folder(tmp_path: Path, name: str, **options: object) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    if options:
        (folder / ".fake-tui.json").write_text(json.dumps(options), encoding="utf-8")
    return folder


def _herdr(sim: HerdrSim, pane: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sim.bin_path, *args], env=sim.env(pane), capture_output=True, text=True, timeout=120, check=False
    )


def _at_prompt(sim: HerdrSim, pane: str) -> None:
    sim.wait_for(lambda: sim.read(pane).rstrip().endswith(("#", "$")), timeout=WAIT, what="the shell's prompt")


def _wait_for_line(sim: HerdrSim, pane: str, line: str) -> None:
    sim.wait_for(lambda: line in sim.read(pane).splitlines(), timeout=WAIT, what=f"{line!r} in {pane}")


def _wait_foreground(sim: HerdrSim, pane: str, program: str) -> None:
    def running() -> bool:
        info = sim.request("pane.process_info", pane_id=pane)["process_info"]
        processes = info["foreground_processes"]  # empty for a moment while the shell forks and execs
        return bool(processes) and processes[0]["name"] == program

    sim.wait_for(running, timeout=WAIT, what=f"{program} in the foreground of {pane}")


def _status(sim: HerdrSim, name: str) -> str:
    return str(sim.agent(name)["agent_status"])


def _reads(folder: Path) -> list[tuple[float, bytes]]:
    log = folder / "input.jsonl"
    if not log.exists():
        return []
    return [(r["t"], bytes.fromhex(r["hex"])) for r in map(json.loads, log.read_text(encoding="utf-8").splitlines())]


def _start(sim: HerdrSim, pane: str, name: str = "reviewer") -> subprocess.CompletedProcess[str]:
    return _herdr(sim, pane, "agent", "start", name, "--kind", "claude", "--pane", pane)


# ---- the pane's shell -------------------------------------------------------------------------


def test_a_real_pane_runs_the_servers_shell_non_login_with_herdrs_variables(sim: HerdrSim, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    pane = sim.create_workspace(str(folder))
    _at_prompt(sim, pane)
    sim.type_text(
        pane, "shopt -q login_shell && echo LOGIN || echo NONLOGIN; pwd; env | sort > env.tmp && mv env.tmp env.txt\r"
    )
    sim.wait_for(lambda: (folder / "env.txt").exists() and "NONLOGIN" in sim.read(pane), timeout=WAIT, what="env")
    sim.wait_for(lambda: sim.read(pane).count(str(folder)) >= 1, timeout=WAIT, what="pwd")
    lines = (folder / "env.txt").read_text(encoding="utf-8").splitlines()
    seen = dict(line.split("=", 1) for line in lines if "=" in line)
    assert seen["HERDR_ENV"] == "1"
    assert seen["HERDR_PANE_ID"] == pane and seen["HERDR_TAB_ID"] == "w1:t1" and seen["HERDR_WORKSPACE_ID"] == "w1"
    assert seen["HERDR_SOCKET_PATH"] == sim.socket_path and seen["HERDR_BIN_PATH"] == sim.bin_path
    assert seen["TERM"] == "xterm-256color" and seen["COLORTERM"] == "truecolor"
    assert seen["SERVER_ONLY"] == "from-the-server"  # the server's environment is inherited
    assert "CODEX_THREAD_ID" not in seen  # ...except what Herdr removes
    assert {k: v for k, v in seen.items() if k.startswith("HERDR_")} == {
        k: v for k, v in sim.env(pane).items() if k.startswith("HERDR_")
    }


def test_split_and_tab_panes_are_real_and_know_their_own_ids(sim: HerdrSim, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    root = sim.create_workspace(str(folder))
    beside = sim.split(root)
    tab = sim.new_tab("w1", cwd=str(folder))
    for pane in (root, beside, tab):
        _at_prompt(sim, pane)
        sim.type_text(pane, "echo I-am-$HERDR_PANE_ID\r")
    for pane in (root, beside, tab):
        _wait_for_line(sim, pane, f"I-am-{pane}")
    info = sim.request("pane.process_info", pane_id=beside)["process_info"]
    assert info["foreground_process_group_id"] == info["shell_pid"]
    assert [p["name"] for p in info["foreground_processes"]] == ["bash"]


def test_herdr_agent_read_prints_the_screen_as_herdr_does(sim: HerdrSim, tmp_path: Path) -> None:
    pane = sim.create_workspace(str(_folder(tmp_path, "project")))
    _at_prompt(sim, pane)
    sim.type_text(pane, "for i in 1 2 3 4 5; do echo row-$i; done\r")
    sim.wait_for(lambda: "row-5" in sim.read(pane), timeout=WAIT)
    _herdr(sim, pane, "pane", "report-agent", pane, "--source", "custom:test", "--agent", "pi", "--state", "idle")
    visible = _herdr(sim, pane, "agent", "read", pane, "--source", "visible")
    assert visible.returncode == 0 and visible.stderr == ""
    assert visible.stdout == sim.read(pane) and visible.stdout.endswith("\n") and not visible.stdout.endswith("\n\n")
    assert "row-1\nrow-2\nrow-3\nrow-4\nrow-5\n" in visible.stdout
    last = _herdr(sim, pane, "agent", "read", pane, "--lines", "2")
    assert last.stdout == "row-5\n" + visible.stdout.splitlines()[-1] + "\n"
    bad = _herdr(sim, pane, "agent", "read", pane, "--source", "sideways")
    assert (bad.returncode, bad.stdout) == (1, "") and "invalid read source: sideways" in bad.stderr
    unknown = _herdr(sim, pane, "agent", "read", pane, "--colour")
    assert (unknown.returncode, unknown.stderr) == (2, "unknown option: --colour\n")
    missing = _herdr(sim, pane, "agent", "read", "nobody")
    assert missing.returncode == 1 and json.loads(missing.stderr)["error"]["code"] == "agent_not_found"


# ---- agent start, prompt and detection (the proof) -------------------------------------


def test_a_fake_tui_receives_exactly_what_herdr_sends_and_detection_follows_it(sim: HerdrSim, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    pane = sim.create_workspace(str(folder))
    _at_prompt(sim, pane)

    started = _start(sim, pane)
    assert started.returncode == 0, started.stderr
    agent = json.loads(started.stdout)["result"]["agent"]
    assert (agent["agent"], agent["name"], agent["interactive_ready"]) == ("claude", "reviewer", True)
    # Herdr typed the command line into bash: pasted (bash enables bracketed paste) with its Enter.
    assert sim.received(pane) == b"\x1b[200~claude\x1b[201~\r"
    assert sim.title(pane).startswith("\u2733") and _status(sim, "reviewer") == "idle"

    before = len(sim.received(pane))
    prompted = _herdr(sim, pane, "agent", "prompt", "reviewer", "review the diff")
    assert prompted.returncode == 0, prompted.stderr
    sim.wait_for(lambda: _status(sim, "reviewer") == "working", timeout=WAIT, what="working")
    assert sim.received(pane)[before:] == b"\x1b[200~review the diff\x1b[201~\r"
    reads = _reads(folder)
    assert [data for _, data in reads] == [b"\x1b[200~review the diff\x1b[201~", b"\r"]
    assert reads[1][0] - reads[0][0] >= 0.29  # the Enter comes 300 ms after the text, never sooner

    (folder / "release").touch()
    sim.wait_for(lambda: _status(sim, "reviewer") == "idle", timeout=WAIT, what="idle again")
    assert "\u25cf done: review the diff" in sim.read("reviewer")

    _herdr(sim, pane, "agent", "prompt", "reviewer", "open a dialog")
    sim.wait_for(lambda: _status(sim, "reviewer") == "blocked", timeout=WAIT, what="blocked on the dialog")
    typed = sim.received(pane)
    refused = _herdr(sim, pane, "agent", "prompt", "reviewer", "are you there?")
    error = json.loads(refused.stderr)["error"]
    assert (refused.returncode, error["code"]) == (1, "agent_blocked")
    assert error["message"] == "agent reviewer is blocked and requires interactive input"
    time.sleep(0.5)  # long enough for a wrongly sent Enter to arrive: nothing may be typed
    assert sim.received(pane) == typed

    sim.type_text(pane, "1\r")  # the user answers the dialog
    sim.wait_for(lambda: _status(sim, "reviewer") == "idle", timeout=WAIT, what="idle after the answer")
    [met] = sim.blocking_screens()  # the dialog, kept with its screen
    assert (met.pane_id, met.agent, met.name) == (pane, "claude", "reviewer")
    assert "Do you want to proceed?" in met.screen and met.title == "Fake Claude"


def test_a_start_blocked_at_a_first_run_dialog_keeps_the_name_until_the_user_answers(
    sim: HerdrSim, tmp_path: Path
) -> None:
    folder = _folder(tmp_path, "new-folder", start="trust")
    pane = sim.create_workspace(str(folder))
    _at_prompt(sim, pane)
    started = _start(sim, pane)
    error = json.loads(started.stderr)["error"]
    assert (started.returncode, error["code"]) == (1, "agent_not_ready")
    assert error["message"] == "agent reviewer is blocked during startup and is not ready for prompts"
    assert "Is this a project you created or one you trust?" in sim.read(pane)
    [met] = sim.blocking_screens()
    assert met.name == "reviewer" and "Is this a project you created or one you trust?" in met.screen
    agent = sim.agent("reviewer")  # the name stays reserved
    assert (agent["agent_status"], agent.get("launch_pending")) == ("blocked", True)
    again = _start(sim, pane)
    assert json.loads(again.stderr)["error"]["code"] == "agent_name_taken"
    with pytest.raises(HerdrError) as blocked:
        sim.request("agent.prompt", target="reviewer", text="hello")
    assert blocked.value.code == "agent_blocked"

    sim.type_text(pane, "1\r")
    sim.wait_for(lambda: sim.agent("reviewer").get("interactive_ready") is True, timeout=WAIT, what="ready")
    assert _status(sim, "reviewer") == "idle" and "launch_pending" not in sim.agent("reviewer")
    assert _herdr(sim, pane, "agent", "prompt", "reviewer", "now?").returncode == 0


def test_a_program_without_bracketed_paste_gets_the_text_plain(sim: HerdrSim, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "plain", bracketed_paste=False)
    pane = sim.create_workspace(str(folder))
    _at_prompt(sim, pane)
    assert _start(sim, pane).returncode == 0
    before = len(sim.received(pane))
    assert _herdr(sim, pane, "agent", "prompt", "reviewer", "plain words").returncode == 0
    sim.wait_for(lambda: len(sim.received(pane)) > before + len("plain words"), timeout=WAIT, what="the Enter")
    assert sim.received(pane)[before:] == b"plain words\r"
    assert sim.deliveries(pane)[-1].mode == "plain"


def test_agent_start_refuses_a_pane_whose_shell_is_running_something(sim: HerdrSim, tmp_path: Path) -> None:
    pane = sim.create_workspace(str(_folder(tmp_path, "busy")))
    _at_prompt(sim, pane)
    sim.type_text(pane, "sleep 120\r")
    _wait_foreground(sim, pane, "sleep")
    typed = sim.received(pane)
    refused = _start(sim, pane)
    error = json.loads(refused.stderr)["error"]
    assert (refused.returncode, error["code"]) == (1, "agent_pane_busy")
    assert sim.received(pane) == typed  # nothing typed into the busy pane
    with pytest.raises(HerdrError) as gone:
        sim.agent("reviewer")
    assert gone.value.code == "agent_not_found"


def test_a_hook_report_alone_is_not_promptable_and_a_quit_agent_loses_its_name(sim: HerdrSim, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    pane = sim.create_workspace(str(folder))
    _at_prompt(sim, pane)
    sim.add_agent(pane, "claude", name="hooked", hook_only=True)
    with pytest.raises(HerdrError) as hooked:
        sim.request("agent.prompt", target="hooked", text="hello")
    assert (hooked.value.code, hooked.value.message) == (
        "agent_not_ready",
        "agent hooked is no longer the pane foreground process",
    )

    other = sim.split(pane)
    _at_prompt(sim, other)
    assert _start(sim, other).returncode == 0
    assert _herdr(sim, other, "agent", "prompt", "reviewer", "q").returncode == 0  # the fake TUI quits
    sim.wait_for(lambda: not any(a.get("name") == "reviewer" for a in _agents(sim)), timeout=WAIT, what="release")
    assert all(a["pane_id"] != other for a in _agents(sim))  # a plain shell again


def test_agent_prompt_checks_the_foreground_live_not_the_last_detection(sim: HerdrSim, tmp_path: Path) -> None:
    pane = sim.create_workspace(str(_folder(tmp_path, "project")))
    _at_prompt(sim, pane)
    assert _start(sim, pane).returncode == 0
    detector = sim.simulator._detector
    assert detector is not None
    detector.stop()  # what detection knows now is stale: the agent still looks present
    sim.type_text(pane, "q\r")  # the user quits the TUI; the shell is in the foreground again
    _wait_foreground(sim, pane, "bash")
    typed = sim.received(pane)
    with pytest.raises(HerdrError) as refused:
        sim.request("agent.prompt", target="reviewer", text="echo typed-into-the-shell")
    assert (refused.value.code, refused.value.message) == (
        "agent_not_ready",
        "agent reviewer is no longer the pane foreground process",
    )
    assert sim.received(pane) == typed


def _agents(sim: HerdrSim) -> list[dict[str, object]]:
    return list(sim.request("agent.list")["agents"])


def test_an_agent_launched_by_hand_is_detected_and_can_be_named(sim: HerdrSim, tmp_path: Path) -> None:
    pane = sim.create_workspace(str(_folder(tmp_path, "project")))
    _at_prompt(sim, pane)
    sim.type_text(pane, "claude\r")
    sim.wait_for(lambda: any(a["pane_id"] == pane for a in _agents(sim)), timeout=WAIT, what="detection")
    [agent] = _agents(sim)
    assert (agent["agent"], agent["agent_status"], "name" in agent) == ("claude", "idle", False)
    sim.request("agent.rename", target=pane, name="lead")
    assert _herdr(sim, pane, "agent", "prompt", "lead", "hello").returncode == 0


def test_closing_a_pane_or_a_tab_ends_every_process_in_it(sim: HerdrSim, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    root = sim.create_workspace(str(folder))
    worker = sim.new_tab("w1", cwd=str(folder))
    beside = sim.split(worker)
    for pane in (root, worker, beside):
        _at_prompt(sim, pane)
    assert _start(sim, worker).returncode == 0  # an agent in the foreground
    # Background jobs, one deaf to the hang-up: only a kill ends it.
    sim.type_text(beside, "sleep 300 & (trap '' HUP; exec sleep 301) &\r")
    sim.wait_for(lambda: len(sim.processes(beside)) == 3, timeout=WAIT, what="two background jobs")
    doomed = sim.processes(worker) + sim.processes(beside)
    assert len(doomed) >= 4

    closed = _herdr(sim, root, "tab", "close", "w1:t2")
    assert closed.returncode == 0, closed.stderr
    assert [pid for pid in doomed if _alive(pid)] == []
    assert sim.pane_ids() == [root]

    survivor = sim.processes(root)
    sim.type_text(root, "sleep 302 &\r")
    sim.wait_for(lambda: len(sim.processes(root)) == len(survivor) + 1, timeout=WAIT, what="a background job")
    doomed = sim.processes(root)
    assert _herdr(sim, root, "pane", "close", root).returncode == 0
    assert [pid for pid in doomed if _alive(pid)] == []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_closing_the_simulator_ends_every_pane(tmp_path: Path, bin_dir: Path) -> None:
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SHELL": "/bin/sh", "HOME": str(tmp_path)}
    with HerdrSim(real_panes=True, env=env) as simulator:
        pane = simulator.create_workspace(str(tmp_path))
        simulator.split(pane)
        pids = [pid for p in simulator.pane_ids() for pid in simulator.processes(p)]
        assert len(pids) == 2
    assert [pid for pid in pids if _alive(pid)] == []


def test_the_modelled_default_records_what_agent_prompt_typed_too(tmp_path: Path) -> None:
    with HerdrSim() as modelled:
        pane = modelled.create_workspace(str(tmp_path))
        modelled.add_agent(pane, "codex", name="reviewer")
        plain = modelled.split(pane)
        modelled.add_agent(plain, "pi", name="plain", bracketed_paste=False)
        modelled.request("agent.prompt", target="reviewer", text="hi")
        modelled.request("agent.prompt", target="plain", text="there")
        assert modelled.received(pane) == b"\x1b[200~hi\x1b[201~\r"
        assert modelled.received(plain) == b"there\r"
        assert modelled.read("reviewer") == ""  # a modelled pane has no screen
        with pytest.raises(ValueError, match="not a real pane"):
            modelled.type_text(pane, "x")
