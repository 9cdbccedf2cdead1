"""The claimed stdio wire: children never read protocol bytes or write onto the wire."""

import json
import subprocess
import sys
import textwrap

from stdio_probe import holds_null_stdin_and_stderr_stdout

from herdr_link_testkit import HerdrSim

PROGRAM = textwrap.dedent(
    """
    import json, subprocess, sys
    import anyio
    from herdr_link_control import claimed_stdio, read_json_lines

    CHILD = "import sys; data = sys.stdin.buffer.read(); print('child stdout'); sys.stderr.write(repr(data))"

    async def main(wire):
        async for line in read_json_lines(wire.read_fd):
            child = subprocess.run([sys.executable, "-c", CHILD], stderr=subprocess.PIPE)  # inherits 0 and 1
            print("stray print")  # sys.stdout is fd 1: the operator log now
            sys.stdout.flush()
            reply = {"id": line.request_id, "child_read": child.stderr.decode()}
            wire.write(json.dumps(reply).encode() + b"\\n")

    with claimed_stdio() as wire:
        anyio.run(main, wire)
    """
)


def test_a_child_reads_end_of_file_and_its_output_misses_the_wire():
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        input=b'{"id":1}\n{"id":2}\n',
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies == [{"id": 1, "child_read": "b''"}, {"id": 2, "child_read": "b''"}]
    assert done.stderr.count(b"child stdout") == 2 and done.stderr.count(b"stray print") == 2


def test_the_bridge_holds_the_null_device_on_fd_0_and_stderr_on_fd_1(herdr_sim: HerdrSim, tmp_path):
    holds_null_stdin_and_stderr_stdout(herdr_sim, tmp_path, "herdr_link_control.bridge")


def test_with_stdin_closed_the_wire_still_lands_above_0_to_2_and_no_child_gets_it():
    """fd 0 closed at start: the copy of fd 1 would be numbered 0, where a child reads its stdin; it is
    taken above 2 instead."""
    program = textwrap.dedent(
        """
        from herdr_link_control import claimed_stdio

        with claimed_stdio() as wire:
            wire.write(f"write_fd={wire.write_fd}\\n".encode())
        """
    )
    done = subprocess.run(
        ["sh", "-c", f'exec "{sys.executable}" -c "$0" 0<&-', program], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.decode().strip().removeprefix("write_fd=")) >= 3, done.stdout
    assert b"cannot be copied" in done.stderr  # fd 0 was closed: served in place, and the log says so
