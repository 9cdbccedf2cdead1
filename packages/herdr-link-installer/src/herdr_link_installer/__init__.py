"""``herdr-link-opencode-install``: install Herdr Link's OpenCode plugin safely (verify, back up, atomic
replace, check, roll back)."""

from ._install import InstallError, Plan, install, plan_install
from ._paths import Platform, config_dirs, global_config_dir

__all__ = ["InstallError", "Plan", "Platform", "config_dirs", "global_config_dir", "install", "plan_install"]
