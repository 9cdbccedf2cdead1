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
