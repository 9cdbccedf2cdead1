"""Herdr Link, the umbrella distribution: installs every package and provides ``herdr-link``.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only what
is used.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._demo import (
        DemoEvent as DemoEvent,
        agent_session as agent_session,
        run_demo as run_demo,
    )
    from ._doctor import (
        Check as Check,
        diagnose as diagnose,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "_demo": (
        "DemoEvent",
        "agent_session",
        "run_demo",
    ),
    "_doctor": (
        "Check",
        "diagnose",
    ),
}
"""Each submodule and the public names it defines; the ``TYPE_CHECKING`` imports above say the same."""

_MODULE_OF: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
    if name == "__version__":
        from importlib.metadata import version

        value: Any = version("herdr-link")
    elif name in _MODULE_OF:
        value = getattr(import_module(f".{_MODULE_OF[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
