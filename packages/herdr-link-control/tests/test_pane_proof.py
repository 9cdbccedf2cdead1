"""Which pane a process can show it runs in (PROTOCOL.md §6.1): read in real sessions and terminals, and
what the Link does with it for each kind of host."""

import os
import shlex
import socket
import subprocess
import sys
import time

import pytest
from scripted_herdr import IN_PANE, agent, got, ok, scripted

from herdr_link_control import CallContext, Link, PaneEvidence, TerminalPane
from herdr_link_protocol import Cause, LinkError

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pane is read from /proc (Linux)")

READ = "import json, os; from herdr_link_control import read_pane_evidence as r; print(r(os.environ).terminal.name)"
MULTIPLEXER = """
import os, subprocess, sys
master, slave = os.openpty()  # this process holds the window's terminal, as a tmux server does
done = subprocess.run(["setsid", "-c", "sh", "-c", sys.argv[1]], stdin=slave, capture_output=True, text=True)
print(done.stdout.strip())
"""
"""A multiplexer's window: a shell it starts as the leader of a terminal whose master it holds."""


@pytest.fixture
def herdr_socket(tmp_path):
    """This test process as the Herdr server: it listens on the socket panes name, and holds their
    terminals' master sides (as Herdr's server does)."""
    path = str(tmp_path / "herdr.sock")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen()
        yield path


def evidence_in(
    command: str,
    herdr_socket: str,
    *,
    leader_pane: str,
    own_env: dict[str, str] | None = None,
    tty: bool = True,
    window: dict[str, str] | None = None,
    handed_off: bool = False,
) -> str:
    """What a process sees: its session led by a shell Herdr would start for ``leader_pane`` (``setsid -c``
    on a fresh pseudo-terminal whose master this process, the server, holds, as portable-pty does),
    ``command`` run there with ``own_env`` on top. ``window``: the shell instead starts a multiplexer
    (these variables on top), and ``command`` runs in a window of it, led by a shell the multiplexer started.
    ``handed_off``: the leader is not a child of the server (as after Herdr's live handoff)."""
    leader_env = {**os.environ, "HERDR_ENV": "1", "HERDR_BIN_PATH": "/mock/herdr", "HERDR_SOCKET_PATH": herdr_socket,
                  "HERDR_PANE_ID": leader_pane}  # fmt: skip
    child = " ".join(f"{k}={v}" for k, v in (own_env or {}).items())
    script = f"env {child} {sys.executable} -c '{command}'; true"  # `; true`: the shell stays the leader
    if not tty:
        done = subprocess.run(["sh", "-c", script], env=leader_env, capture_output=True, text=True, timeout=60,
                              start_new_session=True, stdin=subprocess.DEVNULL)  # fmt: skip
        return done.stdout.strip()
    argv = ["setsid", *(["--fork"] if handed_off else []), "-c", "sh", "-c", script]
    if window is not None:
        multiplexer = shlex.join([sys.executable, "-c", MULTIPLEXER, script])
        argv = ["setsid", "-c", "sh", "-c", f"env {' '.join(f'{k}={v}' for k, v in window.items())} {multiplexer}"]
    master, slave = os.openpty()
    try:
        done = subprocess.run(argv, env=leader_env, stdin=slave, capture_output=True, text=True, timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    return done.stdout.strip()


def test_a_process_in_its_panes_terminal_session_is_proven(herdr_socket):
    assert evidence_in(READ, herdr_socket, leader_pane="w1:p1", own_env={"HERDR_PANE_ID": "w1:p1"}) == "SAME"


def test_another_panes_environment_in_this_panes_terminal_is_shown_to_be_elsewhere(herdr_socket):
    assert evidence_in(READ, herdr_socket, leader_pane="w1:p2", own_env={"HERDR_PANE_ID": "w1:p1"}) == "OTHER"


def test_a_process_without_a_controlling_terminal_proves_nothing_whatever_its_environment(herdr_socket):
    # a shared host process (Codex's app-server daemon): its own session, no terminal, a pane's environment
    own = {"HERDR_PANE_ID": "w1:p1"}
    assert evidence_in(READ, herdr_socket, leader_pane="w1:p1", own_env=own, tty=False) == "NONE"


def test_a_terminal_another_herdr_started_is_not_this_herdrs_pane(herdr_socket):
    own = {"HERDR_PANE_ID": "w1:p1", "HERDR_SOCKET_PATH": "/run/another.sock"}
    assert evidence_in(READ, herdr_socket, leader_pane="w1:p1", own_env=own) == "FOREIGN"


@pytest.mark.parametrize(
    "window",
    [{}, {"HERDR_PANE_ID": "w1:p2"}],
    ids=["inheriting-the-panes-environment", "given-another-pane-with-dash-e"],
)
def test_a_multiplexers_window_started_in_a_pane_shows_no_pane(herdr_socket, window):
    """A tmux server started from pane w1:p1: its windows' leaders inherit that pane's variables (or are
    given another pane's with ``tmux new-window -e``), but their terminals are the multiplexer's, not a
    pane Herdr serves (issue 70: before the server's hold on the terminal was checked, both were proven)."""
    pane = window.get("HERDR_PANE_ID", "w1:p1")
    assert evidence_in(READ, herdr_socket, leader_pane="w1:p1", own_env={"HERDR_PANE_ID": pane},
                       window=window) == "FOREIGN"  # fmt: skip


def test_after_a_live_handoff_a_server_that_is_not_the_leaders_parent_still_proves_its_panes(herdr_socket):
    """Herdr's live handoff passes the terminals to a new server whose children the panes' processes are
    not: the server is found among all the processes, not only as the leader's parent."""
    own = {"HERDR_PANE_ID": "w1:p1"}
    assert evidence_in(READ, herdr_socket, leader_pane="w1:p1", own_env=own, handed_off=True) == "SAME"


def test_a_terminal_whose_socket_no_process_serves_is_not_a_pane(tmp_path):
    gone = str(tmp_path / "gone.sock")  # Herdr's socket path, with no server listening on it
    assert evidence_in(READ, gone, leader_pane="w1:p1", own_env={"HERDR_PANE_ID": "w1:p1"}) == "FOREIGN"


LOSES_TERMINAL = """
import os, signal, time
from herdr_link_control import PaneWitness
witness = PaneWitness(os.environ)
print(witness.current().terminal.name)
if os.fork() == 0:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the hang-up the leader's exit sends
    time.sleep(0.5)  # the leader (the parent) has exited: the session has lost its terminal
    print(witness.current().terminal.name, flush=True)
    os._exit(0)
"""


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_a_process_that_lost_its_terminal_no_longer_shows_its_pane(herdr_socket, tmp_path, platform):
    """The witness reads the evidence again once the terminal went (issue 70: it said SAME for ever); off
    Linux too, where only the terminal's presence is read."""
    script = tmp_path / "loses.py"
    script.write_text(LOSES_TERMINAL.replace("import os,", f"import sys; sys.platform = {platform!r}\nimport os,"))
    env = {**os.environ, "HERDR_ENV": "1", "HERDR_BIN_PATH": "/mock/herdr", "HERDR_SOCKET_PATH": herdr_socket,
           "HERDR_PANE_ID": "w1:p1"}  # fmt: skip
    out = tmp_path / "out"
    master, slave = os.openpty()
    try:  # the python process is itself the session leader: its fork loses the terminal when it exits
        with out.open("w") as written:
            subprocess.run(["setsid", "-c", sys.executable, str(script)], env=env, stdin=slave,
                           stdout=written, timeout=60)  # fmt: skip
    finally:
        os.close(master)
        os.close(slave)
    deadline = time.monotonic() + 60
    while len(out.read_text().split()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_text().split() == ["SAME", "NONE"]


def test_this_test_process_is_not_in_a_pane_of_a_made_up_herdr():
    from herdr_link_control import read_pane_evidence

    env = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/mock/herdr", "HERDR_SOCKET_PATH": "/run/h.sock"}
    assert not read_pane_evidence({**env, "HERDR_PANE_ID": "w9:p9"}).proves_pane


PANE_ENV = {"HERDR_ENV": "1", "HERDR_BIN_PATH": "/mock/herdr", "HERDR_SOCKET_PATH": "/run/h.sock"}
NO_TERMINAL = PaneEvidence(TerminalPane.NONE, "test: no controlling terminal")
ELSEWHERE = PaneEvidence(TerminalPane.OTHER, "test: the terminal is another pane's")
ENV = {**PANE_ENV, "HERDR_PANE_ID": "w1:p1"}
TABLE = {
    ("agent", "get", "w1:p1"): got(agent("alpha")),
    ("agent", "get", "beta"): got(agent("beta", pane="w1:p2")),
    ("agent", "list"): ok({"result": {"agents": [agent("alpha"), agent("beta", pane="w1:p2")]}}),
    ("agent", "prompt"): ok({"result": {}}),
    ("agent", "rename"): ok({"result": {}}),
}


def subject(evidence: PaneEvidence) -> tuple[Link, list[tuple[str, ...]]]:
    runner = scripted(TABLE)
    return Link(ENV, runner=runner, pane_evidence=evidence), runner.calls


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("evidence", "host"),
    [
        (NO_TERMINAL, "codex-mcp-client"),
        (ELSEWHERE, "codex-mcp-client"),
        (ELSEWHERE, "claude-code"),
        (ELSEWHERE, ""),
        (NO_TERMINAL, "some-editor-mcp-client"),  # a client the host table does not know
        (NO_TERMINAL, ""),
    ],
)
async def test_a_caller_that_cannot_show_its_pane_is_refused_with_nothing_run(evidence, host):
    link, calls = subject(evidence)
    context = CallContext("mcp", host)
    starting = link.start({"name": "w", "kind": "pi", "args": []}, context)
    for call in (link.peers(context), link.send("beta", "hi", context), starting):
        with pytest.raises(LinkError) as caught:
            await call
        assert caught.value.cause is Cause.SELF_UNPROVEN
    assert await link.bootstrap(host) is None
    assert calls == []  # nothing asked of Herdr: nothing sent, renamed or started


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("evidence", "host"),
    [
        (IN_PANE, "codex-mcp-client"),
        (IN_PANE, "some-editor-mcp-client"),  # unknown, but its terminal shows its pane
        (NO_TERMINAL, "claude-code"),
        (NO_TERMINAL, "gemini-cli-mcp-client"),
        (NO_TERMINAL, "copilot-cli"),
        (NO_TERMINAL, "qwen-cli-mcp-client-herdr_link"),
        (NO_TERMINAL, "grok-shell-herdr_link"),
        (NO_TERMINAL, "herdr_link"),  # MastraCode: its client is named after the server's key
        (NO_TERMINAL, "amp-mcp-client"),  # Amp: the server is amp's child, with its environment
        (NO_TERMINAL, "kimi-code"),  # Kimi Code CLI: its identity slug
    ],
)
async def test_a_proven_pane_or_a_host_that_spawns_per_pane_acts_as_its_pane(evidence, host):
    link, calls = subject(evidence)
    context = CallContext("mcp", host)
    assert (await link.peers(context)).self_.name == "alpha"
    assert (await link.send("beta", "hi", context)).to == "beta"


@pytest.mark.anyio
async def test_before_the_host_is_known_only_the_terminal_allows_the_start_up_bootstrap():
    unnamed = {**TABLE, ("agent", "get", "w1:p1"): [got(agent(None)), got(agent("hl-x"))]}
    runner = scripted(unnamed)
    assert await Link(ENV, runner=runner, pane_evidence=NO_TERMINAL).bootstrap() is None and runner.calls == []
    runner = scripted(unnamed)
    assert await Link(ENV, runner=runner, pane_evidence=IN_PANE).bootstrap() == "hl-x"


def test_the_operator_log_names_the_set_up_that_works(caplog):
    link, _ = subject(NO_TERMINAL)
    problem = link.own_pane_problem("codex-mcp-client")
    assert problem is not None and "codex --no-daemon" in problem.detail and "codex" not in str(problem)
    assert "codex --no-daemon" in caplog.text


def test_the_operator_log_names_a_client_the_host_table_does_not_know(caplog):
    link, _ = subject(NO_TERMINAL)
    problem = link.own_pane_problem("some-editor-mcp-client")
    assert problem is not None and "some-editor-mcp-client" not in str(problem)
    assert "'some-editor-mcp-client' is not in the host table" in caplog.text and "PROTOCOL.md §6.1" in caplog.text


def test_a_leader_whose_environment_holds_values_with_equals_signs_is_still_read(herdr_socket, monkeypatch):
    """``LS_COLORS=rs=0:di=01;34`` and the like are in most shells' environments: only the first ``=`` of
    each entry ends its name."""
    monkeypatch.setenv("LS_COLORS", "rs=0:di=01;34:ln=01;36")
    monkeypatch.setenv("HERDR_LINK_TEST_PAIR", "a=b=c")
    assert evidence_in(READ, herdr_socket, leader_pane="w1:p1", own_env={"HERDR_PANE_ID": "w1:p1"}) == "SAME"


IN_OWN_GROUP = "import os; os.setpgid(0, 0); " + READ
"""What a shell's job control does to each job: it leads a process group of its own, in the same session."""


@pytest.mark.parametrize("own_pane", ["w1:p1", "w1:p2"])
def test_a_job_in_its_own_process_group_is_judged_by_its_sessions_leader(herdr_socket, own_pane):
    """Under job control a command leads its own process group: the pane is still the one the session's
    leader was started for, so a job that names another pane in its own environment proves nothing."""
    expected = "SAME" if own_pane == "w1:p1" else "OTHER"
    assert evidence_in(IN_OWN_GROUP, herdr_socket, leader_pane="w1:p1", own_env={"HERDR_PANE_ID": own_pane}) == expected


UNREADABLE = """
import os
from herdr_link_control import PaneWitness, _pane_proof, read_pane_evidence
def refused(*args):
    raise PermissionError(13, "Permission denied", "/proc/...")
setattr(_pane_proof, "{reader}", refused)
print(read_pane_evidence(os.environ).terminal.name, PaneWitness(os.environ).current().terminal.name)
"""


@pytest.mark.parametrize(
    ("reader", "answer"),  # (the script is run as `python -c '…'`: no single quotes in it)
    [
        ("stat_fields", "NONE"),  # its own stat: no terminal can be shown
        ("start_environment", "FOREIGN"),  # the session leader's environment
        ("listening_unix_inodes", "FOREIGN"),  # /proc/net/unix: who serves the socket
        ("holders", "FOREIGN"),  # the processes holding the socket
    ],
)
def test_an_unreadable_proc_is_an_answer_that_proves_no_pane(herdr_socket, reader, answer):
    """/proc mounted with ``hidepid``, a process gone between two reads, a sandbox: the proof answers that it
    cannot show the pane, and never raises out of the caller."""
    command = UNREADABLE.replace("{reader}", reader)
    assert evidence_in(command, herdr_socket, leader_pane="w1:p1", own_env={"HERDR_PANE_ID": "w1:p1"}) == (
        f"{answer} {answer}"
    )


ELSEWHERE_THAN_LINUX = """
import os, sys
from herdr_link_control import PaneWitness, read_pane_evidence
sys.platform = "darwin"  # /proc is not read: only whether a controlling terminal exists
evidence = read_pane_evidence(os.environ)
print(evidence.terminal.name, PaneWitness(os.environ).current().terminal.name)
"""


@pytest.mark.parametrize(
    ("tty", "own_env", "window", "expected"),
    [
        (True, {"HERDR_PANE_ID": "w1:p1"}, None, "SAME SAME"),
        (True, {"HERDR_PANE_ID": "w1:p2"}, None, "SAME SAME"),
        (True, {"HERDR_PANE_ID": "w1:p1"}, {}, "SAME SAME"),
        (False, {"HERDR_PANE_ID": "w1:p1"}, None, "NONE NONE"),
    ],
    ids=["its-pane", "another-panes-environment", "a-multiplexers-window", "no-terminal"],
)
def test_off_linux_the_proof_is_only_whether_a_controlling_terminal_exists(
    herdr_socket, tty, own_env, window, expected
):
    """macOS has no ``/proc``: a process with a controlling terminal shows the pane its environment names
    (whatever the terminal is), one without shows none."""
    assert (
        evidence_in(ELSEWHERE_THAN_LINUX, herdr_socket, leader_pane="w1:p1", own_env=own_env, tty=tty, window=window)
        == expected
    )
