"""A start never leaves a worker at a question only its user may answer, and a send never types into
one: predicted from the host's own files (``HostQuestions``), before any pane is made or any text is
typed. Each row also has the file states where the host does not ask, which must start and deliver."""

import json
import logging
from pathlib import Path

import pytest
from scripted_herdr import agent, got, link, ok, scripted

from herdr_link_control import HostQuestions, ScriptedRunner
from herdr_link_control.hosts import host_for_kind, trust_record
from herdr_link_protocol import Cause, LinkError

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
SNAPSHOT = ("pane", "list", "--workspace", "w1")
PANES = ok({"result": {"panes": [{"pane_id": "w1:p1", "tab_id": "w1:t1"}]}})
TAB = ok({"result": {"type": "tab_created", "root_pane": {"pane_id": "w1:p4", "tab_id": "w1:t2"}}})
STARTED = ok({"result": {"type": "agent_started", "agent": {}, "argv": []}})


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "repo" / "sub"
    folder.mkdir(parents=True)
    (tmp_path / "work" / "repo" / ".git").mkdir()
    return folder


def _claude(home: Path, projects: dict[str, object]) -> None:
    _write(home / ".claude.json", json.dumps({"projects": projects}))


def _gemini(home: Path, folders: dict[str, str] | None, settings: dict[str, object] | None = None) -> None:
    _write(home / ".gemini" / "settings.json", json.dumps(settings or {}))
    if folders is not None:
        _write(home / ".gemini" / "trustedFolders.json", json.dumps(folders))


def _codex(home: Path, text: str = "") -> None:
    _write(home / ".codex" / "config.toml", text)


def _ahead(home: Path, kind: str, folder: Path, **env: str) -> str | None:
    question = HostQuestions({"HOME": str(home), **env}).ahead(kind, str(folder))
    return None if question is None else question.host.name


# ---- the rows: when each host asks, and when it does not ------------------------------------------


def test_claude_code_asks_in_a_folder_it_has_no_trust_for(home, work):
    _claude(home, {})
    assert _ahead(home, "claude", work) == "claude"
    _claude(home, {str(work): {"hasTrustDialogAccepted": False}})
    assert _ahead(home, "claude", work) == "claude"


@pytest.mark.parametrize("trusted", ["work", "repo root"])
def test_claude_code_does_not_ask_where_the_folder_or_its_repository_is_trusted(home, work, trusted):
    folder = work if trusted == "work" else work.parent
    _claude(home, {str(folder): {"hasTrustDialogAccepted": True}})
    assert _ahead(home, "claude", work) is None


def test_gemini_cli_asks_until_the_folder_is_answered(home, work):
    _gemini(home, None)  # it ran (its settings exist) and trusted nothing yet
    assert _ahead(home, "gemini", work) == "gemini"
    _gemini(home, {str(work.parent.parent): "TRUST_FOLDER"})
    assert _ahead(home, "gemini", work) is None
    _gemini(home, {str(work / "x"): "TRUST_PARENT"})
    assert _ahead(home, "gemini", work) is None
    _gemini(home, {str(work): "DO_NOT_TRUST"})  # answered "no": it runs, distrusted, and asks nothing
    assert _ahead(home, "gemini", work) is None


def test_gemini_cli_does_not_ask_with_folder_trust_off_or_the_workspace_trusted_by_variable(home, work):
    _gemini(home, None, {"security": {"folderTrust": {"enabled": False}}})
    assert _ahead(home, "gemini", work) is None
    _gemini(home, None)
    assert _ahead(home, "gemini", work, GEMINI_CLI_TRUST_WORKSPACE="true") is None


def test_codex_asks_only_in_a_repository_it_has_no_answer_for(home, work, tmp_path):
    _codex(home)
    assert _ahead(home, "codex", work) == "codex"
    plain = tmp_path / "plain"
    plain.mkdir()
    assert _ahead(home, "codex", plain) is None  # outside a repository Codex 0.171 did not ask
    for level in ("trusted", "untrusted"):  # either answer, recorded at the repository's root
        _codex(home, f'[projects."{work.parent}"]\ntrust_level = "{level}"\n')
        assert _ahead(home, "codex", work) is None
    _codex(home, 'approval_policy = "on-request"\n')  # some releases skip the question then
    assert _ahead(home, "codex", work) is None


def _grok(home: Path, config: str = "", folders: str | None = None) -> None:
    _write(home / ".grok" / "config.toml", config)
    if folders is not None:
        _write(home / ".grok" / "trusted_folders.toml", folders)


def test_grok_build_asks_only_where_its_repository_holds_configuration_that_runs_commands(home, work):
    _grok(home)  # it ran (its config exists) and trusted nothing yet
    assert _ahead(home, "grok", work) is None  # a repository with nothing that runs commands
    repo = work.parent
    _write(repo / ".grok" / "config.toml", "[mcp_servers]\n[ui]\ntheme = 'groknight'\n")
    assert _ahead(home, "grok", work) is None  # an empty server table gates nothing
    _write(repo / ".grok" / "config.toml", '# the team\'s servers\n[mcp_servers.github]\ncommand = "npx"\n')
    assert _ahead(home, "grok-build", work) == "grok"
    _write(repo / ".grok" / "config.toml", '[permission]\nallow = ["Bash(make *)"]\n')
    assert _ahead(home, "grok", work) == "grok"  # permission rules are gated too
    (repo / ".grok" / "config.toml").unlink()
    _write(repo / ".mcp.json", "{}")
    assert _ahead(home, "grok", work) == "grok"


@pytest.mark.parametrize(
    "marker",
    [".claude/settings.json", "sub/.envrc", ".grok/hooks/", ".claude/agents/", "sub/.grok/lsp.json", "~/.claude.json"],
)
def test_grok_build_asks_for_each_kind_of_configuration_its_scan_finds(home, work, marker):
    _grok(home)
    repo = work.parent
    if marker == "~/.claude.json":  # servers Claude Code keeps for the folder
        _claude(home, {str(work): {"mcpServers": {"docs": {"command": "docs-mcp"}}}})
    elif marker.endswith("/"):
        (repo / marker).mkdir(parents=True)
    else:
        _write(repo / marker, "{}")
    assert _ahead(home, "grok", work) == "grok"


def test_grok_build_does_not_ask_where_the_repository_is_trusted_by_its_root(home, work):
    repo = work.parent
    _write(repo / ".grok" / "config.toml", '[mcp_servers.github]\ncommand = "npx"\n')

    def record(*folders: tuple[Path, bool]) -> str:
        return "".join(f'[folders."{f}"]\ntrusted = {str(t).lower()}\ndecided_at = 1780000000\n\n' for f, t in folders)

    _grok(home, folders=record((repo, True)))
    assert _ahead(home, "grok", work) is None
    _grok(home, folders=record((work, True)))  # Grok looks trust up by the repository's root, not the folder
    assert _ahead(home, "grok", work) == "grok"
    _grok(home, folders=record((repo.parent, True)))  # 1.0.41 was seen to ask: a folder above does not cover it
    assert _ahead(home, "grok", work) == "grok"
    _grok(home, folders=record((repo, False)))  # answered "no": it asks again
    assert _ahead(home, "grok", work) == "grok"
    _grok(home, folders=record((repo, True)) + '[folders."/srv/x"]\ndecided_at = 1\n')  # unreadable as a whole
    assert _ahead(home, "grok", work) == "grok"


def test_grok_build_does_not_ask_with_folder_trust_switched_off(home, work):
    _write(work.parent / ".mcp.json", "{}")
    _grok(home, "[folder_trust]\nenabled = false\n")
    assert _ahead(home, "grok", work) is None
    assert _ahead(home, "grok", work, GROK_FOLDER_TRUST="on") == "grok"  # its variable comes first
    _grok(home)
    assert _ahead(home, "grok", work, GROK_FOLDER_TRUST="0") is None


def test_grok_builds_question_names_the_repository_to_trust(home, work):
    _grok(home)
    _write(work.parent / ".grok" / "config.toml", '[mcp_servers.github]\ncommand = "npx"\n')
    question = HostQuestions({"HOME": str(home)}).ahead("grok", str(work))
    assert question is not None and question.fix == f"herdr-link-mcp install --host grok --trust {work.parent}"
    assert "Do you trust the contents of this directory?" in str(question)


@pytest.mark.parametrize("kind", ["pi", "opencode", "agy", "nothing-we-know"])
def test_hosts_without_a_trust_question_are_never_refused(home, work, kind):
    _claude(home, {})
    _gemini(home, None)
    assert _ahead(home, kind, work) is None


def test_a_host_that_never_ran_or_whose_file_is_broken_is_not_predicted(home, work, caplog):
    caplog.set_level(logging.INFO, "herdr_link")
    assert _ahead(home, "claude", work) is None  # no ~/.claude.json: nothing says it would ask
    assert "not predicted" in caplog.text
    _write(home / ".claude.json", "{not json")
    assert _ahead(home, "claude", work) is None
    assert ".claude.json is not valid JSON" in caplog.text
    assert HostQuestions({}).ahead("claude", str(work)) is None  # no HOME: nothing to read


def test_the_question_names_the_command_that_answers_it_for_the_operator(home, work):
    _codex(home)
    question = HostQuestions({"HOME": str(home)}).ahead("codex", str(work))
    assert question is not None and question.fix == f"herdr-link-mcp install --host codex --trust {work.parent}"
    assert question.fix in str(question) and "Trust this folder?" in str(question)


# ---- start and send: refused before anything is made or typed -------------------------------------


def _agent_text_is_clean(error: LinkError, work: Path) -> None:
    assert "herdr-link-mcp" not in str(error) and str(work) not in str(error)  # no recovery command, no path
    assert "herdr-link-mcp install --host gemini --trust" in error.detail  # for the operator log


async def test_a_start_that_would_stop_at_the_question_makes_nothing(home, work):
    _gemini(home, None)
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB})
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home)).start({"name": "worker", "kind": "gemini", "args": []})
    assert raised.value.cause is Cause.START_AGENT_WOULD_ASK and str(raised.value).startswith("START_FAILED: ")
    assert runner.calls == [SELF]  # no listing, no tab, no pane: nothing to roll back
    _agent_text_is_clean(raised.value, work)


async def test_a_start_beside_an_anchor_reads_the_anchors_folder_before_splitting(home, work):
    _gemini(home, None)
    anchor = ("agent", "get", "lead")
    runner = scripted(
        {SELF: got(agent("brain", cwd="/elsewhere")), anchor: got(agent("lead", pane="w1:p2", cwd=str(work)))}
    )
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home)).start({"name": "worker", "kind": "gemini", "args": [], "with": "lead"})
    assert raised.value.cause is Cause.START_AGENT_WOULD_ASK
    assert runner.calls == [SELF, anchor]


async def test_a_start_where_the_host_does_not_ask_goes_ahead(home, work):
    _gemini(home, {str(work): "TRUST_FOLDER"})
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    receipt = await link(runner, HOME=str(home)).start({"name": "worker", "kind": "gemini", "args": []})
    assert receipt.agent == "worker" and runner.calls[-1][:3] == ("agent", "start", "worker")


async def test_a_grok_build_worker_is_not_started_where_it_would_ask(home, work):
    _grok(home)
    _write(work.parent / ".grok" / "config.toml", '[mcp_servers.github]\ncommand = "npx"\n')
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB})
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home)).start({"name": "worker", "kind": "grok", "args": []})
    assert raised.value.cause is Cause.START_AGENT_WOULD_ASK and runner.calls == [SELF]
    assert f"herdr-link-mcp install --host grok --trust {work.parent}" in raised.value.detail
    _grok(home, folders=f'[folders."{work.parent}"]\ntrusted = true\ndecided_at = 1796515200\n')
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    receipt = await link(runner, HOME=str(home)).start({"name": "worker", "kind": "grok", "args": []})
    assert receipt.agent == "worker"


def _send_runner(work: Path, kind: str = "gemini") -> ScriptedRunner:
    target = got(agent("worker", pane="w1:p2", cwd=str(work), agent=kind))
    return scripted(
        {SELF: got(agent("brain")), ("agent", "get", "worker"): target, ("agent", "prompt"): ok({"result": {}})}
    )


async def test_a_send_to_an_agent_sitting_at_the_question_types_nothing(home, work):
    _gemini(home, None)
    runner = _send_runner(work)
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home)).send("worker", "hello")
    assert raised.value.cause is Cause.SEND_TARGET_ASKING and str(raised.value).startswith("SEND_FAILED: ")
    assert not [call for call in runner.calls if call[:2] == ("agent", "prompt")]
    _agent_text_is_clean(raised.value, work)


async def test_a_send_once_the_user_answered_is_delivered(home, work):
    _gemini(home, {str(work): "TRUST_FOLDER"})
    runner = _send_runner(work)
    receipt = await link(runner, HOME=str(home)).send("worker", "hello")
    assert receipt.to == "worker" and runner.calls[-1][:3] == ("agent", "prompt", "w1:p2")


async def test_the_checks_that_came_first_still_win(home, work):
    _gemini(home, None)
    runner = _send_runner(work)
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home)).send("worker", "   ")
    assert raised.value.cause is Cause.MESSAGE_EMPTY


@pytest.mark.anyio
async def test_a_host_file_read_that_never_ends_is_given_up_and_the_send_goes_on(home, tmp_path, monkeypatch, caplog):
    import threading

    from herdr_link_control.hosts import _questions

    stalled = threading.Event()  # a host file on a network disk that stopped answering

    def hanging_read(*args, **kwargs):
        stalled.wait(120)
        return None

    monkeypatch.setattr(_questions, "folder_trust", hanging_read)
    monkeypatch.setattr(_questions, "QUESTION_SECONDS", 0.5)
    table = {
        ("agent", "get", "w1:p1"): got(agent("brain")),
        ("agent", "get", "gem"): got(agent("gem", pane="w1:p2", agent="gemini", cwd=str(tmp_path))),
        ("agent", "prompt"): ok({"result": {}}),
    }
    runner = scripted(table)
    try:
        receipt = await link(runner, HOME=str(home)).send("gem", "hello")  # not predicted: typed as before
    finally:
        stalled.set()
    assert receipt.to == "gem" and any(call[:2] == ("agent", "prompt") for call in runner.calls)
    assert "took more than 0.5 s to read" in caplog.text


# ---- Kimi Code: a record file per folder --------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "name"),  # computed with Kimi Code 2.1.0's own encodeWorkDirKey(canonicalWorkspaceRoot(…)) in node
    [
        ("/home/me/code/My App", "wd_my-app_54d13ffd260a"),
        ("/srv/--Ünïcode Project--/", "wd_n-code-project_1ccd8823f56d"),
        (
            "/tmp/x/a-very-long-folder-name-that-goes-past-forty-characters-ok",
            "wd_a-very-long-folder-name-that-goes-past-f_618f74afa335",
        ),
        ("/", "wd_workspace_e3b0c44298fc"),
    ],
)
def test_kimi_codes_record_of_a_folder_is_named_as_kimi_code_names_it(folder, name):
    kimi = host_for_kind("kimi")
    assert kimi is not None and kimi.trust is not None
    record = trust_record(kimi.trust, folder)
    assert record.user == f"~/.kimi-code/workspace-trust/{name}" and record.under_variable == f"workspace-trust/{name}"
    assert record.variable == "KIMI_CODE_HOME" and record.private


def _kimi_record(home: Path, folder: Path, text: str = '{"root": "x", "trustedAt": 1796515200000}') -> None:
    kimi = host_for_kind("kimi")
    assert kimi is not None and kimi.trust is not None
    _write(home / trust_record(kimi.trust, str(folder)).user[2:], text)


def test_kimi_code_asks_in_each_folder_without_its_own_record(home, work, caplog):
    caplog.set_level(logging.INFO, "herdr_link")
    assert _ahead(home, "kimi", work) is None  # no ~/.kimi-code: it never ran here, nothing is predicted
    assert "Kimi Code CLI asks first" in caplog.text and "not predicted" in caplog.text
    _write(home / ".kimi-code" / "mcp.json", "{}")
    assert _ahead(home, "kimi", work) == "kimi"
    _kimi_record(home, work.parent)  # its repository (a folder above) does not count
    assert _ahead(home, "kimi", work) == "kimi"
    _kimi_record(home, work, "{}")
    assert _ahead(home, "kimi", work) is None
    question = HostQuestions({"HOME": str(home)}).ahead("kimi", str(work.parent))
    assert question is None  # recorded above
    question = HostQuestions({"HOME": str(home)}).ahead("kimi", str(work.parent.parent))
    assert question is not None and "Trust this folder?" in str(question)
    assert question.fix == f"herdr-link-mcp install --host kimi --trust {work.parent.parent}"


def test_kimi_codes_records_follow_kimi_code_home(home, work, tmp_path):
    moved = tmp_path / "kimi-home"
    moved.mkdir()
    assert _ahead(home, "kimi", work, KIMI_CODE_HOME=str(moved)) == "kimi"
    kimi = host_for_kind("kimi")
    assert kimi is not None and kimi.trust is not None
    _write(moved / trust_record(kimi.trust, str(work)).under_variable, "{}")
    assert _ahead(home, "kimi", work, KIMI_CODE_HOME=str(moved)) is None


async def test_a_kimi_code_worker_is_not_started_where_it_would_ask(home, work):
    _write(home / ".kimi-code" / "mcp.json", "{}")
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB})
    with pytest.raises(LinkError) as raised:
        await link(runner, HOME=str(home)).start({"name": "worker", "kind": "kimi", "args": []})
    assert raised.value.cause is Cause.START_AGENT_WOULD_ASK and runner.calls == [SELF]
    assert f"herdr-link-mcp install --host kimi --trust {work}" in raised.value.detail
    _kimi_record(home, work)
    runner = scripted({SELF: got(agent("brain", cwd=str(work))), SNAPSHOT: PANES, ("tab", "create"): TAB,
                       ("agent", "start"): STARTED})  # fmt: skip
    receipt = await link(runner, HOME=str(home)).start({"name": "worker", "kind": "kimi", "args": []})
    assert receipt.agent == "worker"
