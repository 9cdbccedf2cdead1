"""``herdr-link-opencode-install --uninstall``: remove exactly our plugin file (backed up first), give back
the TypeScript Herdr Link's bundle an install replaced, and the shared bridge location when no installed
runtime still needs it. The same install core as every installer (``herdr_link_control.userfiles``)."""

import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path

from herdr_link_control.userfiles import (
    LOCATION_RELEASED,
    Replaced,
    backups_root,
    bridge_command,
    clear_partials,
    failure_reason,
    location_file,
    put_back,
    release_location_file,
    remove_made_folders,
    replace_file,
)

from ._install import FOLDERS_NOTE
from ._paths import Platform, config_dirs, installed_plugin, plugin_target
from ._say import teller, to_stderr
from ._typescript import forget_replaced, replaced_backup

__all__ = ["uninstall"]


def uninstall(
    environ: Mapping[str, str],
    home: Path,
    platform: Platform,
    *,
    say: Callable[[str], None],
    complain: Callable[[str], None] | None = None,
    dry_run: bool = False,
) -> int:
    """Remove the Herdr Link plugin file; returns the exit status (1 when the file there is not ours, or is
    a symbolic link).

    The plan comes first. A bundle of ours (current, older or edited) is backed up, then removed; a file
    that is not Herdr Link's, or a link, is left alone. With ``dry_run`` nothing is written. The last line
    says what each file is now.
    """
    tell, refuse = teller(say), teller(complain or to_stderr)
    state, path, _ = installed_plugin(environ, home, platform)
    location = location_file(environ, home)
    backups = backups_root(environ, home)
    linked = path is not None and path.is_symlink()
    what = {
        "absent": "absent: nothing to take out",
        "foreign": "left alone (not Herdr Link's)",
        "modified": "remove (an edited Herdr Link bundle; backup kept)",
    }.get(state, "remove (backup kept)")
    if linked:
        what = "left alone (a symbolic link: Herdr Link does not write through a link; remove it by hand)"
    typescript = replaced_backup(environ, home, path) if path is not None else None
    if typescript is not None and state in ("current", "older") and not linked:
        what += f", then put back the TypeScript Herdr Link's bundle the install replaced ({typescript})"
    tell("plan (uninstall Herdr Link's OpenCode plugin):")
    if path is None:
        looked = ", ".join(str(d / "plugins") for d in config_dirs(environ, home, platform))
        tell(f"  no Herdr Link plugin in {looked}")
    else:
        tell(f"  {path}: {what}")
    tell(f"  {location}: removed when no other runtime uses it")
    if dry_run:
        if state == "foreign" or linked:  # the reason on stderr, as the real run's refusal
            kind = "a symbolic link" if linked else "not Herdr Link's"
            refuse(f"would refuse: {path} is {kind}: left alone")
        tell("dry run: nothing was written")
        tell("state: nothing was changed")
        return 1 if state == "foreign" or linked else 0
    if state == "foreign" or linked:
        assert path is not None
        refuse(f"{path} is not Herdr Link's: left alone" if not linked else f"{path} is a symbolic link: left alone")
        tell(f"state: {path} is unchanged; bridge location {location} unchanged")
        return 1
    plugin = "absent (there was none)" if path is None or state == "absent" else "unchanged"
    shown = "unchanged"

    def final_state() -> str:
        return f"state: plugin {path or ''} {plugin}; bridge location {location} {shown}".replace("  ", " ")

    try:
        if path is not None and state != "absent":
            clear_partials(path, backups=backups)  # what a killed run left
            done = replace_file(path, path.read_bytes(), None, backups=backups)
            plugin = f"removed (backup {done.backup})"
            tell(f"backup: {done.backup}")
            tell(f"removed: {path}")
            if typescript is not None and state != "modified":  # what install replaced (--yes): given back
                # undo the install's replace from its backup: the bundle's bytes and its mode from the first byte
                put_back(Replaced(path, path, typescript.read_bytes(), None, typescript))
                plugin = f"the TypeScript Herdr Link's bundle again (put back from {typescript})"
                tell(f"put back: {path}, the TypeScript Herdr Link's bundle the install replaced")
                with contextlib.suppress(OSError):  # a stale note names a file that is no longer ours: harmless
                    forget_replaced(environ, home, path)
            for said in remove_made_folders(backups.parent / FOLDERS_NOTE, path):  # the empty folders it made
                tell(said)
        else:
            for config in config_dirs(environ, home, platform):  # a removal a killed run left half done
                for left in clear_partials(plugin_target(config), backups=backups):
                    tell(f"removed: {left} (a partial copy a killed run left)")
                for said in remove_made_folders(backups.parent / FOLDERS_NOTE, plugin_target(config)):
                    tell(said)
            tell("nothing to take out: Herdr Link's OpenCode plugin is not installed")
        bridge = release_location_file(location, "opencode", own=bridge_command())
    except OSError as error:
        refuse(f"error: {failure_reason(error)}")
        tell(final_state())
        return 1
    shown = LOCATION_RELEASED[bridge]
    tell(final_state())
    return 0
