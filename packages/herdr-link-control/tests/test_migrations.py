"""Codex's model-migration notice, predicted from its files: a start makes nothing and a send types
nothing where Codex 0.171 would offer a newer model (its Enter would switch the user's model), and
every file state where it does not offer one starts and delivers. The version is what the ``codex``
on the adapter's ``PATH`` prints; another release is not predicted."""

import json
import logging
import os
from pathlib import Path

import pytest
from scripted_herdr import agent, got, link, ok, scripted
from test_questions import PANES, SELF, SNAPSHOT, STARTED, TAB  # a start scripted as the trust rows' is

from herdr_link_control import HostQuestions
from herdr_link_control.hosts import find_host
from herdr_link_control.hosts._questions import trusted_path
from herdr_link_protocol import Cause, LinkError

pytestmark = pytest.mark.anyio
ANSWERED = '\n[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n'


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / ".codex").mkdir(parents=True)
    return tmp_path / "home"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def _program(tmp_path: Path, prints: str = "codex-cli 0.171.0") -> Path:
    """A ``codex`` on a PATH of its own that prints ``prints`` and counts its runs."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    program = folder / "codex"
    program.write_text(f"#!/bin/sh\necho run >> '{folder / 'runs'}'\necho '{prints}'\n")
    program.chmod(0o755)
    return folder


@pytest.fixture
def path(tmp_path: Path) -> str:
    return str(_program(tmp_path))


def _config(home: Path, text: str) -> None:
    (home / ".codex" / "config.toml").write_text(text)


def _asks(home: Path, work: Path, path: str) -> str | None:
    question = HostQuestions({"HOME": str(home), "PATH": path}).ahead("codex", str(work))
    return None if question is None else question.asks


def test_a_model_with_an_upgrade_and_no_answer_is_offered_the_upgrade(home, work, path):
    _config(home, 'model = "gpt-5.5"\n')
    asks = _asks(home, work, path)
    assert asks is not None and "gpt-5.5" in asks and "offering gpt-6-sol" in asks and "Herdr reads it as idle" in asks
    _config(home, 'profile = "fast"\nmodel = "gpt-6-sol"\n[profiles.fast]\nmodel = "gpt-5.6-luna"\n')
    assert "offering gpt-6-luna" in (_asks(home, work, path) or "")  # the active profile's model counts


@pytest.mark.parametrize(
    "config",
    [
        'model = "gpt-5.5"\n' + ANSWERED,  # answered either way: the record is the same
        "",  # no model: 0.171's default, gpt-6.2-sol, has no upgrade
        'model = "gpt-6-sol"\n',  # the newest of its line
        'model = "my-own-model"\n',  # a model the catalogue does not list
        'profile = "p"\nmodel = "gpt-5.5"\n[profiles.p]\nmodel = "gpt-6.1-sol"\n' + ANSWERED.replace("5.5", "4"),
    ],
    ids=["answered", "default-model", "no-upgrade", "unlisted", "profile-without-upgrade"],
)
def test_no_notice_where_codex_offers_nothing(home, work, path, config):
    _config(home, config)
    assert _asks(home, work, path) is None


def test_the_catalogue_codex_refreshed_for_its_user_is_read_instead(home, work, path, caplog):
    _config(home, 'model = "gpt-5.5"\n')
    cache = home / ".codex" / "models_cache.json"
    cache.write_text(json.dumps({"models": [{"slug": "gpt-5.5", "upgrade": None}, {"slug": "gpt-6-sol"}]}))
    assert _asks(home, work, path) is None  # this user's catalogue offers no upgrade for it
    newer = [{"slug": "gpt-5.5", "upgrade": {"model": "gpt-7"}}, {"slug": "gpt-7"}]
    cache.write_text(json.dumps({"fetched_at": "2026-12-01T00:00:00Z", "models": newer}))
    assert "offering gpt-7" in (_asks(home, work, path) or "")
    cache.write_text(json.dumps({"models": [{"slug": "gpt-5.5", "upgrade": {"model": "gpt-7"}}]}))
    assert _asks(home, work, path) is None  # Codex offers only a model its catalogue lists
    caplog.set_level(logging.INFO, "herdr_link")
    cache.write_text("{broken")
    assert _asks(home, work, path) is None and "models_cache.json is not valid JSON" in caplog.text


@pytest.mark.parametrize(
    "prints, logged",
    [
        ("codex-cli 0.172.0", "Codex 0.172.0: the notice's rule is known for 0.171.0"),
        ("something else", "printed no version"),
    ],
)
def test_another_release_or_no_version_is_not_predicted(home, work, tmp_path, caplog, prints, logged):
    caplog.set_level(logging.INFO, "herdr_link")
    _config(home, 'model = "gpt-5.5"\n')
    assert _asks(home, work, str(_program(tmp_path, prints))) is None
    assert logged in caplog.text


def test_no_codex_on_path_or_no_config_is_not_predicted(home, work, tmp_path, path, caplog):
    caplog.set_level(logging.INFO, "herdr_link")
    _config(home, 'model = "gpt-5.5"\n')
    assert _asks(home, work, str(tmp_path / "empty")) is None and "no codex on PATH" in caplog.text
    (home / ".codex" / "config.toml").unlink()
    assert _asks(home, work, path) is None and "none exists" in caplog.text


def test_the_version_is_asked_once_per_installed_program(home, work, tmp_path, path):
    _config(home, 'model = "gpt-5.5"\n')
    questions = HostQuestions({"HOME": str(home), "PATH": path})
    assert questions.ahead("codex", str(work)) is not None and questions.ahead("codex", str(work)) is not None
    runs = tmp_path / "bin" / "runs"
    assert runs.read_text().count("run") == 1
    _program(tmp_path, "codex-cli 0.172.0")  # upgraded: a new file, read again
    program = tmp_path / "bin" / "codex"
    stat = program.stat()
    os.utime(program, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert questions.ahead("codex", str(work)) is None and runs.read_text().count("run") == 2


def test_the_doctor_and_the_operator_get_the_step_that_lets_the_user_answer(home, work, path):
    _config(home, 'model = "gpt-5.5"\n')
    question = HostQuestions({"HOME": str(home), "PATH": path}).ahead("codex", str(work))
    assert question is not None and question.host is find_host("codex")
    assert question.fix == "codex (once, in any folder, and answer the notice)" and question.fix in str(question)


# ---- start and send ---------------------------------------------------------------------------------


async def test_a_start_of_a_codex_that_would_offer_a_new_model_makes_nothing(home, work, path):
    _config(home, 'model = "gpt-5.5"\n')
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB})
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home), PATH=path).start({"name": "worker", "kind": "codex", "args": []})
    assert raised.value.cause is Cause.START_AGENT_WOULD_ASK and runner.calls == [SELF]
    assert "gpt-6-sol" not in str(raised.value) and "gpt-6-sol" in raised.value.detail  # the operator's, only


async def test_a_send_to_a_codex_at_the_notice_types_nothing_and_once_answered_is_delivered(home, work, path):
    _config(home, 'model = "gpt-5.5"\n')
    target = got(agent("worker", pane="w1:p2", cwd=str(work), agent="codex"))
    answers = {SELF: got(agent("brain")), ("agent", "get", "worker"): target, ("agent", "prompt"): ok({"result": {}})}
    runner = scripted(answers)
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home), PATH=path).send("worker", "hello")
    assert raised.value.cause is Cause.SEND_TARGET_ASKING
    assert not [call for call in runner.calls if call[:2] == ("agent", "prompt")]
    _config(home, 'model = "gpt-5.5"\n' + ANSWERED)  # the user answered in the pane; Codex recorded it
    runner = scripted(answers)
    receipt = await link(runner, HOME=str(home), PATH=path).send("worker", "hello")
    assert receipt.to == "worker" and runner.calls[-1][:3] == ("agent", "prompt", "w1:p2")


async def test_a_start_where_codex_offers_nothing_goes_ahead(home, work, path):
    _config(home, 'model = "gpt-5.5"\n' + ANSWERED)
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    receipt = await link(runner, HOME=str(home), PATH=path).start({"name": "worker", "kind": "codex", "args": []})
    assert receipt.agent == "worker" and runner.calls[-1][:3] == ("agent", "start", "worker")


@pytest.mark.parametrize("args", [["-m", "gpt-6-sol"], ["--model=gpt-6-sol"], ["--profile", "p"], ["-c", "model=x"]])
async def test_a_start_whose_arguments_choose_the_model_is_not_predicted(home, work, path, args, caplog):
    caplog.set_level(logging.INFO, "herdr_link")
    _config(home, 'model = "gpt-5.5"\n')
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    receipt = await link(runner, HOME=str(home), PATH=path).start({"name": "worker", "kind": "codex", "args": args})
    assert receipt.agent == "worker" and "its arguments choose the model" in caplog.text
    assert HostQuestions({"HOME": str(home), "PATH": path}).ahead("codex", str(work), ["--search"]) is not None


# ---- what a mutation of the rule showed no test noticed (issue 61, item 6) ---------------------------


def test_a_codex_whose_version_cannot_run_or_exits_non_zero_is_not_predicted(home, work, tmp_path, caplog):
    caplog.set_level(logging.INFO, "herdr_link")
    _config(home, 'model = "gpt-5.5"\n')
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "codex").write_text("#!/nonexistent/interpreter\n")  # found on PATH, cannot be run
    (broken / "codex").chmod(0o755)
    assert _asks(home, work, str(broken)) is None and "--version failed" in caplog.text
    failing = tmp_path / "failing"
    failing.mkdir()
    (failing / "codex").write_text("#!/bin/sh\necho 'codex-cli 0.171.0'\nexit 3\n")  # prints, then fails
    (failing / "codex").chmod(0o755)
    assert _asks(home, work, str(failing)) is None and "--version exited 3" in caplog.text


@pytest.mark.parametrize("cached", ['{"models": 5}', '{"fetched_at": "x"}', "[]"])
def test_a_catalogue_that_is_json_but_no_list_of_models_is_a_logged_reason(home, work, path, caplog, cached):
    caplog.set_level(logging.INFO, "herdr_link")
    _config(home, 'model = "gpt-5.5"\n')
    (home / ".codex" / "models_cache.json").write_text(cached)
    assert _asks(home, work, path) is None
    assert "not predicted" in caplog.text and "models_cache.json" in caplog.text


def test_a_profile_whose_model_is_empty_falls_back_to_the_top_level_one(home, work, path):
    _config(home, 'profile = "p"\nmodel = "gpt-5.5"\n[profiles.p]\nmodel = ""\n')
    assert "offering gpt-6-sol" in (_asks(home, work, path) or "")
    _config(home, 'profile = "missing"\nmodel = "gpt-5.5"\n')
    assert "offering gpt-6-sol" in (_asks(home, work, path) or "")


def test_a_relative_or_project_local_codex_on_path_is_never_run(home, work, tmp_path, caplog, monkeypatch):
    caplog.set_level(logging.INFO, "herdr_link")
    _config(home, 'model = "gpt-5.5"\n')
    local = work / "node_modules" / ".bin"
    local.mkdir(parents=True)
    (local / "codex").write_text(f"#!/bin/sh\ntouch '{tmp_path / 'ran'}'\necho 'codex-cli 0.171.0'\n")
    (local / "codex").chmod(0o755)
    monkeypatch.chdir(work)  # the adapter runs in the caller's project
    for entry in ("node_modules/.bin", str(local)):  # relative, and absolute inside the project
        assert _asks(home, work, entry) is None and "no codex on PATH" in caplog.text
    assert not (tmp_path / "ran").exists()


def test_a_codex_in_a_project_above_the_working_folder_is_never_run_but_the_users_own_is(
    home, tmp_path, caplog, monkeypatch
):
    caplog.set_level(logging.INFO, "herdr_link")
    _config(home, 'model = "gpt-5.5"\n')
    ran = tmp_path / "ran"
    mono = home / "code" / "mono"  # a monorepo root's tools, which its workspaces' scripts put on PATH
    tools = [mono / "node_modules" / ".bin", mono / ".venv" / "bin"]
    for folder in tools:
        folder.mkdir(parents=True)
        (folder / "codex").write_text(f"#!/bin/sh\ntouch '{ran}'\necho 'codex-cli 0.171.0'\n")
        (folder / "codex").chmod(0o755)
    app = mono / "packages" / "app"
    app.mkdir(parents=True)
    (home / ".local").mkdir()
    own = _program(home / ".local")  # the user's own, under their home: ~/.local/bin
    monkeypatch.chdir(app)  # the adapter runs in the caller's project
    project_first = os.pathsep.join(str(folder) for folder in tools)
    assert _asks(home, app, project_first) is None and "no codex on PATH" in caplog.text
    assert "offering gpt-6-sol" in (_asks(home, app, project_first + os.pathsep + str(own)) or "")
    assert not ran.exists() and (own / "runs").read_text() == "run\n"


def test_the_rule_for_path_drops_every_folder_a_project_could_own_and_keeps_the_systems():
    home, work = "/home/u", "/usr/local/src/mono/app"
    path = ["/usr/local/bin", "/usr/local/src/mono/node_modules/.bin", "/usr/local/src/bin", "/usr/bin", "bin"]
    assert trusted_path(os.pathsep.join(path), work, home) == os.pathsep.join(["/usr/local/bin", "/usr/bin"])
    path = ["/home/u/.local/bin", "/home/u/p/node_modules/.bin", "/home/u/p/a/b/../../.venv/bin", "/opt/x/bin"]
    assert trusted_path(os.pathsep.join(path), "/home/u/p/a", home) == os.pathsep.join([path[0], path[3]])
    assert trusted_path("/home/u/.local/bin", "/home/u", home) == "/home/u/.local/bin"  # home is not a project


def test_a_catalogue_with_odd_entries_offers_only_what_it_lists(home, work, path):
    _config(home, 'model = "gpt-5.5"\n')
    odd = [5, "x", None, {"slug": ["not", "a", "name"]}, {"slug": "gpt-5.5", "upgrade": {"model": ["gpt-7"]}}]
    (home / ".codex" / "models_cache.json").write_text(json.dumps({"models": odd}))
    assert _asks(home, work, path) is None  # nothing it lists is offered: no notice, and no crash
