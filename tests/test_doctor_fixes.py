"""Every ``fix:`` the doctor prints, run as written, makes its check pass (issue 62).

Each case breaks one check in a throwaway HOME the way a user's machine ends up broken (the TypeScript
Herdr Link wired as its README and ``docs/mcp-wiring.md`` say, a launcher whose program is gone, a key
removed by hand, a file left by an older release), runs ``herdr-link doctor``, takes the command from
that check's ``fix:`` line (the text up to its first bracket or comma), runs it with stdin closed, and
runs the doctor again: the check must now pass. The TypeScript cases also take the fix back out
(``--uninstall``) and compare the files with what the TypeScript set-up wrote, byte for byte.
"""

import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

BIN = Path(sys.executable).parent
PASSED_ON = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
PLUGIN_MODULES = Path(__file__).parents[1] / "packages" / "herdr-link-installer" / "tests" / "node" / "node_modules"

TS_CLAUDE = '{\n  "mcpServers": {\n    "herdr_link": {\n      "type": "stdio",\n      "command": "npx",\n      "args": ["-y", "herdr-link"]\n    }\n  }\n}\n'  # noqa: E501
TS_CODEX_CONFIG = """model = "gpt-5"

[features]
hooks = true

[mcp_servers.herdr_link]
command = "npx"
args = ["-y", "herdr-link"]
env_vars = ["HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID", "HERDR_SOCKET_PATH"]
"""
TS_CODEX_HOOKS = """{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "bash '/absolute/path/to/herdr-link-codex-tier0-hint.sh' session",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
"""
TS_AGY_SERVERS = '{\n  "mcpServers": {\n    "herdr_link": {\n      "command": "npx",\n      "args": ["-y", "herdr-link"]\n    }\n  }\n}\n'  # noqa: E501
TS_AGY_HOOKS = """{
  "herdr-link": {
    "PreInvocation": [
      {
        "type": "command",
        "command": "bash '/absolute/path/to/herdr-link-agy-tier0-hint.sh'",
        "timeout": 10
      }
    ]
  }
}
"""
TS_OPENCODE = b'// herdr-link (TypeScript) OpenCode bundle\nconst delivered = "[herdr-link/1] inter-agent message delivered";\nexport const herdrLinkPlugin = async () => ({});\n'  # noqa: E501
"""A stand-in with the byte strings the TypeScript bundle is known by (its README copies
``dist/herdr-link.opencode.js`` to ``plugins/herdr-link.js``)."""


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": f"{BIN}:/usr/bin:/bin", "LANG": "C.UTF-8", **PASSED_ON}


def _run(home: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    program = BIN / argv[0] if (BIN / argv[0]).exists() else argv[0]
    return subprocess.run([str(program), *argv[1:]], env=_env(home), cwd=home / "project", capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip


@dataclass(frozen=True)
class Seen:
    status: str
    detail: str
    fix: str


def doctor(home: Path) -> dict[str, Seen]:
    """The doctor's checks by name, as it prints them."""
    done = _run(home, ["herdr-link", "doctor"])
    assert done.returncode in (0, 1), done.stderr
    checks: dict[str, Seen] = {}
    name = ""
    for line in done.stdout.splitlines():
        if found := re.match(r"(PASS|WARN|FAIL|SKIP)  (worker here: [^:]+|[^:]+): (.*)", line):
            name = found[2]
            checks[name] = Seen(found[1], found[3], "")
        elif found := re.match(r"\s+fix: (.*)", line):
            checks[name] = Seen(checks[name].status, checks[name].detail, found[1])
    return checks


def fix_command(fix: str) -> list[str]:
    """The command a ``fix:`` line names, as written: from its first word of ours to its first bracket,
    comma or semicolon."""
    found = re.search(r"(herdr-link[-\w]*(?: [^\s(),;]+)*)", fix)
    assert found, f"no command in the fix {fix!r}"
    return shlex.split(found[1])


def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def _install(home: Path, *args: str) -> None:
    done = _run(home, ["herdr-link-mcp", "install", *args, "--yes"])
    assert done.returncode == 0, done.stdout + done.stderr


def _edit_json(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def _typescript_claude(home: Path) -> dict[Path, bytes]:
    return {_write(home / "project" / ".mcp.json", TS_CLAUDE): TS_CLAUDE.encode()}


def _typescript_codex(home: Path) -> dict[Path, bytes]:
    return {_write(home / ".codex" / "config.toml", TS_CODEX_CONFIG): TS_CODEX_CONFIG.encode(),
            _write(home / ".codex" / "hooks.json", TS_CODEX_HOOKS): TS_CODEX_HOOKS.encode()}  # fmt: skip


def _typescript_agy(home: Path) -> dict[Path, bytes]:
    servers = _write(home / ".gemini" / "config" / "mcp_config.json", TS_AGY_SERVERS)
    hooks = _write(home / ".gemini" / "antigravity-cli" / "hooks.json", TS_AGY_HOOKS)
    return {servers: TS_AGY_SERVERS.encode(), hooks: TS_AGY_HOOKS.encode()}


def _typescript_opencode(home: Path) -> dict[Path, bytes]:
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "node_modules").symlink_to(PLUGIN_MODULES)  # as after OpenCode's first start
    return {_write(home / ".config" / "opencode" / "plugins" / "herdr-link.js", TS_OPENCODE): TS_OPENCODE}


TS_PI_SETTINGS = '{\n  "defaultProvider": "anthropic",\n  "packages": [\n    "npm:herdr-link"\n  ]\n}\n'
"""``pi install npm:herdr-link``, as the TypeScript Herdr Link's README installs it for Pi."""


def _typescript_pi(home: Path) -> dict[Path, bytes]:
    settings = _write(home / ".pi" / "agent" / "settings.json", TS_PI_SETTINGS)
    copied = _write(home / ".pi" / "agent" / "extensions" / "herdr-link" / "index.ts",
                    "export default function (pi) { pi.registerTool({ name: 'herdr_link' }); }\n")  # fmt: skip
    return {settings: TS_PI_SETTINGS.encode(), copied: copied.read_bytes()}


def _codex_stray_trust(home: Path) -> None:
    _install(home, "--host", "codex")  # then what 0.1.0 left: our hook's hash under another hook's key
    config = home / ".codex" / "config.toml"
    trusted = re.search(r'trusted_hash = "([^"]+)"', config.read_text())
    assert trusted, config.read_text()
    stray = f'\n[hooks.state."{home / ".codex" / "hooks.json"}:session_start:7:0"]\ntrusted_hash = "{trusted[1]}"\n'
    config.write_text(config.read_text() + stray)


def _opencode_edited(home: Path) -> None:
    _typescript_opencode(home)
    plugin = home / ".config" / "opencode" / "plugins" / "herdr-link.js"
    plugin.unlink()
    done = _run(home, ["herdr-link-opencode-install", "--runtime", "v1"])
    assert done.returncode == 0, done.stdout + done.stderr
    plugin.write_bytes(plugin.read_bytes() + b"\n// my change\n")


def _uvx_gone(home: Path) -> None:
    _install(home, "--host", "claude", "--launcher", "uvx")  # and no uvx on PATH


def _gemini_untrusted(home: Path) -> None:
    _install(home, "--host", "gemini")
    _edit_json(home / ".gemini" / "settings.json", lambda d: d["mcpServers"]["herdr_link"].pop("trust"))


def _codex_without_env_vars(home: Path) -> None:
    _install(home, "--host", "codex")
    config = home / ".codex" / "config.toml"
    config.write_text(re.sub(r"env_vars = \[[^\]]*\]\n", "", config.read_text()))


def _codex_hook_untrusted(home: Path) -> None:
    _install(home, "--host", "codex")
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text().split("[hooks.state.")[0])


def _claude_without_hint(home: Path) -> None:
    _install(home, "--host", "claude")
    _edit_json(home / ".claude" / "settings.json", lambda d: d.pop("hooks"))


def _claude_without_rule(home: Path) -> None:
    _install(home, "--host", "claude")
    _edit_json(home / ".claude" / "settings.json", lambda d: d.pop("permissions"))


def _claude_in_project_only(home: Path) -> None:
    _install(home, "--host", "claude", "--scope", "project")


def _claude_untrusted_folder(home: Path) -> None:
    _install(home, "--host", "claude")


def _pi_extension_edited(home: Path) -> None:
    done = _run(home, ["herdr-link-pi-bridge", "install"])
    assert done.returncode == 0, done.stderr
    extension = home / ".pi" / "agent" / "extensions" / "herdr-link.js"
    extension.write_text(extension.read_text() + "\n// my change\n")


def _bridge_location_gone(home: Path) -> None:
    _typescript_opencode(home)
    (home / ".config" / "opencode" / "plugins" / "herdr-link.js").unlink()
    done = _run(home, ["herdr-link-opencode-install", "--runtime", "v1"])
    assert done.returncode == 0, done.stdout + done.stderr
    _edit_json(home / ".config" / "herdr-link" / "bridge.json", lambda d: d.update(command=["/gone/herdr-link-bridge"]))


def _bridge_gone_opencode_v2(home: Path) -> None:
    """OpenCode 2 installed on a machine where no OpenCode is on PATH (no V1 plugin package either), then
    the tool whose bridge the location names removed: the fix must work as printed here."""
    done = _run(home, ["herdr-link-opencode-install", "--runtime", "v2"])
    assert done.returncode == 0, done.stdout + done.stderr
    _edit_json(home / ".config" / "herdr-link" / "bridge.json", lambda d: d.update(command=["/gone/herdr-link-bridge"]))


@dataclass(frozen=True)
class Case:
    id: str
    breaks: Callable[[Path], object]
    checks: tuple[str, ...]
    """The checks it breaks (the first one's fix is run), each PASS after the fix."""
    seen: str = "WARN"


CASES = [
    Case("typescript-claude", _typescript_claude, ("Claude Code",)),
    Case("typescript-codex", _typescript_codex, ("Codex", "Codex hint hook")),
    Case("typescript-agy", _typescript_agy, ("AGY", "AGY hint hook")),
    Case("typescript-opencode", _typescript_opencode, ("OpenCode plugin",), "FAIL"),
    Case("typescript-pi", _typescript_pi, ("Pi extension",)),
    Case("uvx-not-installed", _uvx_gone, ("Claude Code", "Claude Code hint hook"), "FAIL"),
    Case("gemini-untrusted-server", _gemini_untrusted, ("Gemini CLI",), "FAIL"),
    Case("codex-without-env-vars", _codex_without_env_vars, ("Codex",), "FAIL"),
    Case("codex-hook-untrusted", _codex_hook_untrusted, ("Codex hint hook",)),
    Case("claude-without-hint", _claude_without_hint, ("Claude Code hint hook",)),
    Case("claude-without-rule", _claude_without_rule, ("Claude Code",), "FAIL"),
    Case("claude-project-only", _claude_in_project_only, ("Claude Code",)),
    Case("folder-untrusted", _claude_untrusted_folder, ("worker here: Claude Code",)),
    Case("pi-extension-edited", _pi_extension_edited, ("Pi extension",), "FAIL"),
    Case("codex-stray-trust-of-0.1.0", _codex_stray_trust, ("Codex",)),
    Case("opencode-plugin-edited", _opencode_edited, ("OpenCode plugin",), "FAIL"),
    Case("bridge-location-gone", _bridge_location_gone, ("bridge",), "FAIL"),
    Case("bridge-gone-opencode-v2-not-on-path", _bridge_gone_opencode_v2, ("bridge",), "FAIL"),
]


@pytest.fixture(scope="module")
def plugin_modules() -> Path:
    with open(PLUGIN_MODULES.parent / "package.json", "rb") as lock:  # one npm ci at a time (pytest-xdist)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (PLUGIN_MODULES / "@opencode-ai" / "plugin").is_dir():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(PLUGIN_MODULES.parent)],
                           check=True, capture_output=True, timeout=600)  # fmt: skip
    return PLUGIN_MODULES


@pytest.mark.skipif(sys.platform == "win32", reason="the doctor's host files as POSIX has them")
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_each_fix_the_doctor_prints_makes_its_check_pass(case: Case, tmp_path: Path, plugin_modules: Path) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    typescript = case.breaks(home)
    before = doctor(home)
    first = before[case.checks[0]]
    assert first.status == case.seen and first.fix, (case.checks[0], first)
    if case.id.startswith("typescript"):
        assert "TypeScript Herdr Link" in first.detail, first
    fixed = _run(home, fix_command(first.fix))
    assert fixed.returncode == 0, (first.fix, fixed.stdout, fixed.stderr)
    after = doctor(home)
    assert {name: after[name].status for name in case.checks} == dict.fromkeys(case.checks, "PASS"), [
        (name, after[name]) for name in case.checks
    ]
    if isinstance(typescript, dict):  # switching back: the TypeScript set-up's files as they were
        undo = [*fix_command(first.fix), "--uninstall"]
        undo.remove("--yes")
        undone = _run(home, undo)
        assert undone.returncode == 0, (undo, undone.stdout, undone.stderr)
        assert {path: path.read_bytes() for path in typescript} == typescript


def _tool(folder: Path) -> Path:
    """A uv tool of its own for the Pi extension, as ``uv tool install herdr-link-pi-bridge`` makes one: its
    own Python (with this workspace's packages) and its own ``herdr-link-bridge``."""
    (folder / "bin").mkdir(parents=True)
    venv = BIN.parent
    (folder / "pyvenv.cfg").write_bytes((venv / "pyvenv.cfg").read_bytes())
    (folder / "bin" / "python").symlink_to((BIN / "python").resolve())
    site = next((venv / "lib").glob("python3*/site-packages"))
    (folder / "lib" / site.parent.name).mkdir(parents=True)
    (folder / "lib" / site.parent.name / "site-packages").symlink_to(site.resolve())
    (folder / "bin" / "herdr-link-bridge").write_bytes((BIN / "herdr-link-bridge").read_bytes())
    (folder / "bin" / "herdr-link-bridge").chmod(0o755)
    return folder / "bin" / "python"


@pytest.mark.skipif(sys.platform == "win32", reason="the doctor's host files as POSIX has them")
def test_the_pi_extension_uninstalled_and_its_tool_removed_leaves_opencode_its_bridge(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    done = _run(home, ["herdr-link-opencode-install", "--runtime", "v2"])  # no OpenCode on PATH
    assert done.returncode == 0, done.stdout + done.stderr
    pi_tool = _tool(tmp_path / "pi-tool")
    for command in ("install", "uninstall"):
        done = _run(home, [str(pi_tool), "-m", "herdr_link_pi_bridge", command])
        assert done.returncode == 0, done.stdout + done.stderr
    shutil.rmtree(tmp_path / "pi-tool")  # uv tool uninstall herdr-link-pi-bridge
    checks = doctor(home)
    assert checks["bridge"].status == "PASS" and checks["OpenCode plugin"].status == "PASS", checks["bridge"]
    assert "now naming the bridge it installed" in done.stdout, done.stdout
    assert json.loads((home / ".config" / "herdr-link" / "bridge.json").read_text())["users"] == ["opencode"]


def test_the_fix_parser_takes_the_command_and_nothing_after_it() -> None:
    assert fix_command("herdr-link-mcp install --host codex --yes (the entry is backed up)") == [
        "herdr-link-mcp", "install", "--host", "codex", "--yes"]  # fmt: skip
    assert fix_command("update it: herdr-link-opencode-install --runtime v2") == [
        "herdr-link-opencode-install", "--runtime", "v2"]  # fmt: skip
    with pytest.raises(AssertionError):
        fix_command("fix the file's syntax")
