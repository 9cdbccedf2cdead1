"""Herdr Link's native Pi extension: generated JavaScript over ``herdr-link-bridge`` and its installer."""

from ._checks import ExtensionState, extension_status
from ._extension import EXTENSION_FILE, GENERATOR, build, extension_text, link_data, packaged_extension
from ._install import InstallResult, install, plan, target_path, uninstall

__all__ = [
    "EXTENSION_FILE",
    "GENERATOR",
    "ExtensionState",
    "InstallResult",
    "build",
    "extension_status",
    "extension_text",
    "install",
    "link_data",
    "packaged_extension",
    "plan",
    "target_path",
    "uninstall",
]
