"""The cases users hit, in real panes with the real hosts' interactive TUIs (issue "Real panes", item 3).

Each scenario asserts the outcome it observes, so that any change is noticed, and records it in
``docs/host-matrix.md``. Here the workers are not wired (the user has not run our install command):
these are the first-run and blocked-target outcomes and the precise answers Link gives for them
(issue "Started workers come up wired and ready"); ``test_workers.py`` starts wired workers.
"""

import asyncio
import json
import time
import tomllib
from pathlib import Path

import pytest
from fake_model import Body, Call, Decision, FakeModelServer, Search, Text
from hosts import wiring_files
from interactive import (
    DOWN,
    KINDS,
    TRUST,
    UP,
    USE_SERVER,
    WAIT,
    TurnModel,
    at_prompt,
    choose,
    lead_pane,
    say,
    settled,
    status,
    user_machine,
)
from matrix import SCENARIOS

from herdr_link_protocol import Cause, LinkError, extract_envelope
from herdr_link_testkit import HerdrSim

LABEL = {"claude": "Claude Code 2.1.332", "codex": "Codex 0.171.0", "gemini": "Gemini CLI 0.61.0",
         "opencode": "OpenCode 1.18.33", "pi": "Pi 1.6.0"}  # fmt: skip


def _record(host: str, case: str, outcome: str, prompts: list[str]) -> None:
    SCENARIOS.append({"host": host, "case": case, "outcome": outcome, "prompts": prompts})


def _first_line(screen: str, *needles: str) -> str:
    """The first line of a screen holding one of ``needles``: what the dialog asked."""
    for line in screen.splitlines():
        if any(needle.lower() in line.lower() for needle in needles):
            return line.strip().strip("│").strip()
    return screen.strip().splitlines()[0] if screen.strip() else ""


# What each host shows when Herdr Link starts it in a folder it has never opened, as seen
# (2026-12-02), and what the start answers: Claude Code and Gemini CLI would first ask whether to
# trust the folder (Claude Code's dialog is `blocked`, Gemini CLI's is read as idle by Herdr, so a
# message's Enter would answer it), and their files say so in advance; the start makes nothing.
FIRST_RUN = {
    "claude": ("START_FAILED", "Is this a project you created or one you trust?"),
    "gemini": ("START_FAILED", "Do you trust the files in this folder?"),
    "codex": ("started", None),  # it asks only in a git repository, and this folder is not one
    "opencode": ("started", None),
    "pi": ("started", None),
}


def _trust_files(home: Path) -> dict[str, bytes]:
    """Every file under the user's HOME where a host records folder trust, as bytes."""
    places = [home / ".claude.json", home / ".gemini" / "trustedFolders.json", home / ".codex" / "config.toml"]
    return {str(path): path.read_bytes() for path in places if path.exists()}


@pytest.fixture
def allowed_lookups(request: pytest.FixtureRequest) -> frozenset[str]:
    """Interactive Codex 0.171.0 fetches its announcement tip (``announcement_tip.toml``) from
    raw.githubusercontent.com at every start, and no setting found turns that off (the update check,
    the plugin marketplace and tooltips are off); offline the lookup fails and nothing waits for it."""
    callspec = getattr(request.node, "callspec", None)
    kind = callspec.params.get("kind") if callspec is not None else None
    return frozenset({"raw.githubusercontent.com"}) if kind == "codex" else frozenset()


@pytest.mark.parametrize("kind", KINDS)
def test_a_worker_started_in_a_folder_its_host_has_never_opened(kind: str, tmp_path: Path) -> None:
    machine = user_machine(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    expected, question = FIRST_RUN[kind]
    with HerdrSim(real_panes=True, env=machine.env) as sim:
        lead, link = lead_pane(sim, machine.project)
        before, trust_before = set(sim.pane_ids()), _trust_files(machine.home)
        try:
            receipt = asyncio.run(link.start({"name": "worker", "kind": kind, "args": [], "cwd": str(elsewhere)}))
            outcome, text = "started", receipt.model_dump_json()
        except LinkError as error:
            outcome, text = error.code, str(error)
        assert outcome == expected, text
        if outcome == "started":
            worker = sim.agent("worker")
            assert worker["agent"] == kind and worker.get("interactive_ready") is True
            shown = settled(sim, worker["pane_id"], quiet=2.0)
            blocking = [shot.screen for shot in sim.blocking_screens() if shot.agent == kind]
            assert blocking == [], (blocking, shown)  # nothing Herdr reads as blocked
            fate, prompts = "started; the worker is at its composer", []
            asyncio.run(link.close("worker"))
        else:  # predicted from its files: no pane, no program, so no question on any screen
            assert text == str(LinkError(Cause.START_AGENT_WOULD_ASK))
            assert set(sim.pane_ids()) == before and sim.blocking_screens() == []
            assert status(sim, "worker") is None  # no name is reserved
            fate = ("`START_FAILED` before anything is made: its files say it would first ask whether to trust the "
                    "folder, which only the user may answer")  # fmt: skip
            prompts = [f"(not shown: predicted) {question}"]
            assert _trust_files(machine.home) == trust_before  # nothing answered for the user
        assert set(sim.pane_ids()) == before  # (a started host may write its own state: Codex does)
    _record(LABEL[kind], "started with `cwd` in a folder the host has never opened", fate, prompts)


def test_a_send_to_a_gemini_worker_at_its_trust_dialog_types_nothing(tmp_path: Path) -> None:
    """The user opened Gemini CLI in a folder it does not trust and named the pane; Herdr reads the
    dialog as idle. The send is refused from Gemini's own files, so no Enter answers for the user."""
    machine = user_machine(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    question = FIRST_RUN["gemini"][1]
    assert question is not None
    with HerdrSim(real_panes=True, env=machine.env) as sim:
        lead, link = lead_pane(sim, machine.project)
        pane = sim.split(lead, cwd=str(elsewhere))
        at_prompt(sim, pane)
        sim.request("pane.report_agent", pane_id=pane, source="custom:rig", agent="gemini", state="idle")
        sim.request("agent.rename", target=pane, name="worker")
        sim.type_text(pane, "gemini\r")
        sim.wait_for(lambda: question in sim.read(pane), timeout=WAIT, what=repr(question))
        screen, trust_before = settled(sim, pane, quiet=2.0), _trust_files(machine.home)
        with pytest.raises(LinkError) as refused:
            asyncio.run(link.send("worker", "please review the branch"))
        assert str(refused.value) == str(LinkError(Cause.SEND_TARGET_ASKING))
        after = settled(sim, pane, quiet=2.0)
        assert question in after and "please review" not in after, after
        assert _trust_files(machine.home) == trust_before  # the dialog is still the user's to answer
    _record(LABEL["gemini"], "a send to a worker at its folder-trust dialog (Herdr reads it as idle)",
            "`SEND_FAILED` from Gemini CLI's files: nothing typed, the dialog waits for the user",
            [_first_line(screen, question)])  # fmt: skip


MIGRATION = "Use existing model"
"""A line of Codex 0.171.0's model-migration notice ("Meet GPT-6 Sol … 1. Try new model / 2. Use existing model")."""


@pytest.mark.parametrize("kind", ["codex"])  # (the parameter lets Codex fetch its announcement tip)
def test_a_codex_whose_user_never_answered_its_model_migration_notice(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user set a model Codex 0.171 offers an upgrade for and never answered the notice. A start
    makes nothing; with Codex open in a named pane at the notice (Herdr reads it as idle, and its Enter
    would pick "Try new model"), a send types nothing, and the user's config is unchanged."""
    machine = user_machine(tmp_path)
    # The lead's Link stands for an adapter in the lead's pane: it runs in that pane's folder (Link runs a
    # host's --version only from PATH entries outside its project, and the rig's hosts live in the clone).
    monkeypatch.chdir(machine.project)
    config = machine.home / ".codex" / "config.toml"
    config.write_text(config.read_text().split("\n[notice.model_migrations]")[0] + "\n")  # never answered
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with HerdrSim(real_panes=True, env=machine.env) as sim:
        lead, link = lead_pane(sim, machine.project)
        before = set(sim.pane_ids())
        with pytest.raises(LinkError) as refused:
            asyncio.run(link.start({"name": "worker", "kind": kind, "args": [], "cwd": str(elsewhere)}))
        assert str(refused.value) == str(LinkError(Cause.START_AGENT_WOULD_ASK))
        assert set(sim.pane_ids()) == before and status(sim, "worker") is None  # nothing made, no name reserved
        pane = sim.split(lead, cwd=str(elsewhere))
        at_prompt(sim, pane)
        sim.request("pane.report_agent", pane_id=pane, source="custom:rig", agent=kind, state="idle")
        sim.request("agent.rename", target=pane, name="worker")
        sim.type_text(pane, "codex\r")
        sim.wait_for(lambda: MIGRATION in sim.read(pane), timeout=WAIT, what=repr(MIGRATION))
        screen = settled(sim, pane, quiet=2.0)
        with pytest.raises(LinkError) as refused:
            asyncio.run(link.send("worker", "please review the branch"))
        assert str(refused.value) == str(LinkError(Cause.SEND_TARGET_ASKING))
        after = settled(sim, pane, quiet=2.0)
        assert MIGRATION in after and "please review" not in after, after
        answered = tomllib.loads(config.read_text())  # (Codex records its own screen-reader check there)
        assert answered["model"] == "gpt-5.5" and "notice" not in answered  # still the user's to answer
    _record(LABEL[kind], "started, and sent to, with a model-migration notice never answered (Herdr reads it as idle)",
            "`START_FAILED` before anything is made, and `SEND_FAILED` with nothing typed into the notice, from "
            "Codex's config and its release's catalogue", [_first_line(screen, "Meet", "Introducing")])  # fmt: skip


@pytest.fixture
def claude_worker(tmp_path: Path):
    """A Claude Code worker started by Link in the lead's project, which the user trusted once."""
    model = TurnModel()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, anthropic=api.url)
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            lead, link = lead_pane(sim, machine.project)
            # The user's one-time set-up in the project: run claude once, trust the folder, quit.
            setup = sim.new_tab("w1", cwd=str(machine.project))
            at_prompt(sim, setup)
            sim.type_text(setup, "claude\r")
            choose(sim, setup, *TRUST, DOWN)
            sim.wait_for(lambda: status(sim, setup) == "idle", timeout=WAIT, what="Claude Code's composer")
            sim.request("pane.close", pane_id=setup)
            receipt = asyncio.run(link.start({"name": "worker", "kind": "claude", "args": []}))
            assert receipt.agent == "worker"
            pane = sim.agent("worker")["pane_id"]
            sim.wait_for(lambda: status(sim, "worker") == "idle", timeout=WAIT, what="the worker idle")
            settled(sim, pane)  # a person types once the screen is still
            yield sim, link, pane, model


def _wait_turns(model: TurnModel, count: int) -> None:
    deadline = time.monotonic() + WAIT
    while len(model.turns) < count:
        assert time.monotonic() < deadline, model.turns
        time.sleep(0.1)


def test_a_send_to_a_busy_claude_worker_is_queued_and_becomes_its_own_turn(claude_worker) -> None:
    sim, link, pane, model = claude_worker
    say(sim, pane, "please HOLD")
    assert model.holding.wait(WAIT)
    sim.wait_for(lambda: status(sim, "worker") == "working", timeout=WAIT, what="working")
    receipt = asyncio.run(link.send("worker", "while you work"))
    assert receipt.to == "worker"
    sim.wait_for(lambda: "Queued" in sim.read(pane), timeout=WAIT, what="Claude Code queues the wrapper")
    model.release.set()
    _wait_turns(model, 2)
    held, wrapper = model.turns[-2:]
    assert "HOLD" in held and "herdr-link/1" not in held  # not merged into the running turn
    envelope = extract_envelope(wrapper)
    assert envelope is not None and envelope.message == "while you work" and envelope.to == "worker"
    _record(LABEL["claude"], "a send to a busy (working) worker",
            "delivered: Claude Code queues the pasted wrapper (\"Queued\") and submits it as its own turn "
            "when the running turn ends; not lost, not merged", [])  # fmt: skip


def test_a_send_into_an_unsent_draft_merges_with_it(claude_worker) -> None:
    sim, link, pane, model = claude_worker
    sim.type_text(pane, "half a thought")
    sim.wait_for(lambda: "half a thought" in sim.read(pane), timeout=WAIT, what="the draft in the composer")
    asyncio.run(link.send("worker", "from the lead"))
    _wait_turns(model, 1)
    [turn] = model.turns
    envelope = extract_envelope(turn)
    assert turn.startswith("half a thought")  # the user's draft went out with the wrapper, as one turn
    assert envelope is not None and envelope.message == "from the lead"
    _record(LABEL["claude"], "a send while the user has an unsent draft in the worker's composer",
            "the draft and the wrapper are submitted together as one turn (the draft first); the envelope "
            "still parses. Not ours to fix without keys Herdr Link does not send", [])  # fmt: skip


def test_a_send_to_a_claude_worker_at_its_permission_prompts(claude_worker) -> None:
    sim, link, pane, model = claude_worker
    say(sim, pane, "please TOOL")  # the user asks for something that needs a shell command
    notice = "Auto mode can't check actions in this session"
    sim.wait_for(lambda: notice in sim.read(pane), timeout=WAIT, what="Claude Code's auto-mode notice")
    shown = settled(sim, pane)
    # Offline (its safety check cannot pass a model gateway) auto mode first shows this notice, which
    # waits for the user, yet reads as idle: it has none of the marks of a blocking dialog.
    sim.wait_for(lambda: status(sim, "worker") in ("idle", "done"), timeout=WAIT, what=f"idle at:\n{shown}")
    first = asyncio.run(link.send("worker", "first task"))
    assert first.to == "worker"  # Herdr accepted it: typed into the notice, whose Enter it answered
    sim.wait_for(lambda: status(sim, "worker") == "blocked", timeout=WAIT, what="the permission prompt")
    prompt = settled(sim, pane)
    assert "Do you want to proceed?" in prompt
    assert not any("first task" in turn for turn in model.turns)  # the wrapper went into the notice: lost
    typed = sim.received(pane)
    with pytest.raises(LinkError) as refused:
        asyncio.run(link.send("worker", "second task"))
    assert str(refused.value) == str(LinkError(Cause.SEND_TARGET_BLOCKED))
    assert sim.received(pane) == typed  # nothing typed into the prompt
    _record(
        LABEL["claude"],
        "a send to a worker at its permission prompts (auto mode, offline gateway)",
        "a send while the auto-mode notice shows is accepted and typed into the notice, whose Enter it "
        'answers: the wrapper is lost; at the next prompt ("Do you want to proceed?", `blocked`) a send '
        "is refused with `SEND_FAILED: the target agent is waiting for its user …` and nothing is typed. "
        "With our user-scope wiring our own tools never reach this notice (see the allow-rule case)",
        [_first_line(shown, notice), _first_line(prompt, "Do you want to proceed?")],
    )


class ActivatingModel(TurnModel):
    """A Claude Code model that, asked anything, loads our gateway with the tool search and calls it."""

    def decide(self, body: Body) -> Decision:
        if not self.dialect.primary(body):
            return Text("ok")
        if GATEWAY not in self.dialect.callable(body) and not self.dialect.searched(body):
            return Search(GATEWAY)
        if not self.dialect.calls(body):
            return Call(GATEWAY, {})
        return Text("activated")


GATEWAY = "mcp__herdr_link__herdr_link"


@pytest.mark.parametrize("rule", [None, "mcp__herdr_link"], ids=["no allow rule", "allow rule in user settings"])
def test_claude_code_auto_mode_and_our_tools(rule: str | None, tmp_path: Path) -> None:
    model = ActivatingModel()
    with FakeModelServer(model) as api:
        machine = user_machine(tmp_path, anthropic=api.url)
        for path, content in wiring_files("claude", machine.home, "--scope", "project").items():
            if path.name == ".mcp.json":  # the project form's registration, without its settings file
                (machine.project / ".mcp.json").write_text(content)
        if rule is not None:
            (machine.home / ".claude").mkdir(exist_ok=True)
            (machine.home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": [rule]}}))
        with HerdrSim(real_panes=True, env=machine.env) as sim:
            pane = sim.create_workspace(str(machine.project))
            at_prompt(sim, pane)
            sim.request("pane.report_agent", pane_id=pane, source="custom:rig", agent="claude", state="idle")
            sim.type_text(pane, "claude\r")  # the user's one-time set-up: trust the project, use our server
            choose(sim, pane, *TRUST, DOWN)
            choose(sim, pane, *USE_SERVER, UP)
            sim.wait_for(lambda: status(sim, pane) in ("idle", "done"), timeout=WAIT, what="the composer")
            settled(sim, pane)
            say(sim, pane, "use herdr")
            if rule is None:
                notice = "Auto mode can't check actions in this session"
                sim.wait_for(lambda: notice in sim.read(pane), timeout=WAIT, what="the auto-mode notice")
                assert not any(
                    '"status":"active"' in r for q in model.primary_requests for r in model.dialect.results(q)
                )
                outcome = "the call waits at Claude Code's auto-mode notice (behind a model gateway), then at a prompt"
            else:
                sim.wait_for(lambda: "activated" in sim.read(pane), timeout=WAIT, what="the activation's end")
                results = model.dialect.results(model.primary_requests[-1])
                assert any('"status":"active"' in r for r in results)
                outcome = f'the call runs at once: `permissions.allow: ["{rule}"]` in `~/.claude/settings.json`'
    _record(
        LABEL["claude"], f"our tools in auto mode ({'no allow rule' if rule is None else 'allow rule'})", outcome, []
    )
