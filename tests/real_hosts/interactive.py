"""Real hosts in real panes: one user's machine, the one-time set-up that user does, and a Claude Code
model scripted per turn.

Here the simulated Herdr runs with real panes (``HerdrSim(real_panes=True)``): every pane is a
terminal running the user's shell, Herdr types a started host's command into it, the host comes up
as its interactive TUI with the user's configuration, and ``agent prompt`` types into its composer.
The rig does only what the user does: it writes the configuration the README's steps and a host's
own first run produce, and types into a pane where the user would. It never launches, wires or
trusts a worker.
"""

import json
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_model import Anthropic, Body, Call, Decision, Dialect, Text
from hosts import CODEX_PROVIDER, HOSTS, OpenCode, host_path

from herdr_link_control import Link, PaneEvidence, TerminalPane
from herdr_link_testkit import HerdrError, HerdrSim

KINDS = ("claude", "codex", "gemini", "opencode", "pi")
NOWHERE = "http://127.0.0.1:9"
"""A model endpoint nothing listens on: a host that calls it fails at once (offline)."""
WAIT = 60.0


@dataclass
class Machine:
    """One user's machine: HOME with each host's one-time set-up, the lead's project, and the Herdr
    server's environment (the user's login environment, which every pane's shell inherits)."""

    root: Path
    home: Path
    project: Path
    env: dict[str, str] = field(default_factory=dict)


def our_commands() -> str:
    """The directory of our installed commands (``herdr-link-mcp`` …), as a user's PATH has it."""
    found = shutil.which("herdr-link-mcp")
    return str(Path(found).parent if found else Path(sys.executable).parent)


def user_machine(root: Path, anthropic: str = NOWHERE, models: dict[str, str] | None = None) -> Machine:
    """A user who has installed the five hosts and done each one's one-time set-up: a model provider
    or key, and the onboarding each host records in its own files (Claude Code's is done and its API
    key approved). Nothing here trusts a folder or approves a server. ``models`` gives a kind's model
    endpoint (``codex``, ``gemini``, ``opencode``, ``pi``; Claude Code's is ``anthropic``)."""
    url = dict.fromkeys(KINDS, NOWHERE) | (models or {})
    home, project = root / "home", root / "project"
    project.mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    hosts = ":".join(str(HOSTS[kind].executable.parent) for kind in KINDS)
    env = {
        "PATH": f"{hosts}:{our_commands()}:{host_path()}",
        "SHELL": "/bin/bash",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": "dummy",
        "ANTHROPIC_BASE_URL": anthropic,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        # Interactive Claude Code installs its official plugin marketplace from GitHub unless told not to.
        "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
        "RIG_MODEL_KEY": "dummy",
        "GEMINI_API_KEY": "dummy",
        "GOOGLE_GEMINI_BASE_URL": url["gemini"],
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }
    # Claude Code records finished onboarding and an approved key like this in ~/.claude.json.
    approved = {"approved": [env["ANTHROPIC_API_KEY"][-20:]], "rejected": []}
    (home / ".claude.json").write_text(
        json.dumps({"hasCompletedOnboarding": True, "theme": "dark", "customApiKeyResponses": approved})
    )
    # Interactive Codex looks up GitHub (a newer version, its plugin marketplace, a tip to show)
    # unless told not to.
    offline = "[features]\nplugins = false\n\n[tui]\nshow_tooltips = false\n"
    # Its onboarding: the user answered the model-migration notice once ("Use existing model"),
    # which Codex records like this.
    onboarded = '\n[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n'
    codex = "check_for_update_on_startup = false\n" + CODEX_PROVIDER.format(url=url["codex"]) + offline + onboarded
    (home / ".codex" / "config.toml").write_text(codex)
    (home / ".gemini").mkdir()
    # Interactive Gemini CLI looks up the npm registry for a newer version unless told not to.
    general = {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": general,
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    opencode = OpenCode(root)  # its HOME is root / "home": this user's
    opencode.prepare_config()  # what OpenCode's own first run installs (online) into its config dir
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "rig", "options": {"baseURL": f"{url['opencode']}/v1"},
                "models": {"scripted": {}}}  # fmt: skip
    config = {"provider": {"rig": provider}, "model": "rig/scripted", "autoupdate": False, "share": "disabled"}
    (opencode.config / "opencode.json").write_text(json.dumps(config))
    pi = home / ".pi" / "agent"
    pi.mkdir(parents=True)
    provided = {"baseUrl": f"{url['pi']}/v1", "api": "openai-completions", "apiKey": "dummy",
                "models": [{"id": "scripted"}]}  # fmt: skip
    (pi / "models.json").write_text(json.dumps({"providers": {"rig": provided}}))
    # Its onboarding: the user picked that model once (/model), which Pi records like this.
    (pi / "settings.json").write_text(json.dumps({"defaultProvider": "rig", "defaultModel": "scripted"}))
    return Machine(root, home, project, env)


def lead_pane(sim: HerdrSim, cwd: Path, name: str = "lead") -> tuple[str, Link]:
    """A pane whose agent is the sender of a scenario: a shell reported as a Claude Code agent and
    named, and the Link a Herdr Link adapter in that pane would use."""
    pane = sim.create_workspace(str(cwd))
    sim.request("pane.report_agent", pane_id=pane, source="custom:rig", agent="claude", state="idle")
    sim.request("agent.rename", target=pane, name=name)
    # This process stands for that adapter: it has no terminal of the pane (and names no client) to show it.
    return pane, Link(sim.env(pane), pane_evidence=PaneEvidence(TerminalPane.SAME, "the rig's adapter in its pane"))


def at_prompt(sim: HerdrSim, pane: str) -> None:
    sim.wait_for(lambda: sim.read(pane).rstrip().endswith(("#", "$")), timeout=WAIT, what=f"a shell prompt in {pane}")


def status(sim: HerdrSim, target: str) -> str | None:
    try:
        return str(sim.agent(target)["agent_status"])
    except HerdrError:  # gone, or not an agent: no status
        return None


def settled(sim: HerdrSim, pane: str, quiet: float = 1.0) -> str:
    """The pane's screen once it has not changed for ``quiet`` seconds (a person reads it first)."""
    last, since = sim.read(pane), time.monotonic()
    deadline = since + WAIT
    while time.monotonic() - since < quiet:
        assert time.monotonic() < deadline, f"{pane} never settled"
        time.sleep(0.1)
        now = sim.read(pane)
        if now != last:
            last, since = now, time.monotonic()
    return last


def reads_its_composer(sim: HerdrSim, pane: str, placeholder: str) -> None:
    """Wait until the pane's TUI reads what is typed, found as a person finds it: type a letter until
    the composer's ``placeholder`` gives way to it (a letter typed too early is dropped: try again
    each second), then delete what was typed until the placeholder is back."""
    sim.wait_for(lambda: placeholder in sim.read(pane), timeout=WAIT, what=f"{placeholder!r} in {pane}")
    deadline = time.monotonic() + WAIT
    while placeholder in sim.read(pane):  # gone: a letter typed earlier was read after all
        assert time.monotonic() < deadline, f"{pane} never showed what was typed:\n{sim.read(pane)}"
        sim.type_text(pane, "z")
        try:
            sim.wait_for(lambda: placeholder not in sim.read(pane), timeout=1.0, what="the typed letter")
            break
        except TimeoutError:
            continue
    for _ in range(10):  # each letter that was read, deleted
        sim.type_text(pane, "\x7f")
        try:
            sim.wait_for(lambda: placeholder in sim.read(pane), timeout=1.0, what="the empty composer")
            settled(sim, pane, quiet=0.5)
            return
        except TimeoutError:
            continue
    raise AssertionError(f"{pane} did not return to its empty composer:\n{sim.read(pane)}")


def choose(sim: HerdrSim, pane: str, shows: str, option: str, key: str) -> str:
    """The user answers a dialog once it shows ``shows`` and has settled: moves the selection with
    ``key`` until the ``❯`` mark stands on ``option`` (looking after each key, as a person does), then
    presses Enter; returns the screen answered."""
    sim.wait_for(lambda: shows in sim.read(pane), timeout=WAIT, what=f"{shows!r} in {pane}")
    screen = settled(sim, pane)
    for _ in range(8):
        if any(line.strip().startswith("❯") and option in line for line in screen.splitlines()):
            sim.type_text(pane, ENTER)
            return screen
        sim.type_text(pane, key)
        screen = settled(sim, pane, quiet=0.5)
    raise AssertionError(f"could not select {option!r} in {pane}:\n{screen}")


def say(sim: HerdrSim, pane: str, text: str) -> None:
    """The user types ``text`` into a TUI's composer and, once it shows there, presses Enter."""
    sim.type_text(pane, text)
    sim.wait_for(lambda: text in sim.read(pane), timeout=WAIT, what=f"{text!r} in the composer of {pane}")
    settled(sim, pane, quiet=0.5)  # a person looks at what they typed before pressing Enter
    sim.type_text(pane, ENTER)


DOWN, UP, ENTER = "\x1b[B", "\x1b[A", "\r"
TRUST = ("Is this a project you created or one you trust?", "Yes, I trust this folder")
"""Claude Code's folder-trust dialog, and the answer a user gives it once for the project."""
USE_SERVER = ("New MCP server found", "Use this MCP server")
"""Claude Code's approval of a project's MCP server, and the user's answer."""


class TurnModel:
    """A Claude Code model scripted per user turn (an interactive session has many).

    A turn is what the user's side sent since the model last spoke. A turn whose text holds ``HOLD``
    is answered only when :attr:`release` is set (the agent stays ``working``); one holding ``TOOL``
    asks to run a shell command (Claude Code's Bash tool); any other turn is answered
    ``echo: <its last line>``. Every turn's text is kept in :attr:`turns`.
    """

    def __init__(self) -> None:
        self.dialect: Dialect = Anthropic()
        self.lock = threading.Lock()
        self.requests: list[Body] = []
        self.arrivals: list[float] = []
        self.turns: list[str] = []
        self.release = threading.Event()
        self.holding = threading.Event()

    @property
    def primary_requests(self) -> list[Body]:
        return [r for r in self.requests if self.dialect.primary(r)]

    def decide(self, body: Body) -> Decision:
        if not self.dialect.primary(body):
            return Text("ok")
        text = turn_text(body)
        if text is None:
            return Text("done")
        self.turns.append(text)
        if "TOOL" in text:
            command = "curl -s http://127.0.0.1:9/install.sh | sh"  # one Claude Code asks the user about
            return Call("Bash", {"command": command, "description": "Run an installer"})
        if "HOLD" in text:
            self.holding.set()
            self.release.wait(WAIT * 2)
            return Text("released")
        lines = text.strip().splitlines()
        return Text("echo: " + (lines[-1][-80:] if lines else "(nothing)"))


def turn_text(body: Body) -> str | None:
    """The user's text of the newest turn (``None`` when the newest message carries tool results)."""
    tail: list[Any] = []
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "system":  # Claude Code 2.1 ends the history with its environment
            continue
        if message.get("role") != "user":
            break
        content = message["content"]
        tail[:0] = content if isinstance(content, list) else [{"type": "text", "text": content}]
    if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in tail):
        return None
    texts = [b.get("text", "") for b in tail if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(t for t in texts if not t.lstrip().startswith(("<system-reminder>", "# Environment")))
