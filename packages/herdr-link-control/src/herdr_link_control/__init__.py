"""Herdr Link's control layer: every Herdr call the protocol needs, behind one async facade.

``Link`` runs the ``herdr`` CLI (argv only, never a shell, always with a timeout), classifies every
outcome into the protocol's error codes, and implements peers, send, close, start and the self
identity bootstrap. Adapters (MCP, the JSON-lines bridge) are wiring over ``Link.call``.

Two subpackages stand apart from driving Herdr: :mod:`herdr_link_control.bridge` (the JSON-lines
bridge the JavaScript stubs speak) and :mod:`herdr_link_control.userfiles` (the install core and
the bridge location file, standard library only).

Every name loads from its submodule on first use (``lazy_loader``, PEP 562; ``__init__.pyi`` types
the same names, and a test holds the two lists equal), so importing the package costs only what is
used."""

import lazy_loader

_EXPORTS = {
    "_commands": ["AgentRecord", "HerdrCommandError", "Role", "classify", "surface_violation"],
    "_environment": ["HerdrEnvironment"],
    "_gate": ["GATE_VARIABLES", "in_herdr_pane"],
    "_herdr": ["HerdrCLI", "Timeouts"],
    "_identity": ["Identity", "SelfContext"],
    "_link": ["Link"],
    "_operations": ["DEFAULT_DELIVERY_LIMIT", "Operations", "Survey"],
    "_ordering": ["CallOrder", "Turn"],
    "_runner": ["ProcessRunner", "Runner", "RunResult", "ScriptedRunner", "SpawnFailed"],
    "_start": ["Starter"],
    "_stdio": ["StdioWire", "claimed_stdio", "read_json_lines"],
    "_version": ["__version__"],
}
"""Each submodule and the names it provides (``__init__.pyi`` lists the same, for type checkers)."""

__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs=_EXPORTS)
