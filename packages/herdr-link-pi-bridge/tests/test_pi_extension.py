"""The generated Pi extension under Node with a fake ExtensionAPI, against the simulated Herdr
(the TypeScript ``pi.test.ts`` list and more)."""

import json
import re
import sys

import pytest

from herdr_link_pi_bridge import packaged_extension
from herdr_link_pi_bridge._extension import link_data
from herdr_link_protocol import (
    GATEWAY_ARGUMENTS_NOT_OBJECT,
    TOOL_SPECS,
    WAIT_GUARD_REASON,
    Cause,
    LinkError,
    PresentationForm,
    active_presentation,
    extract_envelope,
)
from herdr_link_testkit import HerdrSim

TIER1 = ["herdr_link_start", "herdr_link_peers", "herdr_link_send", "herdr_link_close"]
BUILTIN = ["read", "bash", "edit", "write"]
ACTIVE = '{"status":"active","capabilities":["start","peers","send","close"]}'
PRESENTATION = active_presentation(PresentationForm.DEFERRED_TOOLS)


@pytest.fixture
def team(herdr_sim: HerdrSim, tmp_path):
    brain = herdr_sim.create_workspace(str(tmp_path))
    reviewer = herdr_sim.split(brain)
    herdr_sim.add_agent(brain, "pi", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    return brain, reviewer


def tool(tool_name: str, **args: object) -> dict[str, object]:
    return {"kind": "tool", "name": tool_name, "args": args}


def test_outside_herdr_it_does_nothing(drive, tmp_path):
    report = drive({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, [])
    assert report["registered"] == [] and report["handlers"] == [] and "command" not in report


def test_dormant_registration_is_the_gateway_active_and_tier1_inactive(drive, herdr_sim: HerdrSim, team):
    report = drive(herdr_sim.env(team[0]), [{"kind": "session_start"}])
    names = [tool["name"] for tool in report["registered"]]
    assert names == ["herdr_link", *TIER1] and report["exports"] == ["default"]
    assert report["results"][0]["active"] == [*BUILTIN, "herdr_link"]
    assert report["handlers"] == ["session_shutdown", "session_start", "tool_call"]  # no before_agent_start
    assert report["command"] == "herdr-link"
    registered = {tool["name"]: tool for tool in report["registered"]}
    for name in ["herdr_link", *TIER1]:
        assert registered[name]["promptSnippet"] is None
        assert registered[name]["description"] == TOOL_SPECS[name].description
        assert registered[name]["parameters"] == json.loads(json.dumps(TOOL_SPECS[name].input_schema))
    assert all(registered[name]["defaultActive"] is False for name in TIER1)
    # The presentation rides on one Tier 1 tool's guideline: Pi shows it exactly while that tool is
    # active, so never while dormant, from the next request of the activating turn on, and once.
    guidelines = {name: tool["promptGuidelines"] for name, tool in registered.items() if tool["promptGuidelines"]}
    assert guidelines == {"herdr_link_start": [PRESENTATION]}
    assert registered["herdr_link_close"]["executionMode"] == "sequential"
    assert registered["herdr_link"]["executionMode"] == "sequential"  # it dispatches close too


def test_the_gateway_activates_additively_and_idempotently_without_herdr(drive, herdr_sim: HerdrSim, team):
    herdr_sim.log.clear()
    report = drive(
        herdr_sim.env(team[0]),
        [
            {"kind": "session_start"},
            tool("herdr_link"),
            tool("herdr_link"),
            tool("herdr_link", action="activate"),
        ],
    )
    results = report["results"]
    assert results[1]["ok"] == [ACTIVE] and results[1]["active"] == [*BUILTIN, "herdr_link", *TIER1]
    assert results[2]["ok"] == [ACTIVE] and results[3]["ok"] == [ACTIVE]
    assert report["setActiveCalls"] == 2  # one at session_start, one activation; the repeats change nothing
    assert all(c[:2] != ("agent", "rename") for c in herdr_sim.log.commands())


def test_the_gateway_dispatches_both_forms_and_refuses_unknown_actions(drive, herdr_sim: HerdrSim, team):
    brain, reviewer = team
    steps = [
        {"kind": "session_start"},
        tool("herdr_link", action="peers"),  # dispatch while dormant activates, then runs
        tool("herdr_link", action="send", arguments={"to": "reviewer", "message": "nested"}),
        tool("herdr_link", action="send", to="reviewer", message="flat", wait_for_previous=True),
        tool("herdr_link", action="wait"),
        tool("herdr_link", action="send", arguments="to reviewer"),
    ]
    results = drive(herdr_sim.env(brain), steps)["results"]
    assert json.loads(results[1]["ok"][0])["peers"] == [{"name": "reviewer", "state": "idle"}]
    assert results[1]["active"] == [*BUILTIN, "herdr_link", *TIER1]
    messages = [extract_envelope(d.text).message for d in herdr_sim.deliveries(reviewer)]  # type: ignore[union-attr]
    assert messages == ["nested", "flat"] and results[2]["details"]["status"] == "sent"
    assert results[4] == {"error": "Unknown gateway action: wait; use one of start, peers, send, close"}
    assert results[5] == {"error": GATEWAY_ARGUMENTS_NOT_OBJECT}


def test_a_new_session_starts_dormant_again(drive, herdr_sim: HerdrSim, team):
    steps = [{"kind": "session_start"}, tool("herdr_link"), {"kind": "session_start"}]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert results[2]["active"] == [*BUILTIN, "herdr_link"]  # Tier 1, and with it the guideline, gone


def test_tier1_tools_reach_the_control_layer(drive, herdr_sim: HerdrSim, team, tmp_path):
    brain, reviewer = team
    project = tmp_path / "proj"
    (project / ".agents").mkdir(parents=True)
    (project / ".agents" / "agent_config.json").write_text(
        json.dumps({"agents": {"helper": {"placement": {"mode": "with"}, "variants": [{"kind": "claude"}]}}})
    )
    steps = [
        {"kind": "session_start"},
        tool("herdr_link"),
        tool("herdr_link_peers"),
        tool("herdr_link_send", to="reviewer", message="please review"),
        tool("herdr_link_start", name="worker", kind="pi", args=["--model", "x"]),
        {
            "kind": "tool",
            "name": "herdr_link_start",
            "args": {"name": "aide", "config_agent": "helper", "with": "brain"},
            "cwd": str(project),
        },
        tool("herdr_link_close", agent="worker"),
    ]
    results = drive(herdr_sim.env(brain), steps)["results"]
    assert json.loads(results[2]["ok"][0])["peers"] == [{"name": "reviewer", "state": "idle"}]
    sent = results[3]["details"]
    envelope = extract_envelope(herdr_sim.deliveries(reviewer)[0].text)
    assert envelope is not None and envelope.id == sent["id"] and envelope.from_ == "brain"
    assert results[4]["details"] == {"status": "started", "agent": "worker", "kind": "pi"}
    assert results[5]["details"] == {"status": "started", "agent": "aide", "kind": "claude"}
    assert results[6]["details"] == {"status": "closed", "agent": "worker"}


def test_errors_have_the_protocols_codes(drive, herdr_sim: HerdrSim, team):
    steps = [
        {"kind": "session_start"},
        tool("herdr_link"),
        tool("herdr_link_send", to="ghost", message="x"),
        tool("herdr_link_send", to="reviewer", message=""),
        tool("herdr_link_close", agent="Bad"),
    ]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert results[2] == {"error": str(LinkError(Cause.NOT_A_PEER))}
    assert results[3] == {"error": str(LinkError(Cause.MESSAGE_EMPTY))}
    assert results[4] == {"error": str(LinkError(Cause.NOT_A_PEER))}


def test_a_dead_bridge_is_a_clear_error_and_restarts(drive, herdr_sim: HerdrSim, team):
    steps = [
        {"kind": "session_start"},
        tool("herdr_link"),
        tool("herdr_link_peers"),
        {"kind": "kill-bridge"},
        tool("herdr_link_peers"),
    ]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert "ok" in results[2] and "ok" in results[4]


def test_the_bootstrap_runs_at_session_start(drive, herdr_sim: HerdrSim, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "pi")
    drive(herdr_sim.env(pane), [{"kind": "session_start"}, tool("herdr_link"), tool("herdr_link_peers")])
    assert str(herdr_sim.name_of(pane)).startswith("hl-")


BLOCK = [
    "herdr agent wait reviewer",
    "herdr agent wait reviewer --until idle --timeout 5000",
    "/usr/local/bin/herdr agent wait reviewer",
    '"$HERDR_BIN_PATH" agent wait reviewer',
    "$HERDR_BIN_PATH agent wait reviewer",
    "${HERDR_BIN_PATH} agent wait reviewer",
    "herdr agent prompt reviewer 'do it' --wait",
    "herdr agent prompt reviewer hi --wait --timeout 100",
    "herdr agent prompt reviewer hi --wait=true",
    "herdr --session work agent wait reviewer",
    "echo start && herdr agent wait reviewer",
    "true; herdr agent wait reviewer | tail -1",
    "x=$(herdr agent wait reviewer)",
    "echo `herdr agent wait reviewer`",
    "FOO=1 herdr agent wait reviewer",
    "env FOO=1 herdr agent wait reviewer",
    "timeout 30 herdr agent wait reviewer",
    "sh -c 'herdr agent wait reviewer'",
    'bash -lc "herdr agent prompt reviewer hi --wait"',
    "cd /tmp\nherdr agent wait reviewer",
    # what TypeScript 0.5.1's guard blocked and ours let through
    "(herdr agent wait x)",
    "{ herdr agent wait x; }",
    "sudo -u root herdr agent wait x",
    "eval herdr agent wait x",
    "timeout -s KILL 5 herdr agent wait brain",
    "herdr agent prompt --wait brain hi",
    # subshells, grouping, substitution in quotes
    "(cd /tmp && herdr agent wait x)",
    "{ echo a; herdr agent wait x; }",
    'echo "$(herdr agent wait x)"',
    "diff <(herdr agent wait x) /dev/null",
    "if true; then herdr agent wait x; fi",
    "for i in 1 2; do herdr agent wait x; done",
    "while true; do herdr agent prompt x hi --wait; done",
    "! herdr agent wait x",
    # wrappers with their options
    "env -i PATH=/bin herdr agent wait x",
    "env -u HOME FOO=1 herdr agent wait x",
    "env -S 'herdr agent wait x'",
    "sudo -E -u root -- herdr agent wait x",
    "doas -u root herdr agent wait x",
    "timeout --signal=KILL 5 herdr agent wait x",
    "timeout -k 1 5 herdr agent wait x",
    "nice -n 5 herdr agent wait x",
    "nice -10 herdr agent wait x",
    "nohup herdr agent wait x &",
    "time -p herdr agent wait x",
    "command -p herdr agent wait x",
    "exec -a name herdr agent wait x",
    "stdbuf -o L herdr agent wait x",
    "setsid herdr agent wait x",
    "xargs -I {} herdr agent wait {} < names",
    "echo x | xargs -n 1 herdr agent wait",
    "ionice -c 3 herdr agent wait x",
    "chrt 5 herdr agent wait x",
    "taskset 0x1 herdr agent wait x",
    "flock /tmp/l herdr agent wait x",
    "sudo env FOO=1 timeout 5 nice herdr agent wait x",
    # shells and evaluation
    "sh -c 'sudo herdr agent wait x'",
    "bash -ec 'herdr agent wait x'",
    "su root -c 'herdr agent wait x'",
    "eval 'herdr agent prompt x hi --wait'",
    # paths, the variable, quoting and spacing
    "./herdr agent wait x",
    "~/bin/herdr agent wait x",
    "'/opt/herdr/bin/herdr' agent wait x",
    '"${HERDR_BIN_PATH}" agent wait x',
    "h\\erdr agent wait x",
    "herdr\tagent  wait\tx",
    "herdr agent \\\nwait x",
    "herdr --remote host agent wait x",
    "herdr agent prompt x 'hi' --timeout 5 --wait",
    "herdr agent prompt x hi --until idle --wait",
    "2>/dev/null herdr agent wait x",
    "herdr agent wait x > /tmp/out 2>&1",
    # where a shell would expand: braces, ANSI-C quoting, variables and substitutions in command position
    "{herdr,} agent wait x",
    "{h..h}erdr agent wait x",
    "$'herdr' agent wait x",
    "$'\\x68erdr' agent wait x",
    "$'\\150erdr' agent prompt x hi --wait",
    "${HERDR_BIN_PATH:-herdr} agent wait x",
    "${HERDR:-herdr} agent wait x",
    "h=herdr; $h agent wait x",
    '"$h" agent prompt x hi --wait',
    "$(command -v herdr) agent wait x",
    "`which herdr` agent wait x",
    # programs that run a command line or a command of their own
    "script -c 'herdr agent wait x'",
    'script -qc "herdr agent wait x" /dev/null',
    "script --command='herdr agent wait x' /dev/null",
    "find . -maxdepth 0 -exec herdr agent wait x \\;",
    "find . -execdir herdr agent wait {} +",
    "find . -name a -ok $HERDR_BIN_PATH agent wait {} ;",
    "printf 'x\\n' | xargs -r herdr agent wait",
    # a here-document whose unquoted delimiter lets a substitution run
    "cat <<EOF\n$(herdr agent wait x)\nEOF",
]
ALLOW = [
    "herdr agent list",
    "herdr agent get reviewer",
    "herdr agent prompt reviewer --wait",  # the text is literally "--wait": nothing waits
    "herdr agent prompt reviewer 'please --wait for me'",
    "echo herdr agent wait reviewer",
    "grep 'agent wait' notes.txt",
    "git commit -m 'herdr agent wait is blocked'",
    "ls -la",
    "cat herdr.log | grep wait",
    # words that merely mention it
    'echo "run herdr agent wait x to wait"',
    "printf '%s\\n' 'herdr agent wait x'",
    "grep -r 'herdr agent prompt --wait' docs/",
    "git log --grep='agent wait'",
    "vim herdr-agent-wait.md",
    "man herdr",
    "# herdr agent wait x",
    "echo ok # herdr agent wait x",
    "cat <<'EOF'\nplain text\nEOF",
    "herdr agent list --json | jq '.agents[] | select(.wait)'",
    "herdr agent prompt x 'use --wait never'",
    "herdr agent prompt x hi -- --wait",
    "herdr pane list",
    "sudo apt-get install wait",
    "timeout 5 sleep 1",
    "sh -c 'echo herdr agent wait x'",
    "env FOO='herdr agent wait x' printenv FOO",
    "echo $(echo herdr agent wait)",
    "bash -c \"grep 'agent wait' log\"",
    # unresolvable command words that do not read as a Herdr wait, and here-document bodies (data)
    "$EDITOR notes.md",
    "${PAGER:-less} README.md",
    '"$EDITOR" agent-wait.md',
    "cat <<EOF\nherdr agent wait x\nEOF",
    "cat <<'EOF' > notes.md\nrun: herdr agent prompt x hi --wait\nEOF\necho done",
    "cat <<-END\n\therdr agent wait x\n\tEND",
    'cat <<"EOF"\n$(herdr agent wait x)\nEOF',
    "echo {a,b}.txt",
    "find . -name '*.md' -exec grep -l 'agent wait' {} +",
    "script -q /dev/null",
    "$'echo' 'herdr agent wait x'",
    "her{d,}r agent wait x",  # herdr runs with "herr" as its command: no wait
    "/usr/bin/{herdr,} agent wait x",  # herdr runs with "/usr/bin/" as its command
]


def test_an_active_session_blocks_raw_waits_at_the_bash_boundary(drive, herdr_sim: HerdrSim, team):
    steps = [{"kind": "session_start"}, {"kind": "bash", "command": BLOCK[0]}, tool("herdr_link")]
    steps += [{"kind": "bash", "command": command} for command in BLOCK + ALLOW]
    results = drive(herdr_sim.env(team[0]), steps)["results"]
    assert results[1]["bash"] is None  # dormant sessions are not intercepted
    verdicts = [r["bash"] for r in results[3:]]
    for command, verdict in zip(BLOCK, verdicts[: len(BLOCK)], strict=True):
        assert verdict == {"block": True, "reason": WAIT_GUARD_REASON}, command
    for command, verdict in zip(ALLOW, verdicts[len(BLOCK) :], strict=True):
        assert verdict is None, command


def test_the_extension_imports_no_package_and_embeds_the_protocols_texts():
    text = packaged_extension().read_text()
    imports = re.findall(r'^import .* from "([^"]+)";$', text, flags=re.MULTILINE)
    assert imports and all(name.startswith("node:") for name in imports)
    assert "require(" not in text and "import(" not in text
    embedded = json.loads(text.split("const LINK = ", 1)[1].split(";\n", 1)[0])
    assert embedded == link_data()


def test_activation_and_the_wait_guard_need_no_bridge(drive, herdr_sim: HerdrSim, team):
    env = {**herdr_sim.env(team[0]), "HERDR_LINK_BRIDGE": '["/no/such/herdr-link-bridge"]'}
    steps = [{"kind": "session_start"}, tool("herdr_link", action="peers"), {"kind": "bash", "command": BLOCK[0]}]
    steps += [tool("herdr_link", action="activate"), {"kind": "bash", "command": BLOCK[0]}]
    results = drive(env, steps)["results"]
    assert results[1] == {"error": str(LinkError(Cause.BRIDGE_UNAVAILABLE))}
    assert results[2]["bash"] is None  # a call the bridge never read does not activate
    assert results[3]["ok"] == [ACTIVE] and results[3]["active"] == [*BUILTIN, "herdr_link", *TIER1]
    assert results[4]["bash"] == {"block": True, "reason": WAIT_GUARD_REASON}


def test_an_older_bridge_without_the_gateway_op_is_named_incompatible(drive, herdr_sim: HerdrSim, team, tmp_path):
    older = tmp_path / "older_bridge.py"  # answers hello as a bridge before the gateway op did, then stays silent
    older.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    if json.loads(line).get('type') == 'hello':\n"
        "        ops = ['bootstrap', 'start', 'peers', 'send', 'close', 'resolve_session_pane']\n"
        "        print(json.dumps({'type': 'hello', 'contract': 1, 'protocol': 'herdr-link/1', 'bridge': '0.1.0',"
        " 'ops': ops}), flush=True)\n"
    )
    env = {**herdr_sim.env(team[0]), "HERDR_LINK_BRIDGE": json.dumps([sys.executable, str(older)])}
    results = drive(env, [{"kind": "session_start"}, tool("herdr_link", action="peers"), tool("herdr_link")])["results"]
    assert results[1] == {"error": str(LinkError(Cause.BRIDGE_INCOMPATIBLE))}
    assert results[2]["ok"] == [ACTIVE]
