"""The simulated ``herdr`` command line: Herdr 0.8.2's CLI for the commands Herdr Link touches.

Argument rules, exit codes (0 with one sorted compact JSON line on stdout; 1 with the JSON error on
stderr; 2 with plain usage text and no socket access), the ping protocol guard, request ids and
``agent start``'s pane pin, busy retries and readiness polling follow ``herdr-cli.md`` §1-§8.

This module uses the standard library only and no relative imports: the launcher script imports it
directly, without the package ``__init__``, so each invocation starts fast. For the same reason it
talks to the C halves of ``json`` and ``socket`` (``_json``, ``_socket``) and imports ``typing``
only for type checkers: ``json``, ``socket`` and ``typing`` pull in ``re``, ``enum`` and friends,
which cost more than the rest of an invocation.
"""

from __future__ import annotations  # annotations stay unevaluated, so typing is never imported

import _json
import _socket
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Final

PROTOCOL: Final = 20
STATUSES: Final = ("idle", "working", "blocked", "done", "unknown")
KINDS: Final = (
    "pi",
    "claude",
    "codex",
    "gemini",
    "cursor",
    "devin",
    "agy",
    "cline",
    "omp",
    "mastracode",
    "opencode",
    "copilot",
    "kimi",
    "kiro",
    "droid",
    "amp",
    "grok",
    "hermes",
    "kilo",
    "qodercli",
    "qwen",
    "maki",
)
ALIASES: Final = {
    "claude-code": "claude",
    "cursor-agent": "cursor",
    "antigravity": "agy",
    "github-copilot": "copilot",
    "ghcs": "copilot",
    "kiro-cli": "kiro",
    "qoder": "qodercli",
}
SHELL_NAMES: Final = frozenset("sh bash dash zsh fish ksh mksh csh tcsh elvish xonsh nu pwsh powershell cmd".split())
POLL_INTERVAL: Final = 0.1
BUSY_RETRY: Final = 2.0


class Usage(Exception):
    """A local argument error: plain text on stderr, exit 2, no socket access."""


class ServerNotRunning(Exception):
    """The socket file is missing or refuses connections."""


class _DecodeOptions:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__
    memo: dict[str, str] = {}


_SCAN = _json.make_scanner(_DecodeOptions())  # type: ignore[arg-type]  # duck-typed options
_WHITESPACE = " \t\n\r"


def loads(text: str) -> Any:
    """``json.loads`` for one JSON text, through the C scanner.

    Invalid JSON falls back to :func:`json.loads` (imported only then), which raises its own error:
    the C scanner builds its errors from ``json.decoder`` and cannot on its own.
    """
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _SCAN(text, start)
        if not text[end:].strip(_WHITESPACE):
            return value
    except (StopIteration, ValueError, SystemError):
        pass
    import json

    return json.loads(text)


def _unserialisable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """Compact ``json.dumps`` with ``ensure_ascii=False``, through the C encoder."""
    encoder = _json.make_encoder({}, _unserialisable, _json.encode_basestring, None, ":", ",", sort_keys, False, True)
    return "".join(encoder(value, 0))


def _out(stream: Any, value: Any) -> None:
    stream.write(dumps(value, sort_keys=True) + "\n")
    stream.flush()


def kind_label(kind: str) -> str | None:
    """Herdr's ``parse_agent_label``: a canonical label or alias, case-insensitively."""
    lowered = kind.lower()
    return lowered if lowered in KINDS else ALIASES.get(lowered)


# ---- global flags and the socket path ----------------------------------------------------------


def strip_global_flags(argv: list[str]) -> tuple[list[str], str | None]:
    """Remove --session/--remote/--handoff flags that appear before a literal ``--``."""
    kept: list[str] = []
    session = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            kept.extend(argv[index:])
            break
        if arg in ("--session", "--remote", "--remote-keybindings"):
            if arg == "--remote":
                raise Usage("--remote cannot be combined with a subcommand")
            value = argv[index + 1] if index + 1 < len(argv) else None
            if value is None:
                raise Usage(f"missing value for {arg}")
            if arg == "--session":
                session = value
            index += 2
            continue
        if arg.startswith("--session="):
            session = arg.split("=", 1)[1]
        elif arg.startswith("--remote="):
            raise Usage("--remote cannot be combined with a subcommand")
        elif arg != "--handoff":
            kept.append(arg)
        index += 1
    return kept, session


def config_dir() -> str:
    if os.environ.get("XDG_CONFIG_HOME"):
        return os.path.join(os.environ["XDG_CONFIG_HOME"], "herdr")
    if os.environ.get("HOME"):
        return os.path.join(os.environ["HOME"], ".config", "herdr")
    return os.path.join("/tmp", "herdr")


def socket_path(session: str | None) -> tuple[str, str]:
    """The API socket path and the command that would start or attach its server."""
    if session is not None and session != "default":
        return os.path.join(config_dir(), "sessions", session, "herdr.sock"), f"herdr session attach {session}"
    if session is None and os.environ.get("HERDR_SOCKET_PATH"):
        return os.environ["HERDR_SOCKET_PATH"], "herdr"
    env_session = os.environ.get("HERDR_SESSION")
    if session is None and env_session and env_session != "default":
        return os.path.join(config_dir(), "sessions", env_session, "herdr.sock"), f"herdr session attach {env_session}"
    return os.path.join(config_dir(), "herdr.sock"), "herdr"


# ---- transport ----------------------------------------------------------------------------------


class Client:
    """One request per connection, as Herdr's socket API requires."""

    def __init__(self, path: str, start_command: str) -> None:
        self.path = path
        self.start_command = start_command

    def send(self, request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            try:
                connection.connect(self.path)
            except (FileNotFoundError, ConnectionRefusedError) as error:
                raise ServerNotRunning from error
            line = dumps({"id": request_id, "method": method, "params": params})
            connection.sendall(line.encode() + b"\n")
            chunks: list[bytes] = []
            while not chunks or not chunks[-1].endswith(b"\n"):
                chunk = connection.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            connection.close()
        data = b"".join(chunks)
        if not data.strip():
            raise OSError("Custom { kind: Other, error: EmptyResponse }")
        try:
            reply: dict[str, Any] = loads(data.decode())
        except ValueError as error:  # UnicodeDecodeError and json.JSONDecodeError alike
            raise OSError(f'Error("{error}", line: 1, column: 1)') from error
        return reply

    def guard(self, request_id: str) -> dict[str, Any] | None:
        """The ping protocol guard; returns the ``protocol_mismatch`` error to print, or ``None``."""
        pong = self.send("api-client:status", "ping", {})
        protocol = pong.get("result", {}).get("protocol")
        if protocol == PROTOCOL:
            return None
        if isinstance(protocol, int) and protocol < PROTOCOL:
            message = (
                f"client protocol {PROTOCOL} is newer than server protocol {protocol}; restart the Herdr server "
                "before using this command. Stop the running server and start herdr again."
            )
        else:
            message = (
                f"client protocol {PROTOCOL} is older than server protocol {protocol}; upgrade the Herdr client "
                "before using this command"
            )
        return {"id": request_id, "error": {"code": "protocol_mismatch", "message": message}}

    def call(self, request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        mismatch = self.guard(request_id)
        return mismatch if mismatch is not None else self.send(request_id, method, params)


def print_reply(reply: dict[str, Any]) -> int:
    if "error" in reply:
        _out(sys.stderr, reply)
        return 1
    _out(sys.stdout, reply)
    return 0


# ---- argument parsing ---------------------------------------------------------------------------

if TYPE_CHECKING:
    Plan = tuple[str, str, dict[str, Any]]


def _value(args: Sequence[str], index: int, option: str) -> str:
    if index + 1 >= len(args):
        raise Usage(f"missing value for {option}")
    return args[index + 1]


def _exactly(args: Sequence[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise Usage(usage)


def _wait_options(args: Sequence[str], allow_wait: bool) -> dict[str, Any]:
    wait, until, timeout = False, [], None
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--wait" and allow_wait:
            wait, index = True, index + 1
        elif arg == "--until":
            if index + 1 >= len(args):
                raise Usage("--until requires at least one status")
            status = args[index + 1]
            if status not in STATUSES:
                raise Usage(f"invalid agent status: {status} (expected idle, working, blocked, done, or unknown)")
            until.append(status)
            index += 2
        elif arg == "--timeout":
            value = _value(args, index, "--timeout")
            if not value.isdigit() or int(value) >= 2**64:
                raise Usage(f"invalid value for --timeout: {value}")
            timeout, index = int(value), index + 2
        else:
            raise Usage(f"unknown option: {arg}")
    if allow_wait and until and not wait:
        raise Usage("--until requires --wait")
    if allow_wait and timeout is not None and not wait:
        raise Usage("--timeout requires --wait")
    options: dict[str, Any] = {}
    if until:
        options["until"] = until
    if timeout is not None:
        options["timeout_ms"] = timeout
    return {"wait": options} if wait else options


def parse_agent(args: Sequence[str]) -> Plan:
    sub, rest = (args[0], list(args[1:])) if args else ("", [])
    if sub == "get":
        _exactly(rest, 1, "usage: herdr agent get <target>")
        return "cli:agent:get", "agent.get", {"target": rest[0]}
    if sub == "list":
        _exactly(rest, 0, "usage: herdr agent list")
        return "cli:agent:list", "agent.list", {}
    if sub == "prompt":
        if not rest:
            raise Usage("usage: herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]")
        if len(rest) < 2:
            raise Usage("agent prompt requires text")
        params: dict[str, Any] = {"target": rest[0], "text": rest[1]}
        params.update(_wait_options(rest[2:], allow_wait=True))
        return "cli:agent:prompt", "agent.prompt", params
    if sub == "rename":
        _exactly(rest, 2, "usage: herdr agent rename <target> <name>|--clear")
        params = {"target": rest[0]}
        if rest[1] != "--clear":
            params["name"] = rest[1]
        return "cli:agent:rename", "agent.rename", params
    if sub == "wait":
        if not rest or rest[0].startswith("-"):
            raise Usage("usage: herdr agent wait <target> [--until STATUS]... [--timeout MS]")
        params = {"target": rest[0]}
        params.update(_wait_options(rest[1:], allow_wait=False))
        return "cli:agent:wait", "agent.wait", params
    raise Usage("usage: herdr agent <get|list|prompt|start|rename|wait> ...")


def parse_agent_start(args: Sequence[str]) -> tuple[str, str, str, list[str], int | None]:
    usage = "usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]"
    if not args or args[0].startswith("-"):
        raise Usage(usage)
    name = args[0]
    separator = args.index("--") if "--" in args else len(args)
    kind = pane = None
    timeout = None
    index = 1
    while index < separator:
        option = args[index]
        if option not in ("--kind", "--pane", "--timeout"):
            raise Usage(f"unknown option: {option}")
        if index + 1 >= separator:
            raise Usage(f"missing value for {option}")
        value = args[index + 1]
        if option == "--kind":
            kind = value
        elif option == "--pane":
            pane = value
        else:
            if not value.isdigit() or int(value) >= 2**64:
                raise Usage(f"invalid value for --timeout: {value}")
            timeout = int(value)
        index += 2
    if kind is None:
        raise Usage("missing required --kind")
    if pane is None:
        raise Usage("missing required --pane")
    if kind_label(kind) is None:
        raise Usage(f"unsupported interactive agent kind: {kind}")
    return name, kind, pane, list(args[separator + 1 :]), timeout


def _env_pair(value: str) -> tuple[str, str]:
    if "\0" in value:
        raise Usage("env must not contain NUL bytes")
    key, sep, item = value.partition("=")
    if not sep:
        raise Usage("env must use KEY=VALUE")
    if not key:
        raise Usage("env key must not be empty")
    return key, item


def parse_pane(args: Sequence[str]) -> Plan:
    sub, rest = (args[0], list(args[1:])) if args else ("", [])
    if sub in ("get", "close"):
        _exactly(rest, 1, f"usage: herdr pane {sub} <pane_id>")
        return f"cli:pane:{sub}", f"pane.{sub}", {"pane_id": rest[0]}
    if sub == "list":
        params: dict[str, Any] = {}
        index = 0
        while index < len(rest):
            if rest[index] != "--workspace":
                raise Usage(f"unknown option: {rest[index]}")
            params["workspace_id"] = _value(rest, index, "--workspace")
            index += 2
        return "cli:pane:list", "pane.list", params
    if sub == "split":
        return parse_pane_split(rest)
    if sub == "report-agent":
        return parse_report_agent(rest)
    if sub == "move":
        return parse_pane_move(rest)
    raise Usage("usage: herdr pane <get|list|split|close|move|report-agent> ...")


SPLIT_USAGE: Final = (
    "usage: herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] [--cwd PATH] "
    "[--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]"
)


def parse_pane_split(rest: list[str]) -> Plan:
    target = None
    index = 0
    if rest and not rest[0].startswith("--"):
        target, index = rest[0], 1
    direction = ratio = cwd = None
    env: dict[str, str] = {}
    right_click, focus = "herdr", False
    while index < len(rest):
        arg = rest[index]
        if arg == "--pane":
            target, index = _value(rest, index, arg), index + 2
        elif arg == "--current":
            if not os.environ.get("HERDR_PANE_ID"):
                raise Usage("--current requires HERDR_PANE_ID")
            target, index = os.environ["HERDR_PANE_ID"], index + 1
        elif arg == "--direction":
            direction = _value(rest, index, arg)
            if direction not in ("right", "down"):
                raise Usage(f"invalid split direction: {direction}")
            index += 2
        elif arg == "--ratio":
            raw = _value(rest, index, arg)
            try:
                ratio = float(raw)
            except ValueError:
                raise Usage(f"invalid ratio: {raw}") from None
            if ratio != ratio or ratio in (float("inf"), float("-inf")):
                raise Usage(f"invalid ratio: {raw}")
            index += 2
        elif arg == "--cwd":
            cwd, index = _value(rest, index, arg), index + 2
        elif arg == "--env":
            key, item = _env_pair(_value(rest, index, arg))
            env[key] = item
            index += 2
        elif arg == "--right-click" or arg.startswith("--right-click="):
            value = arg.split("=", 1)[1] if "=" in arg else _value(rest, index, arg)
            if value not in ("herdr", "pane"):
                raise Usage(f"invalid right-click mode: {value}")
            right_click, index = value, index + (1 if "=" in arg else 2)
        elif arg in ("--focus", "--no-focus"):
            focus, index = arg == "--focus", index + 1
        else:
            raise Usage(f"unknown option: {arg}")
    if direction is None:
        raise Usage(SPLIT_USAGE)
    params: dict[str, Any] = {}
    if target is not None:
        params["target_pane_id"] = target
    params["direction"] = direction
    if ratio is not None:
        params["ratio"] = ratio
    if cwd is not None:
        params["cwd"] = cwd
    params["focus"] = focus
    params["right_click"] = right_click
    if env:
        params["env"] = env
    return "cli:pane:split", "pane.split", params


def parse_report_agent(rest: list[str]) -> Plan:
    usage = "usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown"
    if not rest or rest[0].startswith("-"):
        raise Usage(usage)
    params: dict[str, Any] = {"pane_id": rest[0]}
    index = 1
    while index < len(rest):
        option = rest[index]
        key = {"--source": "source", "--agent": "agent", "--state": "state", "--message": "message"}.get(option)
        if key is None:
            raise Usage(f"unknown option: {option}")
        params[key] = _value(rest, index, option)
        index += 2
    if not {"source", "agent", "state"} <= params.keys():
        raise Usage(usage)
    if params["state"] not in ("idle", "working", "blocked", "unknown"):
        raise Usage(f"invalid agent state: {params['state']}")
    return "cli:request", "pane.report_agent", params


MOVE_USAGE: Final = (
    "usage: herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] [--ratio FLOAT] "
    "[--focus|--no-focus]\n       herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] "
    "[--focus|--no-focus]"
)


def parse_pane_move(rest: list[str]) -> Plan:
    if not rest or rest[0].startswith("-"):
        raise Usage(MOVE_USAGE)
    options: dict[str, Any] = {}
    index, focus = 1, True
    while index < len(rest):
        arg = rest[index]
        if arg == "--new-tab":
            options["new_tab"], index = True, index + 1
        elif arg in ("--focus", "--no-focus"):
            focus, index = arg == "--focus", index + 1
        elif arg in ("--tab", "--workspace", "--split", "--target-pane", "--label"):
            options[arg[2:].replace("-", "_")] = _value(rest, index, arg)
            index += 2
        else:
            raise Usage(f"unknown option: {arg}")
    if ("tab" in options) == bool(options.get("new_tab")):
        raise Usage(MOVE_USAGE)
    if "tab" in options:
        if "split" not in options:
            raise Usage(MOVE_USAGE)
        destination = {"type": "tab", "tab_id": options["tab"], "split": options["split"]}
        if "target_pane" in options:
            destination["target_pane_id"] = options["target_pane"]
    else:
        destination = {"type": "new_tab"}
        for key in ("workspace_id", "label"):
            source = "workspace" if key == "workspace_id" else key
            if source in options:
                destination[key] = options[source]
    return "cli:pane:move", "pane.move", {"pane_id": rest[0], "destination": destination, "focus": focus}


def _create_options(rest: list[str], allowed: tuple[str, ...]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    env: dict[str, str] = {}
    focus = False
    index = 0
    while index < len(rest):
        arg = rest[index]
        if arg in ("--focus", "--no-focus"):
            focus, index = arg == "--focus", index + 1
            continue
        if arg not in allowed:
            raise Usage(f"unknown option: {arg}")
        value = _value(rest, index, arg)
        if arg == "--env":
            key, item = _env_pair(value)
            env[key] = item
        else:
            params[{"--workspace": "workspace_id"}.get(arg, arg[2:])] = value
        index += 2
    ordered: dict[str, Any] = {}
    for key in ("workspace_id", "cwd"):
        if key in params:
            ordered[key] = params[key]
    ordered["focus"] = focus
    if "label" in params:
        ordered["label"] = params["label"]
    if env:
        ordered["env"] = env
    return ordered


def parse_tab(args: Sequence[str]) -> Plan:
    sub, rest = (args[0], list(args[1:])) if args else ("", [])
    if sub == "create":
        return "cli:tab:create", "tab.create", _create_options(rest, ("--workspace", "--cwd", "--label", "--env"))
    if sub == "close":
        _exactly(rest, 1, "usage: herdr tab close <tab_id>")
        return "cli:tab:close", "tab.close", {"tab_id": rest[0]}
    if sub == "list":
        params: dict[str, Any] = {}
        if rest:
            if rest[0] != "--workspace":
                raise Usage(f"unknown option: {rest[0]}")
            params["workspace_id"] = _value(rest, 0, "--workspace")
        return "cli:tab:list", "tab.list", params
    raise Usage("usage: herdr tab <create|close|list> ...")


def parse_workspace(args: Sequence[str]) -> Plan:
    sub, rest = (args[0], list(args[1:])) if args else ("", [])
    if sub == "create":
        return "cli:workspace:create", "workspace.create", _create_options(rest, ("--cwd", "--label", "--env"))
    if sub == "list":
        _exactly(rest, 0, "usage: herdr workspace list")
        return "cli:workspace:list", "workspace.list", {}
    raise Usage("usage: herdr workspace <create|list> ...")


GROUPS: Final = {"agent": parse_agent, "pane": parse_pane, "tab": parse_tab, "workspace": parse_workspace}
SUBCOMMANDS: Final = {
    "agent": ("get", "list", "prompt", "start", "rename", "wait"),
    "pane": ("get", "list", "split", "close", "move", "report-agent"),
    "tab": ("create", "close", "list"),
    "workspace": ("create", "list"),
}


# ---- agent start --------------------------------------------------------------------------------


def _error(code: str, message: str) -> dict[str, Any]:
    return {"id": "cli:agent:start", "error": {"code": code, "message": message}}


def _shell_initializing(client: Client, pane_id: str) -> bool:
    reply = client.send("cli:agent:start:process_info", "pane.process_info", {"pane_id": pane_id})
    info = reply.get("result", {}).get("process_info", {})
    shell_pid = info.get("shell_pid")
    if shell_pid is None or info.get("foreground_process_group_id") != shell_pid:
        return False
    return any(p.get("pid") == shell_pid and p.get("name") in SHELL_NAMES for p in info.get("foreground_processes", []))


def _pane_terminal(client: Client, pane_id: str) -> str | None:
    reply = client.call("cli:agent:start:pane", "pane.get", {"pane_id": pane_id})
    terminal = reply.get("result", {}).get("pane", {}).get("terminal_id")
    return terminal if isinstance(terminal, str) else None


def run_agent_start(client: Client, args: Sequence[str]) -> int:
    name, kind, pane_id, agent_args, timeout_ms = parse_agent_start(args)
    expected = kind_label(kind)
    timeout = (timeout_ms if timeout_ms is not None else 30_000) / 1000
    retryable = 3.0 < timeout <= 300.0
    pinned = _pane_terminal(client, pane_id)
    params: dict[str, Any] = {"name": name, "kind": kind, "pane_id": pane_id}
    if agent_args:
        params["args"] = agent_args
    if timeout_ms is not None:
        params["timeout_ms"] = timeout_ms
    retry_deadline = None
    while True:
        reply = client.call("cli:agent:start", "agent.start", params)
        if "error" not in reply:
            break
        if (
            reply["error"].get("code") != "agent_pane_busy"
            or not retryable
            or pinned is None
            or _pane_terminal(client, pane_id) != pinned
            or not _shell_initializing(client, pane_id)
        ):
            return print_reply(reply)
        retry_deadline = retry_deadline or time.monotonic() + BUSY_RETRY
        remaining = retry_deadline - time.monotonic()
        if remaining <= 0:
            return print_reply(reply)
        time.sleep(min(POLL_INTERVAL, remaining))
    terminal = reply.get("result", {}).get("agent", {}).get("terminal_id")
    if not isinstance(terminal, str):
        return print_reply(_error("agent_start_failed", "agent start response did not include terminal_id"))
    lost = _error("agent_name_not_found", f"named agent {name} no longer owns the target terminal")
    if pinned is not None and pinned != terminal:
        return print_reply(lost)
    deadline = time.monotonic() + timeout
    first = True
    while True:
        if time.monotonic() >= deadline:
            client.send("cli:agent:start:timeout", "agent.get", {"target": name})
            return print_reply(_error("timeout", "timed out waiting for agent startup"))
        get = client.call if first else client.send
        first = False
        polled = get("cli:agent:start", "agent.get", {"target": name})
        if "error" in polled:
            polled = client.send("cli:agent:start", "agent.get", {"target": pane_id})
            if "error" in polled:
                time.sleep(POLL_INTERVAL)
                continue
        agent = polled["result"]["agent"]
        status = agent.get("agent_status")
        if agent.get("terminal_id") != terminal:
            return print_reply(lost)
        if agent.get("agent") is not None and agent["agent"] != expected:
            return print_reply(_error("agent_kind_mismatch", f"expected {expected}, detected {agent['agent']}"))
        if agent.get("name") != name:
            return print_reply(lost)
        if status == "blocked":
            message = f"agent {name} is blocked during startup and is not ready for prompts"
            return print_reply(_error("agent_not_ready", message))
        if status in ("idle", "done") and agent.get("interactive_ready") is True:
            reply["result"]["agent"] = agent
            return print_reply(reply)
        if status in ("idle", "done") and not agent.get("launch_pending"):
            return print_reply(_error("agent_start_failed", "agent process exited before becoming interactive"))
        time.sleep(POLL_INTERVAL)


# ---- test instrumentation -----------------------------------------------------------------------


def _apply_fault(client: Client, argv: list[str]) -> int | None:
    """Report this invocation to the simulator and carry out a fault it planned for it, if any.

    Real Herdr has no such request; the simulator keeps it out of its socket request log.
    """
    try:
        reply = client.send("testkit:cli", "testkit.cli", {"argv": argv})
    except (ServerNotRunning, OSError):
        return None
    fault = reply.get("result", {}).get("fault")
    if not fault:
        return None
    action = fault["action"]
    if action == "delay":
        time.sleep(fault["seconds"])
        return None
    if action == "hang":
        while True:
            time.sleep(3600)
    if action == "error":
        _out(sys.stderr, {"error": {"code": fault["code"], "message": fault["message"]}, "id": fault["request_id"]})
        return 1
    if action == "invalid_json":
        sys.stdout.write("herdr: this is not json\n")
        return 0
    if action == "empty":
        return 0
    if action == "exit":
        sys.stderr.write(fault["stderr"])
        return int(fault["exit_code"])
    return None


# ---- entry point --------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``herdr`` invocation and return its exit status."""
    raw = list(sys.argv[1:] if argv is None else argv)
    try:
        args, session = strip_global_flags(raw)
    except Usage as error:
        sys.stderr.write(f"{error}\n")
        return 2
    if session is not None and (
        not 1 <= len(session.encode()) <= 64
        or session in (".", "..")
        or not all(c.isascii() and (c.isalnum() or c in "._-") for c in session)
    ):
        sys.stderr.write("error: invalid session name\nrun 'herdr --help' for usage\n")
        return 2
    path, start_command = socket_path(session)
    client = Client(path, start_command)
    faulted = _apply_fault(client, raw)
    if faulted is not None:
        return faulted
    group = args[0] if args else ""
    if group not in GROUPS:
        sys.stderr.write("usage: herdr <agent|pane|tab|workspace> ...\n")
        return 2
    sub = args[1] if len(args) > 1 else ""
    if sub in SUBCOMMANDS[group] and len(args) > 2 and args[2] in ("--help", "-h"):
        sys.stdout.write(f"Usage: herdr {group} {sub} [OPTIONS]\n")
        return 0
    if sub == "help":
        sys.stderr.write(f"usage: herdr {group} <{'|'.join(SUBCOMMANDS[group])}> ...\n")
        return 0
    request_id = f"cli:{group}:{sub}" if sub in SUBCOMMANDS[group] else f"cli:{group}"
    try:
        if (group, sub) == ("agent", "start"):
            return run_agent_start(client, args[2:])
        request_id, method, params = GROUPS[group](args[1:])
        reply = client.call(request_id, method, params)
        if method == "pane.report_agent" and "error" not in reply:
            return 0  # report-agent prints nothing on success
        return print_reply(reply)
    except Usage as error:
        sys.stderr.write(f"{error}\n")
        return 2
    except ServerNotRunning:
        message = f"no herdr server is running at {path}; run `{start_command}` to start or attach it"
        # This error is printed from a struct, not re-sorted: key order id, error.
        sys.stderr.write(dumps({"id": request_id, "error": {"code": "server_not_running", "message": message}}) + "\n")
        return 1
    except OSError as error:
        sys.stderr.write(f"Error: {error}\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
