"""The OpenCode plugin check for ``herdr-link doctor``: is our current bundle installed? Reads only."""

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final, Literal

from ._bundles import GENERATOR, MANIFEST_FILE, packaged_dir

__all__ = ["PluginState", "classify_plugin", "opencode_config_dirs", "plugin_status"]

PLUGIN_FILE: Final = "herdr-link.js"
PluginState = Literal["current", "older", "modified", "foreign", "absent"]


def opencode_config_dirs(environ: Mapping[str, str], home: Path) -> list[Path]:
    """OpenCode's global config dir (XDG or ~/.config; %APPDATA% on Windows) and OPENCODE_CONFIG_DIR."""
    if os.name == "nt" and environ.get("APPDATA"):
        base = Path(environ["APPDATA"])
    else:
        base = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    dirs = [base / "opencode"]
    if environ.get("OPENCODE_CONFIG_DIR"):
        dirs.append(Path(environ["OPENCODE_CONFIG_DIR"]))
    return dirs


def classify_plugin(data: bytes) -> tuple[PluginState, str]:
    """What a file is, compared with the packaged manifest: ours (current or older), modified, or foreign."""
    manifest = json.loads((packaged_dir() / MANIFEST_FILE).read_text(encoding="utf-8"))
    digest = hashlib.sha256(data).hexdigest()
    for bundle in manifest["bundles"]:
        if digest == bundle["sha256"]:
            return "current", bundle["runtime"]
        if digest in bundle["earlier_sha256"]:
            return "older", bundle["runtime"]
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    if first.startswith(f"// {GENERATOR} "):
        return "modified", first
    return "foreign", ""


def plugin_status(environ: Mapping[str, str], home: Path) -> tuple[PluginState, Path | None, str]:
    """The first Herdr Link plugin file found in OpenCode's plugin directories, and what it is."""
    for config in opencode_config_dirs(environ, home):
        for directory in ("plugins", "plugin"):
            path = config / directory / PLUGIN_FILE
            if path.is_file():
                state, detail = classify_plugin(path.read_bytes())
                return state, path, detail
    return "absent", None, ""
