"""``HerdrSim``: a running simulated Herdr (server thread, fake ``herdr`` executable) and the test API.

Everything a test needs is here: topology set-up, agents of every kind Herdr knows (managed, manual,
hook-only), status changes, exits, pane moves, deliveries, faults, and the call log.
"""

import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

from ._methods import Simulator
from ._model import (
    BlockingScreen,
    Delivery,
    Occupant,
    Pane,
    StartScript,
    canonical_kind,
    valid_agent_name,
)
from ._pane_io import read_text
from ._releases import DEFAULT_RELEASE, RELEASES
from ._server import CallLog, Fault, SimulatorServer
from ._terminal import PaneTerminal, session_processes

__all__ = ["HerdrSim", "write_launcher"]

_PACKAGE_PARENT: Final = Path(__file__).resolve().parent.parent


def write_launcher(path: Path, python: str = sys.executable, release: str = DEFAULT_RELEASE) -> Path:
    """Write an executable ``herdr`` script at ``path`` that runs the simulated CLI.

    It starts Python without ``site`` and without ``PYTHON*`` variables (so its bytecode is cached
    even under ``PYTHONDONTWRITEBYTECODE``) and imports only :mod:`herdr_link_testkit.fake_herdr`,
    which hands the invocation to the simulator: a launch costs little more than the interpreter's
    start-up.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"#!{python} -SE\n"
        "import sys\n"
        f"sys.path.insert(0, {str(_PACKAGE_PARENT)!r})\n"
        "from herdr_link_testkit.fake_herdr import main\n"
        f"raise SystemExit(main(release={release!r}))\n",
        encoding="utf-8",
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


class HerdrSim:
    """A simulated Herdr server (0.8.2 or 0.9.0) with its ``herdr`` CLI, isolated in its own short directory.

    Use it as a context manager. Ids returned by the helpers are Herdr's public ids.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        socket_name: str = "herdr.sock",
        home: str | None = None,
        herdr_version: str = DEFAULT_RELEASE,
        real_panes: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """``herdr_version``: the release modelled, ``"0.8.2"`` (socket protocol 20) or ``"0.9.0"``
        (protocol 22, with 0.9's CLI grammar and prompt timing, ``docs/herdr-versions.md``); its CLI
        speaks the same protocol.

        ``real_panes``: every pane is a pseudo-terminal running a shell, with a terminal emulator
        keeping its screen; agents are what runs in it, found by detection (Linux; needs the
        ``real-panes`` extra). ``env``: the Herdr server's environment, which every pane's shell
        inherits (default: this process's, with ``HOME`` set to ``home``)."""
        if herdr_version not in RELEASES:
            raise ValueError(f"unknown Herdr version {herdr_version!r}; choose one of {', '.join(RELEASES)}")
        # Unix socket paths are limited to 104-108 bytes: keep the directory short (not pytest's tmp_path).
        self._owns_root = root is None
        self.root = Path(tempfile.mkdtemp(prefix="hs-", dir="/tmp") if root is None else root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.socket_path = str(self.root / socket_name)
        self.bin_path = str(self.root / "bin" / "herdr")
        self.home = home or str(self.root / "home")
        # What this simulator makes in a directory it does not own, so that close() removes it again.
        self._made = [p for p in (Path(self.bin_path).parent, Path(self.home)) if not p.exists()]
        Path(self.home).mkdir(parents=True, exist_ok=True)
        self.simulator = Simulator(
            socket_path=self.socket_path,
            bin_path=self.bin_path,
            home=self.home,
            herdr_version=herdr_version,
            real_panes=real_panes,
            server_env=env,
        )
        self.server = SimulatorServer(self.simulator, self.socket_path)
        write_launcher(Path(self.bin_path), release=herdr_version)

    @property
    def real_panes(self) -> bool:
        """Whether every pane is a real terminal (``HerdrSim(real_panes=True)``)."""
        return self.simulator.real_panes

    def __repr__(self) -> str:
        state = "running" if self.server.running else "stopped"
        return f"<HerdrSim {state} socket={self.socket_path!r} panes={len(self.simulator.all_panes())}>"

    # ---- lifecycle -----------------------------------------------------------------------------

    def start(self) -> Self:
        self.server.start()
        return self

    def stop(self) -> None:
        """Stop the server (the socket disappears; the CLI then reports ``server_not_running``)."""
        self.server.stop()

    def close(self) -> None:
        """Stop, and remove what the simulator made: its whole directory when it chose one, else the
        launcher, the channel beside the socket and the directories it created. Real panes' processes
        are ended."""
        self.stop()
        self.simulator.shutdown()  # real panes' processes end, as when Herdr quits
        if self._owns_root:
            shutil.rmtree(self.root, ignore_errors=True)
            return
        Path(self.bin_path).unlink(missing_ok=True)
        shutil.rmtree(self.socket_path + ".cli", ignore_errors=True)
        for made in self._made:
            shutil.rmtree(made, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ---- calls ---------------------------------------------------------------------------------

    def request(self, method: str, **params: Any) -> dict[str, Any]:
        """Run a socket method directly (not logged); raises :class:`HerdrError` on an error reply."""
        return self.simulator.dispatch(method, params)

    @property
    def log(self) -> CallLog:
        """Every CLI argv and socket request seen so far."""
        return self.server.log

    # ---- topology ------------------------------------------------------------------------------

    def create_workspace(self, cwd: str | None = None, *, label: str | None = None) -> str:
        """Create a workspace; returns its root pane id (``w<N>:p1``)."""
        params: dict[str, Any] = {"focus": False}
        if cwd is not None:
            params["cwd"] = cwd
        if label is not None:
            params["label"] = label
        return str(self.request("workspace.create", **params)["root_pane"]["pane_id"])

    def split(self, pane_id: str, *, direction: str = "right", cwd: str | None = None) -> str:
        """Split ``pane_id``; returns the new pane's id."""
        params: dict[str, Any] = {"target_pane_id": pane_id, "direction": direction, "focus": False}
        if cwd is not None:
            params["cwd"] = cwd
        return str(self.request("pane.split", **params)["pane"]["pane_id"])

    def new_tab(self, workspace_id: str, *, cwd: str | None = None, label: str | None = None) -> str:
        """Create a tab; returns its root pane id."""
        params: dict[str, Any] = {"workspace_id": workspace_id, "focus": False}
        if cwd is not None:
            params["cwd"] = cwd
        if label is not None:
            params["label"] = label
        return str(self.request("tab.create", **params)["root_pane"]["pane_id"])

    def move_pane(self, pane_id: str, workspace_id: str) -> str:
        """Move a pane into a new tab of another workspace; returns its new id (the old stays an alias)."""
        destination = {"type": "new_tab", "workspace_id": workspace_id}
        result = self.request("pane.move", pane_id=pane_id, destination=destination, focus=False)
        return str(result["move_result"]["pane"]["pane_id"])

    def pane(self, pane_id: str) -> Pane:
        """The live pane for a current id or alias; raises :class:`KeyError` when there is none."""
        with self.simulator.lock:
            self.simulator._advance()  # apply detection and start transitions that are due
            pane = self.simulator._resolve_pane(pane_id)
        if pane is None:
            raise KeyError(pane_id)
        return pane

    def pane_ids(self, workspace_id: str | None = None) -> list[str]:
        """Current pane ids in Herdr's listing order."""
        params = {} if workspace_id is None else {"workspace_id": workspace_id}
        return [p["pane_id"] for p in self.request("pane.list", **params)["panes"]]

    def exists(self, pane_id: str) -> bool:
        """Whether a pane with this current id (not alias) is live."""
        with self.simulator.lock:
            return self.simulator._canonical_pane(pane_id) is not None

    def env(self, pane_id: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment a process launched in this pane has (launch-time ``HERDR_*`` values).

        On real panes, with no ``base``: exactly what the pane's shell was started with."""
        pane = self.pane(pane_id)
        if self.real_panes and base is None:
            return self.simulator.launch_environment(pane)
        return {**(os.environ if base is None else base), "HOME": self.home, **pane.env}

    # ---- occupants -----------------------------------------------------------------------------

    def add_agent(
        self,
        pane_id: str,
        kind: str,
        *,
        name: str | None = None,
        status: str = "idle",
        detect_after: float = 0.0,
        hook_only: bool = False,
        bracketed_paste: bool = True,
        on_prompt: Callable[[Delivery], None] | None = None,
    ) -> None:
        """Put an agent launched by hand into a shell pane.

        A foreground agent is promptable once detected (after ``detect_after`` seconds). A
        ``hook_only`` agent exists only through ``pane report-agent``: visible to get, list and
        rename, refused by ``agent prompt`` with ``agent_not_ready``.
        """
        label = canonical_kind(kind) or kind
        if self.real_panes and not hook_only:
            raise ValueError("on real panes an agent is what runs in the pane: type its command, or use hook_only")
        with self.simulator.lock:
            pane = self._shell(pane_id)
            if name is not None:
                self._check_name(name, pane)
            now = time.monotonic()
            occupant = Occupant(
                kind=label if detect_after <= 0 else None,
                status=status,
                name=name,
                foreground=not hook_only,
                hook_source="custom:test" if hook_only else None,
                bracketed_paste=bracketed_paste,
                pending_kind=label if detect_after > 0 else None,
                detect_at=now + detect_after,
                on_prompt=on_prompt,
            )
            pane.occupant = occupant
            self.simulator.state_change_seq += 1
            self.simulator._bump(pane)

    def _shell(self, pane_id: str) -> Pane:
        pane = self.simulator._canonical_pane(pane_id)
        if pane is None:
            raise KeyError(pane_id)
        if pane.occupant is not None:
            raise ValueError(f"pane {pane_id} already has an occupant")
        return pane

    def _check_name(self, name: str, pane: Pane) -> None:
        if not valid_agent_name(name):
            raise ValueError(f"invalid agent name: {name!r}")
        holder = self.simulator._name_holder(name)
        if holder is not None and holder is not pane:
            raise ValueError(f"agent name {name} is taken")

    def set_status(self, target: str, status: str) -> None:
        """Set an agent's status (``idle``, ``working``, ``blocked``, ``unknown``) by name or pane id."""
        with self.simulator.lock:
            self.simulator._set_status(self.simulator._resolve_agent(target), status)

    def exit_agent(self, target: str) -> None:
        """The agent process exits: the pane is a plain shell again and the name is cleared."""
        with self.simulator.lock:
            self.simulator._clear_occupant(self.simulator._resolve_agent(target))

    def set_foreground_program(self, pane_id: str, program: str | None) -> None:
        """Run a non-agent program in a shell pane's foreground (``None``: back at the prompt).

        Modelled panes only."""
        self._modelled_only("set_foreground_program")
        with self.simulator.lock:
            self.pane(pane_id).foreground_program = program

    def delay_shell(self, pane_id: str, seconds: float) -> None:
        """Make the pane's shell still initialising for ``seconds`` (``agent start`` sees it busy).

        Modelled panes only."""
        self._modelled_only("delay_shell")
        with self.simulator.lock:
            self.pane(pane_id).shell_ready_at = time.monotonic() + seconds

    def _modelled_only(self, what: str) -> None:
        if self.real_panes:
            raise ValueError(f"{what} is for modelled panes; on a real pane, run the program with type_text")

    # ---- real panes ----------------------------------------------------------------------------

    def type_text(self, pane_id: str, text: str) -> None:
        """Type ``text`` into a real pane as a user at the keyboard would (``\r`` is Enter)."""
        self._terminal(pane_id).write(text.encode())

    def read(self, target: str, *, source: str = "visible", lines: int | None = None) -> str:
        """What ``herdr agent read <target>`` prints; for any real pane (agent or not) by its pane id."""
        with self.simulator.lock:
            pane = self.simulator._canonical_pane(target) or self.simulator._resolve_agent(target)
        text, _ = read_text(pane.terminal, source, lines)
        return text

    def title(self, pane_id: str) -> str:
        """The window title the program in a real pane set."""
        return self._terminal(pane_id).title

    def bracketed_paste(self, pane_id: str) -> bool:
        """Whether the program in a real pane has switched bracketed paste on: a TUI does once it reads
        its composer (a shell does at its prompt)."""
        return self._terminal(pane_id).bracketed_paste

    def received(self, pane_id: str) -> bytes:
        """Every byte Herdr typed into the pane, in order (a modelled pane: what ``agent prompt`` sent)."""
        pane = self.pane(pane_id)
        if pane.terminal is not None:
            return bytes(pane.terminal.received)
        with self.simulator.lock:
            return bytes(pane.received)

    def wait_for(self, condition: Callable[[], bool], *, timeout: float = 30.0, what: str = "the condition") -> None:
        """Poll ``condition`` until it holds; raises :class:`TimeoutError` naming ``what``."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() >= deadline:
                raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.05)

    def blocking_screens(self) -> list[BlockingScreen]:
        """Every screen on which a real pane's agent was detected blocked (a dialog waiting for its
        user), in order, with the pane, the agent, its name then and the title; closed panes' too."""
        with self.simulator.lock:
            return list(self.simulator.blockers)

    def processes(self, pane_id: str) -> list[int]:
        """The live processes of a real pane's session (its shell and everything it started)."""
        terminal = self._terminal(pane_id)
        return session_processes(terminal.process.pid)

    def _terminal(self, pane_id: str) -> "PaneTerminal":
        terminal = self.pane(pane_id).terminal
        if terminal is None:
            raise ValueError(f"pane {pane_id} is not a real pane (HerdrSim(real_panes=True))")
        return terminal

    def script_start(self, kind: str, script: StartScript) -> None:
        """How agents of ``kind`` started with ``agent start`` behave from now on."""
        self.simulator.start_scripts[canonical_kind(kind) or kind] = script

    def agent(self, target: str) -> dict[str, Any]:
        """``agent.get`` for a name or pane id; raises :class:`HerdrError` when not found."""
        return dict(self.request("agent.get", target=target)["agent"])

    def name_of(self, pane_id: str) -> str | None:
        """The Agent Name held in a pane, if any."""
        occupant = self.pane(pane_id).occupant
        return occupant.name if occupant else None

    # ---- deliveries ----------------------------------------------------------------------------

    def deliveries(self, pane_id: str) -> list[Delivery]:
        """Every text delivered to the pane by ``agent prompt``, in order."""
        with self.simulator.lock:
            return list(self.pane(pane_id).deliveries)

    def wait_for_delivery(self, pane_id: str, count: int = 1, timeout: float = 5.0) -> list[Delivery]:
        """Block until the pane has received ``count`` deliveries; raises :class:`TimeoutError`."""
        deadline = time.monotonic() + timeout
        with self.simulator.changed:
            while len(self.pane(pane_id).deliveries) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"pane {pane_id} received fewer than {count} deliveries")
                self.simulator.changed.wait(remaining)
            return list(self.pane(pane_id).deliveries)

    # ---- faults --------------------------------------------------------------------------------

    def fault_cli(self, command: Sequence[str], fault: Fault) -> None:
        """Make the next ``herdr`` invocation starting with ``command`` (e.g. ``("agent","prompt")``) fail."""
        self.server.fault_cli(command, fault)

    def fault_method(self, method: str, fault: Fault) -> None:
        """Make the next socket request of ``method`` fail."""
        self.server.fault_method(method, fault)

    def remove_binary(self) -> None:
        """Delete the ``herdr`` executable, as when a Herdr update replaces it."""
        Path(self.bin_path).unlink(missing_ok=True)
