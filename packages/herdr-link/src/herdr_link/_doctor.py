"""``herdr-link doctor``: a read-only diagnosis, one line per check with PASS, FAIL (and the fix) or SKIP.

It never writes and never renames: an unnamed agent is reported as "would be bootstrapped".
"""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import anyio

from herdr_link_control import Check, HerdrCommandError, HerdrEnvironment, Link, Survey, Timeouts
from herdr_link_installer import installed_plugin
from herdr_link_mcp import wiring_checks
from herdr_link_pi_bridge import extension_status
from herdr_link_protocol import CONFIG_RELATIVE_PATH, LinkError, parse_agent_config

__all__ = ["Check", "diagnose"]

SERVER_FIXES: Final = {
    "server_not_running": "start Herdr, or run this inside one of its panes",
    "protocol_mismatch": "the Herdr CLI and its server are different versions: do what the message says",
}
"""The fix for each Herdr code that means the CLI could not reach a usable server."""


def _survey_checks(binary: str, survey: Survey) -> list[Check]:
    checks = [Check("Herdr server", "PASS", f"{binary} reaches its server")]
    me = survey.agent
    if me is None:
        checks.append(Check("identity", "SKIP", "no agent runs in this pane (a plain shell): nothing to name"))
    elif me.name:
        checks.append(Check("identity", "PASS", f"this agent is named {me.name}"))
    else:
        checks.append(Check("identity", "PASS", "unnamed: Herdr Link will name it hl-<hex> on first use"))
    names = [peer.name for peer in survey.peers if peer.name]
    checks.append(Check("peers", "PASS", f"{len(names)} named agent(s) in this workspace: {', '.join(names) or '-'}"))
    return checks


async def _herdr_checks(environ: Mapping[str, str], environment: HerdrEnvironment) -> list[Check]:
    """Everything Herdr says, asked through the control layer and so through the Herdr CLI."""
    binary = environment.bin_path
    if not os.access(binary, os.X_OK):
        fix = "Herdr was updated or removed since this pane started: open a new pane"
        return [Check("Herdr binary", "FAIL", f"{binary} cannot be run", fix)]
    try:
        survey = await Link(environ, timeouts=Timeouts(command=10)).survey()
    except HerdrCommandError as error:
        fix = SERVER_FIXES.get(error.herdr_code, "check the Herdr server")
        return [Check("Herdr server", "FAIL", error.detail, fix)]
    except LinkError as error:
        return [
            Check("Herdr server", "FAIL", f"the Herdr CLI did not answer: {error.detail}", "check the Herdr server")
        ]
    return _survey_checks(binary, survey)


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
    state, path, detail = installed_plugin(environ, home)
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
        checks.extend(anyio.run(_herdr_checks, environ, environment))
    checks.append(_config_check(cwd))
    checks.extend(wiring_checks(home, cwd))
    checks.append(_opencode_check(environ, home))
    checks.append(_pi_check(home, cwd))
    return checks
