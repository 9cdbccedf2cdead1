"""``herdr-sim``: run a simulated Herdr in the foreground, or print a pane's environment.

herdr-sim serve --socket PATH [--layout FILE]
herdr-sim env --socket PATH --pane PANE_ID
"""

import argparse
import json
import shlex
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ._harness import HerdrSim
from ._model import HerdrError, canonical_kind
from ._releases import DEFAULT_RELEASE, HERDR_VERSIONS

__all__ = ["main"]

_LAYOUT_HELP = """\
A layout file is JSON: {"workspaces":[{"cwd":"/path","panes":[{"agent":"claude","name":"brain"},{}]}]}.
Each workspace's first pane is its root pane; further panes are split to the right. A pane with
"agent" holds a foreground agent of that kind ("name" optional); "hook_only": true makes it
visible to Herdr only through a hook report.

Exit status: 0 done (serve: when stopped with Ctrl-C or SIGTERM); 1 an error, on stderr; 2 usage error."""


def _read_layout(path: Path) -> dict[str, Any]:
    """The layout file's JSON, or a ``ValueError`` that names the file and what is wrong with it."""
    try:
        layout = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"the layout file {path} cannot be read: {error.strerror or error}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"the layout file {path} is not JSON: {error}") from error
    if not isinstance(layout, dict):
        raise ValueError(f'the layout file {path} must hold an object, such as {{"workspaces": [...]}}')
    return layout


def _said(error: BaseException) -> str:
    """An error in words: an OS error as its reason and the file it concerns, never ``[Errno N]``."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    return str(error)


def _apply_layout(sim: HerdrSim, layout: dict[str, Any]) -> None:
    kinds = [p.get("agent") for w in layout.get("workspaces", []) for p in w.get("panes") or [] if p.get("agent")]
    unknown = sorted({str(kind) for kind in kinds if not isinstance(kind, str) or canonical_kind(kind) is None})
    if unknown:  # as `herdr agent start --kind` would refuse them (docs/herdr.md §7)
        raise ValueError(f"the layout names agent kinds Herdr does not know: {', '.join(unknown)}")
    if sim.real_panes and any(p.get("agent") for w in layout.get("workspaces", []) for p in w.get("panes") or []):
        raise ValueError(
            "with --real-panes a layout holds shells only: start agents with `herdr agent start` or type their command"
        )
    for workspace in layout.get("workspaces", []):
        panes = workspace.get("panes") or [{}]
        ids = [sim.create_workspace(workspace.get("cwd"))]
        for _ in panes[1:]:
            ids.append(sim.split(ids[-1], cwd=workspace.get("cwd")))  # left to right, in layout order
        for pane_id, spec in zip(ids, panes, strict=True):
            if spec.get("agent"):
                sim.add_agent(pane_id, spec["agent"], name=spec.get("name"), hook_only=bool(spec.get("hook_only")))


def _request(socket_path: str, request: dict[str, Any]) -> dict[str, Any]:
    """One request on the simulator's socket, as any Herdr socket client sends it."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(10)
        connection.connect(socket_path)
        connection.sendall(json.dumps(request).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
    reply: dict[str, Any] = json.loads(data)
    return reply


def _env_lines(socket_path: str, pane_id: str) -> list[str]:
    bin_path = str(Path(socket_path).parent / "bin" / "herdr")
    sim_env = {"HERDR_ENV": "1", "HERDR_SOCKET_PATH": socket_path, "HERDR_BIN_PATH": bin_path}
    reply = _request(socket_path, {"id": "herdr-sim:env", "method": "pane.get", "params": {"pane_id": pane_id}})
    if "error" in reply:
        raise HerdrError(reply["error"]["code"], reply["error"]["message"])
    pane = reply["result"]["pane"]
    sim_env.update(HERDR_WORKSPACE_ID=pane["workspace_id"], HERDR_TAB_ID=pane["tab_id"], HERDR_PANE_ID=pane["pane_id"])
    return [f"export {key}={shlex.quote(value)}" for key, value in sim_env.items()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``herdr-sim``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="herdr-sim",
        description="Run a simulated Herdr in the foreground, or print a pane's environment.",
        epilog=_LAYOUT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"herdr-sim {version('herdr-link-testkit')}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve",
        help="run the simulator in the foreground",
        description="Run a simulated Herdr in the foreground until Ctrl-C or SIGTERM, printing its panes.",
    )
    serve.add_argument("--socket", required=True, help="socket path (keep it under ~100 bytes)")
    serve.add_argument("--layout", type=Path, help="JSON layout file to set up first")
    serve.add_argument(
        "--herdr-version", choices=sorted(HERDR_VERSIONS), default=DEFAULT_RELEASE, help="the Herdr release to simulate"
    )
    serve.add_argument(
        "--real-panes",
        action="store_true",
        help="make every pane a real terminal running $SHELL (Linux; needs herdr-link-testkit[real-panes])",
    )
    env = commands.add_parser(
        "env",
        help="print the export lines of a process in a pane",
        description="Print the export lines a process in that pane of a running simulator sees.",
    )
    env.add_argument("--socket", required=True)
    env.add_argument("--pane", required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "env":
            try:
                lines = _env_lines(args.socket, args.pane)
            except OSError as error:  # nothing listens there: say where it looked
                reason = error.strerror or error
                print(f"herdr-sim env: no simulator answers at {args.socket} ({reason})", file=sys.stderr)  # noqa: T201
                return 1
            print("\n".join(lines))  # noqa: T201
            return 0
        with HerdrSim(
            Path(args.socket).parent,
            socket_name=Path(args.socket).name,
            herdr_version=args.herdr_version,
            real_panes=args.real_panes,
        ) as sim:
            if args.layout is not None:
                _apply_layout(sim, _read_layout(args.layout))
            for pane_id in sim.pane_ids():
                print(f"pane {pane_id}", flush=True)  # noqa: T201
            print(f"serving on {args.socket}; HERDR_BIN_PATH={sim.bin_path}", flush=True)  # noqa: T201
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            try:
                stop.wait()
            except KeyboardInterrupt:
                return 130
        return 0
    except (OSError, ValueError, KeyError, RuntimeError, HerdrError) as error:
        print(f"herdr-sim: {_said(error)}", file=sys.stderr)  # noqa: T201
        return 1
