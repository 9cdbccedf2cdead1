"""The simulated ``herdr`` command line's arguments: each modelled release's rules for the commands Herdr
Link touches (``docs/herdr.md`` §8; what differs per release is a row of ``_releases.RELEASES``). The
global flags and the socket path are in ``_cli_global``, the kinds in ``_kinds``.

Pure: nothing here reads the environment or touches a socket. The ``herdr`` launcher runs it to
tell a usage error from a stopped server, and the simulator runs it for every invocation. Standard
library only, and ``typing`` only for type checkers, so that a launch stays cheap.
"""

from __future__ import annotations  # annotations stay unevaluated, so typing is never imported

from ._kinds import STATUSES, kind_label
from ._releases import DEFAULT_RELEASE, RELEASES
from ._usage import Usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Final


# ---- argument parsing ---------------------------------------------------------------------------

if TYPE_CHECKING:
    Plan = tuple[str, str, dict[str, Any]]
    """A request to send: its id, the socket method and the params."""


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


def expand_equals(args: Sequence[str], options: Sequence[str]) -> list[str]:
    """0.9's ``--option=value`` for the given value options: split into ``--option`` and ``value``;
    any other argument is kept whole (``src/cli.rs``, ``expand_equals_args``)."""
    expanded: list[str] = []
    for arg in args:
        option, sep, value = arg.partition("=")
        if sep and option in options:
            expanded += [option, value]
        else:
            expanded.append(arg)
    return expanded


def parse_agent(args: Sequence[str], env: Mapping[str, str], release: str = DEFAULT_RELEASE) -> Plan:
    newer = RELEASES[release].equals_options
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
        # 0.9 expands `--option=value` over every argument, the text too, then reads options after
        # the text: a text shaped like `--timeout=5` becomes options (src/cli/agent.rs, 0.9 line).
        options = expand_equals(rest, ("--until", "--timeout"))[2:] if newer else rest[2:]
        params.update(_wait_options(options, allow_wait=True))
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
        options = expand_equals(rest, ("--until", "--timeout"))[1:] if newer else rest[1:]
        params.update(_wait_options(options, allow_wait=False))
        return "cli:agent:wait", "agent.wait", params
    if sub == "read":
        return parse_agent_read(rest, release)
    raise Usage("usage: herdr agent <get|list|prompt|start|rename|wait|read> ...")


class _BadValue(Exception):
    """A bad option value: 0.8.2's CLI returns it from ``main`` (exit 1), 0.9's prints it with the usage."""


def _io_error(message: str) -> OSError:
    """An error the real CLI returns from ``main`` (printed as Rust's debug form, exit 1)."""
    return OSError(f'Custom {{ kind: Other, error: "{message}" }}')


READ_SOURCES: Final = {
    "visible": "visible",
    "recent": "recent",
    "recent-unwrapped": "recent_unwrapped",
    "recent_unwrapped": "recent_unwrapped",
    "detection": "detection",
}
"""``--source`` values and what the CLI sends for each (``parse_read_source``)."""


def parse_agent_read(rest: list[str], release: str = DEFAULT_RELEASE) -> Plan:
    """``agent read <target> [--source S] [--lines N] [--format text|ansi] [--ansi]`` (``src/cli/agent.rs``).

    0.8.2 fails a bad option value from ``main`` (exit 1); 0.9 prints the error and its usage line
    (exit 2) and takes ``--option=value``.
    """
    row = RELEASES[release]
    usage = row.read_usage
    if not rest:
        raise Usage(usage)
    if row.equals_options and row.read_errors_are_usage:
        try:
            return _agent_read(rest[:1] + expand_equals(rest[1:], ("--source", "--lines", "--format")))
        except (_BadValue, Usage) as error:
            raise Usage(f"{error}\n{usage}") from error
    try:
        return _agent_read(rest)
    except _BadValue as error:
        raise _io_error(str(error)) from error


def _agent_read(rest: list[str]) -> Plan:
    params: dict[str, Any] = {"target": rest[0], "source": "recent"}
    fmt, strip = "text", True
    index = 1
    while index < len(rest):
        option = rest[index]
        if option == "--ansi":
            fmt, strip, index = "ansi", False, index + 1
            continue
        if option not in ("--source", "--lines", "--format"):
            raise Usage(f"unknown option: {option}")
        value = _value(rest, index, option)
        if option == "--source":
            if value not in READ_SOURCES:
                raise _BadValue(f"invalid read source: {value}")
            params["source"] = READ_SOURCES[value]
        elif option == "--lines":
            if not value.isdigit() or int(value) >= 2**32:
                raise _BadValue(f"invalid value for --lines: {value}")
            params["lines"] = int(value)
        else:
            if value not in ("text", "ansi"):
                raise _BadValue(f"invalid read format: {value}")
            fmt, strip = value, value != "ansi"
        index += 2
    params.update(format=fmt, strip_ansi=strip)
    return "cli:agent:read", "agent.read", params


def parse_agent_start(
    args: Sequence[str], release: str = DEFAULT_RELEASE
) -> tuple[str, str, str, list[str], int | None]:
    usage = "usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]"
    if not args or args[0].startswith("-"):
        raise Usage(usage)
    name = args[0]
    if RELEASES[release].equals_options:  # `--option=value` before `--` only: the agent's own args keep their shape
        cut = args.index("--") if "--" in args else len(args)
        args = [*expand_equals(args[:cut], ("--kind", "--pane", "--timeout")), *args[cut:]]
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


def parse_pane(args: Sequence[str], env: Mapping[str, str], release: str = DEFAULT_RELEASE) -> Plan:
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
        return parse_pane_split(rest, env.get("HERDR_PANE_ID"))
    if sub == "report-agent":
        return parse_report_agent(rest, release)
    if sub == "move":
        return parse_pane_move(rest)
    raise Usage("usage: herdr pane <get|list|split|close|move|report-agent> ...")


SPLIT_USAGE: Final = (
    "usage: herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] [--cwd PATH] "
    "[--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]"
)


def parse_pane_split(rest: list[str], current_pane: str | None) -> Plan:
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
            if not current_pane:
                raise Usage("--current requires HERDR_PANE_ID")
            target, index = current_pane, index + 1
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


def parse_report_agent(rest: list[str], release: str = DEFAULT_RELEASE) -> Plan:
    """``pane report-agent <pane_id> --source ID --agent LABEL --state S [--message TEXT]``; 0.9 also
    takes the options before the pane id and as ``--option=value`` (its changelog, #2926)."""
    usage = "usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown"
    keys = {"--source": "source", "--agent": "agent", "--state": "state", "--message": "message"}
    if RELEASES[release].report_agent_options_anywhere:
        rest = expand_equals(rest, tuple(keys))
        positional = [i for i, a in enumerate(rest) if not a.startswith("-") and (i == 0 or rest[i - 1] not in keys)]
        if not positional:
            raise Usage(usage)
        where = positional[0]  # the pane id, wherever it stands among the options
        rest = [rest[where], *rest[:where], *rest[where + 1 :]]
    if not rest or rest[0].startswith("-"):
        raise Usage(usage)
    params: dict[str, Any] = {"pane_id": rest[0]}
    index = 1
    while index < len(rest):
        option = rest[index]
        key = keys.get(option)
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


def parse_tab(args: Sequence[str], env: Mapping[str, str], release: str = DEFAULT_RELEASE) -> Plan:
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


def parse_workspace(args: Sequence[str], env: Mapping[str, str], release: str = DEFAULT_RELEASE) -> Plan:
    sub, rest = (args[0], list(args[1:])) if args else ("", [])
    if sub == "create":
        return "cli:workspace:create", "workspace.create", _create_options(rest, ("--cwd", "--label", "--env"))
    if sub == "list":
        _exactly(rest, 0, "usage: herdr workspace list")
        return "cli:workspace:list", "workspace.list", {}
    raise Usage("usage: herdr workspace <create|list> ...")


GROUPS: Final = {"agent": parse_agent, "pane": parse_pane, "tab": parse_tab, "workspace": parse_workspace}
SUBCOMMANDS: Final = {
    "agent": ("get", "list", "prompt", "start", "rename", "wait", "read"),
    "pane": ("get", "list", "split", "close", "move", "report-agent"),
    "tab": ("create", "close", "list"),
    "workspace": ("create", "list"),
}


def route(args: Sequence[str], env: Mapping[str, str], release: str = DEFAULT_RELEASE) -> tuple[str, str, Any]:
    """Decide an invocation (global flags already stripped), before any request.

    Returns ``(request_id, kind, detail)``: kind ``"exit"`` with ``(code, stdout, stderr)`` for usage
    and help output, ``"start"`` with the parsed ``agent start`` arguments, ``"request"`` with a
    :data:`Plan`.

    ``release``: the Herdr release whose CLI grammar applies (0.9 takes ``--option=value`` in more
    places).

    Raises:
        Usage: a local argument error (exit 2, no socket access).
    """
    group = args[0] if args else ""
    if group not in GROUPS:
        return "cli", "exit", (2, "", "usage: herdr <agent|pane|tab|workspace> ...\n")
    sub = args[1] if len(args) > 1 else ""
    if sub in SUBCOMMANDS[group] and len(args) > 2 and args[2] in ("--help", "-h"):
        return f"cli:{group}:{sub}", "exit", (0, f"Usage: herdr {group} {sub} [OPTIONS]\n", "")
    if sub == "help":
        return f"cli:{group}", "exit", (0, "", f"usage: herdr {group} <{'|'.join(SUBCOMMANDS[group])}> ...\n")
    request_id = f"cli:{group}:{sub}" if sub in SUBCOMMANDS[group] else f"cli:{group}"
    if (group, sub) == ("agent", "start"):
        return request_id, "start", parse_agent_start(args[2:], release)
    plan = GROUPS[group](args[1:], env, release)
    return plan[0], "request", plan
