"""pytest fixtures, registered automatically when ``herdr-link-testkit`` is installed.

- ``herdr_sim``: a running :class:`HerdrSim`, new for each test (about a millisecond to start).
- ``herdr_pane``: a workspace's root pane whose occupant is the test's own caller; use
  ``herdr_sim.env(herdr_pane)`` for the environment a process in that pane would have.
"""

from collections.abc import Iterator

import pytest

from ._harness import HerdrSim


@pytest.fixture
def herdr_sim() -> Iterator[HerdrSim]:
    """A running simulated Herdr, isolated per test."""
    with HerdrSim() as sim:
        yield sim


@pytest.fixture
def herdr_pane(herdr_sim: HerdrSim) -> str:
    """The root pane of a fresh workspace, holding a named ``claude`` agent called ``brain``."""
    pane_id = herdr_sim.create_workspace(str(herdr_sim.root))
    herdr_sim.add_agent(pane_id, "claude", name="brain")
    return pane_id
