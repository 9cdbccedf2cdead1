"""``herdr agent …`` against docs/herdr.md §8.1-§8.6 and real Herdr's tests/cli/*.rs (commit 1c76079f).

Each test names the real test or reference section its expectations come from.
"""

import json

import pytest

from herdr_link_testkit import HerdrSim, StartScript

NAME_MESSAGE = (
    "agent name must start with a lowercase letter and contain only lowercase letters, digits, '-' or '_' "
    "(1-32 characters)"
)


def test_agent_get_prints_sorted_compact_agent_info(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §8.1 and §2 (keys sorted at every level, one compact line).
    herdr_sim.add_agent(pane, "codex", name="reviewer")
    run = herdr("agent", "get", "reviewer")
    assert run.code == 0 and run.stderr == ""
    line = run.stdout.rstrip("\n")
    reply = json.loads(line)
    assert line == json.dumps(reply, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    assert reply["id"] == "cli:agent:get" and reply["result"]["type"] == "agent_info"
    agent = reply["result"]["agent"]
    assert agent["name"] == "reviewer" and agent["agent"] == "codex" and agent["pane_id"] == pane
    assert agent["agent_status"] == "idle" and agent["workspace_id"] == "w1" and agent["tab_id"] == "w1:t1"
    assert agent["terminal_id"].startswith("term_") and "state_change_seq" in agent
    for absent in ("launch_pending", "interactive_ready", "title"):
        assert absent not in agent  # optional fields are omitted, never null


def test_agent_get_accepts_a_canonical_agent_pane_id(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §6 target resolution: a current canonical pane id of an agent pane.
    herdr_sim.add_agent(pane, "pi", name="main")
    assert herdr("agent", "get", pane).json["result"]["agent"]["name"] == "main"


@pytest.mark.parametrize("target", ["ghost", "w1:p1", "pi", "1-1"])
def test_agent_get_of_a_missing_agent_is_agent_not_found(herdr, target):
    # docs/herdr.md §6: plain shells, kind labels and legacy ids are not agent targets.
    run = herdr("agent", "get", target)
    assert run.code == 1 and run.stdout == ""
    assert run.json == {
        "error": {"code": "agent_not_found", "message": f"agent target {target} not found"},
        "id": "cli:agent:get",
    }


@pytest.mark.parametrize("args", [[], ["a", "b"]])
def test_agent_get_usage_errors_exit_2_without_the_socket(herdr_sim: HerdrSim, herdr, args):
    run = herdr("agent", "get", *args)
    assert (run.code, run.stdout, run.stderr) == (2, "", "usage: herdr agent get <target>\n")
    assert herdr_sim.log.requests == []


def test_agent_list_takes_no_arguments_and_lists_agents_in_layout_order(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §8.2: no filters; plain shells excluded; tabs, then depth-first layout order.
    right = herdr_sim.split(pane)
    below = herdr_sim.split(pane, direction="down")
    herdr_sim.add_agent(right, "pi", name="right")
    herdr_sim.add_agent(below, "pi", name="below")
    listed = herdr("agent", "list").json["result"]
    assert [a["name"] for a in listed["agents"]] == ["below", "right"]
    run = herdr("agent", "list", "--workspace", "w1")
    assert (run.code, run.stderr) == (2, "usage: herdr agent list\n")


def test_agent_list_of_no_agents_is_an_empty_list(herdr):
    assert herdr("agent", "list").json == {"id": "cli:agent:list", "result": {"agents": [], "type": "agent_list"}}


def test_prompt_text_is_one_literal_argument_even_when_it_starts_with_a_dash(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_command_works ("agent prompt main --wait" sends "--wait").
    herdr_sim.add_agent(pane, "pi", name="main")
    run = herdr("agent", "prompt", "main", "--wait")
    assert run.code == 0 and run.json["result"]["type"] == "agent_prompted"
    [delivery] = herdr_sim.deliveries(pane)
    assert delivery.text == "--wait" and delivery.enter and delivery.mode == "bracketed_paste"


def test_prompt_reply_is_immediate_with_the_snapshot_at_send_time(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.add_agent(pane, "pi", name="main", status="working")
    agent = herdr("agent", "prompt", "main", "hello").json["result"]["agent"]
    assert agent["agent_status"] == "working"  # prompting a working agent is allowed


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        ([], "usage: herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]\n"),
        (["main"], "agent prompt requires text\n"),
        (["main", "a", "b"], "unknown option: b\n"),
        (["main", "a", "--until", "idle"], "--until requires --wait\n"),
        (["main", "a", "--timeout", "5"], "--timeout requires --wait\n"),
        (
            ["main", "a", "--wait", "--until", "sleeping"],
            "invalid agent status: sleeping (expected idle, working, blocked, done, or unknown)\n",
        ),
        (["main", "a", "--wait", "--timeout", "soon"], "invalid value for --timeout: soon\n"),
        (["main", "a", "--wait", "--timeout"], "missing value for --timeout\n"),
    ],
)
def test_prompt_usage_errors_exit_2_without_the_socket(herdr_sim: HerdrSim, herdr, args, stderr):
    # docs/herdr.md §8.3 local errors.
    run = herdr("agent", "prompt", *args)
    assert (run.code, run.stdout, run.stderr) == (2, "", stderr)
    assert herdr_sim.log.requests == []


def test_prompting_a_blocked_agent_writes_nothing(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_command_works (agent_blocked, prompts file unchanged).
    herdr_sim.add_agent(pane, "pi", name="main", status="blocked")
    run = herdr("agent", "prompt", "main", "must not be submitted")
    assert run.code == 1
    assert run.json["error"] == {
        "code": "agent_blocked",
        "message": "agent main is blocked and requires interactive input",
    }
    assert herdr_sim.deliveries(pane) == []


def test_a_hook_only_agent_is_visible_but_not_promptable(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_commands_work ("A stale semantic report must not allow prompt text").
    report = herdr("pane", "report-agent", pane, "--source", "custom:test", "--agent", "pi", "--state", "idle")
    assert (report.code, report.stdout, report.stderr) == (0, "", "")
    assert herdr("agent", "rename", pane, "worker").code == 0
    listed = herdr("agent", "list").json["result"]["agents"]
    assert [(a["name"], a["agent"]) for a in listed] == [("worker", "pi")]
    assert herdr("agent", "get", "worker").json["result"]["agent"]["pane_id"] == pane
    run = herdr("agent", "prompt", "worker", "echo prompt-must-not-run")
    assert run.code == 1 and run.json["error"]["code"] == "agent_not_ready"
    assert herdr_sim.deliveries(pane) == []


def test_prompt_of_an_empty_text_is_refused_by_the_server(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.add_agent(pane, "pi", name="main")
    run = herdr("agent", "prompt", "main", "")
    assert run.json["error"] == {"code": "empty_agent_prompt", "message": "agent prompt must not be empty"}


def test_prompt_of_an_undetected_agent_is_not_found(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.add_agent(pane, "pi", detect_after=60)
    assert herdr("agent", "get", pane).json["error"]["code"] == "agent_not_found"


def test_rename_sets_and_clears_names(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §8.5; real: agent_commands_work (rename worker → reviewer).
    herdr_sim.add_agent(pane, "claude")
    renamed = herdr("agent", "rename", pane, "worker").json
    assert renamed["id"] == "cli:agent:rename" and renamed["result"]["agent"]["name"] == "worker"
    assert herdr("agent", "rename", "worker", "reviewer").json["result"]["agent"]["name"] == "reviewer"
    assert herdr("agent", "rename", pane, "reviewer").code == 0  # renaming to one's own name is fine
    cleared = herdr("agent", "rename", "reviewer", "--clear").json["result"]["agent"]
    assert "name" not in cleared
    assert herdr_sim.log.requests[-1]["params"] == {"target": "reviewer"}  # --clear omits name


def test_rename_to_a_name_held_elsewhere_is_agent_name_taken(herdr_sim: HerdrSim, pane, herdr):
    other = herdr_sim.split(pane)
    herdr_sim.add_agent(pane, "claude")
    herdr_sim.add_agent(other, "pi", name="reviewer")
    error = herdr("agent", "rename", pane, "reviewer").json["error"]
    assert error["code"] == "agent_name_taken"
    assert error["message"].startswith("agent name reviewer is already used; candidates: terminal_id=")


def test_invalid_names_are_refused_by_start_and_rename(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_and_rename_reject_invalid_names.
    started = herdr("agent", "start", "reviewer one", "--kind", "pi", "--pane", pane)
    assert started.code == 1 and started.json["error"] == {"code": "invalid_agent_name", "message": NAME_MESSAGE}
    herdr("pane", "report-agent", pane, "--source", "custom:name", "--agent", "pi", "--state", "idle")
    renamed = herdr("agent", "rename", pane, "reviewer one")
    assert renamed.json["error"] == {"code": "invalid_agent_name", "message": NAME_MESSAGE}


@pytest.mark.parametrize("args", [["a"], ["a", "b", "--clear"], []])
def test_rename_usage(herdr, args):
    run = herdr("agent", "rename", *args)
    assert (run.code, run.stderr) == (2, "usage: herdr agent rename <target> <name>|--clear\n")


def test_rename_of_a_pending_start_is_agent_launch_pending(herdr_sim: HerdrSim, pane, herdr):
    herdr_sim.script_start("pi", StartScript("never"))
    herdr_sim.request("agent.start", name="main", kind="pi", pane_id=pane)
    run = herdr("agent", "rename", "main", "other")
    assert run.json["error"]["code"] == "agent_launch_pending"


def test_agent_start_launches_and_reports_the_final_agent(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_command_works (argv and result shape).
    run = herdr(
        "agent",
        "start",
        "main",
        "--kind",
        "pi",
        "--pane",
        pane,
        "--timeout",
        "8000",
        "--",
        "--name",
        "scratch",
        "--no-session",
    )
    assert run.code == 0, run.stderr
    result = run.json["result"]
    assert result["type"] == "agent_started" and result["argv"] == ["pi", "--name", "scratch", "--no-session"]
    agent = result["agent"]
    assert (agent["name"], agent["agent"], agent["pane_id"]) == ("main", "pi", pane)
    assert agent["interactive_ready"] is True and "launch_pending" not in agent
    assert agent["agent_status"] in ("idle", "done")
    request = next(r for r in herdr_sim.log.requests if r["method"] == "agent.start")
    assert request["params"] == {
        "name": "main",
        "kind": "pi",
        "pane_id": pane,
        "args": ["--name", "scratch", "--no-session"],
        "timeout_ms": 8000,
    }
    pin = herdr_sim.log.requests[1]
    assert (pin["id"], pin["method"]) == ("cli:agent:start:pane", "pane.get")


def test_agent_start_without_args_or_timeout_omits_them(herdr_sim: HerdrSim, pane, herdr):
    assert herdr("agent", "start", "main", "--kind", "claude-code", "--pane", pane).code == 0
    request = next(r for r in herdr_sim.log.requests if r["method"] == "agent.start")
    assert request["params"] == {"name": "main", "kind": "claude-code", "pane_id": pane}  # kind sent as typed
    assert herdr_sim.agent("main")["agent"] == "claude"


def test_agent_start_refuses_a_missing_pane_without_touching_topology(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_command_works (agent_pane_not_found, topology unchanged).
    before = herdr_sim.pane_ids()
    run = herdr("agent", "start", "missing", "--kind", "pi", "--pane", "w999:p1")
    assert run.code == 1 and run.json["error"]["code"] == "agent_pane_not_found"
    assert herdr_sim.pane_ids() == before


@pytest.mark.parametrize("arg", ["tab\tcompletion", "escape\x1b[201~"])
def test_agent_start_refuses_control_characters_in_arguments(pane, herdr, arg):
    # real: tests/cli/agents.rs agent_start_command_works (invalid_agent_argument).
    run = herdr("agent", "start", "invalid-argument", "--kind", "pi", "--pane", pane, "--", arg)
    assert run.code == 1 and run.json["error"]["code"] == "invalid_agent_argument"


@pytest.mark.parametrize("timeout", ["3000", "300001", "18446744073709551615"])
def test_agent_start_server_checks_the_timeout_range(pane, herdr, timeout):
    # real: tests/cli/agents.rs agent_start_command_works (invalid_agent_timeout).
    run = herdr("agent", "start", "invalid-timeout", "--kind", "pi", "--pane", pane, "--timeout", timeout)
    assert run.code == 1 and run.json["error"]["code"] == "invalid_agent_timeout"


def test_agent_start_timeout_beyond_u64_is_a_local_usage_error(herdr_sim: HerdrSim, pane, herdr):
    run = herdr("agent", "start", "main", "--kind", "pi", "--pane", pane, "--timeout", "18446744073709551616")
    assert (run.code, run.stderr) == (2, "invalid value for --timeout: 18446744073709551616\n")
    assert herdr_sim.log.requests == []


def test_agent_start_refuses_a_taken_name_and_a_busy_pane(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_command_works (agent_name_taken, then agent_pane_busy).
    assert herdr("agent", "start", "main", "--kind", "pi", "--pane", pane).code == 0
    duplicate = herdr("agent", "start", "main", "--kind", "pi", "--pane", pane)
    assert duplicate.json["error"]["code"] == "agent_name_taken"
    busy = herdr("agent", "start", "second", "--kind", "pi", "--pane", pane)
    assert busy.json["error"] == {
        "code": "agent_pane_busy",
        "message": f"agent target pane {pane} is not an available shell",
    }


def test_agent_start_refuses_a_shell_replaced_by_a_foreground_program(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_rejects_a_shell_replaced_by_a_foreground_program.
    herdr_sim.set_foreground_program(pane, "vim")
    run = herdr("agent", "start", "main", "--kind", "pi", "--pane", pane)
    assert run.json["error"]["code"] == "agent_pane_busy"
    assert [r["method"] for r in herdr_sim.log.requests].count("agent.start") == 1  # not retried


def test_agent_start_waits_for_a_new_pane_shell_to_finish_initializing(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_waits_for_a_new_pane_shell_to_finish_initializing.
    herdr_sim.delay_shell(pane, 0.35)
    run = herdr("agent", "start", "main", "--kind", "pi", "--pane", pane)
    assert run.code == 0, run.stderr
    methods = herdr_sim.log.methods()
    assert methods.count("agent.start") >= 2 and "pane.process_info" in methods


def test_agent_start_stops_retrying_when_the_pane_shell_stays_busy(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_stops_retrying_when_the_pane_shell_stays_busy (2 s budget).
    herdr_sim.delay_shell(pane, 60)
    run = herdr("agent", "start", "main", "--kind", "pi", "--pane", pane)
    assert run.code == 1 and run.json["error"]["code"] == "agent_pane_busy"
    assert 10 <= herdr_sim.log.methods().count("agent.start") <= 30


def test_agent_start_rejects_blocked_during_startup(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agent_transport.rs agent_start_waits_through_unknown_then_rejects_blocked.
    herdr_sim.script_start("pi", StartScript("blocked", delay=0.2))
    run = herdr("agent", "start", "main", "--kind", "pi", "--pane", pane)
    assert run.json == {
        "error": {
            "code": "agent_not_ready",
            "message": "agent main is blocked during startup and is not ready for prompts",
        },
        "id": "cli:agent:start",
    }
    assert herdr_sim.agent("main")["launch_pending"] is True  # the name stays reserved


def test_agent_start_reports_a_detected_kind_mismatch(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_reports_detected_kind_mismatch_before_released_name.
    herdr_sim.script_start("codex", StartScript("mismatch", other_kind="claude"))
    run = herdr("agent", "start", "main", "--kind", "codex", "--pane", pane)
    assert run.json["error"] == {"code": "agent_kind_mismatch", "message": "expected codex, detected claude"}


def test_agent_start_timeout_releases_the_name_for_reuse(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_timeout_releases_the_name_for_reuse.
    herdr_sim.script_start("pi", StartScript("never"))
    run = herdr("agent", "start", "main", "--kind", "pi", "--pane", pane, "--timeout", "3100")
    assert run.json["error"] == {"code": "timeout", "message": "timed out waiting for agent startup"}
    assert herdr_sim.log.requests[-1]["id"] == "cli:agent:start:timeout"
    assert herdr_sim.name_of(pane) is None
    herdr_sim.script_start("pi", StartScript("ready", delay=0))
    assert herdr("agent", "start", "main", "--kind", "pi", "--pane", pane).code == 0


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        ([], "usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]\n"),
        (["main", "--pane", "w1:p1"], "missing required --kind\n"),
        (["main", "--kind", "pi"], "missing required --pane\n"),
        (["main", "--kind"], "missing value for --kind\n"),
        (["main", "--kind", "pi", "--pane", "w1:p1", "--focus"], "unknown option: --focus\n"),
        (["main", "--kind", "vim", "--pane", "w1:p1"], "unsupported interactive agent kind: vim\n"),
        (["main", "--kind", "pi", "--pane", "w1:p1", "--timeout", "x"], "invalid value for --timeout: x\n"),
    ],
)
def test_agent_start_usage_errors_exit_2_without_the_socket(herdr_sim: HerdrSim, herdr, args, stderr):
    run = herdr("agent", "start", *args)
    assert (run.code, run.stdout, run.stderr) == (2, "", stderr)
    assert herdr_sim.log.requests == []


def test_agent_name_is_cleared_when_the_agent_exits(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §6 "When the name is cleared".
    herdr_sim.add_agent(pane, "pi", name="main")
    herdr_sim.exit_agent("main")
    assert herdr("agent", "get", "main").json["error"]["code"] == "agent_not_found"
    herdr_sim.add_agent(pane, "pi", name="main")  # the name is free again


def test_agent_wait_returns_at_once_when_the_status_matches(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_commands_work (agent wait worker --timeout 100; timeout when working).
    herdr_sim.add_agent(pane, "pi", name="worker")
    assert herdr("agent", "wait", "worker", "--timeout", "100").json["result"]["agent"]["pane_id"] == pane
    herdr_sim.set_status("worker", "working")
    timed_out = herdr("agent", "wait", "worker", "--timeout", "100")
    assert timed_out.json["error"] == {"code": "timeout", "message": "timed out waiting for agent status"}
    unknown = herdr("agent", "wait", "worker", "--until", "working", "--timeout", "100")
    assert unknown.json["result"]["agent"]["agent_status"] == "working"


def test_prompt_wait_on_an_agent_that_never_reacts_stalls_or_times_out(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/agents.rs agent_start_command_works ("do not transition" → timeout with --timeout 500).
    herdr_sim.add_agent(pane, "pi", name="main")
    run = herdr("agent", "prompt", "main", "do not transition", "--wait", "--timeout", "500")
    assert run.json["error"]["code"] == "timeout"
    request = herdr_sim.log.requests[-1]
    assert request["params"] == {"target": "main", "text": "do not transition", "wait": {"timeout_ms": 500}}
