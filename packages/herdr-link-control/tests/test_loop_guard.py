"""The loop guard: a session's sends to one agent past the user's limit are refused with nothing typed;
other sessions and other agents are not affected, and the window moving on lets sends through again.
The limit is the user's settings file's (``LinkSettings``), never the model's to change."""

import json
import logging
from pathlib import Path

import anyio
import pytest
from scripted_herdr import agent, got, link, ok, scripted
from test_bridge import HELLO, Harness, run

from herdr_link_control import DEFAULT_LOOP_MESSAGES, DEFAULT_LOOP_SECONDS, LinkSettings, LoopGuard, settings_path
from herdr_link_protocol import Cause, LinkError

pytestmark = pytest.mark.anyio
SELF = ("agent", "get", "w1:p1")
PROMPT = ("agent", "prompt")
TABLE = {
    SELF: got(agent("brain")),
    ("agent", "get", "reviewer"): got(agent("reviewer", pane="w1:p2")),
    ("agent", "get", "tester"): got(agent("tester", pane="w1:p3")),
    PROMPT: ok({"result": {}}),
}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ---- the guard itself ------------------------------------------------------------------------------


def test_at_most_the_limit_passes_per_session_and_target_in_a_sliding_window():
    clock = Clock()
    guard = LoopGuard(3, 60, clock=clock)
    admitted = []
    for _ in range(3):
        admitted.append(guard.admit("s1", "reviewer"))
        clock.now += 10  # sent at 1000, 1010, 1020
    assert admitted == [True, True, True] and not guard.admit("s1", "reviewer")
    assert guard.admit("s2", "reviewer") and guard.admit("s1", "tester")  # other sessions, other agents
    clock.now = 1059.9
    assert not guard.admit("s1", "reviewer")  # a refusal is not counted, and the window has not moved on
    clock.now = 1060.0
    assert guard.admit("s1", "reviewer") and not guard.admit("s1", "reviewer")  # only the oldest left it
    clock.now = 1080.0
    assert guard.admit("s1", "reviewer") and guard.admit("s1", "reviewer")  # 1010 and 1020 left it


def test_zero_messages_turns_it_off():
    guard = LoopGuard(0, 60, clock=Clock())
    assert all(guard.admit("s", "reviewer") for _ in range(1000))


def test_its_memory_stays_bounded_over_a_long_session():
    clock = Clock()
    guard = LoopGuard(5, 10, clock=clock)
    for index in range(2000):
        guard.admit("s", f"agent-{index}")
        clock.now += 1
    assert len(guard._sent) <= 257


# ---- the user's settings ---------------------------------------------------------------------------


def test_the_settings_file_is_found_where_the_user_keeps_it(tmp_path):
    assert settings_path({"HOME": "/home/u"}) == Path("/home/u/.config/herdr-link/config.toml")
    assert settings_path({"HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg"}) == Path("/xdg/herdr-link/config.toml")
    assert settings_path({"HOME": "/h", "HERDR_LINK_CONFIG": str(tmp_path / "c.toml")}) == tmp_path / "c.toml"
    assert settings_path({}) is None
    assert LinkSettings.load({}) == LinkSettings()


def test_the_limit_is_read_from_the_file_and_a_wrong_one_falls_back_to_the_defaults(tmp_path, caplog):
    file = tmp_path / "config.toml"
    env = {"HERDR_LINK_CONFIG": str(file)}
    assert LinkSettings.load(env) == LinkSettings(path=file) and "at most 50 messages" in LinkSettings().describe()
    assert (LinkSettings().loop_messages, LinkSettings().loop_seconds) == (DEFAULT_LOOP_MESSAGES, DEFAULT_LOOP_SECONDS)
    file.write_text("[loop_guard]\nmessages = 5\nseconds = 30.5\n")
    assert (LinkSettings.load(env).loop_messages, LinkSettings.load(env).loop_seconds) == (5, 30.5)
    caplog.set_level(logging.WARNING, "herdr_link")
    file.write_text('[loop_guard]\nmessages = "many"\nseconds = -1\n')
    loaded = LinkSettings.load(env)
    assert (loaded.loop_messages, loaded.loop_seconds) == (DEFAULT_LOOP_MESSAGES, DEFAULT_LOOP_SECONDS)
    assert "loop_guard.messages must be a number" in caplog.text and "loop_guard.seconds" in caplog.text
    assert len(loaded.problems) == 2
    file.write_text("[loop_guard\n")
    broken = LinkSettings.load(env)
    assert (broken.loop_messages, broken.loop_seconds) == (DEFAULT_LOOP_MESSAGES, DEFAULT_LOOP_SECONDS)
    assert "could not be read" in caplog.text and "could not be read" in broken.problems[0]
    file.write_text("[loop_guard]\nmessages = 0\n")
    assert LinkSettings.load(env).describe().startswith("loop guard off")


# ---- through a Link and the bridge -----------------------------------------------------------------


def _limited(tmp_path: Path, messages: int) -> str:
    file = tmp_path / "config.toml"
    file.write_text(f"[loop_guard]\nmessages = {messages}\nseconds = 600\n")
    return str(file)


async def test_a_send_past_the_limit_types_nothing_and_tells_only_the_operator_how_to_raise_it(tmp_path):
    runner = scripted(TABLE)
    subject = link(runner, HERDR_LINK_CONFIG=_limited(tmp_path, 3))
    for index in range(3):
        await subject.send("reviewer", f"ack {index}")
    with pytest.raises(LinkError) as refused:
        await subject.send("reviewer", "ack again")
    assert refused.value.cause is Cause.SEND_LOOP_SUSPECTED and str(refused.value).startswith("SEND_FAILED: ")
    assert "config.toml" not in str(refused.value) and "loop_guard" not in str(refused.value)  # not the model's
    assert "[loop_guard] messages or seconds in" in refused.value.detail and "config.toml" in refused.value.detail
    assert sum(call[:2] == PROMPT for call in runner.calls) == 3  # the fourth typed nothing
    assert (await subject.send("tester", "a different agent")).to == "tester"


async def test_the_earlier_refusals_keep_their_reasons(tmp_path):
    subject = link(scripted(TABLE), HERDR_LINK_CONFIG=_limited(tmp_path, 1))
    await subject.send("reviewer", "one")
    with pytest.raises(LinkError) as refused:
        await subject.send("reviewer", "   ")
    assert refused.value.cause is Cause.MESSAGE_EMPTY


async def test_the_bridge_counts_each_of_its_sessions_on_its_own(tmp_path):
    harness = Harness(TABLE)
    harness.server.link = link(harness.runner, HERDR_LINK_CONFIG=_limited(tmp_path, 2))

    def send(request_id: str, session: str) -> dict[str, object]:
        args = {"to": "reviewer", "message": "ok"}
        return {"id": request_id, "op": "send", "args": args, "context": {"session": session}}

    async def body() -> None:
        await harness.line(HELLO)
        for index, session in enumerate(["a", "a", "b", "a", "b"]):
            await harness.line(send(f"r{index}", session))
            await harness.until(index + 2)

    await run(harness, body)
    refused = [r["id"] for r in harness.replies if "error" in r]
    assert refused == ["r3"]  # session a's third; b's two pass
    assert harness.reply("r3")["error"]["message"] == str(LinkError(Cause.SEND_LOOP_SUSPECTED))
    assert "config.toml" not in json.dumps(harness.replies)


async def test_fifty_sends_at_once_to_one_agent_pass_at_the_default_limit_and_the_next_does_not():
    runner = scripted(TABLE)
    subject = link(runner)  # no settings file: the defaults
    assert DEFAULT_LOOP_MESSAGES == 50
    receipts: list[object] = []

    async def send(index: int) -> None:
        receipts.append(await subject.send("reviewer", f"task {index}"))

    async with anyio.create_task_group() as group:
        for index in range(50):
            group.start_soon(send, index)
    assert len(receipts) == 50 and sum(call[:2] == PROMPT for call in runner.calls) == 50
    with pytest.raises(LinkError) as refused:
        await subject.send("reviewer", "one more")
    assert refused.value.cause is Cause.SEND_LOOP_SUSPECTED


def test_a_limit_of_one_lets_one_message_through_per_window():
    clock = Clock()
    guard = LoopGuard(1, 60, clock=clock)
    assert guard.admit("s", "reviewer") and not guard.admit("s", "reviewer")
    clock.now += 60
    assert guard.admit("s", "reviewer")


def test_forgetting_old_pairs_never_forgets_a_pair_whose_window_is_still_live():
    clock = Clock()
    guard = LoopGuard(2, 100, clock=clock)
    for index in range(300):  # more pairs than it keeps without forgetting, every window live
        assert guard.admit("s", f"agent-{index}") and guard.admit("s", f"agent-{index}")
        clock.now += 0.1
    assert not any(guard.admit("s", f"agent-{index}") for index in range(300))  # each is at its limit
    clock.now += 100
    assert all(guard.admit("s", f"agent-{index}") for index in range(300))  # each window moved on
