"""The OpenCode plugin files of Herdr Link: generated JavaScript stubs over ``herdr-link-bridge``.

``herdr-link-opencode-bridge build`` writes them and their manifest; the package ships the built
files (``bundles/``), and installers take them from there. :func:`classify_plugin` tells
what an installed file is (the doctor and the installer use it).

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._bundles import (
        GENERATOR as GENERATOR,
        MANIFEST_FILE as MANIFEST_FILE,
        OPENCODE_V2_REVISION as OPENCODE_V2_REVISION,
        RUNTIMES as RUNTIMES,
        Runtime as Runtime,
        build as build,
        bundle_text as bundle_text,
        link_data as link_data,
        manifest as manifest,
        packaged_dir as packaged_dir,
    )
    from ._checks import PLUGIN_FILE as PLUGIN_FILE, PluginState as PluginState, classify_plugin as classify_plugin

    __all__: list[str]

_EXPORTS = {
    "_bundles": [
        "GENERATOR",
        "MANIFEST_FILE",
        "OPENCODE_V2_REVISION",
        "RUNTIMES",
        "Runtime",
        "build",
        "bundle_text",
        "link_data",
        "manifest",
        "packaged_dir",
    ],
    "_checks": [
        "PLUGIN_FILE",
        "PluginState",
        "classify_plugin",
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
