"""Herdr Link's control layer: every Herdr call the protocol needs, behind one async facade.

``Link`` runs the ``herdr`` CLI (argv only, never a shell, always with a timeout), classifies every
outcome into the protocol's error codes, and implements peers, send, close, start and the self
identity bootstrap. Adapters (MCP, the JSON-lines bridge) are wiring over ``Link.call``.

Every name loads from its submodule on first use (``lazy_loader``, PEP 562; the names are listed
once, in ``__init__.pyi``), so importing the package costs only what is used.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
