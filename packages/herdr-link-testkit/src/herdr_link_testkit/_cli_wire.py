"""How the ``herdr`` launcher reaches the simulator: a request file and a named pipe, no socket.

The launcher writes its argv and the environment the CLI reads into a request file, creates its
own reply pipe, and announces the request with one short line on the simulator's request pipe
(``<socket>.cli/requests``; a line that short is written atomically). The simulator runs the
invocation and writes back the exit status, stdout and stderr. Real Herdr's CLI speaks its socket
protocol; this one hands the whole invocation to the simulator, which runs the same CLI steps
(ping guard, request, ``agent start``'s polling) against its own request handler, so the socket
log and the faults see exactly what they would. That keeps each launch to the interpreter's own
start-up: no ``json``, ``socket`` or ``re``.

Standard library only (``os``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Final

CHANNEL_SUFFIX: Final = ".cli"
"""The channel directory is the socket path plus this suffix."""
REQUESTS: Final = "requests"
"""The request pipe's name in the channel directory."""
FORWARDED: Final = ("HERDR_PANE_ID", "HERDR_SOCKET_PATH", "HERDR_SESSION", "XDG_CONFIG_HOME", "HOME")
"""The environment the CLI reads (``docs/herdr.md`` §10), sent with each request."""


def channel_dir(socket_path: str) -> str:
    """Where the simulator serving ``socket_path`` takes CLI invocations."""
    return socket_path + CHANNEL_SUFFIX


def encode_request(pid: int, argv: Sequence[str], env: Mapping[str, str]) -> bytes:
    """NUL-separated fields: pid, argument count, arguments, then ``KEY=VALUE`` pairs (none holds NUL)."""
    fields = [str(pid), str(len(argv)), *argv, *(f"{k}={env[k]}" for k in FORWARDED if k in env)]
    return "\0".join(fields).encode("utf-8", "surrogateescape")


def decode_request(data: bytes) -> tuple[int, list[str], dict[str, str]]:
    """The inverse of :func:`encode_request`."""
    fields = data.decode("utf-8", "surrogateescape").split("\0")
    count = int(fields[1])
    argv = fields[2 : 2 + count]
    env = dict(item.partition("=")[::2] for item in fields[2 + count :])
    return int(fields[0]), argv, env


def encode_reply(code: int, stdout: str, stderr: str) -> bytes:
    """A header line ``<exit> <stdout bytes> <stderr bytes>``, then both streams."""
    out, err = stdout.encode("utf-8", "surrogateescape"), stderr.encode("utf-8", "surrogateescape")
    return f"{code} {len(out)} {len(err)}\n".encode() + out + err


def read_reply(fd: int) -> tuple[int, bytes, bytes]:
    """Read one reply from ``fd`` (blocking until it is complete)."""
    data = b""
    while b"\n" not in data:
        data += _read_some(fd)
    header, _, data = data.partition(b"\n")
    code, out_size, err_size = (int(v) for v in header.split())
    while len(data) < out_size + err_size:
        data += _read_some(fd)
    return code, data[:out_size], data[out_size : out_size + err_size]


def _read_some(fd: int) -> bytes:
    chunk = os.read(fd, 1 << 16)
    if not chunk:
        raise EOFError("the simulator closed the reply pipe")
    return chunk


def json_string(text: str) -> str:
    """``text`` as a JSON string, escaped as serde_json does (for the one error printed without a server)."""
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
    return '"' + "".join(escapes.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 else c) for c in text) + '"'


def server_not_running(request_id: str, path: str, start_command: str) -> str:
    """The ``server_not_running`` line the CLI prints without a server. It is printed from a struct,
    not re-sorted: key order ``id``, then ``error``."""
    message = f"no herdr server is running at {path}; run `{start_command}` to start or attach it"
    code, text = json_string("server_not_running"), json_string(message)
    return f'{{"id":{json_string(request_id)},"error":{{"code":{code},"message":{text}}}}}'
