"""Every Herdr Link command ends through one boundary (``herdr_link_control.commandline.run_command``): 0 done, 1 a
failure the command reports, 2 a usage error in one line that says what is valid, 3 an internal error in
one line (its traceback only with ``HERDR_LINK_DEBUG=1``), 130 interrupted. Each console script is run
as a user runs it, through each exit it has. (The simulated ``herdr`` and ``herdr-sim`` are the
simulator's: they keep Herdr's own exits, and the testkit depends on nothing of ours.)"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from terminal_session import Session, home_environment

BIN = Path(sys.executable).parent
COMMANDS = {
    "herdr-link": "herdr_link.cli",
    "herdr-link-mcp": "herdr_link_mcp.cli",
    "herdr-link-bridge": "herdr_link_control.bridge",
    "herdr-link-conformance": "herdr_link_conformance.cli",
    "herdr-link-opencode-install": "herdr_link_installer.cli",
    "herdr-link-opencode-bridge": "herdr_link_opencode_bridge.cli",
    "herdr-link-pi-bridge": "herdr_link_pi_bridge.cli",
}
"""Each console script and the module whose ``main`` it runs."""

RAISING_STDOUT = """
import sys
class Broken:
    def write(self, text):
        raise {error}("stdout broke")
    def flush(self):
        pass
from {module} import main
sys.stdout = Broken()
code = main(["--version"])
sys.stdout = sys.__stdout__
sys.exit(code)
"""
"""A command's own ``--version`` run while writing fails with ``error``: an internal error or Ctrl-C."""


def run(args: list[str], home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **env}
    return subprocess.run(
        args, capture_output=True, text=True, timeout=300, env=environ, cwd=home, stdin=subprocess.DEVNULL
    )


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.mark.parametrize(
    "command", ["herdr-link", "herdr-link-mcp", "herdr-link-opencode-bridge", "herdr-link-pi-bridge"]
)
def test_each_subcommands_own_help_says_what_it_does(command, home):
    listed = re.search(r"\{([a-z,-]+)\}", run([str(BIN / command), "--help"], home).stdout)
    assert listed is not None
    for name in listed[1].split(","):
        done = run([str(BIN / command), name, "--help"], home)
        assert done.returncode == 0, done.stderr
        described = done.stdout.split("\n\n")[1]  # after the usage block: a sentence, not straight the options
        assert described[0].isupper() and not described.startswith(("options:", "positional arguments:")), name


@pytest.mark.parametrize("command", COMMANDS)
def test_version_exits_0(command, home):
    done = run([str(BIN / command), "--version"], home)
    assert done.returncode == 0 and done.stdout.strip() and done.stderr == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_a_usage_error_is_one_line_and_exits_2(command, home):
    done = run([str(BIN / command), "--no-such-option"], home)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"{command}: "), done.stderr
    assert f"{command} --help" in done.stderr and "usage:" not in done.stderr
    assert "--no-such-option" in done.stderr or "(choose from " in done.stderr  # or the command it lacks first


def test_an_invalid_choice_names_the_valid_ones(home):
    done = run([str(BIN / "herdr-link-mcp"), "wiring", "--host", "nope"], home)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert all(host in done.stderr for host in ("claude", "codex", "agy", "gemini", "pi")), done.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_an_internal_error_is_one_line_and_exits_3_with_the_traceback_only_when_asked(command, home):
    script = RAISING_STDOUT.format(error="RuntimeError", module=COMMANDS[command])
    done = run([sys.executable, "-c", script], home)
    assert done.returncode == 3, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"{command}: internal error: RuntimeError: ")
    assert "HERDR_LINK_DEBUG=1" in done.stderr and "Traceback" not in done.stderr
    debug = run([sys.executable, "-c", script], home, HERDR_LINK_DEBUG="1")
    assert debug.returncode == 3 and "Traceback (most recent call last)" in debug.stderr
    assert "stdout broke" in debug.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_an_interrupt_exits_130(command, home):
    done = run([sys.executable, "-c", RAISING_STDOUT.format(error="KeyboardInterrupt", module=COMMANDS[command])], home)
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr


FAILURES = {
    "herdr-link": ["doctor"],  # not in a Herdr pane: the environment check fails
    "herdr-link-mcp": ["install", "--host", "gemini"],  # over a settings file that is not JSON
    "herdr-link-conformance": ["--mcp", f"{sys.executable} -c pass", "--only", "activation-receipt"],
    "herdr-link-opencode-install": [],  # a folder where the plugin goes
    "herdr-link-opencode-bridge": ["build", "--check", "--out", "."],  # nothing built there: stale
    "herdr-link-pi-bridge": ["install"],  # a folder where the extension goes
}
"""A failure each command reports itself, with exit 1 (the bridge has none: it serves until stdin closes)."""


@pytest.mark.parametrize("command", FAILURES)
def test_a_failure_the_command_reports_exits_1(command, home):
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text("{not json")
    (home / ".config" / "opencode" / "plugins" / "herdr-link.js").mkdir(parents=True)
    (home / ".pi" / "agent" / "extensions" / "herdr-link.js").mkdir(parents=True)
    done = run([str(BIN / command), *FAILURES[command]], home)
    assert done.returncode == 1, (done.stdout[-800:], done.stderr[-800:])
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def _answer_in_a_terminal(args: list[str], home: Path, answer: bytes) -> tuple[int, str]:
    """Run ``args`` on a pseudo-terminal of its own; type ``answer`` once it asks."""
    session = Session(args, home, home_environment(home, f"{BIN}:/usr/bin:/bin"))
    try:
        session.read_until(b"[y/N]", timeout=120)
        session.type(answer)
        code = session.finish()
    finally:
        session.close()
    return code, session.seen.decode(errors="replace")


QUESTIONS = {
    "herdr-link-mcp": ["install", "--host", "gemini"],  # a server entry of another's where ours goes
    "herdr-link-pi-bridge": ["install"],  # another's file where the extension goes
}


@pytest.mark.parametrize("command", QUESTIONS)
@pytest.mark.parametrize("answer", [b"\x04", b"n\r"], ids=["ctrl-d", "no"])
def test_declining_an_installers_question_changes_nothing(command, answer, home):
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"mcpServers": {"herdr_link": {"command": "someone-else"}}}\n')
    extension = home / ".pi" / "agent" / "extensions" / "herdr-link.js"
    extension.parent.mkdir(parents=True)
    extension.write_text("// someone else's extension\n")
    before = (settings.read_bytes(), extension.read_bytes())
    code, output = _answer_in_a_terminal([str(BIN / command), *QUESTIONS[command]], home, answer)
    assert code == 1 and "declined" in output and "Traceback" not in output, output
    assert "internal error" not in output and "nothing was changed" in output
    assert (settings.read_bytes(), extension.read_bytes()) == before


@pytest.mark.parametrize("command", COMMANDS)
def test_each_exit_status_has_one_meaning_and_3_is_only_a_bug(command, home):
    import re

    done = run([str(BIN / command), "--help"], home, COLUMNS="10000")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    statuses = said[said.index("Exit status:") + len("Exit status:") :]
    statuses = re.sub(r"--dry-run: .*?; (?=2 usage error)", "", statuses)  # a dry run's own two
    meanings: dict[str, list[str]] = {}
    for clause in re.split(r"; ", statuses):
        if found := re.match(r"\s*(\d+) (.*)", clause):
            meanings.setdefault(found[1], []).append(found[2])
    assert {"2", "3", "130"} <= set(meanings), (command, statuses)
    assert all(len(texts) == 1 for status, texts in meanings.items() if status != "3"), (command, meanings)
    assert all("bug" in text for text in meanings["3"]), (command, meanings["3"])
