"""Herdr Link, the umbrella distribution: installs every package and provides ``herdr-link``.

Every name loads from its submodule on first use (``lazy_loader``, PEP 562; the names are listed
once, in ``__init__.pyi``), so importing the package costs only what is used.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
