"""How every socket-backed command runs: global flags, the ping guard, server_not_running, faults
(docs/herdr.md §1, §2, §9, §11; real: tests/cli/protocol_guard.rs)."""

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Iterator

import pytest

from herdr_link_testkit import Fault, HerdrSim


def test_each_command_pings_then_sends_one_request_per_connection(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.add_agent(pane, "pi", name="main")
    herdr("agent", "get", "main")
    assert herdr_sim.log.requests == [
        {"id": "api-client:status", "method": "ping", "params": {}},
        {"id": "cli:agent:get", "method": "agent.get", "params": {"target": "main"}},
    ]
    assert herdr_sim.log.commands() == [("agent", "get", "main")]


def test_global_flags_are_stripped_before_a_literal_double_dash(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §1: --handoff and --session=… vanish, even from prompt text.
    herdr_sim.add_agent(pane, "pi", name="main")
    env = {**herdr_sim.env(pane), "HERDR_SESSION": "default"}
    run = herdr("--handoff", "agent", "prompt", "main", "--handoff", "real text", env=env)
    assert run.code == 0
    assert herdr_sim.deliveries(pane)[-1].text == "real text"  # the flag-shaped text was eaten
    run = herdr("agent", "start", "w", "--kind", "pi", "--pane", "w1:p9", "--", "--handoff")
    assert next(r for r in herdr_sim.log.requests if r["method"] == "agent.start")["params"]["args"] == ["--handoff"]


def test_remote_with_a_subcommand_is_a_usage_error(herdr):
    assert herdr("--remote", "host", "agent", "list").code == 2


def test_server_not_running_is_a_json_error_in_struct_order(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §2: key order id, error; exit 1; stdout empty.
    herdr_sim.stop()
    run = herdr("agent", "list")
    assert run.code == 1 and run.stdout == ""
    message = f"no herdr server is running at {herdr_sim.socket_path}; run `herdr` to start or attach it"
    expected = {"id": "cli:agent:list", "error": {"code": "server_not_running", "message": message}}
    assert run.stderr == json.dumps(expected, separators=(",", ":")) + "\n"


def test_a_session_flag_picks_the_sessions_socket(herdr_sim: HerdrSim, pane, herdr, tmp_path):
    env = {**herdr_sim.env(pane), "XDG_CONFIG_HOME": str(tmp_path)}
    run = herdr("--session", "dev", "agent", "list", env=env)
    path = tmp_path / "herdr" / "sessions" / "dev" / "herdr.sock"
    assert run.json["error"]["message"] == (
        f"no herdr server is running at {path}; run `herdr session attach dev` to start or attach it"
    )
    assert herdr("--session", "bad/name", "agent", "list", env=env).code == 2


@pytest.mark.parametrize(("protocol", "word"), [(14, "newer"), (21, "older")])
def test_protocol_mismatch_stops_before_the_operation(herdr_sim: HerdrSim, pane, herdr, protocol, word):
    # real: tests/cli/protocol_guard.rs cli_rejects_protocol_mismatch_before_agent_wait_request.
    herdr_sim.fault_method("ping", Fault("protocol_mismatch", protocol=protocol))
    run = herdr("agent", "wait", "1-1", "--until", "idle", "--timeout", "5000")
    assert run.code == 1 and run.stdout == ""
    error = run.json["error"]
    assert error["code"] == "protocol_mismatch"
    assert error["message"].startswith(f"client protocol 20 is {word} than server protocol {protocol}")
    assert herdr_sim.log.methods() == ["ping"]


def test_a_different_version_with_the_same_protocol_is_accepted(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.simulator.version = "0.8.2-preview.7"
    assert herdr("agent", "list").code == 0


def test_unknown_groups_and_help(herdr):
    assert herdr("frobnicate").code == 2
    helped = herdr("agent", "start", "--help")
    assert (helped.code, helped.stderr) == (0, "") and helped.stdout
    short = herdr("agent", "help")
    assert (short.code, short.stdout) == (0, "") and short.stderr


# ---- faults -------------------------------------------------------------------------------------


def test_cli_fault_error_prints_a_structured_error_and_touches_nothing(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.add_agent(pane, "pi", name="main")
    herdr_sim.fault_cli(("agent", "prompt"), Fault("error", code="agent_prompt_failed", message="write failed"))
    run = herdr("agent", "prompt", "main", "hi")
    assert run.code == 1
    assert run.json == {"error": {"code": "agent_prompt_failed", "message": "write failed"}, "id": "cli:agent:prompt"}
    assert herdr_sim.deliveries(pane) == [] and herdr_sim.log.requests == []
    assert herdr("agent", "prompt", "main", "hi").code == 0  # once only by default


@pytest.mark.parametrize(
    ("fault", "code", "stdout", "stderr"),
    [
        (Fault("invalid_json"), 0, "herdr: this is not json\n", ""),
        (Fault("empty"), 0, "", ""),
        (Fault("exit", exit_code=101, stderr="thread 'main' panicked\n"), 101, "", "thread 'main' panicked\n"),
    ],
)
def test_cli_faults_for_broken_binaries(herdr, herdr_sim: HerdrSim, fault, code, stdout, stderr):
    herdr_sim.fault_cli(("agent", "list"), fault)
    run = herdr("agent", "list")
    assert (run.code, run.stdout, run.stderr) == (code, stdout, stderr)


@contextlib.contextmanager
def _still_running(sim: HerdrSim, pane: str) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``herdr agent list`` and check it is still running half a second later."""
    argv = [sim.bin_path, "agent", "list"]
    with subprocess.Popen(argv, env=sim.env(pane), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as process:
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=0.5)
        yield process


def test_cli_fault_hang_blocks_until_killed(herdr_sim: HerdrSim, pane):
    herdr_sim.fault_cli(("agent",), Fault("hang"))
    with _still_running(herdr_sim, pane) as process:
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=5) == -signal.SIGKILL


def test_cli_fault_delay_holds_the_command_before_it_reaches_herdr(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.fault_cli(("agent", "list"), Fault("delay", seconds=60))
    with _still_running(herdr_sim, pane) as process:
        assert herdr_sim.log.requests == []  # delayed before the ping
        process.kill()
    herdr_sim.fault_cli(("agent", "list"), Fault("delay", seconds=0.01))
    assert herdr("agent", "list").code == 0  # then it runs normally


def test_faults_repeat_as_often_as_asked(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.fault_cli(("agent", "list"), Fault("empty", times=2))
    assert [herdr("agent", "list").stdout == "" for _ in range(3)] == [True, True, False]


@pytest.mark.parametrize(
    ("fault", "stderr_start"),
    [(Fault("empty"), "Error: Custom { kind: Other, error: EmptyResponse }"), (Fault("invalid_json"), "Error: ")],
)
def test_method_faults_break_the_reply(herdr_sim: HerdrSim, herdr, fault, stderr_start):
    herdr_sim.fault_method("agent.list", fault)
    run = herdr("agent", "list")
    assert run.code == 1 and run.stdout == "" and run.stderr.startswith(stderr_start)


def test_method_fault_error_is_printed_like_a_server_error(herdr_sim: HerdrSim, herdr):
    herdr_sim.fault_method("agent.list", Fault("error", code="server_unavailable", message="shutting down"))
    run = herdr("agent", "list")
    assert run.json == {"error": {"code": "server_unavailable", "message": "shutting down"}, "id": "cli:agent:list"}


def test_method_fault_hang_holds_the_connection(herdr_sim: HerdrSim, pane):
    herdr_sim.fault_method("agent.list", Fault("hang"))
    with _still_running(herdr_sim, pane) as process:
        herdr_sim.stop()  # releases the hung connection; the CLI then sees no reply
        assert process.wait(timeout=5) == 1


def test_a_removed_binary_cannot_be_spawned(herdr_sim: HerdrSim, pane):
    herdr_sim.remove_binary()
    assert not os.path.exists(herdr_sim.bin_path)
    with pytest.raises(FileNotFoundError):
        subprocess.run([herdr_sim.bin_path, "agent", "list"], env=herdr_sim.env(pane), check=False)
