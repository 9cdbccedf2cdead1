"""The files Herdr Link writes in a user's home, and how every installer writes them.

One core for every installer (the OpenCode installer, the Pi extension's installer, the MCP hosts'
wiring) and for the bridge location file: a file appears only whole (:func:`write_complete`:
fsync, then one ``os.replace``), what it replaces is backed up first under a name that sorts by
UTC time (:func:`back_up`; a few are kept), a generated file is known as ours by its ID line
(:func:`made_by`), and a failed install puts back what was there (:func:`roll_back`). The bridge
location file says where the JavaScript stubs find ``herdr-link-bridge`` (``docs/bridge.md``).

Standard library only: importing it loads neither pydantic nor anyio, so ``herdr-link-mcp wiring``
can use it.
"""

from ._backups import KEEP_BACKUPS, back_up, backup_stamp, prune_backups
from ._complete import copy_complete, write_complete
from ._location import (
    BRIDGE_COMMAND,
    BRIDGE_CONFIG_FILE,
    BRIDGE_ENV_VAR,
    bridge_command,
    config_dir,
    location_file,
    release_location_file,
    write_location_file,
)
from ._ownership import made_by
from ._rollback import roll_back

__all__ = [
    "BRIDGE_COMMAND",
    "BRIDGE_CONFIG_FILE",
    "BRIDGE_ENV_VAR",
    "KEEP_BACKUPS",
    "back_up",
    "backup_stamp",
    "bridge_command",
    "config_dir",
    "copy_complete",
    "location_file",
    "made_by",
    "prune_backups",
    "release_location_file",
    "roll_back",
    "write_complete",
    "write_location_file",
]
