"""Grok Build 1.0.41 end to end: a real ``grok -p`` in a simulated Herdr pane, wired only by
``herdr-link-mcp install --host grok --yes``, a scripted OpenAI Chat Completions model on loopback, no
network (``pane_story.py`` tells the story).

Grok Build defers MCP tools: its model finds ours with ``search_tool`` (keywords; while the server
still connects the answer is ``"status": "partial"`` with no results, and the model searches again)
and calls them through ``use_tool``; it was not seen to re-list, so after activation the calls go
through the gateway's ``action`` dispatch. Every MCP call asks first (``grok -p`` cancels it) unless a
permission rule allows it: install writes ``[permission] allow = ["MCPTool(herdr_link__*)"]``.
"""

import json
import subprocess
from pathlib import Path

import pytest
from fake_model import GROK_SEARCH, ScriptedModel, SearchingChat
from hosts import GrokBuild, install_wiring
from interactive import Machine
from matrix import SCENARIOS, record
from pane_story import ASK, SCENARIO, claude_replies, heard_back, run_host
from scenarios import CANONICAL, activation_text, pair_workspace, reply_steps, scenario_row
from worker_story import a_lead_starts_a_worker, assert_the_worker_answered

from herdr_link_protocol import COMMUNICATION_CONTRACT
from herdr_link_testkit import HerdrSim

HOST = "Grok Build 1.0.41"
PREFIX = "herdr_link__"
NAMES = {tool: PREFIX + tool for tool in CANONICAL}
DIALECT = SearchingChat(GROK_SEARCH)
EMPTY_COMPOSER = "❯" + " " * 8
"""Its composer, empty: Grok Build 1.0.41 draws no placeholder text (a letter typed shows after the mark)."""
TRUST_QUESTION = "Do you trust the contents of this directory?"
"""Grok Build 1.0.41's folder-trust question, asked in a git repository holding configuration that runs
commands (the project's ``.grok/config.toml`` naming a server, here) until the repository is trusted."""
PROJECT_SERVERS = '# the team\'s servers\n[mcp_servers.docs]\ncommand = "docs-mcp"\nenabled = false\n'
"""The project's own Grok Build configuration: a server (switched off: nothing to run here), which is what
makes Grok ask whether the repository is trusted."""


@pytest.fixture
def workspace(herdr_sim: HerdrSim, tmp_path: Path) -> dict[str, str]:
    return pair_workspace(herdr_sim, tmp_path, "grok", "claude")


def test_grok_asks_claude_code_as_itself_and_hears_back(workspace, herdr_sim, tmp_path):
    done, model = run_host(GrokBuild, DIALECT, NAMES, ASK, herdr_sim.env(workspace["brain"]), tmp_path / "brain")
    assert json.loads(done.stdout)["stopReason"] != "cancelled", done.stdout  # a call refused for want of the rule
    requests = model.primary_requests
    assert DIALECT.ours(requests[0], PREFIX) == []  # deferred (and at start-up often still connecting)
    assert COMMUNICATION_CONTRACT.splitlines()[0] in activation_text(DIALECT, requests)
    peers = next(text for text in DIALECT.results(requests[-1]) if '"self":' in text)
    assert '"self":{"name":"brain"' in peers  # the session answers as its own pane
    assert model.paths(requests[-1]) == ["gateway", "gateway dispatch", "gateway dispatch"]  # no re-listing
    heard_back(herdr_sim, workspace, claude_replies(herdr_sim, workspace, tmp_path))
    record(scenario_row(HOST, "2025-11-25", PREFIX, SCENARIO, done.spawned, model))


def _grok_user(machine: Machine, model_url: str) -> None:
    """The user's one-time set-up of Grok Build: their model in ``~/.grok/config.toml`` (a ``[model.*]`` with
    an OpenAI-compatible endpoint, the rig's keys); ``grok`` on PATH. Grok Build also loads the MCP servers of
    Claude Code's ``~/.claude.json`` (``[compat.claude] mcps``, on by default), where the lead's install put
    ours: that is off here, so the worker is wired by ``install --host grok`` alone."""
    GrokBuild.settings(machine.home, model_url)
    with (machine.home / ".grok" / "config.toml").open("a") as config:
        config.write("\n[compat.claude]\nmcps = false\n")
    machine.env["GROK_CHANGELOG_OFFLINE"] = "1"
    machine.env["PATH"] = f"{GrokBuild.package.executable.parent}:{machine.env['PATH']}"


def _a_repository_with_its_own_servers(machine: Machine, model_url: str) -> None:
    """The user's project is a git repository whose ``.grok/config.toml`` names a server, so Grok Build asks
    whether to trust it; the user trusts it once with ``install --host grok --trust <project>``."""
    _grok_user(machine, model_url)
    subprocess.run(["git", "init", "-q", str(machine.project)], check=True, timeout=60)
    (machine.project / ".grok").mkdir()
    (machine.project / ".grok" / "config.toml").write_text(PROJECT_SERVERS)
    install_wiring("grok", machine.home, "--trust", str(machine.project))


def test_a_claude_code_lead_starts_a_grok_worker_that_answers(tmp_path):
    """Herdr types ``grok`` into the new pane's shell (the pane's environment, the user's HOME wired by
    ``herdr-link-mcp install --host grok --trust <project>``, the project a repository with servers of its
    own); its TUI asks nothing, and its model replies to ``from``."""
    worker = ScriptedModel(DIALECT, NAMES, reply_steps(DIALECT))
    story = a_lead_starts_a_worker("grok", worker, tmp_path, _a_repository_with_its_own_servers, EMPTY_COMPOSER)
    assert_the_worker_answered(story, worker, hinted=False)  # Grok Build has no hint hook (docs/hosts.md)
    assert worker.paths(worker.primary_requests[-1]) == ["gateway", "gateway dispatch"]  # found by search_tool
    assert TRUST_QUESTION not in story["shown"], story["shown"]
    SCENARIOS.append(
        {
            "host": HOST,
            "case": "a worker started by a Claude Code lead (explicit, beside the lead; README set-up only)",
            "outcome": "came up wired (the gateway found with `search_tool`, called through `use_tool`), answered "
            "the lead's message (the reply became the lead's next turn) and was closed by the lead; no prompt on "
            "either screen, in a git repository whose `.grok/config.toml` names a server of its own (where Grok asks "
            "whether to trust it). Set-up: `herdr-link-mcp install --host claude --trust <project>`; `herdr-link-mcp "
            "install --host grok --trust <project>` (its loading of Claude Code's servers off)",
            "prompts": [],
        }
    )
