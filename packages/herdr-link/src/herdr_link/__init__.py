"""Herdr Link, the umbrella distribution: installs every package and provides ``herdr-link``.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._demo import DemoEvent as DemoEvent, agent_session as agent_session, run_demo as run_demo
    from ._doctor import Check as Check, diagnose as diagnose, render as render, to_json as to_json
    from ._version import __version__ as __version__

    __all__: list[str]

_EXPORTS = {
    "_demo": [
        "DemoEvent",
        "agent_session",
        "run_demo",
    ],
    "_doctor": [
        "Check",
        "diagnose",
        "render",
        "to_json",
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
