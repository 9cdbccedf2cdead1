"""``herdr-link-conformance``: check any ``herdr-link/1`` adapter (a stdio MCP server, a JSON-lines
bridge, or a JavaScript stub of OpenCode or Pi in the kit's host shim) against ``PROTOCOL.md``, each
check on a fresh simulated Herdr.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._adapters import (
        CALL_TIMEOUT as CALL_TIMEOUT,
        CAPABILITIES as CAPABILITIES,
        CAPABILITY_MEANINGS as CAPABILITY_MEANINGS,
        STUB_RUNTIMES as STUB_RUNTIMES,
        Adapter as Adapter,
        AdapterSpec as AdapterSpec,
        Outcome as Outcome,
        open_adapter as open_adapter,
    )
    from ._checks import CHECKS as CHECKS, CheckSpec as CheckSpec, Context as Context, Failed as Failed
    from ._runner import (
        CHECK_TIMEOUT as CHECK_TIMEOUT,
        Result as Result,
        run_checks as run_checks,
        selected as selected,
        to_json as to_json,
    )

    __all__: list[str]

_EXPORTS = {
    "_adapters": [
        "CALL_TIMEOUT",
        "CAPABILITIES",
        "CAPABILITY_MEANINGS",
        "STUB_RUNTIMES",
        "Adapter",
        "AdapterSpec",
        "Outcome",
        "open_adapter",
    ],
    "_checks": [
        "CHECKS",
        "CheckSpec",
        "Context",
        "Failed",
    ],
    "_runner": [
        "CHECK_TIMEOUT",
        "Result",
        "run_checks",
        "selected",
        "to_json",
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
