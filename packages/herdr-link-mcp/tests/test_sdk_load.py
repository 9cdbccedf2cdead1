"""The server loads the MCP SDK for stdio only (``_sdk``): no HTTP stack, no client, no CLI, and the
whole SDK as before when that cannot be done.

Read from ``sys.modules`` of a real ``herdr-link-mcp serve`` after it served a session, as its console
script runs it."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from herdr_link_mcp._sdk import HTTP_ONLY_MODULES
from herdr_link_testkit import HerdrSim

SERVED = """
import sys
from herdr_link_mcp.cli import main
try:
    main(["serve"])
finally:
    print(*sys.modules, file=sys.stderr)
"""
"""``herdr-link-mcp serve`` as its console script runs it, then every module it left loaded."""

NEVER_LOADED = ("starlette", "sse_starlette", "uvicorn", "httpx", "httpx_sse", "cryptography", "click", "jwt")
"""Top-level packages a stdio tools server does not run."""

NEVER_LOADED_SDK = ("mcp.client", "mcp.server.mcpserver", "mcp.server.auth", "mcp.server.streamable_http")


def request(request_id: int, method: str, params: object = None) -> dict[str, object]:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


CLIENT = {"name": "claude-code", "version": "1"}  # a host that spawns the server in its pane
SESSION = [
    request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT}),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    request(2, "tools/list"),
    request(3, "tools/call", {"name": "herdr_link", "arguments": {}}),
    request(4, "tools/list"),
    request(5, "tools/call", {"name": "herdr_link_peers", "arguments": {}}),
    request(6, "ping"),
]


def served(env: dict[str, str]) -> tuple[dict[int, dict[str, Any]], set[str]]:
    """The answers of a real server to :data:`SESSION` (by id), and the modules it had loaded."""
    done = subprocess.run(
        [sys.executable, "-c", SERVED],
        input="".join(json.dumps(message) + "\n" for message in SESSION),
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = [json.loads(text) for text in done.stdout.splitlines()]
    return {a["id"]: a for a in answers if "id" in a}, set(done.stderr.splitlines()[-1].split())


def http_side(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in NEVER_LOADED or m.startswith(NEVER_LOADED_SDK)}


def test_a_served_session_loads_no_http_stack_no_client_and_no_cli(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    herdr_sim.add_agent(herdr_sim.split(pane), "codex", name="reviewer")
    answers, modules = served(herdr_sim.env(pane))
    assert sorted(answers) == [1, 2, 3, 4, 5, 6]
    peers = answers[5]["result"]
    assert isinstance(peers, dict) and not peers.get("isError"), peers
    assert json.loads(peers["content"][0]["text"])["peers"] == [{"name": "reviewer", "state": "idle"}]
    assert "mcp.server.lowlevel.server" in modules and "mcp.server.runner" in modules  # the SDK served
    assert http_side(modules) == set()


def test_the_check_sees_the_http_side_when_the_sdk_is_loaded_whole():
    """The broken input of the test above: the plain ``import mcp.server`` it replaced."""
    code = "import sys, mcp.server; print(*sys.modules, file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    modules = set(done.stderr.splitlines()[-1].split())
    assert {"starlette", "uvicorn", "cryptography", "click", "mcp.client"} <= http_side(modules)


LOAD = """
import sys
from herdr_link_mcp._sdk import HTTP_ONLY_MODULES, load_stdio_sdk
print(load_stdio_sdk(http_only=HTTP_ONLY_MODULES + tuple(sys.argv[1:])))
from herdr_link_mcp import create_server
from herdr_link_control import Link
server = create_server(Link({}), bootstrap=False)
try:
    server.streamable_http_app()
except Exception as error:
    print(type(error).__name__, error)
else:
    print("an HTTP app")
print("starlette" in sys.modules)
"""


def load(*more_http_only: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", LOAD, *more_http_only], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def test_the_sdk_of_this_lockfile_loads_for_stdio_only_and_refuses_to_build_an_http_app():
    """Fails when an SDK upgrade changes the layout the loader relies on (it then loads the whole SDK)."""
    loaded, http_app, starlette = load()
    assert loaded == "stdio only"
    assert http_app.startswith("RuntimeError mcp.server.")
    assert "loaded the MCP SDK for stdio only" in http_app
    assert starlette == "False"


def test_a_layout_the_loader_does_not_know_loads_the_whole_sdk_and_the_server_still_builds():
    """An SDK whose low-level server needs, as it loads, a module the loader stands in for: what an
    upgrade could bring (here ``mcp_types``, a package the stand-in is not)."""
    loaded, http_app, starlette = load("mcp_types")
    assert loaded == "whole"
    assert http_app == "an HTTP app" and starlette == "True"


def test_each_stand_in_is_a_module_the_low_level_server_imports():
    """A name left in the list after an SDK upgrade dropped the import would hide nothing."""
    spec = importlib.util.find_spec("mcp.server.lowlevel.server")
    assert spec is not None and spec.origin is not None
    text = Path(spec.origin).read_text(encoding="utf-8")
    assert [name for name in HTTP_ONLY_MODULES if f"from {name} import" not in text] == []


def test_a_stand_in_refuses_use_but_is_plainly_absent_to_a_probe():
    """``hasattr``, ``copy`` and ``inspect`` probe dunder names: an ``AttributeError`` for those, so a
    probe of the low-level server's defaults does not fail; any real use says why it cannot."""
    from herdr_link_mcp._sdk import HttpOnly

    stand_in = HttpOnly("starlette.applications", "Starlette")
    assert not hasattr(stand_in, "__wrapped__")
    with pytest.raises(RuntimeError, match="loaded the MCP SDK for stdio only"):
        stand_in.routes  # noqa: B018
    with pytest.raises(RuntimeError, match="starlette.applications.Starlette is not loaded"):
        stand_in()
