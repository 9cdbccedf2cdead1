"""``herdr pane …``, ``herdr tab …`` and ``herdr workspace …`` against docs/herdr.md §3, §4, §8.7-§8.13
and real Herdr's tests/cli/panes.rs and tests/cli/workspace.rs (commit 1c76079f)."""

import os

import pytest

from herdr_link_testkit import HerdrSim


def test_pane_get_prints_pane_info_without_an_agent_name(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §4 PaneInfo (no agent name) and §8.7.
    herdr_sim.add_agent(pane, "claude", name="brain")
    reply = herdr("pane", "get", pane).json
    assert reply["id"] == "cli:pane:get" and reply["result"]["type"] == "pane_info"
    info = reply["result"]["pane"]
    assert info["pane_id"] == pane and info["agent"] == "claude" and "name" not in info
    assert info["cwd"] == herdr_sim.home and info["revision"] >= 0 and "scroll" in info


def test_a_plain_shell_pane_reports_unknown_and_no_agent(pane, herdr):
    info = herdr("pane", "get", pane).json["result"]["pane"]
    assert info["agent_status"] == "unknown" and "agent" not in info and "label" not in info


def test_pane_get_of_a_missing_pane(herdr):
    run = herdr("pane", "get", "w1:p9")
    assert run.json == {"error": {"code": "pane_not_found", "message": "pane w1:p9 not found"}, "id": "cli:pane:get"}


def test_legacy_pane_ids_work_for_pane_commands(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §3 lenient parsing; real: tests/cli/panes.rs workspace_ids_and_public_pane_ids_are_stable.
    assert herdr("pane", "get", "1-1").json["result"]["pane"]["pane_id"] == pane


def test_split_creates_a_sibling_in_the_same_tab_and_list_is_in_layout_order(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §8.8 (p1, p3, p2) and §8.9; real: workspace_ids_and_public_pane_ids_are_stable.
    right = herdr("pane", "split", pane, "--direction", "right", "--no-focus").json
    assert right["id"] == "cli:pane:split" and right["result"]["pane"]["pane_id"] == "w1:p2"
    assert right["result"]["pane"]["tab_id"] == "w1:t1" and right["result"]["pane"]["focused"] is False
    down = herdr("pane", "split", pane, "--direction", "down", "--no-focus").json
    assert down["result"]["pane"]["pane_id"] == "w1:p3"
    listed = herdr("pane", "list", "--workspace", "w1").json["result"]["panes"]
    assert [p["pane_id"] for p in listed] == ["w1:p1", "w1:p3", "w1:p2"]
    request = next(r for r in herdr_sim.log.requests if r["method"] == "pane.split")
    assert request["params"] == {"target_pane_id": pane, "direction": "right", "focus": False, "right_click": "herdr"}


def test_split_cwd_is_passed_verbatim_and_a_non_directory_starts_in_home(herdr_sim: HerdrSim, pane, herdr, tmp_path):
    # docs/herdr.md §8.9 --cwd.
    made = herdr("pane", "split", pane, "--direction", "right", "--cwd", str(tmp_path), "--no-focus").json
    assert made["result"]["pane"]["cwd"] == str(tmp_path)
    assert herdr_sim.log.requests[-1]["params"]["cwd"] == str(tmp_path)
    missing = herdr("pane", "split", pane, "--direction", "right", "--cwd", "/no/such/dir", "--no-focus").json
    assert missing["result"]["pane"]["cwd"] == herdr_sim.home


def test_closed_pane_numbers_are_never_reused(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/panes.rs workspace_ids_and_public_pane_ids_are_stable (a closed w1:p2 stays dead; next is p4).
    herdr_sim.split(pane)
    herdr_sim.split(pane, direction="down")
    assert herdr("pane", "close", "w1-2").json == {"id": "cli:pane:close", "result": {"type": "ok"}}
    assert herdr("pane", "get", "w1:p2").json["error"]["code"] == "pane_not_found"
    assert herdr_sim.split(pane) == "w1:p4"


def test_ids_past_nine_use_letters(herdr_sim: HerdrSim, pane):
    made = [herdr_sim.split(pane) for _ in range(10)]
    assert made[-2:] == ["w1:pA", "w1:pB"]
    for _ in range(30):
        herdr_sim.create_workspace()
    assert herdr_sim.create_workspace() == "w0:p1"  # the 32nd workspace
    assert herdr_sim.create_workspace() == "w11:p1"


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (
            ["w1:p1"],
            "usage: herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] "
            "[--cwd PATH] [--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]\n",
        ),
        (["w1:p1", "--direction", "left"], "invalid split direction: left\n"),
        (["w1:p1", "--direction", "right", "--ratio", "inf"], "invalid ratio: inf\n"),
        (["w1:p1", "--direction", "right", "--env", "NOEQUALS"], "env must use KEY=VALUE\n"),
        (["w1:p1", "--direction", "right", "--cwd"], "missing value for --cwd\n"),
        (["w1:p1", "--direction", "right", "--wat"], "unknown option: --wat\n"),
    ],
)
def test_split_usage_errors(herdr_sim: HerdrSim, herdr, args, stderr):
    run = herdr("pane", "split", *args)
    assert (run.code, run.stdout, run.stderr) == (2, "", stderr)
    assert herdr_sim.log.requests == []


def test_split_of_a_missing_pane_has_no_id_in_the_message(herdr):
    run = herdr("pane", "split", "w1:p9", "--direction", "right")
    assert run.json["error"] == {"code": "pane_not_found", "message": "pane not found"}


def test_tab_create_appends_a_tab_with_a_root_pane(herdr_sim: HerdrSim, pane, herdr, tmp_path):
    # docs/herdr.md §8.11; real: tests/cli/workspace.rs tab_management_commands_work (second tab is w1:t2).
    herdr_sim.split(pane)
    herdr_sim.split(pane)
    made = herdr("tab", "create", "--workspace", "w1", "--cwd", str(tmp_path), "--label", "logs", "--no-focus").json
    assert made["id"] == "cli:tab:create" and made["result"]["type"] == "tab_created"
    tab, root = made["result"]["tab"], made["result"]["root_pane"]
    assert (tab["tab_id"], tab["number"], tab["label"], tab["pane_count"], tab["focused"]) == (
        "w1:t2",
        2,
        "logs",
        1,
        False,
    )
    assert (root["pane_id"], root["tab_id"], root["cwd"]) == ("w1:p4", "w1:t2", str(tmp_path))
    params = herdr_sim.log.requests[-1]["params"]
    assert params == {"workspace_id": "w1", "cwd": str(tmp_path), "focus": False, "label": "logs"}
    unlabelled = herdr("tab", "create", "--workspace", "w1").json["result"]["tab"]
    assert unlabelled["label"] == "3"


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (["--label=x"], "unknown option: --label=x\n"),
        (["--cwd"], "missing value for --cwd\n"),
        (["--env", "=x"], "env key must not be empty\n"),
    ],
)
def test_tab_create_usage_errors(herdr, args, stderr):
    assert (herdr("tab", "create", *args).code, herdr("tab", "create", *args).stderr) == (2, stderr)


def test_tab_create_in_a_missing_workspace(herdr):
    run = herdr("tab", "create", "--workspace", "w9")
    assert run.json["error"] == {"code": "workspace_not_found", "message": "workspace w9 not found"}


def test_closing_the_last_pane_of_a_tab_removes_only_that_tab(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/panes.rs pane_close_only_removes_the_target_tab_when_other_tabs_exist.
    second_root = herdr_sim.new_tab("w1")
    assert herdr("pane", "close", second_root).json["result"] == {"type": "ok"}
    assert [t["tab_id"] for t in herdr("tab", "list", "--workspace", "w1").json["result"]["tabs"]] == ["w1:t1"]
    assert [w["workspace_id"] for w in herdr("workspace", "list").json["result"]["workspaces"]] == ["w1"]


def test_closing_the_last_pane_closes_the_workspace(herdr_sim: HerdrSim, pane, herdr):
    # real: tests/cli/panes.rs pane_close_removes_the_workspace_when_it_closes_the_last_pane.
    assert herdr("pane", "close", pane).code == 0
    assert herdr("workspace", "list").json["result"]["workspaces"] == []


def test_tab_close_closes_its_panes_and_the_last_tab_closes_the_workspace(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §8.12; real: tests/cli/workspace.rs tab_management_commands_work.
    second_root = herdr_sim.new_tab("w1")
    herdr_sim.add_agent(second_root, "pi", name="worker")
    assert herdr("tab", "close", "w1:t2").json == {"id": "cli:tab:close", "result": {"type": "ok"}}
    assert not herdr_sim.exists(second_root) and herdr("agent", "get", "worker").code == 1
    assert herdr("tab", "close", "w1:t2").json["error"] == {"code": "tab_not_found", "message": "tab w1:t2 not found"}
    assert herdr("tab", "close", "w1:t1").code == 0
    assert herdr("workspace", "list").json["result"]["workspaces"] == []
    assert herdr_sim.create_workspace() == "w2:p1"  # workspace numbers are never reused either


def test_an_agent_disappears_with_its_closed_pane(herdr_sim: HerdrSim, pane, herdr):
    other = herdr_sim.split(pane)
    herdr_sim.add_agent(other, "pi", name="worker")
    herdr("pane", "close", other)
    assert herdr("agent", "list").json["result"]["agents"] == []


def test_pane_move_renumbers_and_keeps_the_old_id_as_an_alias_for_pane_commands(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §3: the old id stays an alias usable by pane commands but not by agent commands.
    other = herdr_sim.split(pane)
    herdr_sim.add_agent(other, "pi", name="mover")
    herdr_sim.create_workspace()
    moved = herdr("pane", "move", other, "--new-tab", "--workspace", "w2", "--no-focus").json
    new_id = moved["result"]["move_result"]["pane"]["pane_id"]
    assert new_id == "w2:p2" and moved["result"]["move_result"]["previous_pane_id"] == other
    assert herdr("pane", "get", other).json["result"]["pane"]["pane_id"] == new_id
    assert herdr("agent", "get", other).json["error"]["code"] == "agent_not_found"
    assert herdr("agent", "get", "mover").json["result"]["agent"]["workspace_id"] == "w2"
    assert herdr_sim.env(new_id)["HERDR_PANE_ID"] == other  # launch-time environment is kept
    assert herdr_sim.env(new_id)["HERDR_WORKSPACE_ID"] == "w1"


def test_workspace_create_first_becomes_active(herdr_sim: HerdrSim, pane, herdr):
    # docs/herdr.md §8.13.
    made = herdr("workspace", "create", "--cwd", "/", "--no-focus").json["result"]
    assert made["type"] == "workspace_created" and made["workspace"]["workspace_id"] == "w2"
    assert made["workspace"]["focused"] is False and made["root_pane"]["pane_id"] == "w2:p1"
    listed = herdr("workspace", "list").json["result"]["workspaces"]
    assert [(w["workspace_id"], w["focused"]) for w in listed] == [("w1", True), ("w2", False)]


def test_pane_env_carries_the_herdr_variables(herdr_sim: HerdrSim, pane):
    # docs/herdr.md §10; real: tests/cli/panes.rs pane_shell_gets_herdr_socket_and_pane_env.
    env = herdr_sim.env(pane)
    assert env["HERDR_ENV"] == "1" and env["HERDR_PANE_ID"] == pane and env["HERDR_TAB_ID"] == "w1:t1"
    assert env["HERDR_SOCKET_PATH"] == herdr_sim.socket_path and env["HERDR_BIN_PATH"] == herdr_sim.bin_path
    assert os.access(env["HERDR_BIN_PATH"], os.X_OK)
    assert len(herdr_sim.socket_path.encode()) < 100
