"""The real-host rig: every test runs inside an isolated network namespace (see ``isolate.py``),
with a DNS recorder on loopback; each test asserts no host tried to resolve a name.

Under pytest-xdist (``-n 2``) each worker runs in namespaces of its own (``isolate.py --again``), so
its recorder hears only its own tests' hosts, and sends the matrix rows its tests recorded to the
controller, which writes ``docs/host-matrix.md`` once, as a serial run would."""

import json
import os
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from dns_recorder import DnsRecorder  # noqa: E402

from herdr_link_control import surface_violation  # noqa: E402


@pytest.fixture
def herdr_command_policy() -> Callable[[Sequence[str]], str | None]:
    """Every argv any host's adapter hands the simulated ``herdr`` must be on spec §8's surface."""
    return surface_violation


def _isolated() -> str | None:
    """Why this is not an isolated rig, or ``None`` when it is."""
    interfaces = [line.split(":")[0].strip() for line in Path("/proc/net/dev").read_text().splitlines()[2:]]
    if interfaces != ["lo"]:
        return f"network interfaces {interfaces}: run through `nox -s real_hosts` (tests/real_hosts/isolate.py)"
    if "nameserver 127.0.0.1" not in Path("/etc/resolv.conf").read_text():
        return "/etc/resolv.conf does not point at the loopback DNS recorder"
    return None


@pytest.fixture(scope="session")
def isolated() -> None:
    """Fail (never skip) every real-host test that is not inside the isolated namespace."""
    reason = _isolated()
    if reason is not None:
        pytest.fail(f"real hosts must run isolated from the network: {reason}", pytrace=False)


@pytest.fixture(scope="session")
def dns(isolated: None) -> Iterator[DnsRecorder]:
    with DnsRecorder() as recorder:
        yield recorder


@pytest.fixture
def allowed_lookups() -> frozenset[str]:
    """Names a test lets its hosts look up (each with its reason where it is overridden): none."""
    return frozenset()


@pytest.fixture(autouse=True)
def no_name_lookups(dns: DnsRecorder, allowed_lookups: frozenset[str], tmp_path: Path) -> Iterator[None]:
    before = len(dns.names)
    yield
    _end_left_behind(tmp_path)
    names = [name for name in dns.names[before:] if name not in allowed_lookups]
    assert names == [], f"the host tried to resolve {sorted(set(names))}"


def _end_left_behind(tmp_path: Path) -> None:
    """Kill what a host left running from this test's files once its panes are gone: interactive
    Codex 0.171 starts a detached app-server daemon (``~/.codex/packages/app-server-daemon``, its own
    session) that outlives the TUI, as it would on a user's machine. Left running, it would look up
    names during later tests."""
    import os
    import signal

    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(tmp_path) in command:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


ISOLATE = Path(__file__).with_name("isolate.py")
MATRIX_KEY = "herdr_link_matrix"
"""The key of ``workeroutput`` under which an xdist worker sends its matrix rows (JSON) to the controller."""


def pytest_configure(config: pytest.Config) -> None:
    """Start every xdist worker (a plain ``popen`` one) through ``isolate.py --again``: its own loopback,
    its own ``127.0.0.1:53`` for its DNS recorder. Outside the isolated namespace the workers start as
    they are, and the ``isolated`` fixture fails every test."""
    specs = config.getoption("tx", None) if config.pluginmanager.hasplugin("xdist") else None
    if not specs or hasattr(config, "workerinput") or os.environ.get("HERDR_LINK_ISOLATED") != "1":
        return
    python = shlex.join([sys.executable, str(ISOLATE), "--again", sys.executable])
    config.option.tx = [f"popen//python={python}" if spec == "popen" else spec for spec in specs]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    from matrix import ROWS, SCENARIOS, STORY, write

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller writes the matrix
        workeroutput[MATRIX_KEY] = json.dumps({"rows": ROWS, "story": STORY, "scenarios": SCENARIOS})
        return
    if exitstatus == 0 and (ROWS or STORY or SCENARIOS):
        write()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """Gather a finished xdist worker's matrix rows into the controller's (xdist's hook)."""
    from matrix import ROWS, SCENARIOS, STORY

    sent = getattr(node, "workeroutput", {}).get(MATRIX_KEY)
    if sent is not None:
        ran = json.loads(sent)
        ROWS.extend(ran["rows"])
        STORY.update(ran["story"])
        SCENARIOS.extend(ran["scenarios"])
