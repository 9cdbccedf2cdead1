"""``herdr-link/1`` in pure Python: envelopes, the inbound wrapper, the contract, errors and tool specs.

No I/O happens here: text goes in and models come out, models go in and text comes out. Any tool
that wants to read or write Herdr Link messages can depend on this package alone.

Importing the package is cheap: every name loads from its submodule on first use (``lazy_loader``,
PEP 562; the names are listed once, in ``__init__.pyi``), so the constants and texts (what ``herdr-link-mcp hint`` and ``wiring`` print) come without pydantic, and
the models build only when something touches them.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
