"""The MCP servers the benchmarks run side by side, and the raw JSON-RPC client that drives them.

Ours always (``python -m herdr_link_mcp``). The TypeScript anchor too when ``HERDR_LINK_TS_BUNDLE``
names its ``dist/herdr-link.mcp.js`` and ``node`` is on PATH: the bundle is not on npm and not ours
to commit, so without it every TypeScript figure is one copied from ``anchor-figures.md`` and the
report says so. Both servers are driven the same way, over their real stdio pipes, as hosts drive them.
"""

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

OURS = "ours"
TYPESCRIPT = "TypeScript"
BUNDLE_VARIABLE = "HERDR_LINK_TS_BUNDLE"
COPIED = (
    "copied from `anchor-figures.md` (herdr-link 0.5.1 on another 2-vCPU machine, another fake `herdr` of "
    "about 8 ms per call, another date)"
)
"""Where a TypeScript figure comes from when the bundle did not run beside ours."""
CLIENT_HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}}
OUTSIDE_HERDR = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("HERDR_")}
"""The environment a server gets outside any Herdr pane: no ``HERDR_*``, and bytecode cached as an
installed package's is (``HerdrSim.env(pane, base=OUTSIDE_HERDR)`` puts it in a simulated pane)."""


def servers() -> dict[str, list[str]]:
    """Ours, and the TypeScript bundle when ``HERDR_LINK_TS_BUNDLE`` names one and Node is here."""
    found = {OURS: [sys.executable, "-m", "herdr_link_mcp"]}
    bundle, node = os.environ.get(BUNDLE_VARIABLE), shutil.which("node")
    if bundle and node and os.path.isfile(bundle):
        found[TYPESCRIPT] = [node, bundle]
    return found


def in_a_terminal(command: list[str], env: dict[str, str]) -> tuple["subprocess.Popen[bytes]", int]:
    """``command`` on pipes, leading a session on a pseudo-terminal of its own, as a host in a Herdr pane runs
    its MCP servers (its pane is then shown, not assumed: ``PROTOCOL.md`` §6.1); the process and the
    terminal's other side, for the caller to close."""
    import fcntl
    import pty
    import termios

    terminal, pane_side = pty.openpty()

    def own_terminal() -> None:
        os.setsid()
        fcntl.ioctl(pane_side, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        preexec_fn=own_terminal, pass_fds=(pane_side,),
    )  # fmt: skip
    os.close(pane_side)
    return process, terminal


class StdioServer:
    """One fresh MCP server process on pipes; requests and answers are compact JSON lines.

    It leads a session of its own on a pseudo-terminal, as a host in a Herdr pane runs its MCP servers
    (the pane's terminal is theirs): its pane is then shown, not assumed (``PROTOCOL.md`` §6.1), for
    every client name, Codex's included."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process, self._terminal = in_a_terminal(command, env)
        self._next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its stdout")
        message: dict[str, Any] = json.loads(line)
        return message

    def request_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        on_notification: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Send one request and return its whole reply; notifications on the way go to ``on_notification``."""
        ident = self.request_id()
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}})
        while True:
            message = self.receive()
            if message.get("id") == ident:
                return message
            if on_notification is not None and "method" in message:
                on_notification(message)

    def initialize(self, client: str = "bench") -> dict[str, Any]:
        """``initialize`` then ``notifications/initialized``; the ``initialize`` result."""
        hello = {**CLIENT_HELLO, "clientInfo": {"name": client, "version": "1"}}
        result: dict[str, Any] = self.request("initialize", hello)["result"]
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``; its result."""
        result: dict[str, Any] = self.request("tools/call", {"name": tool, "arguments": arguments})["result"]
        return result

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.process.stdout.close()
        os.close(self._terminal)


@contextmanager
def running(command: list[str], env: dict[str, str], client: str = "bench") -> Iterator[StdioServer]:
    """A server, initialised, closed on exit."""
    server = StdioServer(command, env)
    try:
        server.initialize(client)
        yield server
    finally:
        server.close()


def text_of(result: dict[str, Any]) -> str:
    """The text content of a ``tools/call`` result."""
    return "".join(part["text"] for part in result.get("content", []) if part.get("type") == "text")


def typescript_version() -> str | None:
    """The version the TypeScript bundle reports in ``initialize`` (``None`` when it does not run)."""
    command = servers().get(TYPESCRIPT)
    if command is None:
        return None
    server = StdioServer(command, OUTSIDE_HERDR)
    try:
        version: str = server.initialize()["serverInfo"]["version"]
    finally:
        server.close()
    return version
