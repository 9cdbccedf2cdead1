"""pytest fixtures, registered automatically when ``herdr-link-testkit`` is installed.

- ``herdr_sim``: a running :class:`HerdrSim`, new for each test (about a millisecond to start), of
  the release ``--herdr-version`` names (0.8.2 by default, or 0.9.0).
- ``herdr_command_policy``: ``None``, or a function that returns why an argv must not reach Herdr
  (``None`` when it may). Override it in a ``conftest.py``; every test using ``herdr_sim`` then
  fails when any command the simulated ``herdr`` ran breaks the policy.
- ``herdr_pane``: a workspace's root pane whose occupant is the test's own caller; use
  ``herdr_sim.env(herdr_pane)`` for the environment a process in that pane would have.
- ``herdr_real_sim``: a running :class:`HerdrSim` with real panes (each pane a pseudo-terminal
  running a shell; Linux, the ``real-panes`` extra), of the run's ``--herdr-version``; its server
  environment is this process's with ``HOME`` set to the simulator's. Every pane's processes are
  ended when the test ends.
- ``herdr_pane_terminal``: the argument prefix that runs a command as the leader of a pane's terminal
  (:func:`~herdr_link_testkit.pane_terminal`, held for the test): with ``herdr_sim`` serving in this
  process, a command so started shows the pane its environment names, as a host's process in it does.

``--herdr-sim-only`` deselects every test that uses neither ``herdr_sim`` nor ``herdr_real_sim`` (nor a
fixture built on them): ``--herdr-version`` reaches no other test, so a second run of a suite under
another release need only run these.
"""

from collections.abc import Callable, Iterator, Sequence

import pytest

from ._harness import HerdrSim
from ._pane_terminal import pane_terminal
from ._releases import DEFAULT_RELEASE, HERDR_VERSIONS

CommandPolicy = Callable[[Sequence[str]], str | None]


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--herdr-version``: the Herdr release every ``herdr_sim`` of the run simulates."""
    parser.addoption(
        "--herdr-version",
        default=DEFAULT_RELEASE,
        choices=sorted(HERDR_VERSIONS),
        help="the Herdr release the herdr_sim fixture simulates (default 0.8.2)",
    )
    parser.addoption(
        "--herdr-sim-only",
        action="store_true",
        help="run only the tests using herdr_sim or herdr_real_sim, the ones --herdr-version changes",
    )


VERSIONED: frozenset[str] = frozenset({"herdr_sim", "herdr_real_sim"})
"""The fixtures that read ``--herdr-version``."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--herdr-sim-only``, deselect the tests no ``--herdr-version`` can change."""
    if not config.getoption("--herdr-sim-only"):
        return
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (kept if VERSIONED & set(getattr(item, "fixturenames", ())) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


@pytest.fixture
def herdr_command_policy() -> CommandPolicy | None:
    """No policy: any command may reach the simulated Herdr."""
    return None


@pytest.fixture
def herdr_sim(herdr_command_policy: CommandPolicy | None, request: pytest.FixtureRequest) -> Iterator[HerdrSim]:
    """A running simulated Herdr of the run's ``--herdr-version``, isolated per test; its commands are
    checked against the policy."""
    with HerdrSim(herdr_version=request.config.getoption("--herdr-version")) as sim:
        yield sim
        commands = sim.log.commands()
    if herdr_command_policy is not None:
        broken = [reason for argv in commands if (reason := herdr_command_policy(argv)) is not None]
        assert broken == [], "commands outside the allowed surface reached Herdr"


@pytest.fixture
def herdr_real_sim(request: pytest.FixtureRequest) -> Iterator[HerdrSim]:
    """A running simulated Herdr whose panes are real terminals, isolated per test."""
    with HerdrSim(herdr_version=request.config.getoption("--herdr-version"), real_panes=True) as sim:
        yield sim


@pytest.fixture
def herdr_pane(herdr_sim: HerdrSim) -> str:
    """The root pane of a fresh workspace, holding a named ``claude`` agent called ``brain``."""
    pane_id = herdr_sim.create_workspace(str(herdr_sim.root))
    herdr_sim.add_agent(pane_id, "claude", name="brain")
    return pane_id


@pytest.fixture
def herdr_pane_terminal() -> Iterator[tuple[str, ...]]:
    with pane_terminal() as prefix:
        yield prefix
