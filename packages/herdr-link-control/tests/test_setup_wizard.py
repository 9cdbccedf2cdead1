"""MastraCode's set-up wizard, predicted from its settings file: a start makes nothing and a send types
nothing where MastraCode 0.32 would open its wizard over its composer (Herdr reads it as idle, and a
message's Enter would pick "Continue" for the user), and a start goes ahead once the user has finished
or skipped it. The version is the one of the npm package the ``mastracode`` on ``PATH`` runs; another
release is not predicted. oh-my-pi 18.2's wizard likewise, from its YAML ``config.yml``'s ``setupVersion``."""

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from scripted_herdr import agent, got, link, ok, scripted
from test_questions import PANES, SELF, SNAPSHOT, STARTED, TAB  # a start scripted as the trust rows' is

from herdr_link_control import HostQuestions
from herdr_link_control.hosts import find_host
from herdr_link_protocol import Cause, LinkError

pytestmark = pytest.mark.anyio
SKIPPED = {"completedAt": None, "skippedAt": "2026-12-06T15:00:00.000Z", "version": 1, "modePackId": None,
           "omPackId": None, "quietModePreferenceSelected": True}  # fmt: skip
"""What MastraCode 0.32.1 records when its user skips the wizard (``settings.json`` ``onboarding``)."""


def _installed(tmp_path: Path, version: str = "0.32.1", name: str = "mastracode") -> str:
    """A ``mastracode`` command as npm links it (``bin/mastracode`` → its package's ``dist/cli.js``); the PATH."""
    package = tmp_path / "lib" / "node_modules" / "mastracode"
    (package / "dist").mkdir(parents=True, exist_ok=True)
    (package / "package.json").write_text(json.dumps({"name": name, "version": version, "bin": "./dist/cli.js"}))
    (package / "dist" / "cli.js").write_text("#!/usr/bin/env node\n")
    (package / "dist" / "cli.js").chmod(0o755)
    (tmp_path / "bin").mkdir(exist_ok=True)
    link_ = tmp_path / "bin" / "mastracode"
    link_.unlink(missing_ok=True)
    link_.symlink_to(package / "dist" / "cli.js")
    return str(tmp_path / "bin")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


@pytest.fixture
def path(tmp_path: Path) -> str:
    return _installed(tmp_path)


def _settings(home: Path, value: Any, under: str = ".local/share/mastracode") -> None:
    file = home / under / "settings.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(value if isinstance(value, str) else json.dumps(value))


def _asks(home: Path, work: Path, path: str, **more: str) -> str | None:
    question = HostQuestions({"HOME": str(home), "PATH": path, **more}).ahead("mastracode", str(work))
    return None if question is None else question.asks


def test_a_new_install_and_an_unanswered_wizard_are_asked(home, work, path):
    asks = _asks(home, work, path)  # no settings.json: a new install
    assert asks is not None and "Welcome to Mastra Code" in asks and "Herdr reads as idle" in asks
    for onboarding in ({}, {"completedAt": None, "skippedAt": None, "version": 0}, {**SKIPPED, "version": 0}):
        _settings(home, {"customProviders": [], "onboarding": onboarding})
        assert _asks(home, work, path) is not None, onboarding
    _settings(home, {"models": {}})  # its own model set up by hand, the wizard never seen
    assert _asks(home, work, path) is not None


@pytest.mark.parametrize(
    "onboarding",
    [SKIPPED, {**SKIPPED, "skippedAt": None, "completedAt": "2026-12-06T15:00:00.000Z", "modePackId": "custom:rig"}],
    ids=["skipped", "finished"],
)
def test_a_wizard_finished_or_skipped_once_is_not_asked_again(home, work, path, onboarding):
    _settings(home, {"onboarding": onboarding})
    assert _asks(home, work, path) is None


def test_the_file_is_where_mastracode_keeps_it(home, work, path, tmp_path):
    _settings(home, {"onboarding": {}})
    _settings(tmp_path / "data", {"onboarding": SKIPPED}, under="mastracode")
    assert _asks(home, work, path, XDG_DATA_HOME=str(tmp_path / "data")) is None
    _settings(tmp_path / "app", {"onboarding": SKIPPED}, under=".")
    assert _asks(home, work, path, MASTRA_APP_DATA_DIR=str(tmp_path / "app")) is None
    _settings(tmp_path / "app", {"onboarding": {}}, under=".")  # it wins over XDG_DATA_HOME
    assert _asks(home, work, path, MASTRA_APP_DATA_DIR=str(tmp_path / "app"), XDG_DATA_HOME=str(tmp_path / "data"))


@pytest.mark.parametrize(
    "version, name, logged",
    [
        ("0.33.0", "mastracode", "MastraCode 0.33.0: the set-up rule is known for 0.32.1"),
        ("0.32.1", "something-else", "is not the command of the npm package mastracode"),
    ],
)
def test_another_release_or_another_program_is_not_predicted(home, work, tmp_path, caplog, version, name, logged):
    caplog.set_level(logging.INFO, "herdr_link")
    assert _asks(home, work, _installed(tmp_path, version, name)) is None and logged in caplog.text


def test_an_unreadable_file_or_record_is_not_predicted(home, work, path, caplog):
    caplog.set_level(logging.INFO, "herdr_link")
    _settings(home, "{broken")
    assert _asks(home, work, path) is None and "is not valid JSON" in caplog.text
    _settings(home, {"onboarding": {**SKIPPED, "version": "1"}})
    assert _asks(home, work, path) is None and "onboarding.version is not a number" in caplog.text


def test_the_doctor_and_the_operator_get_the_step_that_lets_the_user_answer(home, work, path):
    question = HostQuestions({"HOME": str(home), "PATH": path}).ahead("mastra-code", str(work))  # an alias
    assert question is not None and question.host is find_host("mastracode")
    assert question.fix == "mastracode (once, in any folder: finish or skip its set-up)"


# ---- start and send ---------------------------------------------------------------------------------


async def test_a_start_of_a_mastracode_that_would_open_its_wizard_makes_nothing(home, work, path):
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB})
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home), PATH=path).start({"name": "worker", "kind": "mastracode", "args": []})
    assert raised.value.cause is Cause.START_AGENT_WOULD_ASK and runner.calls == [SELF]
    assert "Welcome" not in str(raised.value) and "Welcome to Mastra Code" in raised.value.detail  # the operator's


async def test_a_start_once_the_wizard_was_skipped_goes_ahead(home, work, path):
    _settings(home, {"onboarding": SKIPPED})
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    receipt = await link(runner, HOME=str(home), PATH=path).start({"name": "worker", "kind": "mastracode", "args": []})
    assert receipt.agent == "worker" and runner.calls[-1][:3] == ("agent", "start", "worker")


async def test_a_send_to_a_mastracode_at_its_wizard_types_nothing_and_once_skipped_is_delivered(home, work, path):
    target = got(agent("worker", pane="w1:p2", cwd=str(work), agent="mastracode"))
    answers = {SELF: got(agent("brain")), ("agent", "get", "worker"): target, ("agent", "prompt"): ok({"result": {}})}
    runner = scripted(answers)
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home), PATH=path).send("worker", "hello")
    assert raised.value.cause is Cause.SEND_TARGET_ASKING
    assert not [call for call in runner.calls if call[:2] == ("agent", "prompt")]
    _settings(home, {"onboarding": SKIPPED})  # the user skipped it in the pane; MastraCode recorded it
    runner = scripted(answers)
    receipt = await link(runner, HOME=str(home), PATH=path).send("worker", "hello")
    assert receipt.to == "worker" and runner.calls[-1][:3] == ("agent", "prompt", "w1:p2")


# ---- oh-my-pi: its wizard's version in a YAML config.yml ---------------------------------------------


def _omp_installed(tmp_path: Path, version: str = "18.2.3") -> str:
    """An ``omp`` command as npm links it (``bin/omp`` → ``@oh-my-pi/pi-coding-agent/dist/cli.js``); the PATH."""
    package = tmp_path / "lib" / "node_modules" / "@oh-my-pi" / "pi-coding-agent"
    (package / "dist").mkdir(parents=True, exist_ok=True)
    manifest = {"name": "@oh-my-pi/pi-coding-agent", "version": version, "bin": {"omp": "dist/cli.js"}}
    (package / "package.json").write_text(json.dumps(manifest))
    (package / "dist" / "cli.js").write_text("#!/usr/bin/env bun\n")
    (package / "dist" / "cli.js").chmod(0o755)
    (tmp_path / "bin").mkdir(exist_ok=True)
    (tmp_path / "bin" / "omp").unlink(missing_ok=True)
    (tmp_path / "bin" / "omp").symlink_to(package / "dist" / "cli.js")
    return str(tmp_path / "bin")


@pytest.fixture
def omp_path(tmp_path: Path) -> str:
    return _omp_installed(tmp_path)


def _omp_config(folder: Path, text: str) -> None:
    file = folder / "config.yml"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)


def _omp_asks(home: Path, work: Path, path: str, **more: str) -> str | None:
    question = HostQuestions({"HOME": str(home), "PATH": path, **more}).ahead("omp", str(work))
    return None if question is None else question.asks


COMMENTED = """\
# my oh-my-pi settings
modelRoles:
  default: rig/scripted  # the model I use
setupVersion: {}  # written by its wizard
startup:
  checkUpdate: false
"""
"""A ``config.yml`` as a user keeps it: comments, other settings around the wizard's record."""


def test_an_omp_user_without_the_current_setup_version_is_asked(home, work, omp_path):
    asks = _omp_asks(home, work, omp_path)  # no config.yml: never started
    assert asks is not None and "oh-my-pi would first show its five-step set-up wizard" in asks
    for text in (
        "setupVersion: 1\n",
        "setupVersion: 0\n",
        "modelRoles:\n  default: rig/scripted\n",
        "{}\n",
        "",  # an empty file: no settings, as omp reads it
        "# mine\n",
    ):
        _omp_config(home / ".omp" / "agent", text)
        assert _omp_asks(home, work, omp_path) is not None, text


@pytest.mark.parametrize("text", ["setupVersion: 2\n", "setupVersion: 3\n", COMMENTED.format(2)])
def test_an_omp_user_at_setup_version_2_is_not_asked(home, work, omp_path, text):
    assert _omp_asks(home, work, omp_path) is not None  # before: asked
    _omp_config(home / ".omp" / "agent", text)
    assert _omp_asks(home, work, omp_path) is None


def test_a_commented_omp_config_is_read_as_yaml(home, work, omp_path):
    _omp_config(home / ".omp" / "agent", COMMENTED.format(1))
    assert _omp_asks(home, work, omp_path) is not None
    _omp_config(home / ".omp" / "agent", COMMENTED.format(2))
    assert _omp_asks(home, work, omp_path) is None


@pytest.mark.parametrize(
    "text, logged",
    [
        ("setupVersion: [2\n", "is not valid YAML"),
        ("- setupVersion: 2\n", "does not hold an object"),
        ("setupVersion: two\n", "its setupVersion is not a number"),
    ],
)
def test_an_invalid_omp_config_is_not_predicted(home, work, omp_path, caplog, text, logged):
    caplog.set_level(logging.INFO, "herdr_link")
    _omp_config(home / ".omp" / "agent", text)
    assert _omp_asks(home, work, omp_path) is None and logged in caplog.text


def test_the_omp_config_is_where_pi_coding_agent_dir_puts_it(home, work, omp_path, tmp_path):
    _omp_config(home / ".omp" / "agent", "setupVersion: 2\n")
    _omp_config(tmp_path / "agent", "setupVersion: 1\n")
    assert _omp_asks(home, work, omp_path, PI_CODING_AGENT_DIR=str(tmp_path / "agent")) is not None
    _omp_config(tmp_path / "agent", "setupVersion: 2\n")
    assert _omp_asks(home, work, omp_path, PI_CODING_AGENT_DIR=str(tmp_path / "agent")) is None


def test_omps_older_config_yaml_is_read_where_there_is_no_config_yml(home, work, omp_path):
    folder = home / ".omp" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text("setupVersion: 2\n")  # the older name, which omp reads second
    assert _omp_asks(home, work, omp_path) is None
    _omp_config(folder, "setupVersion: 1\n")  # config.yml, read first
    assert _omp_asks(home, work, omp_path) is not None


@pytest.mark.parametrize(
    "text, asked",
    [
        ("startup:\n  setupWizard: false\n", False),  # its setting, off: selectSetupScenes shows nothing
        ("startup:\n  setupWizard: true\n", True),
        ("startup:\n  setupWizard: 'false'\n", True),  # a string is not the setting's boolean
        ("setupWizard: false\n", True),  # not where omp reads it (startup.setupWizard)
    ],
)
def test_omp_users_setup_wizard_setting_turns_it_off(home, work, omp_path, text, asked):
    _omp_config(home / ".omp" / "agent", "setupVersion: 1\n")
    assert _omp_asks(home, work, omp_path) is not None  # before: asked
    _omp_config(home / ".omp" / "agent", "setupVersion: 1\n" + text)
    assert (_omp_asks(home, work, omp_path) is not None) is asked


@pytest.mark.parametrize("value, asked", [("1", False), ("true", False), ("0", True), ("No", True), ("", True)])
def test_omp_skip_setup_in_the_environment_skips_the_wizard(home, work, omp_path, value, asked):
    assert _omp_asks(home, work, omp_path) is not None  # without it: asked
    assert (_omp_asks(home, work, omp_path, OMP_SKIP_SETUP=value) is not None) is asked


def test_another_omp_release_is_not_predicted(home, work, tmp_path, caplog):
    caplog.set_level(logging.INFO, "herdr_link")
    assert _omp_asks(home, work, _omp_installed(tmp_path, "18.3.0")) is None
    assert "oh-my-pi 18.3.0: the set-up rule is known for 18.2.3" in caplog.text


async def test_a_start_of_an_omp_at_its_wizard_makes_nothing_and_once_done_goes_ahead(home, work, omp_path):
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home), PATH=omp_path).start({"name": "worker", "kind": "omp", "args": []})
    assert raised.value.cause is Cause.START_AGENT_WOULD_ASK and runner.calls == [SELF]
    assert "five-step set-up wizard" in raised.value.detail
    assert "omp (once, in any folder: finish or skip its set-up)" in raised.value.detail  # the operator's fix
    _omp_config(home / ".omp" / "agent", COMMENTED.format(2))
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    receipt = await link(runner, HOME=str(home), PATH=omp_path).start({"name": "worker", "kind": "omp", "args": []})
    assert receipt.agent == "worker" and runner.calls[-1][:3] == ("agent", "start", "worker")


async def test_a_send_to_an_omp_at_its_wizard_types_nothing(home, work, omp_path):
    target = got(agent("worker", pane="w1:p2", cwd=str(work), agent="omp"))
    answers = {SELF: got(agent("brain")), ("agent", "get", "worker"): target, ("agent", "prompt"): ok({"result": {}})}
    runner = scripted(answers)
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home), PATH=omp_path).send("worker", "hello")
    assert raised.value.cause is Cause.SEND_TARGET_ASKING
    assert not [call for call in runner.calls if call[:2] == ("agent", "prompt")]
    _omp_config(home / ".omp" / "agent", "setupVersion: 2\n")
    runner = scripted(answers)
    receipt = await link(runner, HOME=str(home), PATH=omp_path).send("worker", "hello")
    assert receipt.to == "worker" and runner.calls[-1][:3] == ("agent", "prompt", "w1:p2")
