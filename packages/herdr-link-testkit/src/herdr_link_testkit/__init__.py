"""A faithful simulated Herdr for tests and demos: 0.8.2 (socket protocol 20, the default) and a
0.9.0 mode (protocol 22, ``HerdrSim(herdr_version="0.9.0")``; what that mode models, and what it
assumes unchanged, is in ``docs/herdr-versions.md``).

``HerdrSim`` runs the socket server in a background thread and writes a ``herdr`` executable that
behaves like the real CLI; point ``HERDR_BIN_PATH`` at it. This package depends on nothing else of
Herdr Link, so adapters in any language can be tested against it.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only what
is used; the simulated ``herdr`` launcher imports it on every invocation.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing is not imported: the ``herdr`` launcher imports this package
if TYPE_CHECKING:
    from typing import Any

    from ._harness import (
        HerdrSim as HerdrSim,
        write_launcher as write_launcher,
    )
    from ._ids import (
        decode_number as decode_number,
        encode_number as encode_number,
    )
    from ._methods import Simulator as Simulator
    from ._model import (
        AGENT_KINDS as AGENT_KINDS,
        HERDR_VERSIONS as HERDR_VERSIONS,
        Delivery as Delivery,
        HerdrError as HerdrError,
        StartScript as StartScript,
    )
    from ._server import (
        CallLog as CallLog,
        Fault as Fault,
        SimulatorServer as SimulatorServer,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "_harness": (
        "HerdrSim",
        "write_launcher",
    ),
    "_ids": (
        "decode_number",
        "encode_number",
    ),
    "_server": (
        "CallLog",
        "Fault",
        "SimulatorServer",
    ),
    "_methods": ("Simulator",),
    "_model": (
        "AGENT_KINDS",
        "HERDR_VERSIONS",
        "Delivery",
        "HerdrError",
        "StartScript",
    ),
}
"""Each submodule and the public names it defines; the ``TYPE_CHECKING`` imports above say the same."""

_MODULE_OF: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
    if name == "__version__":
        from importlib.metadata import version

        value: Any = version("herdr-link-testkit")
    elif name in _MODULE_OF:
        value = getattr(import_module(f".{_MODULE_OF[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
