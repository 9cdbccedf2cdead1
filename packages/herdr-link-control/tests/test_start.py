"""herdr_link_start with scripted Herdr replies (TypeScript herdr.test.ts cases 28-50 and more)."""

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from scripted_herdr import agent, err, got, link, ok, scripted

from herdr_link_control import CallContext, RunResult, hosts
from herdr_link_control.hosts import Host
from herdr_link_protocol import Cause, ErrorCode, LinkError

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "agent_config.example.json"


def tab_created(tab: str = "w1:t2", root: str | None = "w1:p4") -> RunResult:
    result: dict[str, Any] = {"type": "tab_created", "tab": {"tab_id": tab, "workspace_id": "w1"}}
    if root is not None:
        result["root_pane"] = {"pane_id": root, "tab_id": tab, "workspace_id": "w1"}
    return ok({"id": "cli:tab:create", "result": result})


def split(pane: str = "w1:p3", ws: str = "w1") -> RunResult:
    return ok({"id": "cli:pane:split", "result": {"type": "pane_info", "pane": {"pane_id": pane, "workspace_id": ws}}})


STARTED = ok({"id": "cli:agent:start", "result": {"type": "agent_started", "agent": {}, "argv": []}})
SNAPSHOT = ("pane", "list", "--workspace", "w1")
"""The panes listed before a tab or pane is allocated, so that only what the start made is ever closed."""
PANES = ok({"result": {"panes": [{"pane_id": "w1:p1", "tab_id": "w1:t1"}]}})
BASE = {
    SELF: got(agent("brain", cwd="/proj")),
    SNAPSHOT: PANES,
    ("tab", "create"): tab_created(),
    ("agent", "start"): STARTED,
}


def project(tmp_path: Path, agents: dict[str, Any]) -> str:
    (tmp_path / ".agents").mkdir(exist_ok=True)
    (tmp_path / ".agents" / "agent_config.json").write_text(json.dumps({"agents": agents}))
    return str(tmp_path)


async def test_explicit_start_allocates_a_new_tab_and_uses_its_root_pane():
    runner = scripted(BASE)
    receipt = await link(runner).start({"name": "worker-01", "kind": "pi", "args": ["--model", "model-x"]})
    assert receipt.to_json() == '{"status":"started","agent":"worker-01","kind":"pi"}'
    assert runner.calls == [
        SELF,
        SNAPSHOT,
        ("tab", "create", "--workspace", "w1", "--cwd", "/proj", "--no-focus"),
        ("agent", "start", "worker-01", "--kind", "pi", "--pane", "w1:p4", "--", "--model", "model-x"),
    ]


async def test_the_root_pane_is_found_by_listing_when_tab_create_omits_it():
    panes = ok(
        {"result": {"panes": [{"pane_id": "w1:p1", "tab_id": "w1:t1"}, {"pane_id": "w1:p7", "tab_id": "w1:t2"}]}}
    )
    runner = scripted({**BASE, ("tab", "create"): tab_created(root=None), SNAPSHOT: [PANES, panes]})
    await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert runner.calls[3] == SNAPSHOT and runner.calls[4][6] == "w1:p7"


@pytest.mark.parametrize(("cwd", "expected"), [(None, "/ctx"), ("sub/dir", "/ctx/sub/dir"), ("/abs", "/abs")])
async def test_new_tab_cwd_resolves_against_the_context_directory(cwd, expected):
    runner = scripted(BASE)
    arguments = {"name": "w", "kind": "pi", "args": []} | ({"cwd": cwd} if cwd else {})
    await link(runner).start(arguments, context=CallContext(directory="/ctx"))
    assert runner.calls[2][5] == expected


async def test_the_context_directory_falls_back_to_the_callers_live_cwd_then_the_process_cwd():
    runner = scripted(BASE)
    await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert runner.calls[2][5] == "/proj"
    runner = scripted({**BASE, SELF: got(agent("brain", cwd=""))})
    subject = link(runner)
    subject._starter.process_cwd = lambda: "/process"  # type: ignore[union-attr]
    await subject.start({"name": "w", "kind": "pi", "args": []})
    assert runner.calls[2][5] == "/process"


async def test_configured_new_tab_uses_the_label_and_no_topology_in_the_receipt(tmp_path):
    context = project(
        tmp_path,
        {"docs": {"placement": {"mode": "new_tab", "label": "docs"}, "variants": [{"kind": "claude", "args": ["-p"]}]}},
    )
    runner = scripted(BASE)
    receipt = await link(runner).start(
        {"name": "writer", "config_agent": "docs"}, context=CallContext(directory=context)
    )
    assert receipt.to_json() == '{"status":"started","agent":"writer","kind":"claude"}'
    assert runner.calls[2] == ("tab", "create", "--workspace", "w1", "--cwd", context, "--label", "docs", "--no-focus")
    assert runner.calls[3][-2:] == ("--", "-p")


async def test_the_published_example_starts(tmp_path):
    (tmp_path / ".agents").mkdir()
    shutil.copy(EXAMPLE, tmp_path / ".agents" / "agent_config.json")
    runner = scripted(BASE)
    receipt = await link(runner).start(
        {"name": "w", "config_agent": "example-single"}, context=CallContext(directory=str(tmp_path))
    )
    assert receipt.kind == "pi"


async def test_round_robin_rereads_the_file_and_advances_only_after_success(tmp_path):
    entry = {
        "placement": {"mode": "new_tab"},
        "strategy": "round-robin",
        "variants": [{"kind": "pi"}, {"kind": "codex"}, {"kind": "claude"}],
    }
    context = project(tmp_path, {"rr": entry})
    runner = scripted({**BASE, ("agent", "start"): [STARTED, err("agent_pane_busy"), STARTED, STARTED]})
    subject = link(runner)
    kinds = []
    for attempt in range(4):
        try:
            kinds.append(
                (
                    await subject.start(
                        {"name": f"w{attempt}", "config_agent": "rr"}, context=CallContext(directory=context)
                    )
                ).kind
            )
        except LinkError as error:
            kinds.append(error.code.value)
        if attempt == 2:  # the file is re-read: a changed variant list takes effect at once
            project(tmp_path, {"rr": {**entry, "variants": [{"kind": "pi"}, {"kind": "amp"}]}})
    assert kinds == ["pi", "START_FAILED", "codex", "pi"]


async def test_cursors_are_isolated_per_entry_and_per_project(tmp_path):
    entry = {
        "placement": {"mode": "new_tab"},
        "strategy": "round-robin",
        "variants": [{"kind": "pi"}, {"kind": "codex"}],
    }
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    project(one, {"a": entry, "b": entry})
    project(two, {"a": entry})
    subject = link(scripted(BASE))
    kinds = [
        (await subject.start({"name": "w", "config_agent": key}, context=CallContext(directory=str(where)))).kind
        for where, key in [(one, "a"), (one, "a"), (one, "b"), (two, "a")]
    ]
    assert kinds == ["pi", "codex", "pi", "pi"]


async def test_concurrent_configured_starts_keep_the_cursor_consistent(tmp_path):
    entry = {
        "placement": {"mode": "new_tab"},
        "strategy": "round-robin",
        "variants": [{"kind": "pi"}, {"kind": "codex"}],
    }
    context = project(tmp_path, {"rr": entry})

    async def slow_start(argv):
        await anyio.sleep(0.01)
        return STARTED

    runner = scripted({**BASE, ("agent", "start"): slow_start})
    subject = link(runner)
    kinds: list[str] = []

    async def one(index: int) -> None:
        kinds.append(
            (
                await subject.start({"name": f"w{index}", "config_agent": "rr"}, context=CallContext(directory=context))
            ).kind
        )

    async with anyio.create_task_group() as group:
        for index in range(6):
            group.start_soon(one, index)
    assert sorted(kinds) == ["codex"] * 3 + ["pi"] * 3
    assert kinds == ["pi", "codex"] * 3  # serialised per entry, in turn


@pytest.mark.parametrize(
    ("files", "arguments", "cause"),
    [
        (None, {"config_agent": "x"}, Cause.CONFIG_NOT_FOUND),
        ("{not json", {"config_agent": "x"}, Cause.CONFIG_NOT_JSON),
        ('{"version":1,"agents":{}}', {"config_agent": "x"}, Cause.CONFIG_SCHEMA_INVALID),
        ('{"agents":{}}', {"config_agent": "x"}, Cause.CONFIG_AGENT_NOT_FOUND),
        (
            '{"agents":{"x":{"placement":{"mode":"new_tab"},"variants":[{"kind":"--evil"}]}}}',
            {"config_agent": "x"},
            Cause.CONFIG_KIND_INVALID,
        ),
        (
            '{"agents":{"x":{"placement":{"mode":"new_tab"},"variants":[{"kind":"pi"}]}}}',
            {"config_agent": "x", "with": "brain"},
            Cause.START_WITH_ON_NEW_TAB,
        ),
        (
            '{"agents":{"x":{"placement":{"mode":"with"},"variants":[{"kind":"pi"}]}}}',
            {"config_agent": "x"},
            Cause.START_WITH_REQUIRED,
        ),
        (
            '{"agents":{"x":{"placement":{"mode":"with"},"variants":[{"kind":"pi"}]}}}',
            {"config_agent": "x", "with": "brain", "cwd": "/x"},
            Cause.START_WITH_AND_CWD,
        ),
    ],
)
async def test_configuration_errors_fail_before_anything_is_allocated(tmp_path, files, arguments, cause):
    if files is not None:
        (tmp_path / ".agents").mkdir()
        (tmp_path / ".agents" / "agent_config.json").write_text(files)
    runner = scripted(BASE)
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", **arguments}, context=CallContext(directory=str(tmp_path)))
    assert caught.value.cause is cause
    assert runner.calls == [SELF]


async def test_an_unreadable_configuration_is_start_config_invalid(tmp_path):
    (tmp_path / ".agents" / "agent_config.json").mkdir(parents=True)  # a directory cannot be read as a file
    with pytest.raises(LinkError) as caught:
        await link(scripted(BASE)).start(
            {"name": "w", "config_agent": "x"}, context=CallContext(directory=str(tmp_path))
        )
    assert caught.value.code is ErrorCode.START_CONFIG_INVALID


@pytest.mark.parametrize(
    "arguments",
    [
        {"name": "w", "kind": "pi", "args": [], "pane": "w1:p2"},
        {"name": "w", "config_agent": "x", "kind": "pi"},
        {"name": "w", "kind": "pi", "args": [], "with": "brain", "cwd": "/x"},
        {"name": "w", "kind": "-x", "args": []},
    ],
)
async def test_explicit_input_errors_make_no_herdr_call(arguments):
    runner = scripted(BASE)
    with pytest.raises(LinkError) as caught:
        await link(runner).start(arguments)
    assert caught.value.code is ErrorCode.START_INPUT_INVALID and runner.calls == []


WITH = {
    **BASE,
    ("agent", "get", "cv-anchor"): got(agent("cv-anchor", pane="w1:p2", cwd="/worktrees/slice-a")),
    ("pane", "split"): split(),
}


async def test_with_placement_splits_the_anchor_inheriting_its_live_cwd():
    runner = scripted(WITH)
    await link(runner).start({"name": "cv-01", "kind": "pi", "args": ["--model", "cv/model"], "with": "cv-anchor"})
    assert runner.calls == [
        SELF,
        ("agent", "get", "cv-anchor"),
        SNAPSHOT,
        ("pane", "split", "w1:p2", "--direction", "right", "--cwd", "/worktrees/slice-a", "--no-focus"),
        ("agent", "start", "cv-01", "--kind", "pi", "--pane", "w1:p3", "--", "--model", "cv/model"),
    ]
    assert not any(c[:2] == ("tab", "create") for c in runner.calls)


@pytest.mark.parametrize(
    ("anchor", "code"),
    [
        (err("agent_not_found"), ErrorCode.PEER_NOT_FOUND),
        (got(agent("cv-anchor", ws="w2")), ErrorCode.PEER_NOT_FOUND),
        (got(agent("cv-anchor", pane="w1:p2", cwd="")), ErrorCode.START_FAILED),
    ],
)
async def test_a_bad_anchor_fails_before_any_split(anchor, code):
    runner = scripted({**WITH, ("agent", "get", "cv-anchor"): anchor})
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": [], "with": "cv-anchor"})
    assert caught.value.code is code
    assert not any(c[:2] == ("pane", "split") for c in runner.calls)


async def test_an_invalid_anchor_name_is_refused_without_herdr():
    runner = scripted(WITH)
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": [], "with": "Bad Anchor"})
    assert caught.value.code is ErrorCode.START_INPUT_INVALID and runner.calls == []


async def test_agent_start_failure_closes_exactly_the_created_tab_without_retry():
    runner = scripted({**BASE, ("agent", "start"): err("agent_pane_busy"), ("tab", "close"): ok({})})
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert caught.value.code is ErrorCode.START_FAILED
    assert runner.calls[-1] == ("tab", "close", "w1:t2")
    assert sum(c[:2] == ("agent", "start") for c in runner.calls) == 1


async def test_root_resolution_failure_closes_the_created_tab():
    panes = ok(
        {"result": {"panes": [{"pane_id": "w1:p4", "tab_id": "w1:t2"}, {"pane_id": "w1:p5", "tab_id": "w1:t2"}]}}
    )
    runner = scripted(
        {**BASE, ("tab", "create"): tab_created(root=None), ("pane", "list"): panes, ("tab", "close"): ok({})}
    )
    with pytest.raises(LinkError):
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert runner.calls[-1] == ("tab", "close", "w1:t2")


async def test_with_start_failure_closes_exactly_the_created_pane():
    runner = scripted({**WITH, ("agent", "start"): TimeoutError(), ("pane", "close"): ok({})})
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": [], "with": "cv-anchor"})
    assert caught.value.code is ErrorCode.NOT_IN_HERDR  # the primary error, not relabelled
    assert runner.calls[-1] == ("pane", "close", "w1:p3")


async def test_a_split_pane_in_another_workspace_is_rolled_back():
    runner = scripted({**WITH, ("pane", "split"): split(ws="w9"), ("pane", "close"): ok({})})
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": [], "with": "cv-anchor"})
    assert caught.value.code is ErrorCode.START_FAILED
    assert runner.calls[-1] == ("pane", "close", "w1:p3")
    assert not any(c[:2] == ("agent", "start") for c in runner.calls)


async def test_a_rollback_failure_never_replaces_the_primary_error():
    runner = scripted({**BASE, ("agent", "start"): err("agent_name_taken"), ("tab", "close"): TimeoutError()})
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert caught.value.code is ErrorCode.START_FAILED


async def test_cancellation_after_allocation_still_rolls_back():
    entered = anyio.Event()

    async def never(argv):
        entered.set()
        await anyio.sleep_forever()

    runner = scripted({**BASE, ("agent", "start"): never, ("tab", "close"): ok({})})
    subject = link(runner)
    async with anyio.create_task_group() as group:
        group.start_soon(subject.start, {"name": "w", "kind": "pi", "args": []})
        await entered.wait()
        group.cancel_scope.cancel()
    assert runner.calls[-1] == ("tab", "close", "w1:t2")


@pytest.mark.parametrize("reply", [ok({"result": {"type": "tab_created"}}), ok({})])
async def test_a_tab_reply_without_ids_is_start_failed(reply):
    runner = scripted({**BASE, ("tab", "create"): reply})
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert caught.value.code is ErrorCode.START_FAILED
    assert not any(c[:2] == ("agent", "start") for c in runner.calls)


async def test_unsupported_kind_from_herdr_is_start_failed():
    runner = scripted(
        {
            **BASE,
            ("agent", "start"): RunResult(2, "", "unsupported interactive agent kind: vim\n"),
            ("tab", "close"): ok({}),
        }
    )
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "vim", "args": []})
    assert str(caught.value) == str(LinkError(Cause.START_KIND_UNSUPPORTED))
    assert runner.calls[-1] == ("tab", "close", "w1:t2")


async def test_not_in_herdr_is_never_relabelled_within_start():
    runner = scripted({**BASE, ("tab", "create"): err("server_not_running")})
    with pytest.raises(LinkError) as caught:
        await link(runner).start({"name": "w", "kind": "pi", "args": []})
    assert caught.value.code is ErrorCode.NOT_IN_HERDR


@pytest.mark.parametrize(
    ("kind", "args", "typed"),
    [
        ("codex", [], ("--no-daemon",)),  # Codex's default joins its shared daemon: the worker gets its own process
        ("codex", ["-m", "o3"], ("--no-daemon", "-m", "o3")),
        ("codex", ["exec", "task"], ("--no-daemon", "exec", "task")),  # a global flag, before the subcommand
        ("codex", ["--no-daemon"], ("--no-daemon",)),  # the args already choose
        ("codex", ["--remote=ws://127.0.0.1:7"], ("--remote=ws://127.0.0.1:7",)),
        ("codex", ["--remote", "ws://127.0.0.1:7"], ("--remote", "ws://127.0.0.1:7")),
        ("pi", [], ()),  # a host that spawns per pane gets nothing added
        ("cline", [], ("--data-dir", "/home/u/.cline/data")),  # under the user's HOME, written out: Herdr quotes
        ("cline", ["--data-dir", "/srv/cline"], ("--data-dir", "/srv/cline")),
        ("copilot", [], ("--allow-tool", "herdr_link")),  # Copilot CLI asks before every MCP call otherwise
        ("copilot", ["--model", "gpt-5.4"], ("--allow-tool", "herdr_link", "--model", "gpt-5.4")),
    ],
)
async def test_a_worker_of_a_host_that_shares_a_process_is_started_in_its_own(kind, args, typed, tmp_path):
    runner = scripted(BASE)
    started = {"name": "w", "kind": kind, "args": args}
    await link(runner, HOME="/home/u").start(started, context=CallContext(directory=str(tmp_path)))
    start = runner.calls[-1]
    assert start[:2] == ("agent", "start") and start[start.index("--") + 1 :] == typed


@pytest.fixture
def unwired_hermes(monkeypatch):
    """The table with Hermes Agent's row saying Link cannot wire it (every kind Herdr runs is wired today, so a
    test of the unwired path puts a made-up row on the public table)."""
    rows = tuple(
        Host(row.name, row.title, kind=row.kind, unwired="its file is not known") if row.kind == "hermes" else row
        for row in hosts.HOSTS
    )
    monkeypatch.setattr(hosts, "HOSTS", rows)


@pytest.mark.parametrize("kind", ["hermes", "Hermes-Agent", "HERMES"])
async def test_a_kind_link_cannot_wire_is_started_and_the_log_says_it_has_no_link(
    kind, tmp_path, caplog, unwired_hermes
):
    runner = scripted(BASE)
    receipt = await link(runner).start(
        {"name": "w", "kind": kind, "args": []}, context=CallContext(directory=str(tmp_path))
    )
    assert receipt.kind == kind and runner.calls[-1][:2] == ("agent", "start")
    assert "which will have no Herdr Link" in caplog.text


async def test_a_wired_kind_is_started_without_that_warning(tmp_path, caplog):
    runner = scripted(BASE)
    await link(runner).start({"name": "w", "kind": "qwen", "args": []}, context=CallContext(directory=str(tmp_path)))
    assert "no Herdr Link" not in caplog.text
