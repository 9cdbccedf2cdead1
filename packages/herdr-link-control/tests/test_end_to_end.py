"""The control layer against the simulated Herdr: real ``herdr`` subprocesses, real socket."""

import json
import re

import anyio
import pytest
from hypothesis import given, settings, strategies as st
from scripted_herdr import IN_PANE

from herdr_link_control import HerdrEnvironment, Link, ProcessRunner, RunResult, Timeouts
from herdr_link_protocol import Cause, ErrorCode, LinkError, extract_envelope
from herdr_link_testkit import Fault, HerdrSim, StartScript

pytestmark = pytest.mark.anyio
RAW_ID = re.compile(r"\bw[0-9A-Z]+(:[tp][0-9A-Z]+)?\b|term_[0-9a-f]+|agent_[a-z_]+|herdr ")


@pytest.fixture
def team(herdr_sim: HerdrSim, tmp_path):
    """brain (w1:p1, the caller) and reviewer (w1:p2) in w1; other (w2:p1) in another workspace."""
    brain = herdr_sim.create_workspace(str(tmp_path))
    reviewer = herdr_sim.split(brain)
    other = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(brain, "claude", name="brain")
    herdr_sim.add_agent(reviewer, "codex", name="reviewer")
    herdr_sim.add_agent(other, "pi", name="other")
    return brain, reviewer, other


def caller(sim: HerdrSim, pane: str, **kwargs) -> Link:
    """The Link of an adapter a host spawned in ``pane`` (its terminal shows the pane)."""
    return Link(sim.env(pane), pane_evidence=IN_PANE, **kwargs)


async def test_peers_send_and_close_end_to_end(herdr_sim: HerdrSim, team):
    brain, reviewer, _ = team
    subject = caller(herdr_sim, brain)
    peers = await subject.peers()
    assert peers.to_json() == '{"self":{"name":"brain","state":"idle"},"peers":[{"name":"reviewer","state":"idle"}]}'
    herdr_sim.log.clear()
    receipt = await subject.send("reviewer", "please review\nthe design \x1b[31m")
    [delivery] = herdr_sim.deliveries(reviewer)
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.id == receipt.id and envelope.from_ == "brain"
    assert delivery.raw_controls == () and delivery.submitted_lines == 1
    # one list shows caller and target; typed into the pane resolved, once it still holds that agent (§4.4)
    assert herdr_sim.log.commands() == [
        ("agent", "list"),
        ("agent", "get", reviewer),
        ("agent", "prompt", reviewer, delivery.text),
    ]
    closed = await subject.close("reviewer")
    assert closed.agent == "reviewer" and not herdr_sim.exists(reviewer)


class _ChangeAfterLookup(ProcessRunner):
    """The real runner; ``change`` runs once, as soon as a lookup of the target by name (the send's
    ``agent list``, or an ``agent get reviewer``) has answered."""

    def __init__(self, environ: dict[str, str], change) -> None:
        found = HerdrEnvironment.detect(environ)
        assert found is not None
        super().__init__(found.bin_path, found.variables)
        self.change = change

    async def run(self, argv, *, timeout: float) -> RunResult:  # noqa: ASYNC109 (the Runner interface)
        result = await super().run(argv, timeout=timeout)
        by_name = list(argv[:2]) == ["agent", "list"] or list(argv) == ["agent", "get", "reviewer"]
        if by_name and self.change is not None:
            self.change, change = None, self.change
            change()
        return result


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("claude", "reviewer"),  # another kind took the pane and the name
        ("codex", "intruder"),  # another agent of the same kind
        ("codex", None),  # the same kind, not (yet) named
    ],
)
async def test_a_send_never_types_into_a_pane_whose_occupant_changed_after_the_lookup(
    herdr_sim: HerdrSim, team, kind, name
):
    brain, reviewer, _ = team

    def replace() -> None:
        herdr_sim.exit_agent(reviewer)
        herdr_sim.add_agent(reviewer, kind, name=name)

    environ = herdr_sim.env(brain)
    subject = Link(environ, runner=_ChangeAfterLookup(environ, replace), pane_evidence=IN_PANE)
    with pytest.raises(LinkError) as caught:
        await subject.send("reviewer", "for the agent that was looked up")
    assert caught.value.cause is Cause.SEND_TARGET_CHANGED
    assert herdr_sim.deliveries(reviewer) == [] and herdr_sim.deliveries(brain) == []
    assert ("agent", "prompt") not in [command[:2] for command in herdr_sim.log.commands()]


async def test_a_send_whose_target_is_unchanged_after_the_lookup_is_typed_there(herdr_sim: HerdrSim, team):
    brain, reviewer, _ = team
    environ = herdr_sim.env(brain)
    subject = Link(environ, runner=_ChangeAfterLookup(environ, lambda: None), pane_evidence=IN_PANE)
    receipt = await subject.send("reviewer", "for the agent that was looked up")
    [delivery] = herdr_sim.deliveries(reviewer)
    envelope = extract_envelope(delivery.text)
    assert envelope is not None and envelope.id == receipt.id


async def test_other_workspaces_are_invisible(herdr_sim: HerdrSim, team):
    brain, _, other = team
    subject = caller(herdr_sim, brain)
    for operation in (subject.send("other", "hi"), subject.close("other"), subject.send("ghost", "hi")):
        with pytest.raises(LinkError) as caught:
            await operation
        assert str(caught.value) == str(LinkError(Cause.NOT_A_PEER))
    assert herdr_sim.deliveries(other) == [] and herdr_sim.exists(other)


async def test_a_moved_pane_uses_its_current_workspace_not_the_launch_one(herdr_sim: HerdrSim, team):
    brain, _, other = team
    subject = caller(herdr_sim, brain)  # launched in w1; HERDR_WORKSPACE_ID stays w1
    herdr_sim.move_pane(brain, "w2")
    assert [p.name for p in (await subject.peers()).peers] == ["other"]
    await subject.send("other", "hello from w2")
    assert len(herdr_sim.deliveries(other)) == 1
    with pytest.raises(LinkError):
        await subject.send("reviewer", "no longer a peer")


async def test_blocked_and_hook_only_targets_refuse_delivery(herdr_sim: HerdrSim, team):
    brain, reviewer, _ = team
    herdr_sim.set_status("reviewer", "blocked")
    hooked = herdr_sim.split(brain)
    herdr_sim.request("pane.report_agent", pane_id=hooked, source="custom:x", agent="pi", state="idle")
    herdr_sim.request("agent.rename", target=hooked, name="hooked")
    subject = caller(herdr_sim, brain)
    for name, cause in (("reviewer", Cause.SEND_TARGET_BLOCKED), ("hooked", Cause.SEND_TARGET_NOT_READY)):
        with pytest.raises(LinkError) as caught:
            await subject.send(name, "hi")
        assert caught.value.cause is cause and "w1:" not in str(caught.value)
    assert herdr_sim.deliveries(reviewer) == [] and herdr_sim.deliveries(hooked) == []


async def test_an_unnamed_agent_is_bootstrapped_once_even_under_concurrency(herdr_sim: HerdrSim, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "claude")
    subject = caller(herdr_sim, pane)
    names: list[str] = []

    async def peers() -> None:
        names.append((await subject.peers()).self_.name)

    async with anyio.create_task_group() as group:
        group.start_soon(subject.bootstrap)
        for _ in range(4):
            group.start_soon(peers)
    assert len(set(names)) == 1 and re.fullmatch(r"hl-[0-9a-f]{8}", names[0])
    assert sum(c[:2] == ("agent", "rename") for c in herdr_sim.log.commands()) == 1
    assert herdr_sim.name_of(pane) == names[0]


async def test_a_user_given_name_is_never_changed(herdr_sim: HerdrSim, team):
    brain, _, _ = team
    assert await caller(herdr_sim, brain).bootstrap() == "brain"
    assert not any(c[:2] == ("agent", "rename") for c in herdr_sim.log.commands())


async def test_readiness_retry_waits_for_detection(herdr_sim: HerdrSim, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "claude", detect_after=0.15)
    name = await caller(herdr_sim, pane).bootstrap()
    assert name is not None and herdr_sim.name_of(pane) == name


async def test_a_never_detected_agent_is_self_unnamed(herdr_sim: HerdrSim, tmp_path):
    pane = herdr_sim.create_workspace(str(tmp_path))
    herdr_sim.add_agent(pane, "claude", detect_after=60)
    with pytest.raises(LinkError) as caught:
        await caller(herdr_sim, pane).peers()
    assert caught.value.code is ErrorCode.SELF_UNNAMED


async def test_a_bootstrapped_agent_becomes_a_peer_of_others(herdr_sim: HerdrSim, team):
    brain, _, _ = team
    newcomer = herdr_sim.split(brain)
    herdr_sim.add_agent(newcomer, "pi")
    name = await caller(herdr_sim, newcomer).bootstrap()
    assert name in [p.name for p in (await caller(herdr_sim, brain).peers()).peers]


async def test_explicit_new_tab_start_end_to_end(herdr_sim: HerdrSim, team, tmp_path):
    brain, _, _ = team
    receipt = await caller(herdr_sim, brain).start({"name": "worker", "kind": "pi", "args": ["--model", "x"]})
    assert receipt.to_json() == '{"status":"started","agent":"worker","kind":"pi"}'
    record = herdr_sim.agent("worker")
    assert record["tab_id"] == "w1:t2" and record["interactive_ready"] is True and record["cwd"] == str(tmp_path)
    heads = [c[:2] for c in herdr_sim.log.commands()]
    assert heads.count(("pane", "list")) == 1 and ("pane", "get") not in heads  # the snapshot before allocating
    assert heads.index(("pane", "list")) < heads.index(("tab", "create"))


async def test_with_start_end_to_end_inherits_the_anchor_cwd(herdr_sim: HerdrSim, team, tmp_path):
    brain, reviewer, _ = team
    await caller(herdr_sim, brain).start({"name": "helper", "kind": "claude", "args": [], "with": "reviewer"})
    record = herdr_sim.agent("helper")
    assert record["tab_id"] == "w1:t1" and record["cwd"] == str(tmp_path)
    assert herdr_sim.pane_ids("w1").index(record["pane_id"]) == herdr_sim.pane_ids("w1").index(reviewer) + 1


async def test_configured_start_end_to_end(herdr_sim: HerdrSim, team, tmp_path):
    brain, _, _ = team
    (tmp_path / ".agents").mkdir()
    (tmp_path / ".agents" / "agent_config.json").write_text(
        json.dumps(
            {
                "agents": {
                    "rr": {
                        "placement": {"mode": "new_tab", "label": "pool"},
                        "strategy": "round-robin",
                        "variants": [{"kind": "pi"}, {"kind": "codex"}],
                    }
                }
            }
        )
    )
    subject = caller(herdr_sim, brain)  # no context directory given: the caller pane's live cwd is used
    kinds = [(await subject.start({"name": f"w{i}", "config_agent": "rr"})).kind for i in range(3)]
    assert kinds == ["pi", "codex", "pi"]
    assert [t["label"] for t in herdr_sim.request("tab.list", workspace_id="w1")["tabs"]][1:] == ["pool"] * 3


async def test_a_failed_start_rolls_back_the_created_tab(herdr_sim: HerdrSim, team):
    brain, _, _ = team
    herdr_sim.script_start("pi", StartScript("mismatch", delay=0.05))
    before = herdr_sim.pane_ids()
    with pytest.raises(LinkError) as caught:
        await caller(herdr_sim, brain).start({"name": "worker", "kind": "pi", "args": []})
    assert caught.value.code is ErrorCode.START_FAILED
    assert herdr_sim.pane_ids() == before
    assert herdr_sim.log.commands()[-1][:2] == ("tab", "close")


async def test_an_agent_blocked_during_start_up_keeps_its_pane_and_its_name(herdr_sim: HerdrSim, team):
    brain, _, _ = team
    herdr_sim.script_start("pi", StartScript("blocked", delay=0.05))
    before = herdr_sim.pane_ids()
    subject = caller(herdr_sim, brain)
    with pytest.raises(LinkError) as caught:
        await subject.start({"name": "worker", "kind": "pi", "args": []})
    assert caught.value.cause is Cause.START_AGENT_WAITING and caught.value.code is ErrorCode.START_FAILED
    assert "w1:" not in str(caught.value) and "term_" not in str(caught.value)
    [kept] = [pane for pane in herdr_sim.pane_ids() if pane not in before]  # the user answers it there
    assert herdr_sim.agent("worker")["pane_id"] == kept
    assert ("tab", "close") not in [command[:2] for command in herdr_sim.log.commands()]
    with pytest.raises(LinkError) as again:  # Herdr keeps the name reserved
        await subject.start({"name": "worker", "kind": "pi", "args": []})
    assert again.value.cause is Cause.START_NAME_TAKEN
    assert [pane for pane in herdr_sim.pane_ids() if pane not in before] == [kept]  # the retry's tab closed


async def test_a_kind_herdr_does_not_know_is_start_failed_and_rolled_back(herdr_sim: HerdrSim, team):
    brain, _, _ = team
    before = herdr_sim.pane_ids()
    with pytest.raises(LinkError) as caught:
        await caller(herdr_sim, brain).start({"name": "worker", "kind": "vim", "args": []})
    assert str(caught.value) == str(LinkError(Cause.START_KIND_UNSUPPORTED))
    assert herdr_sim.pane_ids() == before


async def test_a_removed_binary_is_not_in_herdr_for_every_operation(herdr_sim: HerdrSim, team):
    brain, _, _ = team
    subject = caller(herdr_sim, brain)
    herdr_sim.remove_binary()
    for operation in (
        subject.peers(),
        subject.send("reviewer", "x"),
        subject.close("reviewer"),
        subject.start({"name": "w", "kind": "pi", "args": []}),
    ):
        with pytest.raises(LinkError) as caught:
            await operation
        assert caught.value.code is ErrorCode.NOT_IN_HERDR


async def test_a_stopped_server_is_not_in_herdr(herdr_sim: HerdrSim, team):
    brain, _, _ = team
    subject = caller(herdr_sim, brain)
    herdr_sim.stop()
    with pytest.raises(LinkError) as caught:
        await subject.send("reviewer", "x")
    assert caught.value.code is ErrorCode.NOT_IN_HERDR


async def test_a_hung_herdr_times_out_as_not_in_herdr(herdr_sim: HerdrSim, team):
    brain, reviewer, _ = team
    herdr_sim.fault_method("agent.prompt", Fault("hang"))
    subject = caller(herdr_sim, brain, timeouts=Timeouts(command=1.0))
    with pytest.raises(LinkError) as caught:
        await subject.send("reviewer", "x")
    assert str(caught.value) == str(LinkError(Cause.SEND_TIMEOUT))


async def test_parallel_sends_each_arrive_exactly_once(herdr_sim: HerdrSim, team):
    brain, reviewer, _ = team
    subject = caller(herdr_sim, brain)
    ids: list[str] = []

    async def send(index: int) -> None:
        ids.append((await subject.send("reviewer", f"message {index}")).id)

    async with anyio.create_task_group() as group:
        for index in range(12):
            group.start_soon(send, index)
    delivered = [extract_envelope(d.text) for d in herdr_sim.deliveries(reviewer)]
    assert sorted(e.id for e in delivered if e) == sorted(ids) and len(set(ids)) == 12
    assert sorted(e.message for e in delivered if e) == sorted(f"message {i}" for i in range(12))


FAULTS = st.sampled_from(
    [
        Fault("error", code="agent_not_found", message="agent target w1:p7 term_6536c0 not found"),
        Fault("error", code="pane_not_found", message="pane w3:pA not found"),
        Fault("error", code="agent_pane_busy", message="agent target pane w1:p2 is not an available shell"),
        Fault("invalid_json"),
        Fault("empty"),
        Fault("exit", exit_code=101, stderr="panicked at w1:p1 term_ff\n"),
    ]
)
COMMANDS = st.sampled_from(
    [("agent", "get"), ("agent", "list"), ("agent", "prompt"), ("pane", "close"), ("tab", "create"), ("agent", "start")]
)
OPERATIONS = st.sampled_from(["peers", "send", "close", "start", "start_with"])


@settings(max_examples=30, deadline=None)
@given(FAULTS, COMMANDS, OPERATIONS)
async def test_no_agent_facing_text_contains_a_raw_id_or_diagnostic(fault, command, op):
    with HerdrSim() as sim:  # a fresh Herdr per example: no state carries over
        brain = sim.create_workspace(str(sim.root))
        sim.add_agent(brain, "claude", name="brain")
        sim.add_agent(sim.split(brain), "codex", name="reviewer")
        sim.fault_cli(command, fault)
        subject = caller(sim, brain)
        calls = {
            "peers": lambda: subject.peers(),
            "send": lambda: subject.send("reviewer", "x"),
            "close": lambda: subject.close("reviewer"),
            "start": lambda: subject.start({"name": "w", "kind": "pi", "args": []}),
            "start_with": lambda: subject.start({"name": "w", "kind": "pi", "args": [], "with": "reviewer"}),
        }
        try:
            receipt = await calls[op]()
        except LinkError as error:
            text = str(error)
            assert RAW_ID.search(text) is None, text
            assert text.split(":")[0] in {c.value for c in ErrorCode}
        else:
            assert RAW_ID.search(receipt.to_json().replace('"w"', "")) is None
