"""``herdr-link doctor``: a read-only diagnosis, one line per check with PASS, FAIL (and the fix) or SKIP.

It never writes and never renames: an unnamed agent is reported as "would be bootstrapped".
"""

import json
import os
import socket
from collections.abc import Mapping
from pathlib import Path

import anyio

from herdr_link_control import HerdrCLI, HerdrEnvironment, ProcessRunner, Role, Timeouts
from herdr_link_control._commands import agent_get, agent_list, pane_get, parse_agent_record, parse_agent_rows
from herdr_link_mcp._checks import Check, wiring_checks
from herdr_link_opencode_bridge._checks import plugin_status
from herdr_link_pi_bridge._checks import extension_status
from herdr_link_protocol import CONFIG_RELATIVE_PATH, LinkError, parse_agent_config

__all__ = ["Check", "diagnose"]


def _ping(socket_path: str) -> dict[str, object] | None:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(3)
            connection.connect(socket_path)
            connection.sendall(b'{"id":"herdr-link-doctor","method":"ping","params":{}}\n')
            data = b""
            while not data.endswith(b"\n"):
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
        reply = json.loads(data)
        result = reply.get("result") if isinstance(reply, dict) else None
        return result if isinstance(result, dict) else None
    except (OSError, ValueError):
        return None


async def _herdr_checks(environment: HerdrEnvironment) -> list[Check]:
    checks: list[Check] = []
    binary = environment.bin_path
    if not os.access(binary, os.X_OK):
        fix = "Herdr was updated or removed since this pane started: open a new pane"
        return [Check("Herdr binary", "FAIL", f"{binary} cannot be run", fix)]
    socket_path = environment.variables.get("HERDR_SOCKET_PATH")
    pong = _ping(socket_path) if socket_path else None
    if pong is None:
        checks.append(
            Check(
                "Herdr server",
                "FAIL",
                f"no answer on {socket_path or 'an unset HERDR_SOCKET_PATH'}",
                "start Herdr, or run this inside one of its panes",
            )
        )
        return checks
    if pong.get("protocol") != 20:
        checks.append(
            Check(
                "Herdr server",
                "FAIL",
                f"protocol {pong.get('protocol')} (Herdr Link speaks 20)",
                "use Herdr 0.8.x, or a Herdr Link release for your Herdr",
            )
        )
        return checks
    checks.append(Check("Herdr server", "PASS", f"Herdr {pong.get('version')}, protocol 20"))
    cli = HerdrCLI(ProcessRunner(binary, environment.variables), Timeouts(command=10))
    pane = environment.pane_id
    try:
        me = parse_agent_record(await cli.call(agent_get(pane), Role.SELF))
    except LinkError:
        me = None
    workspace = me.workspace_id if me else ""
    if me is None:
        try:
            reply = await cli.call(pane_get(pane), Role.SELF)
            workspace = str(reply.get("result", {}).get("pane", {}).get("workspace_id", ""))
        except LinkError:
            workspace = ""
        checks.append(Check("identity", "SKIP", "no agent runs in this pane (a plain shell): nothing to name"))
    elif me.name:
        checks.append(Check("identity", "PASS", f"this agent is named {me.name}"))
    else:
        checks.append(Check("identity", "PASS", "unnamed: Herdr Link will name it hl-<hex> on first use"))
    try:
        rows = parse_agent_rows(await cli.call(agent_list(), Role.PEERS))
    except LinkError as error:
        checks.append(Check("peers", "FAIL", f"agent list failed: {error.detail}", "check the Herdr server"))
        return checks
    names = [r.name for r in rows if r.name and r.workspace_id == workspace and (me is None or r.name != me.name)]
    checks.append(Check("peers", "PASS", f"{len(names)} named agent(s) in this workspace: {', '.join(names) or '-'}"))
    return checks


def _config_check(cwd: Path) -> Check:
    path = cwd.joinpath(*CONFIG_RELATIVE_PATH)
    if not path.exists():
        return Check("agent_config.json", "SKIP", f"{path} does not exist (only configured starts need it)")
    try:
        config = parse_agent_config(path.read_bytes())
    except LinkError as error:
        return Check("agent_config.json", "FAIL", f"{path}: {error}", f"fix the file; details: {error.detail[:300]}")
    except OSError as error:
        return Check("agent_config.json", "FAIL", f"{path} cannot be read: {error.strerror}", "check its permissions")
    return Check("agent_config.json", "PASS", f"{path} is valid ({len(config.agents)} entries)")


def _opencode_check(environ: Mapping[str, str], home: Path) -> Check:
    state, path, detail = plugin_status(environ, home)
    name = "OpenCode plugin"
    if state == "absent":
        return Check(name, "SKIP", "not installed")
    fixes = {
        "older": "update it: herdr-link-opencode-install",
        "modified": "reinstall it: herdr-link-opencode-install (a backup of the edited file is kept)",
        "foreign": "move the file aside or reinstall with herdr-link-opencode-install --yes",
    }
    if state == "current":
        return Check(name, "PASS", f"{path} is the current {detail} bundle")
    return Check(name, "FAIL", f"{path} is {'an ' if state == 'older' else 'a '}{state} file", fixes[state])


def _pi_check(home: Path, cwd: Path) -> Check:
    state, path = extension_status(home, cwd)
    name = "Pi extension"
    if state == "absent":
        return Check(name, "SKIP", "not installed")
    if state == "current":
        return Check(name, "PASS", f"{path} is the current extension")
    fix = "herdr-link-pi-bridge install" + (" --yes (the file is not Herdr Link's)" if state == "foreign" else "")
    return Check(
        name, "FAIL", f"{path} is {'an older Herdr Link extension' if state == 'older' else 'not Herdr Link'}", fix
    )


def diagnose(environ: Mapping[str, str], cwd: Path, home: Path) -> list[Check]:
    """Every check, in order. Reads only."""
    checks: list[Check] = []
    environment = HerdrEnvironment.detect(environ)
    if environment is None:
        checks.append(
            Check(
                "environment",
                "FAIL",
                "not in a Herdr pane (HERDR_ENV=1, HERDR_BIN_PATH and HERDR_PANE_ID)",
                "run this inside a Herdr pane",
            )
        )
    else:
        checks.append(Check("environment", "PASS", f"Herdr pane {environment.pane_id}"))
        checks.extend(anyio.run(_herdr_checks, environment))
    checks.append(_config_check(cwd))
    checks.extend(wiring_checks(home, cwd))
    checks.append(_opencode_check(environ, home))
    checks.append(_pi_check(home, cwd))
    return checks
