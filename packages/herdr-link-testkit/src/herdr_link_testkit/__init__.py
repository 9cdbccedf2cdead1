"""A faithful simulated Herdr for tests and demos: 0.8.2 (socket protocol 20, the default) and a
0.9.0 mode (protocol 22, ``HerdrSim(herdr_version="0.9.0")``; what that mode models, and what it
assumes unchanged, is in ``docs/herdr-versions.md``).

``HerdrSim`` runs the socket server in a background thread and writes a ``herdr`` executable that
behaves like the real CLI; point ``HERDR_BIN_PATH`` at it. This package depends on nothing else of
Herdr Link, so adapters in any language can be tested against it.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used (the simulated ``herdr`` launcher imports it on every invocation). The names
are written once, as the ``TYPE_CHECKING`` imports below (what a reader and a type checker read);
the loader after them is generated from them (``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing is not imported: the ``herdr`` launcher imports this package
if TYPE_CHECKING:
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
        BlockingScreen as BlockingScreen,
        Delivery as Delivery,
        HerdrError as HerdrError,
        StartScript as StartScript,
    )
    from ._server import (
        CallLog as CallLog,
        Fault as Fault,
        SimulatorServer as SimulatorServer,
    )
    from ._version import __version__ as __version__

    __all__: list[str]

_EXPORTS = {
    "_harness": [
        "HerdrSim",
        "write_launcher",
    ],
    "_ids": [
        "decode_number",
        "encode_number",
    ],
    "_methods": [
        "Simulator",
    ],
    "_model": [
        "AGENT_KINDS",
        "HERDR_VERSIONS",
        "BlockingScreen",
        "Delivery",
        "HerdrError",
        "StartScript",
    ],
    "_server": [
        "CallLog",
        "Fault",
        "SimulatorServer",
    ],
    "_version": [
        "__version__",
    ],
}
"""Each submodule and the names it provides: generated from the imports above."""

if not TYPE_CHECKING:  # type checkers read the imports above, so a misspelt name stays an error
    _MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
    __all__ = sorted(_MODULE_OF)

    def __getattr__(name):
        """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
        if name not in _MODULE_OF:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        submodule = __import__(f"{__name__}.{_MODULE_OF[name]}", fromlist=[name])  # no importlib to load
        value = getattr(submodule, name)
        globals()[name] = value
        return value

    def __dir__():
        return sorted({*globals(), *__all__})
