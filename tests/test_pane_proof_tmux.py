"""The pane proof against a real tmux (issue 70): a tmux server started from a pane of the simulated Herdr
(whose real panes are held as Herdr's server holds them: the pseudo-terminal's master in the process
serving the socket) gives its windows the pane's variables, or another pane's with ``new-window -e``; a
process in such a window shows no pane, while the same process typed into the pane itself shows it."""

import shutil
import sys
import time
from pathlib import Path

import pytest

from herdr_link_testkit import HerdrSim

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pane is read from /proc (Linux)")
READ = "import os; from herdr_link_control import read_pane_evidence as r; print(r(os.environ).terminal.name)"
WAIT = 60.0


def _verdict(path: Path) -> str:
    deadline = time.monotonic() + WAIT
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"nothing written to {path}"
        time.sleep(0.05)
    return path.read_text().strip()


def test_a_process_in_a_tmux_window_started_in_a_pane_shows_no_pane(tmp_path: Path) -> None:
    tmux = shutil.which("tmux")
    assert tmux is not None, "tmux is needed (nox -s integration installs it from Debian's packages)"
    socket = tmp_path / "tmux.sock"
    (tmp_path / "read.py").write_text(READ)
    read = f"{sys.executable} {tmp_path / 'read.py'}"
    with HerdrSim(real_panes=True) as sim:
        alpha = sim.create_workspace(str(tmp_path))
        beta = sim.split(alpha)
        sim.wait_for(lambda: sim.read(alpha).rstrip().endswith(("#", "$")), timeout=WAIT, what="a shell prompt")
        sim.type_text(alpha, f"{read} > {tmp_path / 'pane'}\r")  # the pane itself: shown
        sim.type_text(
            alpha, f"{tmux} -S {socket} -f /dev/null new-session -d '{read} > {tmp_path / 'window'}; sleep 60'\r"
        )
        sim.type_text(
            alpha, f"{tmux} -S {socket} new-window -e HERDR_PANE_ID={beta} '{read} > {tmp_path / 'given'}; sleep 60'\r"
        )
        try:
            verdicts = {name: _verdict(tmp_path / name) for name in ("pane", "window", "given")}

        finally:
            sim.type_text(alpha, f"{tmux} -S {socket} kill-server\r")
    assert verdicts == {"pane": "SAME", "window": "FOREIGN", "given": "FOREIGN"}
