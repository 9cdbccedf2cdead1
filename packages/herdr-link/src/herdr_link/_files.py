"""The doctor's checks of files: the start configuration, the OpenCode plugin, the Pi extension and
the bridge location both of them use. They read files and run ``herdr-link-bridge --version``;
they write nothing."""

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from herdr_link_control.bridge import BRIDGE_CONTRACT
from herdr_link_control.userfiles import BRIDGE_COMMAND, BRIDGE_ENV_VAR, location_file, reinstall_commands
from herdr_link_installer import (
    ProgramFailed,
    current_platform,
    herdr_link_plugins,
    opencode_major,
    opencode_version,
)
from herdr_link_opencode_bridge import OPENCODE_V2_SETUP
from herdr_link_pi_bridge import extension_status, typescript_in_pi
from herdr_link_protocol import CONFIG_RELATIVE_PATH, LinkError, parse_agent_config

from ._check import Check

__all__ = ["bridge_check", "config_check", "opencode_check", "pi_check"]

REINSTALL: Final = {"opencode": "herdr-link-opencode-install", "pi": "herdr-link-pi-bridge install"}
"""What writes each runtime's bridge location again, when its installer recorded no command of its own."""
_CONTRACT: Final = re.compile(r"\(contract (\d+)\)")


def config_check(cwd: Path) -> Check:
    """``.agents/agent_config.json`` of ``cwd``: absent, valid, or every problem at its place."""
    path = cwd.joinpath(*CONFIG_RELATIVE_PATH)
    if not path.exists():
        return Check("agent_config.json", "SKIP", f"{path} does not exist (only configured starts need it)")
    try:
        config = parse_agent_config(path.read_bytes())
    except LinkError as error:
        problems = "\n      ".join(error.detail.splitlines())
        return Check("agent_config.json", "FAIL", f"{path}: {error}:\n      {problems}", "fix those places in the file")
    except OSError as error:
        return Check("agent_config.json", "FAIL", f"{path} cannot be read: {error.strerror}", "check its permissions")
    return Check("agent_config.json", "PASS", f"{path} is valid ({len(config.agents)} entries)")


def opencode_check(environ: Mapping[str, str], home: Path, cwd: Path) -> Check:
    """What OpenCode will load of Herdr Link: the one current bundle (it loads in OpenCode 1.x and 2), or why not.

    Every Herdr Link file in every directory OpenCode loads plugins from counts (the global config
    dir as ``opencode debug paths`` reports it, ``OPENCODE_CONFIG_DIR``, the project's
    ``.opencode/``), since OpenCode loads all of them and each starts its own bridge.
    """
    name = "OpenCode plugin"
    files = herdr_link_plugins(environ, home, cwd, current_platform())
    if not files:
        return Check(name, "SKIP", "not installed (looked in OpenCode's global, extra and project plugin dirs)")
    if len(files) > 1:
        listed = ", ".join(str(f.path) for f in files)
        return Check(
            name, "FAIL", f"OpenCode loads {len(files)} Herdr Link files, each with its own bridge: {listed}",
            f"keep one: remove {', '.join(str(f.path) for f in files[1:])}",
        )  # fmt: skip
    [plugin] = files
    if plugin.state == "current":
        try:
            major = opencode_major(opencode_version())
        except ProgramFailed:
            major = None  # which OpenCode runs it does not matter: the file loads in 1.x and 2
        detail = f"{plugin.path} is the current bundle (it loads in OpenCode 1.x and 2), the only one"
        if (major or 0) >= 2:  # OpenCode 2's shared server: served when in a pane
            detail += (
                "; OpenCode 2 runs plugins in one server shared by every `opencode` by default, which serves "
                f"Herdr Link only when that server was started in a Herdr pane: to be sure, {OPENCODE_V2_SETUP}"
            )
        return Check(name, "PASS", detail)
    fixes = {
        "older": "update it: herdr-link-opencode-install",
        "modified": "reinstall it: herdr-link-opencode-install --yes (a backup of the edited file is kept)",
        "typescript": "herdr-link-opencode-install --yes (replaces it, backed up; --uninstall puts it back)",
        "foreign": "move the file aside, or replace it: herdr-link-opencode-install --yes (a backup is kept)",
    }
    what = {"older": "an older Herdr Link bundle", "modified": "an edited Herdr Link bundle",
            "typescript": "the TypeScript Herdr Link's bundle", "foreign": "not Herdr Link's file"}  # fmt: skip
    return Check(name, "FAIL", f"{plugin.path} is {what[plugin.state]}", fixes[plugin.state])


def pi_check(home: Path, cwd: Path) -> Check:
    """Is the current extension installed where Pi loads it, and alone?"""
    state, path = extension_status(home, cwd)
    name = "Pi extension"
    typescript = typescript_in_pi(home, cwd)
    if typescript is not None and state in ("absent", "current"):
        lines, project = typescript
        mine = "" if state == "absent" else f"{path} is the current extension, but "
        detail = f"{mine}the TypeScript Herdr Link is wired into Pi ({'; '.join(lines)})"
        detail += ": Pi keeps one herdr_link of the two" if mine else ""
        where = " --project" if project else ""
        fix = f"herdr-link-pi-bridge install{where} --yes (sets it aside; --uninstall puts it back)"
        return Check(name, "WARN", detail, fix)
    if state == "absent":
        return Check(name, "SKIP", "not installed")
    if state == "current":
        return Check(name, "PASS", f"{path} is the current extension")
    what = {"older": "an older Herdr Link extension", "edited": "an edited copy of Herdr Link's extension",
            "foreign": "not Herdr Link's file"}  # fmt: skip
    confirm = {"foreign": " --yes (the file is not Herdr Link's; a backup is kept)",
               "edited": " --yes (a backup of the edited file is kept)"}  # fmt: skip
    return Check(name, "FAIL", f"{path} is {what[state]}", "herdr-link-pi-bridge install" + confirm.get(state, ""))


@dataclass(frozen=True)
class _BridgeCommand:
    """The bridge command a stub would run (``None`` when there is none to run), where it came from,
    and why the location file could not be read (``""`` when it could, or is not the source)."""

    command: list[str] | None
    source: str
    unreadable: str = ""


def _configured_command(environ: Mapping[str, str], home: Path) -> _BridgeCommand:
    """The bridge command a stub would run, and where it came from (``docs/bridge.md``)."""
    if environ.get(BRIDGE_ENV_VAR):
        raw = environ[BRIDGE_ENV_VAR]
        try:
            value = json.loads(raw)
        except ValueError:
            value = [raw]
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return _BridgeCommand(value if ok else None, BRIDGE_ENV_VAR)
    path = location_file(environ, home)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        found = shutil.which(BRIDGE_COMMAND, path=environ.get("PATH", os.defpath))  # the stub's own PATH
        return _BridgeCommand([found] if found else None, f"{path} (missing) and {BRIDGE_COMMAND} on PATH")
    except OSError as error:
        return _BridgeCommand(None, str(path), str(error.strerror or error))
    except ValueError:
        return _BridgeCommand(None, str(path), "not JSON")
    command = body.get("command") if isinstance(body, dict) else None
    if isinstance(command, list) and command and all(isinstance(v, str) for v in command):
        return _BridgeCommand(command, str(path))
    return _BridgeCommand(None, str(path), 'no "command" list of strings')


def _reinstall(environ: Mapping[str, str], home: Path, users: Sequence[str]) -> str:
    """The one command that writes the bridge location again for a runtime that uses it: the one its
    installer recorded (``herdr-link-opencode-install --runtime v2``: it works whatever OpenCode is on
    PATH), preferring one whose program is on PATH (a removed tool's is not)."""
    recorded = reinstall_commands(location_file(environ, home))
    commands = [recorded.get(user, REINSTALL[user]) for user in users] or [REINSTALL["opencode"]]
    found = [c for c in commands if shutil.which(c.split()[0], path=environ.get("PATH", os.defpath))]
    return (found or commands)[0]


def bridge_check(environ: Mapping[str, str], home: Path, users: Sequence[str]) -> Check:
    """The bridge the OpenCode plugin and the Pi extension start: it exists, runs, and speaks our contract.

    ``users``: the runtimes whose plugin or extension is installed (``"opencode"``, ``"pi"``; none: a
    missing bridge is no problem); the fix reinstalls one of them."""
    name = "bridge"
    needed = bool(users)
    fix = _reinstall(environ, home, users)
    configured = _configured_command(environ, home)
    command, source = configured.command, configured.source
    if configured.unreadable:
        where = f"the bridge location is unreadable at {source} ({configured.unreadable})"
        if not needed:
            return Check(name, "WARN", f"{where}; no plugin or extension needs it now")
        return Check(name, "FAIL", where, fix)
    if command is None:
        if not needed:
            return Check(name, "SKIP", f"no bridge configured ({source}); no plugin or extension needs one")
        return Check(name, "FAIL", f"no usable bridge command in {source}", fix)
    if os.sep in command[0] and not os.access(command[0], os.X_OK):
        return Check(name, "FAIL", f"{source} names {command[0]}, which does not exist or cannot be run", fix)
    try:
        done = subprocess.run(
            [*command, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return Check(name, "FAIL", f"{' '.join(command)} cannot be run: {error}", fix)
    found = _CONTRACT.search(done.stdout)
    if done.returncode != 0 or found is None:
        return Check(name, "FAIL", f"{' '.join(command)} --version did not answer as herdr-link-bridge", fix)
    if int(found.group(1)) != BRIDGE_CONTRACT:
        detail = f"{done.stdout.strip()} speaks contract {found.group(1)}, the stubs here speak {BRIDGE_CONTRACT}"
        return Check(name, "FAIL", detail, fix)
    return Check(name, "PASS", f"{done.stdout.strip()}, from {source}")
