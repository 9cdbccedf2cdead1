"""Herdr Link, the umbrella distribution: installs every package and provides ``herdr-link``.

Every name loads from its submodule on first use (``lazy_loader``, PEP 562; ``__init__.pyi`` types
the same names, and a test holds the two lists equal), so importing the package costs only what is
used."""

import lazy_loader

_EXPORTS = {
    "_demo": ["DemoEvent", "agent_session", "run_demo"],
    "_doctor": ["Check", "diagnose", "render", "to_json"],
    "_version": ["__version__"],
}
"""Each submodule and the names it provides (``__init__.pyi`` lists the same, for type checkers)."""

__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs=_EXPORTS)
