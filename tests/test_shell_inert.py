"""What Herdr Link types is inert if it lands in a shell (issue "A Link message never acts for the user").

Herdr types a wrapper into whatever reads the target's terminal: normally the agent, but after an agent
exits (its name still accepted for a moment) or while detection lags, an interactive shell. Here every
message of a hostile set is delivered, as Herdr delivers it (the text, in bracketed paste or not, then
Enter 300 ms later), into bash (Debian's ``/etc/bash.bashrc``, no ``~/.bashrc``), ``dash -i``, zsh (an
empty ``~/.zshrc``: interactive comments off, no new-user menu) and fish (its defaults), one
pseudo-terminal session per shell and mode. Each message would create a file in a canary folder if any
of it ran, and after each one a sentinel command is typed: its output proves that no quote or
continuation was left open. The shells come from Debian's packages, which ``nox -s integration``
installs when they are missing (CI runs as root); a missing shell fails, it is never skipped.
"""

import shutil
import time

import pytest
from terminal_session import Session

from herdr_link_protocol import build_envelope, build_wrapper

PRINTABLE = "".join(chr(point) for point in range(0x20, 0x7F))

MESSAGES = (
    "don't; touch {c}/a; #",
    '"; touch {c}/b; "',
    "'; touch {c}/c; '",
    "$(touch {c}/d)",
    "`touch {c}/e`",
    "$((1+1)) ${X:=$(touch {c}/f)}",
    "!! !-1 !touch ^echo^touch {c}/g^",
    "<(touch {c}/h) >(touch {c}/i)",
    "; touch {c}/j && touch {c}/k || touch {c}/l | touch {c}/m & touch {c}/n",
    "> {c}/o < /etc/hostname 2> {c}/p",
    "x <<EOF\ntouch {c}/q\nEOF",
    "(touch {c}/r)",
    "# touch {c}/s",
    "trailing backslash \\",
    'a lone " quote',
    "$HOME ~ * ? [a] {a,b} %self",
    PRINTABLE + " touch {c}/t",
    "touch {c}/u\n" * 3,
    ("long " + "x" * 70 + " ") * 45 + "$(touch {c}/v)",
)
"""Each would create a file in the canary folder (``{c}``) if any part of it ran or expanded. The long one
keeps its envelope line under 4,095 bytes: see ``test_a_line_longer_than_the_terminal_buffer_in_dash``."""

SHELLS = {
    "bash": ["bash", "-i"],
    "dash": ["dash", "-i"],
    "zsh": ["zsh", "-i"],
    "fish": ["fish", "-i"],
}


def _shell(name: str) -> list[str]:
    argv = SHELLS[name]
    assert shutil.which(argv[0]), f"{argv[0]} is not installed: `nox -s integration` installs it from Debian's packages"
    return argv


@pytest.mark.parametrize("bracketed", [True, False], ids=["bracketed-paste", "plain"])
@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_a_delivered_wrapper_runs_and_expands_nothing_in_a_shell(shell, bracketed, tmp_path):
    home, canary = tmp_path / "home", tmp_path / "canary"
    home.mkdir()
    canary.mkdir()
    (home / ".zshrc").write_text("")  # zsh's own defaults, without its new-user menu
    session = Session(_shell(shell), home)
    log = canary / "log"
    try:
        session.type(b"echo READY_''OK\r")
        session.read_until(b"READY_OK")
        for number, template in enumerate(MESSAGES):
            envelope = build_envelope("reviewer", "worker", template.replace("{c}", str(canary)))
            session.deliver(build_wrapper(envelope), bracketed=bracketed)
            session.type(f"echo SENTINEL_{number}_''OK; echo {number} >> {log}\r".encode())
            session.read_until(f"SENTINEL_{number}_OK".encode())
    finally:
        session.close()
    made = sorted(path.name for path in canary.iterdir() if path.name != "log")
    assert made == [], f"{shell}: a message ran: {made}"
    numbers = log.read_text().split()
    assert numbers == [str(n) for n in range(len(MESSAGES))], f"{shell}: a command ran again: {numbers}"


def test_the_sentinel_sees_a_wrapper_that_leaves_a_quote_open(tmp_path):
    """The check can fail: the wrapper of Herdr Link 0.1 (an apostrophe in its fixed text) runs the message
    ``don't; touch …; #`` in bash."""
    home, canary = tmp_path / "home", tmp_path / "canary"
    home.mkdir()
    canary.mkdir()
    old_header = (
        "[herdr-link/1] Message for you from another agent via Herdr Link (herdr_link tool).\n"
        'The last line is its envelope: "message" is the content, "from" is the sender\'s Agent Name.\n'
        'To reply, call herdr_link with {} if it is not active yet, then send your reply to "from".\n'
    )
    line = '{"protocol":"herdr-link/1","id":"hl_a_b","from":"reviewer","to":"worker","message":"'
    session = Session(_shell("bash"), home)
    try:
        session.type(b"echo READY_''OK\r")
        session.read_until(b"READY_OK")
        session.deliver(old_header + line + f"don't; touch {canary}/ran; #" + '"}', bracketed=True)
        session.type(b"echo SENTINEL_''OK\r")
        session.read_until(b"SENTINEL_OK")
    finally:
        session.close()
    assert (canary / "ran").exists()


def test_a_line_longer_than_the_terminal_buffer_in_dash(tmp_path):
    """The residual risk, shown (``docs/hosts.md``): a shell without a line editor (dash, sh) reads the
    terminal in canonical mode, where the kernel keeps at most 4,095 bytes of a line. A longer envelope
    line is cut, its closing quote with it, and the shell waits for the rest: nothing ran, but the quote
    stays open (until Ctrl-C, or a later text closes it). Shells with a line editor (bash, zsh, fish)
    read the whole line (the test above)."""
    home, canary = tmp_path / "home", tmp_path / "canary"
    home.mkdir()
    canary.mkdir()
    session = Session(_shell("dash"), home)
    try:
        session.type(b"echo READY_''OK\r")
        session.read_until(b"READY_OK")
        message = "x" * 5000 + f"$(touch {canary}/ran); touch {canary}/ran"
        session.deliver(build_wrapper(build_envelope("reviewer", "worker", message)), bracketed=False)
        session.type(b"echo OPEN_''QUOTE\r")
        time.sleep(2)
        session.drain()
        assert b"OPEN_QUOTE" not in session.seen  # still inside the cut line's string: the shell waits
    finally:
        session.close()
    assert list(canary.iterdir()) == []
