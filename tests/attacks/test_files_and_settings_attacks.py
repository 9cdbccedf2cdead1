"""Host files and the user's settings against an unlucky user or an attacker (issue 61): FIFOs, devices,
links to them, absurd nesting, kinds as Herdr reads them, and settings no number can be.

A host file Link cannot read is "not predicted" with an operator-log line: never a hang, a crash or a
false reason. A bad setting is the default with one warning; the doctor says so and never crashes.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scripted_herdr import agent, got, link, ok, scripted

from herdr_link_control import LinkSettings
from herdr_link_protocol import Cause, LinkError

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs and devices as Linux has them")

PREDICT = """
import sys, json
from herdr_link_control import HostQuestions
question = HostQuestions({"HOME": sys.argv[1]}).ahead(sys.argv[2], sys.argv[3])
print(json.dumps(None if question is None else question.host.name))
"""
PASSED_ON = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
"""Where the sources under test are, when a run points the tests at other ones."""


def _predict(home: Path, kind: str, folder: Path) -> tuple[str | None, str]:
    """The prediction, in a process of its own with a bound: a read that hangs fails the test, never CI."""
    done = subprocess.run(
        [sys.executable, "-c", PREDICT, str(home), kind, str(folder)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout), done.stderr


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / ".gemini").mkdir(parents=True)
    (tmp_path / "home" / ".gemini" / "settings.json").write_text("{}")
    return tmp_path / "home"


@pytest.mark.parametrize("what", ["fifo", "link-to-fifo", "link-to-zero", "device-link"])
def test_a_host_file_that_is_no_regular_file_is_not_predicted_and_never_waited_on(home, tmp_path, what):
    trusted = home / ".gemini" / "trustedFolders.json"
    if what == "fifo":
        os.mkfifo(trusted)  # nobody ever writes to it: a read would wait for ever
    elif what == "link-to-fifo":
        os.mkfifo(tmp_path / "pipe")
        trusted.symlink_to(tmp_path / "pipe")
    elif what == "link-to-zero":
        trusted.symlink_to("/dev/zero")  # endless: a read would fill the memory
    else:
        trusted.symlink_to("/dev/null")
    asked, logged = _predict(home, "gemini", tmp_path)
    assert asked is None and "not a regular file" in logged


def test_a_host_file_nested_absurdly_deep_is_not_read_and_the_send_goes_ahead(home, tmp_path):
    (home / ".gemini" / "settings.json").write_text("[" * 450 + "]" * 450)
    asked, logged = _predict(home, "gemini", tmp_path)
    assert asked is None and "nests deeper than" in logged


@pytest.mark.anyio
async def test_a_deeply_nested_host_file_is_never_a_false_send_failure(home, tmp_path):
    (home / ".gemini" / "settings.json").write_text('{"a":' * 1000 + "1" + "}" * 1000)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(tmp_path): "TRUST_FOLDER"}))
    table = {
        ("agent", "get", "w1:p1"): got(agent("brain")),
        ("agent", "get", "gem"): got(agent("gem", pane="w1:p2", agent="gemini", cwd=str(tmp_path))),
        ("agent", "prompt"): ok({"result": {}}),
    }
    runner = scripted(table)
    receipt = await link(runner, HOME=str(home)).send("gem", "hello")  # not predicted: typed as before
    assert receipt.to == "gem" and any(call[:2] == ("agent", "prompt") for call in runner.calls)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["Gemini", "GEMINI", "gemini"])
async def test_the_start_check_reads_the_kind_as_herdr_does(home, tmp_path, kind):
    (home / ".gemini" / "trustedFolders.json").write_text("{}")  # the worker's folder is not trusted
    folder = tmp_path / "work"
    folder.mkdir()
    runner = scripted({("agent", "get", "w1:p1"): got(agent("brain", cwd=str(folder)))})
    with pytest.raises(LinkError) as refused:
        await link(runner, HOME=str(home)).start({"name": "w", "kind": kind, "args": []})
    assert refused.value.cause is Cause.START_AGENT_WOULD_ASK
    assert not [call for call in runner.calls if call[:1] in (("tab",), ("pane",)) or call[:2] == ("agent", "start")]


def test_claude_codes_alias_is_its_kind(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"projects": {}}))
    asked, _ = _predict(home, "claude-code", tmp_path)
    assert asked == "claude"


@pytest.mark.parametrize(
    ("body", "messages", "seconds", "warned"),
    [
        ("[loop_guard]\nmessages = inf\n", 50, 600.0, True),
        ("[loop_guard]\nmessages = nan\nseconds = nan\n", 50, 600.0, True),
        ("[loop_guard]\nseconds = 0\n", 50, 600.0, True),  # 0 s would switch the guard off unannounced
        ("[loop_guard]\nseconds = -5\nmessages = -1\n", 50, 600.0, True),
        ("[loop_guard]\nseconds = inf\n", 50, 600.0, True),  # a pair blocked for ever after 50 sends
        ("[loop_guard]\nmessages = 0\n", 0, 600.0, False),  # documented: off
        ("[loop_guard]\nmessages = 1\nseconds = 0.5\n", 1, 0.5, False),
    ],
)
def test_settings_out_of_range_are_the_defaults_with_a_warning(tmp_path, body, messages, seconds, warned):
    config = tmp_path / "config.toml"
    config.write_text(body)
    settings = LinkSettings.load({"HERDR_LINK_CONFIG": str(config)})
    assert (settings.loop_messages, settings.loop_seconds) == (messages, seconds)
    assert bool(settings.problems) is warned


@pytest.mark.parametrize(
    ("trace", "reason"),
    [
        ('file = "trace.jsonl"', "must be an absolute path"),  # would write into every project folder
        ('file = "/tmp/a\\u0000b"', "NUL"),
    ],
)
def test_a_trace_location_no_process_can_share_is_refused_and_the_doctor_fails_it(tmp_path, trace, reason):
    config = tmp_path / "config.toml"
    config.write_text(f"[trace]\n{trace}\n")
    env = {"HERDR_LINK_CONFIG": str(config), "HOME": str(tmp_path), "PATH": os.environ["PATH"], **PASSED_ON}
    assert LinkSettings.load(env).trace_file is None
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link", "doctor", "--json"], env=env, capture_output=True, text=True,
        timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr  # a verdict, never an internal error
    [line] = [check for check in json.loads(done.stdout)["checks"] if check["name"] == "trace"]
    assert line["status"] == "FAIL" and reason in line["detail"]
    assert not list(tmp_path.glob("trace.jsonl*"))


def test_the_doctor_survives_settings_no_number_can_be(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[loop_guard]\nmessages = inf\nseconds = nan\n[trace]\nmax_bytes = -inf\n")
    env = {"HERDR_LINK_CONFIG": str(config), "HOME": str(tmp_path), "PATH": os.environ["PATH"], **PASSED_ON}
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link", "doctor", "--json"], env=env, capture_output=True, text=True,
        timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    [line] = [check for check in json.loads(done.stdout)["checks"] if check["name"] == "settings"]
    assert line["status"] == "WARN" and "inf" in line["detail"] and "nan" in line["detail"]
