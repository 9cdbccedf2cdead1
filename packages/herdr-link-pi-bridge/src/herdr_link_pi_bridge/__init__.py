"""Herdr Link's native Pi extension: generated JavaScript over ``herdr-link-bridge`` and its installer."""

from ._extension import EXTENSION_FILE, GENERATOR, build, extension_text, packaged_extension
from ._install import InstallResult, install, target_path

__all__ = [
    "EXTENSION_FILE",
    "GENERATOR",
    "InstallResult",
    "build",
    "extension_text",
    "install",
    "packaged_extension",
    "target_path",
]
