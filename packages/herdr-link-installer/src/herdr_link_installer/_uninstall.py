"""``herdr-link-opencode-install --uninstall``: remove exactly our plugin file, and the shared bridge
location when no installed runtime still needs it."""

from collections.abc import Callable, Mapping
from pathlib import Path

from herdr_link_control.userfiles import back_up, location_file, release_location_file, write_complete

from ._install import REPLACED_FILE, WORK_DIR, _stderr, _teller, replaced_backup
from ._paths import Platform, config_dirs, installed_plugin

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
    """Remove the Herdr Link plugin file; returns the exit status (1 when the file there is not ours).

    The plan comes first. A current or older bundle of ours is removed; an edited one is kept as a
    backup first; a file that is not Herdr Link's is left alone. With ``dry_run`` nothing is written.
    The last line says what each file is now.
    """
    tell, refuse = _teller(say), _teller(complain or _stderr)
    state, path, _ = installed_plugin(environ, home, platform)
    location = location_file(environ, home)
    what = {"absent": "absent: nothing to take out", "foreign": "left alone (not Herdr Link's)",
            "modified": "remove (an edited Herdr Link bundle; backup kept)"}.get(state, "remove")  # fmt: skip
    typescript = replaced_backup(path.parent.parent / WORK_DIR, path) if path is not None else None
    if typescript is not None and state in ("current", "older"):
        what += f", then put back the TypeScript Herdr Link's bundle the install replaced ({typescript})"
    tell("plan (uninstall Herdr Link's OpenCode plugin):")
    if path is None:
        looked = ", ".join(str(d / "plugins") for d in config_dirs(environ, home, platform))
        tell(f"  no Herdr Link plugin in {looked}")
    else:
        tell(f"  {path}: {what}")
    tell(f"  {location}: removed when no other runtime uses it")
    if dry_run:
        tell("dry run: nothing was written")
        tell("state: nothing was changed")
        return 1 if state == "foreign" else 0
    if state == "foreign":
        assert path is not None
        refuse(f"{path} is not Herdr Link's: left alone")
        tell(f"state: {path} is unchanged; bridge location {location} unchanged")
        return 1
    plugin = "absent (there was none)" if path is None or state == "absent" else "unchanged"
    shown = "unchanged"

    def final_state() -> str:
        return f"state: plugin {path or ''} {plugin}; bridge location {location} {shown}".replace("  ", " ")

    try:
        if path is not None and state != "absent":
            if state == "modified":
                backup = back_up(path, path.parent.parent / WORK_DIR / "backups")
                plugin = f"unchanged (backed up to {backup})"
                tell(f"backup of the edited file: {backup}")
            path.unlink()
            plugin = "removed"
            tell(f"removed: {path}")
            work = path.parent.parent / WORK_DIR
            if typescript is not None and state != "modified":  # what install replaced (--yes): given back
                write_complete(path, typescript.read_bytes(), mode=typescript.stat().st_mode & 0o777, expect=None)
                (work / REPLACED_FILE).unlink(missing_ok=True)
                plugin = f"the TypeScript Herdr Link's bundle again (put back from {typescript})"
                tell(f"put back: {path}, the TypeScript Herdr Link's bundle the install replaced")
        else:
            tell("nothing to take out: Herdr Link's OpenCode plugin is not installed")
        bridge = release_location_file(location, "opencode")
    except OSError as error:
        refuse(f"error: {error.strerror or error}{f': {error.filename}' if error.filename else ''}")
        tell(final_state())
        return 1
    shown = {"removed": "removed", "kept": "kept (another runtime may use it)", "absent": "absent"}[bridge]
    tell(final_state())
    return 0
