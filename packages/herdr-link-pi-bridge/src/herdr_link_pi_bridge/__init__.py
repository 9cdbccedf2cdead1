"""Herdr Link's native Pi extension: generated JavaScript over ``herdr-link-bridge`` and its installer.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._checks import extension_status as extension_status
    from ._extension import (
        EXTENSION_FILE as EXTENSION_FILE,
        GENERATOR as GENERATOR,
        ExtensionState as ExtensionState,
        build as build,
        extension_state as extension_state,
        extension_text as extension_text,
        id_line as id_line,
        link_data as link_data,
        packaged_extension as packaged_extension,
    )
    from ._install import (
        InstallPlan as InstallPlan,
        InstallResult as InstallResult,
        apply as apply,
        install as install,
        plan as plan,
        target_path as target_path,
        uninstall as uninstall,
    )

    __all__: list[str]

_EXPORTS = {
    "_checks": [
        "extension_status",
    ],
    "_extension": [
        "EXTENSION_FILE",
        "GENERATOR",
        "ExtensionState",
        "build",
        "extension_state",
        "extension_text",
        "id_line",
        "link_data",
        "packaged_extension",
    ],
    "_install": [
        "InstallPlan",
        "InstallResult",
        "apply",
        "install",
        "plan",
        "target_path",
        "uninstall",
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
