"""The files Herdr Link writes in a user's home, and how every installer writes them.

One core for every installer (the OpenCode installer, the Pi extension's installer, the MCP hosts'
wiring) and for the bridge location file: a file appears only whole (:func:`write_complete`:
fsync, then one ``os.replace``), every copy is as private as its file from its first byte, what it
replaces is backed up first under a name that sorts by UTC time (:func:`back_up`; the first and the
newest are kept), a generated file is known as ours by its ID line (:func:`made_by`), and a failed
install puts back what was there (:func:`roll_back`). A user's own config file is edited in place,
never re-serialised (:class:`JsonDocument`, :class:`TomlDocument`), and replaced through its
symlinks, never over a write the run did not see (:func:`replace_file`, :func:`put_back`). The bridge
location file says where the JavaScript stubs find ``herdr-link-bridge`` (``docs/bridge.md``).

Standard library only: importing it loads neither pydantic nor anyio, so ``herdr-link-mcp wiring``
can use it.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._backups import (
        KEEP_BACKUPS as KEEP_BACKUPS,
        back_up as back_up,
        backup_folder as backup_folder,
        backup_stamp as backup_stamp,
        prune_backups as prune_backups,
    )
    from ._complete import (
        ChangedMeanwhile as ChangedMeanwhile,
        copy_complete as copy_complete,
        read_current as read_current,
        write_complete as write_complete,
    )
    from ._jsonedit import MISSING as MISSING, DocumentError as DocumentError, JsonDocument as JsonDocument
    from ._location import (
        BRIDGE_COMMAND as BRIDGE_COMMAND,
        BRIDGE_CONFIG_FILE as BRIDGE_CONFIG_FILE,
        BRIDGE_ENV_VAR as BRIDGE_ENV_VAR,
        backups_root as backups_root,
        bridge_command as bridge_command,
        config_dir as config_dir,
        location_file as location_file,
        release_location_file as release_location_file,
        write_location_file as write_location_file,
    )
    from ._ownership import made_by as made_by
    from ._places import place_path as place_path, shown_path as shown_path
    from ._rollback import roll_back as roll_back
    from ._tomledit import TomlDocument as TomlDocument, toml_key as toml_key
    from ._userfile import (
        LinkError as LinkError,
        Replaced as Replaced,
        clear_partials as clear_partials,
        put_back as put_back,
        real_file as real_file,
        replace_file as replace_file,
    )

    __all__: list[str]

_EXPORTS = {
    "_backups": [
        "KEEP_BACKUPS",
        "back_up",
        "backup_folder",
        "backup_stamp",
        "prune_backups",
    ],
    "_complete": [
        "ChangedMeanwhile",
        "copy_complete",
        "read_current",
        "write_complete",
    ],
    "_jsonedit": [
        "MISSING",
        "DocumentError",
        "JsonDocument",
    ],
    "_location": [
        "BRIDGE_COMMAND",
        "BRIDGE_CONFIG_FILE",
        "BRIDGE_ENV_VAR",
        "backups_root",
        "bridge_command",
        "config_dir",
        "location_file",
        "release_location_file",
        "write_location_file",
    ],
    "_ownership": [
        "made_by",
    ],
    "_places": [
        "place_path",
        "shown_path",
    ],
    "_rollback": [
        "roll_back",
    ],
    "_tomledit": [
        "TomlDocument",
        "toml_key",
    ],
    "_userfile": [
        "LinkError",
        "Replaced",
        "clear_partials",
        "put_back",
        "real_file",
        "replace_file",
    ],
}
"""Each submodule and the names it provides: generated from the imports above."""

if not TYPE_CHECKING:  # type checkers read the imports above, so a misspelt name stays an error
    _MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
    __all__ = sorted(_MODULE_OF)

    def __getattr__(name):
        """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
        if name not in _MODULE_OF:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        submodule = __import__(f"{__name__}.{_MODULE_OF[name]}", fromlist=[name])  # no importlib to load
        value = getattr(submodule, name)
        globals()[name] = value
        return value

    def __dir__():
        return sorted({*globals(), *__all__})
