"""``herdr-link-opencode-install``: install Herdr Link's OpenCode plugin safely (verify, back up, atomic
replace, check, roll back)."""

from ._install import (
    EXIT_DUPLICATE,
    InstallError,
    Plan,
    install,
    plan_install,
    plugin_package_version,
    plugin_version_ok,
    runtime_problem,
)
from ._paths import (
    Platform,
    PluginFile,
    ProgramFailed,
    config_dirs,
    current_platform,
    global_config_dir,
    herdr_link_plugins,
    installed_plugin,
    opencode_version,
)
from ._uninstall import uninstall

__all__ = [
    "EXIT_DUPLICATE",
    "InstallError",
    "Plan",
    "Platform",
    "PluginFile",
    "ProgramFailed",
    "config_dirs",
    "current_platform",
    "global_config_dir",
    "herdr_link_plugins",
    "install",
    "installed_plugin",
    "opencode_version",
    "plan_install",
    "plugin_package_version",
    "plugin_version_ok",
    "runtime_problem",
    "uninstall",
]
