"""One ``herdr`` invocation, run by the simulator: the CLI's own steps (``docs/herdr.md`` §1-§8).

The launcher hands over argv and environment (:mod:`._cli_wire`); this module does what the real
CLI does with them: strip the global flags, check the arguments, send the ping guard and then the
request as socket requests, and for ``agent start`` pin the pane, retry a busy shell and poll for
readiness. Each socket request goes through :meth:`Endpoint.handle_line` (the server's), the same handler
the socket uses, so the request log and the method faults see exactly what they would. It returns
the exit status, stdout and stderr: 0 with one sorted compact JSON line; 1 with the JSON error on
stderr; 2 with plain usage text and no request.
"""

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ._cli_args import route
from ._cli_global import global_options
from ._cli_wire import server_not_running
from ._endpoint import Endpoint
from ._kinds import SHELL_NAMES, kind_label
from ._usage import Usage

__all__ = ["Invocation", "run_invocation"]

POLL_INTERVAL: Final = 0.1
BUSY_RETRY: Final = 2.0
MAX_REQUEST_BYTES: Final = 1 << 20


class _ServerNotRunning(Exception):
    """The server stopped while the invocation ran."""


class _LauncherGone(Exception):
    """The launcher was killed: like the real CLI's process, the invocation sends nothing more."""


def _dumps(value: Any, *, sort_keys: bool = False) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)


class Invocation:
    """The output of one invocation, and the socket requests it sends."""

    def __init__(self, server: Endpoint, alive: Callable[[], bool]) -> None:
        self.server = server
        self.alive = alive
        self.stdout: list[str] = []
        self.stderr: list[str] = []

    # ---- transport: one request per connection, as Herdr's socket API requires ----------------

    def send(self, request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if not self.alive():
            raise _LauncherGone
        if not self.server.running:
            raise _ServerNotRunning
        line = _dumps({"id": request_id, "method": method, "params": params}).encode()
        data = self.server.handle_line(line) if len(line) <= MAX_REQUEST_BYTES else None
        if data is None or not data.strip():
            raise OSError("Custom { kind: Other, error: EmptyResponse }")
        try:
            reply: dict[str, Any] = json.loads(data.decode())
        except ValueError as error:  # UnicodeDecodeError and json.JSONDecodeError alike
            raise OSError(f'Error("{error}", line: 1, column: 1)') from error
        return reply

    def guard(self, request_id: str) -> dict[str, Any] | None:
        """The ping protocol guard; returns the ``protocol_mismatch`` error to print, or ``None``."""
        pong = self.send("api-client:status", "ping", {})
        protocol = pong.get("result", {}).get("protocol")
        mine = self.server.release_row.protocol  # this CLI is the simulated release's own
        if protocol == mine:
            return None
        if isinstance(protocol, int) and protocol < mine:
            message = (
                f"client protocol {mine} is newer than server protocol {protocol}; restart the Herdr server "
                "before using this command. Stop the running server and start herdr again."
            )
        else:
            message = (
                f"client protocol {mine} is older than server protocol {protocol}; upgrade the Herdr client "
                "before using this command"
            )
        return {"id": request_id, "error": {"code": "protocol_mismatch", "message": message}}

    def call(self, request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        mismatch = self.guard(request_id)
        return mismatch if mismatch is not None else self.send(request_id, method, params)

    def reply(self, reply: dict[str, Any]) -> int:
        """Print a reply as the CLI does: re-serialised with sorted keys, errors on stderr."""
        if "error" in reply:
            self.stderr.append(_dumps(reply, sort_keys=True) + "\n")
            return 1
        self.stdout.append(_dumps(reply, sort_keys=True) + "\n")
        return 0

    # ---- agent start ---------------------------------------------------------------------------

    def _shell_initializing(self, pane_id: str) -> bool:
        reply = self.send("cli:agent:start:process_info", "pane.process_info", {"pane_id": pane_id})
        info = reply.get("result", {}).get("process_info", {})
        shell_pid = info.get("shell_pid")
        if shell_pid is None or info.get("foreground_process_group_id") != shell_pid:
            return False
        processes = info.get("foreground_processes", [])
        return any(p.get("pid") == shell_pid and p.get("name") in SHELL_NAMES for p in processes)

    def _pane_terminal(self, pane_id: str) -> str | None:
        reply = self.call("cli:agent:start:pane", "pane.get", {"pane_id": pane_id})
        terminal = reply.get("result", {}).get("pane", {}).get("terminal_id")
        return terminal if isinstance(terminal, str) else None

    def agent_start(self, parsed: tuple[str, str, str, list[str], int | None]) -> int:
        """Pin the pane, start, retry a busy initialising shell, then poll until ready or failed.

        The polling stops when the launcher is gone (killed at its caller's timeout), as the real
        CLI's loop would.
        """
        name, kind, pane_id, agent_args, timeout_ms = parsed
        expected = kind_label(kind)
        timeout = (timeout_ms if timeout_ms is not None else 30_000) / 1000
        retryable = 3.0 < timeout <= 300.0
        pinned = self._pane_terminal(pane_id)
        params: dict[str, Any] = {"name": name, "kind": kind, "pane_id": pane_id}
        if agent_args:
            params["args"] = agent_args
        if timeout_ms is not None:
            params["timeout_ms"] = timeout_ms
        retry_deadline = None
        while True:
            reply = self.call("cli:agent:start", "agent.start", params)
            if "error" not in reply:
                break
            if (
                reply["error"].get("code") != "agent_pane_busy"
                or not retryable
                or pinned is None
                or self._pane_terminal(pane_id) != pinned
                or not self._shell_initializing(pane_id)
            ):
                return self.reply(reply)
            retry_deadline = retry_deadline or time.monotonic() + BUSY_RETRY
            remaining = retry_deadline - time.monotonic()
            if remaining <= 0 or not self.alive():
                return self.reply(reply)
            time.sleep(min(POLL_INTERVAL, remaining))
        terminal = reply.get("result", {}).get("agent", {}).get("terminal_id")
        if not isinstance(terminal, str):
            return self.reply(_start_error("agent_start_failed", "agent start response did not include terminal_id"))
        lost = _start_error("agent_name_not_found", f"named agent {name} no longer owns the target terminal")
        if pinned is not None and pinned != terminal:
            return self.reply(lost)
        deadline = time.monotonic() + timeout
        first = True
        while self.alive():
            if time.monotonic() >= deadline:
                self.send("cli:agent:start:timeout", "agent.get", {"target": name})
                return self.reply(_start_error("timeout", "timed out waiting for agent startup"))
            get = self.call if first else self.send
            first = False
            polled = get("cli:agent:start", "agent.get", {"target": name})
            if "error" in polled:
                polled = self.send("cli:agent:start", "agent.get", {"target": pane_id})
                if "error" in polled:
                    time.sleep(POLL_INTERVAL)
                    continue
            agent = polled["result"]["agent"]
            status = agent.get("agent_status")
            if agent.get("terminal_id") != terminal:
                return self.reply(lost)
            if agent.get("agent") is not None and agent["agent"] != expected:
                return self.reply(
                    _start_error("agent_kind_mismatch", f"expected {expected}, detected {agent['agent']}")
                )
            if agent.get("name") != name:
                return self.reply(lost)
            if status == "blocked":
                message = f"agent {name} is blocked during startup and is not ready for prompts"
                return self.reply(_start_error("agent_not_ready", message))
            if status in ("idle", "done") and agent.get("interactive_ready") is True:
                reply["result"]["agent"] = agent
                return self.reply(reply)
            if status in ("idle", "done") and not agent.get("launch_pending"):
                return self.reply(
                    _start_error("agent_start_failed", "agent process exited before becoming interactive")
                )
            time.sleep(POLL_INTERVAL)
        return 1

    # ---- test instrumentation ------------------------------------------------------------------

    def apply_fault(self, argv: list[str]) -> int | None:
        """Report this invocation to the simulator and carry out a fault it planned for it, if any.

        Real Herdr has no such request; the simulator keeps it out of its socket request log.
        """
        try:
            reply = self.send("testkit:cli", "testkit.cli", {"argv": argv})
        except (_ServerNotRunning, _LauncherGone, OSError):
            return None
        fault = reply.get("result", {}).get("fault")
        if not fault:
            return None
        action = fault["action"]
        if action == "delay":
            time.sleep(fault["seconds"])
            return None if self.alive() else 1
        if action == "hang":
            while self.alive() and self.server.running:
                time.sleep(0.05)
            return 1
        if action == "error":
            error = {"error": {"code": fault["code"], "message": fault["message"]}, "id": fault["request_id"]}
            self.stderr.append(_dumps(error, sort_keys=True) + "\n")
            return 1
        if action == "invalid_json":
            self.stdout.append("herdr: this is not json\n")
            return 0
        if action == "empty":
            return 0
        if action == "exit":
            self.stderr.append(fault["stderr"])
            return int(fault["exit_code"])
        return None

    # ---- the invocation ------------------------------------------------------------------------

    def run(self, raw: list[str], env: Mapping[str, str]) -> int:
        """Run ``herdr <raw>`` with ``env``; returns its exit status (output in :attr:`stdout`, :attr:`stderr`)."""
        try:
            args, path, start_command = global_options(raw, env)
        except Usage as error:
            self.stderr.append(f"{error}\n")
            return 2
        faulted = self.apply_fault(raw)
        if faulted is not None:
            return faulted
        request_id = "cli"
        try:
            request_id, kind, detail = route(args, env, self.server.release)
            if kind == "exit":
                code, out, err = detail
                self.stdout.append(out)
                self.stderr.append(err)
                return int(code)
            if kind == "start":
                return self.agent_start(detail)
            request_id, method, params = detail
            reply = self.call(request_id, method, params)
            if method == "pane.report_agent" and "error" not in reply:
                return 0  # report-agent prints nothing on success
            if method == "agent.read" and "error" not in reply:
                self.stdout.append(reply["result"]["read"]["text"])  # the text alone, as is
                return 0
            return self.reply(reply)
        except Usage as error:
            self.stderr.append(f"{error}\n")
            return 2
        except _ServerNotRunning:
            self.stderr.append(server_not_running(request_id, path, start_command) + "\n")
            return 1
        except OSError as error:
            self.stderr.append(f"Error: {error}\n")
            return 1
        except _LauncherGone:
            return 1


def _start_error(code: str, message: str) -> dict[str, Any]:
    return {"id": "cli:agent:start", "error": {"code": code, "message": message}}


def run_invocation(
    server: Endpoint, argv: Sequence[str], env: Mapping[str, str], alive: Callable[[], bool]
) -> tuple[int, str, str]:
    """Run one invocation against ``server``; ``alive`` tells whether the launcher still waits."""
    invocation = Invocation(server, alive)
    code = invocation.run(list(argv), env)
    return code, "".join(invocation.stdout), "".join(invocation.stderr)
