"""What each ``herdr-link-mcp`` subcommand loads: ``hint`` (a SessionStart hook in every Codex, Gemini
and AGY session), ``wiring``, ``--version`` and ``--help`` never import the MCP SDK or pydantic, and
the hint hook not even ``json`` or ``re``.

Read from ``sys.modules`` after the subcommand ran, not from ``-X importtime``: that listing leaves
out modules a package face's ``__getattr__`` imports on first use (``herdr_link_protocol._contract``)."""

import subprocess
import sys

import pytest

LOADED = """
import sys
from herdr_link_mcp.cli import main
try:
    main(sys.argv[1:])
finally:
    print(*sys.modules, file=sys.stderr)
"""
"""What the console script does (``from herdr_link_mcp.cli import main``), then every module it left loaded."""


def imported(*args: str) -> set[str]:
    """The modules ``herdr-link-mcp <args>`` loads, as its console script runs it, in a clean environment."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(done.stderr.splitlines()[-1].split())


@pytest.mark.parametrize(
    "args", [("--version",), ("--help",), ("hint", "--host", "codex"), ("wiring", "--host", "gemini")]
)
def test_the_light_subcommands_load_neither_the_sdk_nor_pydantic(args):
    modules = imported(*args)
    assert "herdr_link_mcp.cli" in modules  # the probe sees our own imports
    heavy = {m for m in modules if m.split(".")[0] in ("mcp", "pydantic", "pydantic_core", "anyio", "httpx")}
    assert heavy == set()


@pytest.mark.parametrize("host", ["codex", "gemini", "agy", "claude"])
def test_the_hint_hook_loads_neither_json_nor_re(host):
    """Each would cost the hook as much as the rest of its start (``nox -s bench`` has the figures)."""
    modules = imported("hint", "--host", host)
    assert "herdr_link_mcp._hint" in modules and "herdr_link_protocol._contract" in modules
    assert {"json", "re"} & modules == set()


def test_the_probe_loads_the_sdk_client_but_no_server_and_no_protocol_models():
    done = subprocess.run(
        [sys.executable, "-c", LOADED, "probe", "--json", "--", sys.executable, "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    modules = set(done.stderr.splitlines()[-1].split())
    assert "herdr_link_mcp._probe" in modules and "mcp" in modules
    ours = {m for m in modules if m.startswith(("herdr_link_protocol.", "herdr_link_control.", "herdr_link_mcp."))}
    assert ours <= {
        "herdr_link_protocol._constants",
        "herdr_link_protocol._contract",
        "herdr_link_control.hosts",  # the host table: plain classes, no pydantic
        "herdr_link_control.hosts._table",
        "herdr_link_control.hosts._host_forms",
        "herdr_link_control.hosts._places",
        "herdr_link_control.hosts._trust",  # wiring's --trust: where a host looks trust up (standard library only)
        "herdr_link_control.hosts._repo_config",  # Grok Build looks trust up at the repository's root
        "herdr_link_control.commandline",
        "herdr_link_control.commandline._boundary",  # the command boundary (standard library only)
        "herdr_link_control.commandline._trace_options",  # the trace command's options (standard library only)
        "herdr_link_control._gate",
        "herdr_link_control.userfiles",
        "herdr_link_control.userfiles._backups",
        "herdr_link_control.userfiles._jsonedit",  # _trust reads JSONC host files (standard library only)
        "herdr_link_control.userfiles._complete",
        "herdr_link_control.userfiles._location",
        "herdr_link_control.userfiles._ownership",
        "herdr_link_control.userfiles._rollback",
        "herdr_link_control.userfiles._userfile",  # wiring reads Codex's hooks.json through a link
        "herdr_link_mcp._claims",
        "herdr_link_mcp._version",
        "herdr_link_mcp.cli",
        "herdr_link_mcp._hint",
        "herdr_link_mcp._clients",
        "herdr_link_mcp._probe",
        "herdr_link_mcp._wiring",
        "herdr_link_mcp._codex",
    }, ours


def test_version_loads_no_protocol_text():
    modules = imported("--version")
    assert "herdr_link_mcp._version" in modules
    assert {m for m in modules if m.startswith("herdr_link_protocol")} == set() and "enum" not in modules


def test_the_measurement_sees_the_sdk_when_it_is_imported():
    code = "import sys, herdr_link_mcp; herdr_link_mcp.create_server; print(*sys.modules, file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    modules = set(done.stderr.splitlines()[-1].split())
    assert "mcp" in modules and "pydantic" in modules and "json" in modules


@pytest.mark.parametrize("host", ["claude", "codex", "agy", "gemini"])
@pytest.mark.parametrize("inside", [False, True])
def test_the_quick_paths_print_what_the_parser_paths_print(host, inside, capsys, monkeypatch):
    from herdr_link_mcp.cli import main

    for name in ("HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID"):
        monkeypatch.delenv(name, raising=False)
    if inside:
        monkeypatch.setenv("HERDR_ENV", "1")
        monkeypatch.setenv("HERDR_BIN_PATH", "/usr/bin/herdr")
        monkeypatch.setenv("HERDR_PANE_ID", "w1:p1")
    outputs = []
    for argv in (["hint", "--host", host], ["hint", f"--host={host}"], ["--version"], ["--version", "serve"]):
        assert main(argv) == 0
        outputs.append(capsys.readouterr())
    assert outputs[0] == outputs[1] and outputs[2] == outputs[3]
    assert outputs[2].out.startswith("herdr-link-mcp 0.") and outputs[2].err == ""
    assert bool(outputs[0].out.strip()) == (inside or host in ("agy", "gemini"))
