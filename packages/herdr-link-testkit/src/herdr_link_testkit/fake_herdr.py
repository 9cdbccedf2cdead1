"""The simulated ``herdr`` executable: Herdr 0.8.2's CLI for the commands Herdr Link touches.

It hands each invocation to the running simulator (:mod:`._cli_wire`), which runs the CLI's steps
(:mod:`._cli_invocation`) and sends back the exit status and both streams; this process prints
them. With no simulator to reach, it answers alone, as the real CLI does without a server: usage
errors and help as usual (exit 2 or 0, no socket access), anything else ``server_not_running``.

Launches stay cheap: this module and the two it imports use ``os`` and ``sys`` only, and the
launcher script (:func:`herdr_link_testkit.write_launcher`) starts Python without ``site``.
"""

from __future__ import annotations

import os
import sys
import time

from ._cli_args import route
from ._cli_global import global_options
from ._cli_wire import REQUESTS, channel_dir, encode_request, read_reply, server_not_running
from ._releases import DEFAULT_RELEASE
from ._usage import Usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def _hand_over(path: str, argv: list[str]) -> tuple[int, bytes, bytes] | None:
    """Run the invocation in the simulator serving ``path``; ``None`` when there is none."""
    directory = channel_dir(path)
    stem = os.path.join(directory, f"{os.getpid()}-{time.monotonic_ns()}")
    try:
        requests = os.open(os.path.join(directory, REQUESTS), os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # no such pipe, or nobody reads it: no simulator
        return None
    try:
        fd = os.open(stem + ".req", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, encode_request(os.getpid(), argv, os.environ))
        finally:
            os.close(fd)
        os.mkfifo(stem + ".rep", 0o600)
        reply = os.open(stem + ".rep", os.O_RDWR)  # open before announcing: the reply always has a reader
        os.write(requests, (stem + "\n").encode())
    finally:
        os.close(requests)
    try:
        return read_reply(reply)
    finally:
        os.close(reply)


def _alone(args: list[str], path: str, start_command: str, release: str) -> int:
    """What the CLI prints with no server: its own usage errors and help, else ``server_not_running``."""
    try:
        request_id, kind, detail = route(args, os.environ, release)
    except Usage as error:
        sys.stderr.write(f"{error}\n")
        return 2
    except OSError as error:  # a bad option value the CLI rejects before it connects
        sys.stderr.write(f"Error: {error}\n")
        return 1
    if kind == "exit":
        code, out, err = detail
        sys.stdout.write(out)
        sys.stderr.write(err)
        return int(code)
    sys.stderr.write(server_not_running(request_id, path, start_command) + "\n")
    return 1


def main(argv: Sequence[str] | None = None, *, release: str = DEFAULT_RELEASE) -> int:
    """Run one ``herdr`` invocation and return its exit status (``release``: whose CLI this is)."""
    raw = list(sys.argv[1:] if argv is None else argv)
    try:
        args, path, start_command = global_options(raw, os.environ)
    except Usage as error:
        sys.stderr.write(f"{error}\n")
        return 2
    done = _hand_over(path, raw)
    if done is None:
        return _alone(args, path, start_command, release)
    code, out, err = done
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
