"""The pytest plugin's command policy: a test that makes Herdr run a refused command fails."""

pytest_plugins = ["pytester"]

CHECKED = """
import subprocess

import pytest


@pytest.fixture
def herdr_command_policy():
    return lambda argv: "no waiting" if argv[:2] == ("agent", "wait") else None


def test_allowed(herdr_sim):
    pane = herdr_sim.create_workspace("/tmp")
    subprocess.run([str(herdr_sim.bin_path), "agent", "list"], env=herdr_sim.env(pane), capture_output=True)


def test_refused(herdr_sim):
    pane = herdr_sim.create_workspace("/tmp")
    subprocess.run([str(herdr_sim.bin_path), "agent", "wait", "x"], env=herdr_sim.env(pane), capture_output=True)
"""


def test_a_command_outside_the_policy_fails_the_test_that_ran_it(pytester):
    pytester.makepyfile(CHECKED)
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2, errors=1)  # the refused test errors at teardown
    result.stdout.fnmatch_lines(["*commands outside the allowed surface reached Herdr*"])


def test_without_a_policy_every_command_may_run(pytester):
    pytester.makepyfile(CHECKED.replace('"no waiting" if argv[:2] == ("agent", "wait") else None', "None"))
    pytester.runpytest_subprocess().assert_outcomes(passed=2)


MIXED = """
import pytest

from herdr_link_testkit import HerdrSim


@pytest.fixture
def pane(herdr_sim):
    return herdr_sim.create_workspace("/tmp")


def test_fixture(herdr_sim):
    assert herdr_sim.simulator.release == "0.9.0"


def test_through_a_fixture(pane):
    assert pane


def test_real(herdr_real_sim):
    assert herdr_real_sim.simulator.release == "0.9.0"


def test_own_simulator():
    with HerdrSim() as sim:
        assert sim.simulator.release == "0.8.2"


def test_no_simulator():
    assert True
"""


def test_herdr_sim_only_runs_the_tests_a_herdr_version_reaches_and_deselects_the_rest(pytester):
    """``--herdr-sim-only`` keeps the tests using ``herdr_sim`` or ``herdr_real_sim`` (directly or through
    another fixture); a test with its own ``HerdrSim`` or none runs the same under any ``--herdr-version``."""
    pytester.makepyfile(MIXED)
    result = pytester.runpytest_subprocess("--herdr-version", "0.9.0", "--herdr-sim-only", "-v")
    result.assert_outcomes(passed=3, deselected=2)
    result.stdout.fnmatch_lines(["*test_fixture PASSED*", "*test_through_a_fixture PASSED*", "*test_real PASSED*"])
    pytester.runpytest_subprocess("--herdr-version", "0.9.0").assert_outcomes(passed=5)
