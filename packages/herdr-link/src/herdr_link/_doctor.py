"""``herdr-link doctor``: a read-only diagnosis, one line per check with PASS, FAIL (and the fix),
WARN or SKIP (and why). The same checks run every time, in the same order.

It never writes and never renames: an unnamed agent is reported as "would be bootstrapped". Herdr
is asked through the control layer (``Link.survey``), so through its CLI, as every operation is.
"""

import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import anyio

from herdr_link_control import (
    HERDR_CORE_NOTE,
    AgentRecord,
    HerdrCommandError,
    HerdrEnvironment,
    Link,
    LinkSettings,
    SpawnFailed,
    Survey,
    Timeouts,
    in_herdr_core_terminal,
)
from herdr_link_control.hosts import host_for_kind, hosts_with
from herdr_link_protocol import LinkError

from ._check import Check
from ._files import bridge_check, config_check, opencode_check, pi_check
from ._hint_checks import check_hint
from ._shared_checks import check_shared
from ._wiring_checks import check_wiring
from ._worker_checks import check_worker, node_check

__all__ = ["Check", "diagnose", "render", "to_json"]

# Each failure is reported once, in its check: the control layer's operator log would repeat it on
# stderr through logging's last-resort handler. Added once, when the doctor is first imported.
logging.getLogger("herdr_link").addHandler(logging.NullHandler())

HERDR_CHECKS: Final = ("Herdr binary", "Herdr server", "identity", "peers", "agent kinds")
SERVER_FIXES: Final = {
    "server_not_running": "start the Herdr server (run `herdr`), then open a new pane if it was restarted",
    "protocol_mismatch": "the Herdr CLI and its server are different versions: do what the message says",
}
"""The fix for each Herdr code that means the CLI could not reach a usable server."""


def _skipped(reason: str, after: int = 0) -> list[Check]:
    return [Check(name, "SKIP", reason) for name in HERDR_CHECKS[after:]]


def _survey_checks(binary: str, survey: Survey) -> list[Check]:
    checks = [Check("Herdr binary", "PASS", binary), Check("Herdr server", "PASS", f"{binary} reaches its server")]
    me = survey.agent
    if me is None:
        checks.append(Check("identity", "SKIP", "no agent runs in this pane (a plain shell): nothing to name"))
    elif me.name:
        checks.append(Check("identity", "PASS", f"this agent is named {me.name}"))
    else:
        checks.append(Check("identity", "PASS", "unnamed: Herdr Link will name it hl-<hex> on first use"))
    names = [peer.name for peer in survey.peers if peer.name]
    checks.append(Check("peers", "PASS", f"{len(names)} named agent(s) in this workspace: {', '.join(names) or '-'}"))
    checks.append(_kinds_check([*([me] if me is not None else []), *survey.peers]))
    return checks


def _kinds_check(agents: list[AgentRecord]) -> Check:
    """Whether Link can reach every agent of this workspace: a line naming each whose kind it cannot wire."""
    unreached = []
    for agent in agents:
        host = host_for_kind(agent.kind) if agent.kind else None
        if agent.kind and (host is None or (host.servers is None and host.extension is None)):
            why = host.unwired if host is not None else "the host table has no row for this kind"
            unreached.append(f"{agent.name or agent.pane_id} ({agent.kind}): {why}")
    if unreached:
        return Check("agent kinds", "WARN", "Link cannot reach " + "; ".join(unreached))
    kinds = sorted({agent.kind for agent in agents if agent.kind})
    return Check("agent kinds", "PASS", f"Link can wire every kind here: {', '.join(kinds) or '-'}")


async def _herdr_checks(environ: Mapping[str, str], environment: HerdrEnvironment) -> list[Check]:
    binary = environment.bin_path
    if not os.access(binary, os.X_OK):
        fix = "Herdr was updated or removed since this pane started: open a new pane"
        failed = Check("Herdr binary", "FAIL", f"{binary} does not exist or is not executable", fix)
        return [failed, *_skipped("the Herdr binary cannot be run", 1)]
    try:
        survey = await Link(environ, timeouts=Timeouts(command=10)).survey()
    except HerdrCommandError as error:
        fix = SERVER_FIXES.get(error.herdr_code, "check the Herdr server")
        failed = Check("Herdr server", "FAIL", error.detail, fix)
        return [Check("Herdr binary", "PASS", binary), failed, *_skipped("Herdr's CLI reaches no usable server", 2)]
    except LinkError as error:
        if isinstance(error.__cause__, SpawnFailed):
            failed = Check("Herdr binary", "FAIL", f"{binary} cannot be run: {error.detail}", "reinstall Herdr")
            return [failed, *_skipped("the Herdr binary cannot be run", 1)]
        failed = Check(
            "Herdr server", "FAIL", f"the Herdr CLI did not answer: {error.detail}", "check the Herdr server"
        )
        return [Check("Herdr binary", "PASS", binary), failed, *_skipped("Herdr's CLI did not answer", 2)]
    return _survey_checks(binary, survey)


def settings_check(environ: Mapping[str, str], home: Path) -> list[Check]:
    """The user's Herdr Link settings as every adapter reads them: the loop guard's limit and where to set
    it, and whether the trace is on and where it goes."""
    user = {**environ, "HOME": str(home)}
    settings = LinkSettings.load(user)
    if settings.problems:
        guard = Check("settings", "WARN", "; ".join(settings.problems), f"correct {settings.path}")
    elif settings.loop_messages <= 0:
        guard = Check("settings", "WARN", settings.describe())
    else:
        guard = Check("settings", "PASS", settings.describe())
    if settings.trace_problems:
        fix = f"correct {'HERDR_LINK_TRACE' if environ.get('HERDR_LINK_TRACE') else settings.path}"
        return [guard, Check("trace", "FAIL", "; ".join(settings.trace_problems), fix)]
    return [guard, Check("trace", "PASS", settings.describe_trace())]


def diagnose(environ: Mapping[str, str], cwd: Path, home: Path) -> list[Check]:
    """Every check, always the same ones in the same order. Reads only."""
    environment = HerdrEnvironment.detect(environ)
    if environment is None:
        missing = "not in a Herdr pane (HERDR_ENV=1, HERDR_BIN_PATH and HERDR_PANE_ID are not all set)"
        if in_herdr_core_terminal(environ):
            missing = f"not in a Herdr pane: {HERDR_CORE_NOTE}"
        checks = [
            Check("environment", "FAIL", missing, "run this inside a Herdr pane (of the herdr TUI)"),
            *_skipped("not in a Herdr pane"),
        ]
    else:
        checks = [Check("environment", "PASS", f"Herdr pane {environment.pane_id}")]
        checks.extend(anyio.run(_herdr_checks, environ, environment))
    checks.append(config_check(cwd))
    mcp_hosts = hosts_with("servers")  # each host's files read once: the hint and worker lines reuse the checks
    wiring = {host.name: check_wiring(host, home, cwd) for host in mcp_hosts}
    hints = {host.name: check_hint(host, home, cwd, wiring[host.name]) for host in mcp_hosts if host.hook}
    stubs = [opencode_check(environ, home, cwd), pi_check(home, cwd)]
    hosts = [*wiring.values(), *stubs]
    checks.extend([*wiring.values(), *hints.values(), *stubs])
    users = [user for user, stub in zip(("opencode", "pi"), stubs, strict=True) if stub.status != "SKIP"]
    checks.append(bridge_check(environ, home, users))
    workers = [check_worker(host, home, cwd, wiring[host.name], hints.get(host.name)) for host in mcp_hosts]
    shared = [check_shared(host, environ, home) for host in hosts_with("shared")]
    checks.extend([*workers, *shared, node_check(), *settings_check(environ, home)])
    if all(c.status == "SKIP" for c in hosts):
        fix = "herdr-link-mcp install --host <host>, herdr-link-opencode-install or herdr-link-pi-bridge install"
        checks.append(Check("hosts", "WARN", "nothing is wired for any host: no agent can use Herdr Link yet", fix))
    else:
        working = [c.name for c in hosts if c.status in ("PASS", "WARN")]
        broken = [c.name for c in hosts if c.status == "FAIL"]
        fails = f"; wired but failing above: {', '.join(broken)}" if broken else ""
        if working:
            checks.append(Check("hosts", "PASS", f"wired: {', '.join(working)}{fails}"))
        else:
            checks.append(Check("hosts", "FAIL", f"no host can use Herdr Link{fails}", "the fix of each FAIL above"))
    return checks


def _verdict(checks: list[Check]) -> str:
    failed = sum(c.status == "FAIL" for c in checks)
    warned = sum(c.status == "WARN" for c in checks)
    head = "PROBLEMS FOUND" if failed else "OK"
    return f"{head}: {failed} failed, {warned} warning(s), of {len(checks)} checks"


def render(checks: list[Check]) -> str:
    """The report as printed: one line per check, then the verdict."""
    return "\n".join(check.render() for check in checks) + f"\n\n{_verdict(checks)}\n"


def to_json(checks: list[Check]) -> str:
    """The report for scripts: ``{"checks": [{name, status, detail, fix}], "failed", "warnings", "verdict"}``."""
    body = {
        "checks": [{"name": c.name, "status": c.status, "detail": c.detail, "fix": c.fix} for c in checks],
        "failed": sum(c.status == "FAIL" for c in checks),
        "warnings": sum(c.status == "WARN" for c in checks),
        "verdict": _verdict(checks),
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
