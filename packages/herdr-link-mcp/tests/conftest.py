from collections.abc import Callable, Sequence

import pytest

from herdr_link_control import surface_violation


@pytest.fixture
def herdr_command_policy() -> Callable[[Sequence[str]], str | None]:
    """Every command these tests make Herdr run must be on spec §8's surface."""
    return surface_violation
