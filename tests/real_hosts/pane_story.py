"""A headless host in a Herdr pane asks a real Claude Code in the next pane, and hears back (issue 71,
item 4): what each newly wired host's test runs, with its own adapter and tool search.

The host under test runs in ``brain``'s pane, wired only by ``herdr-link-mcp install --host <kind>
--yes`` in its HOME, headless and with no terminal (so nothing but its client name and its pane's
environment says which pane it serves). Its model activates Link through the gateway, asks
``peers`` (which must answer as ``brain``) and sends ``reviewer`` a question. A real Claude Code in
``reviewer``'s pane gets the wrapper as its prompt and replies to ``from``; the reply is delivered
to ``brain``'s pane.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from fake_model import Anthropic, Dialect, FakeModelServer, ScriptedModel, Step
from hosts import ClaudeCode, HostRun
from scenarios import CANONICAL, reply_steps

from herdr_link_protocol import extract_envelope
from herdr_link_testkit import HerdrSim

QUESTION = "what is 2+2?"
CLAUDE_NAMES = {tool: f"mcp__herdr_link__{tool}" for tool in CANONICAL}
ASK = [Step("herdr_link"), Step("herdr_link_peers"), Step("herdr_link_send", {"to": "reviewer", "message": QUESTION})]
"""The asking host's script: activate, ``peers``, then the question to ``reviewer``."""
SCENARIO = "activate, peers, send to Claude Code; its reply back"


class Headless(Protocol):
    def run(self, prompt: str, env: dict[str, str], model_url: str, timeout: float = 240) -> HostRun: ...


def run_host(
    host: Callable[[Path], Headless], dialect: Dialect, names: dict[str, str], steps: list[Any],
    env: dict[str, str], workdir: Path, prompt: str = "go",
) -> tuple[HostRun, ScriptedModel]:  # fmt: skip
    """One headless run of the host wired in ``workdir/home``, its model scripted by ``steps``."""
    model = ScriptedModel(dialect, names, steps)
    workdir.mkdir(parents=True, exist_ok=True)
    adapter = host(workdir)
    with FakeModelServer(model) as api:
        done = adapter.run(prompt, env, api.url)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    return done, model


def claude_replies(sim: HerdrSim, workspace: dict[str, str], tmp_path: Path) -> Any:
    """A real Claude Code in ``reviewer``'s pane answers the one wrapper delivered there; returns the
    question's envelope."""
    [delivery] = sim.deliveries(workspace["reviewer"])
    question = extract_envelope(delivery.text)
    assert question is not None and (question.from_, question.to, question.message) == ("brain", "reviewer", QUESTION)
    model = ScriptedModel(Anthropic(), CLAUDE_NAMES, reply_steps(Anthropic()))
    workdir = tmp_path / "reviewer"
    workdir.mkdir()
    with FakeModelServer(model) as api:
        done = ClaudeCode(workdir, tmp_path).run(delivery.text, sim.env(workspace["reviewer"]), api.url)
    assert done.returncode == 0 and done.result["is_error"] is False, done.stderr[-2000:]
    return question


def heard_back(sim: HerdrSim, workspace: dict[str, str], question: Any) -> None:
    """``brain``'s pane received exactly one wrapper: Claude Code's reply, to ``brain``, naming the question."""
    [reply] = sim.deliveries(workspace["brain"])
    answer = extract_envelope(reply.text)
    assert answer is not None and (answer.from_, answer.to) == ("reviewer", "brain")
    assert answer.message == f"ack {question.id}"
