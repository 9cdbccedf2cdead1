"""What the simulator's 0.9.0 mode does differently from 0.8.2, each in both releases, with its source.

Sources (herdrdev/herdr): the 0.9-line ``src/cli/agent.rs`` (``--flag=value`` in ``agent start``
before ``--``, in ``agent prompt``/``agent wait`` over every argument, in ``agent read``; ``agent read``'s
usage errors), ``src/cli.rs`` (``expand_equals_args``), the 0.9.0 changelog (``pane report-agent``
options first, #2926; ``agent prompt`` answers after the Enter, #3506, #3685; the ``--wait`` stall
wording), a captured 0.9.0 ``ping`` (its ``capabilities``), and ``src/api/schema/agents.rs`` /
``src/terminal/title.rs`` (optional record fields, in 0.8.2 already). ``docs/herdr-versions.md``
summarises them.
"""

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr_link_testkit import RELEASES as ROWS, HerdrError, HerdrSim, Release
from herdr_link_testkit.fake_tui import install_fake_agent

RELEASES = ("0.8.2", "0.9.0")


@pytest.fixture(params=RELEASES)
def sim(request: pytest.FixtureRequest) -> Iterator[HerdrSim]:
    with HerdrSim(herdr_version=request.param) as simulator:
        yield simulator


def _pane(sim: HerdrSim) -> str:
    pane = sim.create_workspace("/tmp")
    sim.add_agent(pane, "claude", name="brain")
    return pane


def _herdr(sim: HerdrSim, pane: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sim.bin_path, *args], env=sim.env(pane), capture_output=True, text=True, timeout=60)


def _newer(sim: HerdrSim) -> bool:
    return sim.simulator.release == "0.9.0"


def test_agent_start_takes_option_equals_value_in_0_9_only(sim: HerdrSim) -> None:
    pane = _pane(sim)
    target = sim.split(pane)
    done = _herdr(sim, pane, "agent", "start", "worker", "--kind=codex", f"--pane={target}", "--", "--model=x")
    if _newer(sim):
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["result"]["argv"] == ["codex", "--model=x"]  # after `--`: as given
    else:
        assert (done.returncode, done.stderr) == (2, "unknown option: --kind=codex\n")
    # Both keep the unknown-kind check in the CLI: exit 2, nothing sent.
    unknown = _herdr(sim, pane, "agent", "start", "other", "--kind", "nope", "--pane", target)
    assert (unknown.returncode, unknown.stderr) == (2, "unsupported interactive agent kind: nope\n")


def test_agent_prompt_text_shaped_like_an_option(sim: HerdrSim) -> None:
    pane = _pane(sim)
    done = _herdr(sim, pane, "agent", "prompt", "brain", "--timeout=5")
    if _newer(sim):  # the expansion runs over the text too; parsing resumes after it
        assert (done.returncode, done.stderr) == (2, "unknown option: 5\n")
        assert sim.deliveries(pane) == []
    else:
        assert done.returncode == 0, done.stderr
        assert [d.text for d in sim.deliveries(pane)] == ["--timeout=5"]
    waited = _herdr(sim, pane, "agent", "wait", "brain", "--until=idle", "--timeout=1000")
    if _newer(sim):
        assert waited.returncode == 0 and json.loads(waited.stdout)["result"]["agent"]["name"] == "brain"
    else:
        assert (waited.returncode, waited.stderr) == (2, "unknown option: --until=idle\n")


def test_agent_read_options_and_usage_errors(sim: HerdrSim) -> None:
    pane = _pane(sim)
    done = _herdr(sim, pane, "agent", "read", "brain", "--source=visible")
    bad = _herdr(sim, pane, "agent", "read", "brain", "--source", "sideways")
    if _newer(sim):
        assert done.returncode == 0, done.stderr
        assert bad.returncode == 2 and bad.stdout == ""
        assert bad.stderr.splitlines()[0] == "invalid read source: sideways"
        assert bad.stderr.splitlines()[1].startswith("usage: herdr agent read <target> [--source visible|recent")
    else:
        assert (done.returncode, done.stderr) == (2, "unknown option: --source=visible\n")
        assert bad.returncode == 1 and "invalid read source: sideways" in bad.stderr


def test_pane_report_agent_options_first_in_0_9_only(sim: HerdrSim) -> None:
    pane = _pane(sim)
    other = sim.split(pane)
    done = _herdr(sim, pane, "pane", "report-agent", "--source=custom:t", "--agent", "pi", "--state=idle", other)
    if _newer(sim):
        assert (done.returncode, done.stdout) == (0, "")
        assert sim.agent(other)["agent"] == "pi"
    else:
        assert done.returncode == 2 and done.stderr.startswith("usage: herdr pane report-agent")


def test_no_modelled_release_prints_agent_instance_id(sim: HerdrSim) -> None:
    """0.9.0's AgentInfo, as the API schema generated at 0.9.0 declares it, has no such field; a later one
    has it (``src/api/schema/agents.rs@b129bebc``), in a release not yet established: its own row."""
    _pane(sim)
    assert "agent_instance_id" not in sim.agent("brain")


AGENT_INFO_FIELDS = frozenset(
    "agent agent_session agent_status cwd display_agent focused foreground_cwd interactive_ready launch_pending "
    "name pane_id revision screen_detection_skipped state_change_seq state_labels tab_id terminal_id "
    "terminal_title terminal_title_stripped title tokens workspace_id".split()
)
"""``AgentInfo``'s fields as both releases declare them: 0.8.2's ``src/api/schema/agents.rs@1c76079f``, and
0.9.0's API schema as the models ``herdr-python-sdk`` 0.1.0 generates from it at 0.9.0's commit
``b99002ac99b0`` (read for this list, not a dependency: it needs Python 3.12)."""


def test_agent_records_carry_only_the_fields_the_release_declares(sim: HerdrSim) -> None:
    pane = _pane(sim)
    target = sim.split(pane)
    started = _herdr(sim, pane, "agent", "start", "worker", "--kind", "codex", "--pane", target)
    assert started.returncode == 0, started.stderr
    records = [sim.agent("brain"), sim.agent("worker"), json.loads(started.stdout)["result"]["agent"]]
    assert all(set(record) <= AGENT_INFO_FIELDS for record in records), [set(r) - AGENT_INFO_FIELDS for r in records]


def test_a_later_release_is_one_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """A release the simulator does not model yet is one more row of ``RELEASES``: here a made-up 0.9.9,
    0.9.0's row plus the record field a later AgentInfo carries."""
    base = ROWS["0.9.0"]
    kept = {slot: getattr(base, slot) for slot in Release.__slots__ if slot not in ("version", "protocol")}
    later = Release("0.9.9", base.protocol, **{**kept, "agent_fields": ("agent_instance_id",), "sources": "made up"})
    with pytest.raises(ValueError, match="unknown Herdr version"):
        HerdrSim(herdr_version="0.9.9")
    monkeypatch.setitem(ROWS, "0.9.9", later)
    with HerdrSim(herdr_version="0.9.9") as sim:
        pane = _pane(sim)
        assert sim.request("ping")["version"].startswith("0.9.9") and sim.request("ping")["protocol"] == 22
        first = sim.agent("brain")["agent_instance_id"]
        sim.exit_agent("brain")
        sim.add_agent(pane, "claude", name="brain")
        assert sim.agent("brain")["agent_instance_id"] not in (None, first)  # new for every agent that comes
        done = _herdr(sim, pane, "agent", "start", "worker", "--kind=codex", f"--pane={sim.split(pane)}")
        assert done.returncode == 0, done.stderr  # 0.9.0's --option=value, from the row it copied


def test_ping_capabilities(sim: HerdrSim) -> None:
    capabilities = sim.request("ping")["capabilities"]
    assert capabilities["live_handoff"] is True
    newer = {"endpoint_protocol_generation": 1, "surface_interest": True, "health_check": True}
    assert (newer.items() <= capabilities.items()) == _newer(sim)
    assert (newer.keys() & capabilities.keys() == set()) != _newer(sim)


def test_agent_prompt_answers_after_the_enter_in_0_9_on_a_modelled_pane(sim: HerdrSim) -> None:
    pane = _pane(sim)
    began = time.monotonic()
    sim.request("agent.prompt", target="brain", text="hello")
    took = time.monotonic() - began
    if _newer(sim):
        assert took >= 0.29  # its Enter went 300 ms after the text, and only then the answer
    assert sim.received(pane) == b"\x1b[200~hello\x1b[201~\r"


def test_the_0_9_wait_stall_wording(sim: HerdrSim) -> None:
    _pane(sim)
    with pytest.raises(HerdrError) as stalled:
        sim.request("agent.prompt", target="brain", text="hello", wait={"timeout_ms": 60_000})
    assert stalled.value.code == "agent_prompt_stalled"
    if _newer(sim):
        assert stalled.value.message == (
            "agent prompt produced no observed working or blocked state within 5000 ms; current status is idle"
        )
    else:
        assert stalled.value.message.startswith("agent prompt produced no observed state change within 5000 ms")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="real panes read /proc (Linux)")
@pytest.mark.parametrize("release", RELEASES)
def test_real_panes_answer_a_prompt_as_each_release_does_and_show_their_title(release: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    install_fake_agent(bin_dir, "claude")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SHELL": "/bin/bash", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    with HerdrSim(real_panes=True, env=env, herdr_version=release) as sim:
        pane = sim.create_workspace(str(tmp_path))
        sim.wait_for(lambda: sim.read(pane).rstrip().endswith(("#", "$")), timeout=30, what="the prompt")
        started = _herdr(sim, pane, "agent", "start", "worker", "--kind", "claude", "--pane", pane)
        assert started.returncode == 0, started.stderr
        record = json.loads(started.stdout)["result"]["agent"]
        # A title the program set is on the records, and without its activity glyph (both releases).
        assert (record["terminal_title"], record["terminal_title_stripped"]) == ("\u2733 Fake Claude", "Fake Claude")
        assert "display_agent" not in record
        before = len(sim.received(pane))
        assert _herdr(sim, pane, "agent", "prompt", "worker", "hi").returncode == 0
        if release == "0.9.0":  # answered only after the Enter was typed
            assert sim.received(pane)[before:] == b"\x1b[200~hi\x1b[201~\r"
        sim.wait_for(lambda: sim.received(pane)[before:] == b"\x1b[200~hi\x1b[201~\r", timeout=30, what="the Enter")
