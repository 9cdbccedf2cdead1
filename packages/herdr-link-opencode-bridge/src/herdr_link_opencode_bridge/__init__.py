"""The OpenCode plugin files of Herdr Link: generated JavaScript stubs over ``herdr-link-bridge``.

``herdr-link-opencode-bridge build`` writes them and their manifest; the package ships the built
files (``bundles/``), and installers take them from there. :func:`classify_plugin` tells
what an installed file is (the doctor and the installer use it).
"""

from ._bundles import (
    GENERATOR,
    MANIFEST_FILE,
    OPENCODE_V2_REVISION,
    RUNTIMES,
    Runtime,
    build,
    bundle_text,
    link_data,
    manifest,
    packaged_dir,
)
from ._checks import PLUGIN_FILE, PluginState, classify_plugin

__all__ = [
    "GENERATOR",
    "MANIFEST_FILE",
    "OPENCODE_V2_REVISION",
    "PLUGIN_FILE",
    "RUNTIMES",
    "PluginState",
    "Runtime",
    "build",
    "bundle_text",
    "classify_plugin",
    "link_data",
    "manifest",
    "packaged_dir",
]
