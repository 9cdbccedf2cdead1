"""What a plugin file is, compared with the bundles this package ships. Reads only."""

import hashlib
import json
from typing import Final, Literal

from herdr_link_control.hosts import host_extension
from herdr_link_control.userfiles import made_by

from ._bundles import GENERATOR, MANIFEST_FILE, packaged_dir

__all__ = ["PLUGIN_FILE", "PluginState", "classify_plugin"]

PLUGIN_FILE: Final = host_extension("opencode").file_name
"""The plugin's file name in OpenCode's plugin directory (``herdr-link.js``, from the host table's OpenCode row)."""
PluginState = Literal["current", "older", "modified", "foreign", "absent"]
"""What an installed plugin file is: our current bundle, an older one of ours, ours edited, another's, or none."""


def classify_plugin(data: bytes) -> tuple[PluginState, str]:
    """What a file is, compared with the packaged manifest: ours (current or older), modified, or foreign;
    and for a modified one, its first line."""
    manifest = json.loads((packaged_dir() / MANIFEST_FILE).read_text(encoding="utf-8"))
    digest = hashlib.sha256(data).hexdigest()
    for bundle in manifest["bundles"]:
        if digest == bundle["sha256"]:
            return "current", ""
        if digest in bundle["earlier_sha256"]:
            return "older", ""
    if made_by(data, GENERATOR):
        return "modified", data.split(b"\n", 1)[0].decode("utf-8", "replace")
    return "foreign", ""
