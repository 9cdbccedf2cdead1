"""The test API: deliveries, detection, start scripts, fixtures and the herdr-sim command."""

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from herdr_link_testkit import Delivery, HerdrError, HerdrSim, StartScript


def _prompt(sim: HerdrSim, target: str, text: str) -> dict[str, object]:
    return sim.request("agent.prompt", target=target, text=text)


def test_deliveries_record_how_the_terminal_receives_the_text(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    _prompt(herdr_sim, "brain", "line one\nline two")
    _prompt(herdr_sim, "brain", "evil \x1b[201~ tail\rrm -rf ~\n")
    clean, evil = herdr_sim.deliveries(pane)
    assert (clean.mode, clean.raw_controls, clean.submitted_lines, clean.splits) == ("bracketed_paste", (), 1, False)
    assert evil.raw_controls == ("U+001B", "U+000D") and evil.splits and evil.submitted_lines == 3


def test_plain_input_submits_every_line(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "pi", name="main", bracketed_paste=False)
    _prompt(herdr_sim, "main", "a\nb\r\nc")
    [delivery] = herdr_sim.deliveries(pane)
    assert delivery.mode == "plain" and delivery.submitted_lines == 3


def test_a_manual_agent_is_invisible_until_detected(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "codex", detect_after=0.2)
    with pytest.raises(HerdrError) as caught:
        herdr_sim.agent(pane)
    assert caught.value.code == "agent_not_found"
    event = threading.Event()
    event.wait(0.25)
    assert herdr_sim.agent(pane)["agent"] == "codex" and "name" not in herdr_sim.agent(pane)


def test_on_prompt_lets_a_scripted_agent_react(herdr_sim: HerdrSim):
    seen: list[Delivery] = []
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "pi", name="main", on_prompt=seen.append)
    _prompt(herdr_sim, "main", "hello")
    assert [d.text for d in seen] == ["hello"]


def test_wait_for_delivery_wakes_on_a_delivery_from_another_thread(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "pi", name="main")
    threading.Timer(0.05, _prompt, (herdr_sim, "main", "late")).start()
    assert [d.text for d in herdr_sim.wait_for_delivery(pane, timeout=5)] == ["late"]
    with pytest.raises(TimeoutError):
        herdr_sim.wait_for_delivery(pane, count=2, timeout=0.05)


def test_start_scripts_decide_how_started_agents_behave(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    herdr_sim.script_start("pi", StartScript("exit", delay=0))
    herdr_sim.request("agent.start", name="w", kind="pi", pane_id=pane)
    assert herdr_sim.name_of(pane) is None  # the process exited before becoming interactive


def test_names_are_unique_across_workspaces(herdr_sim: HerdrSim):
    first, second = herdr_sim.create_workspace(), herdr_sim.create_workspace()
    herdr_sim.add_agent(first, "pi", name="same")
    with pytest.raises(ValueError):
        herdr_sim.add_agent(second, "pi", name="same")


def test_fixtures_give_each_test_its_own_simulator(herdr_sim: HerdrSim, herdr_pane: str):
    assert herdr_pane == "w1:p1" and herdr_sim.name_of(herdr_pane) == "brain"
    assert len(herdr_sim.socket_path.encode()) < 100 and "running" in repr(herdr_sim)


def test_herdr_sim_serves_a_layout_and_prints_a_panes_environment(tmp_path):
    layout = tmp_path / "layout.json"
    layout.write_text(
        json.dumps(
            {
                "workspaces": [
                    {
                        "cwd": str(tmp_path),
                        "panes": [{"agent": "claude", "name": "brain"}, {"agent": "pi", "name": "worker"}, {}],
                    }
                ]
            }
        )
    )
    with HerdrSim() as scratch:
        socket_path = str(scratch.root / "demo.sock")
    command = [sys.executable, "-m", "herdr_link_testkit", "serve", "--socket", socket_path, "--layout", str(layout)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as server:
        try:
            assert server.stdout is not None
            lines = [server.stdout.readline().strip() for _ in range(4)]
            assert lines[:3] == ["pane w1:p1", "pane w1:p2", "pane w1:p3"] and lines[3].startswith("serving on ")
            printed = subprocess.run(
                [sys.executable, "-m", "herdr_link_testkit", "env", "--socket", socket_path, "--pane", "w1:p2"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            exports = dict(line.removeprefix("export ").split("=", 1) for line in printed.splitlines())
            assert exports["HERDR_PANE_ID"] == "w1:p2" and exports["HERDR_ENV"] == "1"
            env = {"PATH": "/usr/bin:/bin", **exports}
            listed = subprocess.run(
                [exports["HERDR_BIN_PATH"], "agent", "list"], env=env, capture_output=True, text=True, check=True
            ).stdout
            assert [a["name"] for a in json.loads(listed)["result"]["agents"]] == ["brain", "worker"]
            second = subprocess.run(command[:6], capture_output=True, text=True, timeout=60)  # the same socket
            assert second.returncode == 1 and second.stderr == (
                f"herdr-sim: {socket_path} is in use by a running Herdr or herdr-sim: stop it first, or choose "
                "another socket; nothing was started\n"
            )
            again = subprocess.run([exports["HERDR_BIN_PATH"], "agent", "list"], env=env, capture_output=True,
                                   text=True, check=True).stdout  # fmt: skip
            assert [a["name"] for a in json.loads(again)["result"]["agents"]] == ["brain", "worker"]  # untouched
        finally:
            server.terminate()
            server.wait(timeout=5)
    assert server.returncode == 0
    assert list(Path(socket_path).parent.iterdir()) == []  # it removed what it made: socket, launcher, home


def test_herdr_sim_env_for_a_missing_pane_fails_clearly(herdr_sim: HerdrSim):
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_testkit", "env", "--socket", herdr_sim.socket_path, "--pane", "w9:p9"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "pane_not_found" in done.stderr


def test_both_herdr_releases_are_simulated():
    with HerdrSim(herdr_version="0.9.0") as newer, HerdrSim() as older:
        for sim, protocol in ((newer, 22), (older, 20)):
            pane = sim.create_workspace("/tmp")
            sim.add_agent(pane, "claude", name="brain")
            assert sim.request("ping")["protocol"] == protocol
            done = subprocess.run(
                [sim.bin_path, "agent", "get", "brain"], env=sim.env(pane), capture_output=True, text=True, timeout=60
            )
            assert done.returncode == 0, done.stderr  # each release's CLI speaks its own server's protocol
            record = json.loads(done.stdout)["result"]["agent"]
            # Optional fields only when Herdr would set them: a modelled pane has no title, no hook sets
            # a display name (src/api/schema/agents.rs: both are skip_serializing_if none, in 0.8.2 too).
            assert not {"display_agent", "terminal_title", "terminal_title_stripped"} & record.keys()
            assert record["state_change_seq"] >= 0
    with pytest.raises(ValueError, match="0.7.0"):
        HerdrSim(herdr_version="0.7.0")


def test_a_layout_kind_herdr_does_not_know_and_a_missing_simulator_are_clear_errors(tmp_path):
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps({"workspaces": [{"cwd": str(tmp_path), "panes": [{"agent": "claud", "name": "x"}]}]}))
    socket_path = str(tmp_path / "s" / "herdr.sock")
    served = subprocess.run(
        [sys.executable, "-m", "herdr_link_testkit", "serve", "--socket", socket_path, "--layout", str(layout)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert served.returncode == 1 and "agent kinds Herdr does not know: claud" in served.stderr
    env = subprocess.run(
        [sys.executable, "-m", "herdr_link_testkit", "env", "--socket", socket_path, "--pane", "w1:p1"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert env.returncode == 1 and f"no simulator answers at {socket_path}" in env.stderr


def test_herdr_sims_help_is_plain_words_and_a_bad_layout_file_is_named_without_errno(tmp_path):
    def sim(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "herdr_link_testkit", *args], capture_output=True, text=True,
                              timeout=60)  # fmt: skip

    top = sim("--help").stdout
    assert "Run a simulated Herdr in the foreground, or print a pane's environment." in top and "``" not in top
    for command in ("serve", "env"):  # each says what it does before its options
        assert sim(command, "--help").stdout.split("\n\n")[1][0].isupper()
    socket_path = str(tmp_path / "s" / "herdr.sock")
    (tmp_path / "bad.json").write_text("{bad")
    for layout, said in [
        (tmp_path / "gone.json", f"herdr-sim: the layout file {tmp_path / 'gone.json'} cannot be read: No such file"),
        (tmp_path / "bad.json", f"herdr-sim: the layout file {tmp_path / 'bad.json'} is not JSON: Expecting"),
    ]:
        done = sim("serve", "--socket", socket_path, "--layout", str(layout))
        assert done.returncode == 1 and done.stderr.startswith(said) and "Errno" not in done.stderr, done.stderr
