"""``herdr-link-opencode-install``: install Herdr Link's OpenCode plugin safely (verify, back up, atomic
replace, check, roll back).

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._install import (
        EXIT_DUPLICATE as EXIT_DUPLICATE,
        InstallError as InstallError,
        Plan as Plan,
        install as install,
        plan_install as plan_install,
        plugin_package_version as plugin_package_version,
        plugin_version_ok as plugin_version_ok,
        runtime_problem as runtime_problem,
    )
    from ._paths import (
        Platform as Platform,
        PluginFile as PluginFile,
        ProgramFailed as ProgramFailed,
        config_dirs as config_dirs,
        current_platform as current_platform,
        global_config_dir as global_config_dir,
        herdr_link_plugins as herdr_link_plugins,
        installed_plugin as installed_plugin,
        opencode_version as opencode_version,
    )
    from ._uninstall import uninstall as uninstall

    __all__: list[str]

_EXPORTS = {
    "_install": [
        "EXIT_DUPLICATE",
        "InstallError",
        "Plan",
        "install",
        "plan_install",
        "plugin_package_version",
        "plugin_version_ok",
        "runtime_problem",
    ],
    "_paths": [
        "Platform",
        "PluginFile",
        "ProgramFailed",
        "config_dirs",
        "current_platform",
        "global_config_dir",
        "herdr_link_plugins",
        "installed_plugin",
        "opencode_version",
    ],
    "_uninstall": [
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
