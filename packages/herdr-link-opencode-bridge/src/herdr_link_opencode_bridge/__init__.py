"""The OpenCode plugin files of Herdr Link: generated JavaScript stubs over ``herdr-link-bridge``.

``herdr-link-opencode-bridge build`` writes them and their manifest; the package ships the built
files (``bundles/``), and installers take them from there.
"""

from ._bundles import (
    GENERATOR,
    MANIFEST_FILE,
    OPENCODE_V2_REVISION,
    RUNTIMES,
    Runtime,
    build,
    bundle_text,
    manifest,
    packaged_dir,
)

__all__ = [
    "GENERATOR",
    "MANIFEST_FILE",
    "OPENCODE_V2_REVISION",
    "RUNTIMES",
    "Runtime",
    "build",
    "bundle_text",
    "manifest",
    "packaged_dir",
]
