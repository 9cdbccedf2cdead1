"""``herdr-link-opencode-install``: install Herdr Link's OpenCode plugin safely (verify, back up, atomic
replace, check, roll back)."""

from ._install import InstallError, Plan, install, plan_install
from ._paths import Platform, config_dirs, current_platform, global_config_dir, installed_plugin
from ._uninstall import uninstall

__all__ = [
    "InstallError",
    "Plan",
    "Platform",
    "config_dirs",
    "current_platform",
    "global_config_dir",
    "install",
    "installed_plugin",
    "plan_install",
    "uninstall",
]
