"""The kit against our bridge (every check, as CI runs them; our MCP server, another distribution,
is checked in the root ``tests/test_conformance_kit.py``), a broken adapter (the checks can fail),
and its command line's convention (--json, --only/--skip, exit codes)."""

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from herdr_link_conformance import CHECKS, AdapterSpec, run_checks, selected
from herdr_link_conformance.cli import EXIT_MISSING

BIN = Path(sys.executable).parent
BRIDGE = AdapterSpec("bridge", (str(BIN / "herdr-link-bridge"),))
BROKEN = AdapterSpec("mcp", (sys.executable, str(Path(__file__).parent / "broken_mcp.py")))


def kit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "herdr_link_conformance", *args], capture_output=True, text=True, timeout=900
    )


def test_there_are_at_least_thirty_checks_each_tied_to_a_section():
    assert len(CHECKS) >= 30 and len({c.id for c in CHECKS}) == len(CHECKS)
    assert all(c.section and c.section[0].isdigit() for c in CHECKS)
    sections = {c.section.split(".")[0] for c in CHECKS}
    assert {"2", "3", "4", "5", "6", "7", "8"} <= sections


@pytest.mark.parametrize("check", CHECKS, ids=[c.id for c in CHECKS])
def test_our_bridge_passes_or_skips_what_a_bridge_does_not_offer(check):
    [result] = anyio.run(lambda: run_checks(BRIDGE, [check]))
    expected = "SKIP" if check.needs - BRIDGE.capabilities else "PASS"
    assert result.status == expected, result.detail
    if expected == "SKIP":
        assert "which a bridge adapter does not offer" in result.detail


def test_a_capability_an_adapter_does_not_claim_is_skipped_with_the_reason():
    spec = AdapterSpec.parse("bridge", str(BIN / "herdr-link-bridge"), frozenset({"start"}))
    starts = [c for c in CHECKS if c.section == "4.2"]
    results = anyio.run(lambda: run_checks(spec, starts))
    assert {r.status for r in results} == {"SKIP"}
    assert all(r.detail == "needs start, which this adapter does not claim" for r in results)
    with pytest.raises(ValueError, match="unknown capability teleport"):
        AdapterSpec.parse("mcp", "x", frozenset({"teleport"}))


def test_a_broken_adapter_fails_with_what_was_seen():
    checks = [c for c in CHECKS if c.id in ("dormant-gateway-only", "activation-receipt", "send-receipt")]
    results = {r.id: r for r in anyio.run(lambda: run_checks(BROKEN, checks))}
    assert {r.status for r in results.values()} == {"FAIL"}
    assert "dormant tools/list was ['herdr_link', 'herdr_link_start'" in results["dormant-gateway-only"].detail
    assert '{"status":"ok"}' in results["activation-receipt"].detail


def test_the_command_line_prints_json_and_exits_1_on_a_failure():
    done = kit("--mcp", " ".join(BROKEN.argv), "--only", "6.2", "--json")
    assert done.returncode == 1, done.stderr
    checks = json.loads(done.stdout)["checks"]
    assert [set(c) for c in checks] == [{"id", "section", "status", "detail", "promise"}] * len(checks)
    assert {c["section"] for c in checks} == {"6.2"}
    assert {c["id"]: c["status"] for c in checks}["dormant-gateway-only"] == "FAIL"
    titles = {c.id: c.title for c in CHECKS}
    assert all(c["promise"] == titles[c["id"]] for c in checks)


def test_the_list_carries_each_checks_promise_and_section():
    listed = json.loads(kit("--mcp", "x", "--list", "--json").stdout)["checks"]
    assert [c["id"] for c in listed] == [c.id for c in CHECKS]
    assert all(c["promise"] and c["section"][0].isdigit() and isinstance(c["needs"], list) for c in listed)
    sections = {c["id"]: c["section"] for c in listed}
    assert sections["wrapper-shape"] == "2.6" and sections["bounded-when-herdr-hangs"] == "6.1"
    text = kit("--mcp", "x", "--list").stdout
    assert "§2.6   wrapper-one-submission: the wrapper reaches the peer as one submitted input" in text


def test_the_command_line_lines_and_summary_and_selection():
    done = kit("--bridge", str(BIN / "herdr-link-bridge"), "--only", "§4.4", "--skip", "send-empty")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert all(line.startswith("PASS  §4.4") for line in lines[:-1]) and "send-empty" not in done.stdout
    ran = len(lines) - 1
    assert ran == len(selected(["4.4"], ["send-empty"]))
    left_out = f"{len(CHECKS) - ran} of the kit's {len(CHECKS)} left out by --only/--skip"
    assert lines[-1] == f"{ran} passed, 0 failed, 0 skipped, of {ran} checks; {left_out}"


def test_an_adapter_that_is_not_there_is_named_before_any_check(tmp_path):
    """A relative program is found from where the kit was started (the adapter then runs in the
    simulated workspace's folder); a missing program or stub is named, and no check blames the adapter."""
    server = tmp_path / "bin" / "my-server"
    server.parent.mkdir()
    server.symlink_to(BIN / "herdr-link-bridge")
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_conformance", "--bridge", "bin/my-server", "--only", "send-receipt"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("PASS"), done.stdout + done.stderr
    for args, said in [
        (("--mcp", "./no-such-server"), f"--mcp: {Path.cwd() / 'no-such-server'} is not an executable file"),
        (("--bridge", "no-such-bridge --flag"), "--bridge: no-such-bridge was not found on PATH"),
        (("--stub", f"pi:{tmp_path / 'gone.js'}"), f"--stub names {tmp_path / 'gone.js'}, which is not a file"),
        (
            ("--mcp", f"{sys.executable} -u {tmp_path / 'gone.py'}"),
            f"--mcp: {tmp_path / 'gone.py'}, the file it runs, does not exist",
        ),
        (
            ("--mcp", f"{sys.executable} ./gone.py"),
            f"--mcp: {Path.cwd() / 'gone.py'}, the file it runs, does not exist",
        ),
        (
            ("--mcp", f"{sys.executable} ./README.md"),
            "--mcp: ./README.md is relative and the adapter runs in another folder: name it by absolute path",
        ),
    ]:
        done = kit(*args)
        assert (done.returncode, done.stdout) == (4, ""), done.stdout
        assert done.stderr == f"herdr-link-conformance: {said}; no check was run\n"


def test_the_readme_gives_each_exit_status_the_meaning_the_kit_returns_it_with():
    paragraph = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split("Exit status: ", 1)[1]
    meanings = dict(re.findall(r"(?:^|; )(\d+) ([^;]*)", paragraph.split("\n\n", 1)[0].replace("\n", " ")))
    assert "missing" in meanings[str(EXIT_MISSING)] and "program" in meanings[str(EXIT_MISSING)]
    assert "ERROR" in meanings["3"] and "missing" not in meanings["3"]


def test_usage_errors_exit_2():
    assert kit().returncode == 2  # neither --mcp nor --bridge
    assert kit("--mcp", "x", "--only", "no-such-check").returncode == 2


def test_a_bug_inside_a_check_is_the_kits_error_not_the_adapters():
    async def buggy(context) -> None:
        async with context.adapter():
            empty: dict[str, int] = {}
            empty["missing"]  # a bug in the check's own code, with a healthy adapter

    check = dataclasses.replace(next(c for c in CHECKS if c.id == "send-receipt"), run=buggy)
    [result] = anyio.run(lambda: run_checks(BRIDGE, [check]))
    assert result.status == "ERROR", result
    assert "the kit itself failed at test_conformance.py:" in result.detail and "KeyError" in result.detail
    assert "this says nothing of the adapter" in result.detail


@pytest.mark.parametrize(
    "argv", [("/bin/true",), (sys.executable, "-c", "print('not json')")], ids=["exits", "babbles"]
)
def test_an_adapter_that_dies_or_babbles_fails_the_check_as_the_adapters_fault(argv):
    checks = [c for c in CHECKS if c.id == "dormant-gateway-only"]
    [result] = anyio.run(lambda: run_checks(AdapterSpec("mcp", argv), checks))
    assert result.status == "FAIL" and result.detail.startswith("the adapter broke the check"), result


@pytest.mark.parametrize(
    "argv, detail",
    [
        (("/bin/cat",), "is the kit's own hello, echoed back: not a bridge"),
        (("/bin/sh", "-c", "cat >/dev/null"), "the bridge did not answer hello within 20 s"),
        (
            (sys.executable, "-c", 'import sys; sys.stdin.readline(); print(\'{"type":"hello","contract":1}\')'),
            "does not name the protocol and the bridge's version",
        ),
    ],
    ids=["echoes", "never-answers", "half-a-hello"],
)
def test_a_bridge_must_answer_hello_as_the_contract_says(argv, detail):
    checks = [c for c in CHECKS if c.id == "peers-self-and-peers"]
    [result] = anyio.run(lambda: run_checks(AdapterSpec("bridge", argv), checks))
    assert result.status == "FAIL" and detail in result.detail, result


def test_a_bridge_answer_under_another_id_fails():
    script = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m.get('type') == 'hello':\n"
        "        out = {'type': 'hello', 'contract': 1, 'protocol': 'herdr-link/1', 'bridge': '0',"
        " 'ops': ['peers', 'send', 'close', 'gateway']}\n"
        "    else:\n"
        "        out = {'id': 999, 'result': {}}\n"
        "    print(json.dumps(out), flush=True)\n"
    )
    checks = [c for c in CHECKS if c.id == "peers-self-and-peers"]
    [result] = anyio.run(lambda: run_checks(AdapterSpec("bridge", (sys.executable, "-c", script)), checks))
    assert result.status == "FAIL" and "an answer came under id 999, which no request had" in result.detail, result


def test_every_checks_section_is_a_section_of_protocol_md():
    text = (Path(__file__).resolve().parents[3] / "PROTOCOL.md").read_text(encoding="utf-8")
    numbers = set(re.findall(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", text, flags=re.MULTILINE))
    assert {"2.5", "2.6", "4.2", "6.1"} <= numbers
    assert [c.id for c in CHECKS if c.section not in numbers] == []


def test_a_stub_path_may_start_with_a_tilde_as_the_readme_writes_it(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert AdapterSpec.parse("stub", "pi:~/.pi/agent/extensions/herdr-link.js").argv[-1] == str(
        tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
    )
