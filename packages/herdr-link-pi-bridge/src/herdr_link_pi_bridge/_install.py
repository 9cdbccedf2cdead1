"""``herdr-link-pi-bridge install``: put the extension where Pi discovers it, or take it out again.

The same install core as the other installers (``herdr_link_control.userfiles``): the plan is shown
first; what the file held is backed up under ``<config dir>/backups/`` by its path; the new file
appears whole, compared with what was planned just before one ``os.replace`` (never over a write
this run did not see); a partial copy a killed run left is removed by the next; and the last line
(``state:``) says what each file is now. The extension is a file Herdr Link owns whole: a symbolic
link or a folder at its place is refused, never written through.
"""

import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from herdr_link_control.hosts import host_extension, place_path
from herdr_link_control.userfiles import (
    LOCATION_RELEASED,
    backups_root,
    bridge_command,
    clear_note_partial,
    clear_partials,
    failure_reason,
    folders_to_make,
    location_file,
    note_made_folders,
    release_location_file,
    remove_made_folders,
    replace_file,
    write_location_file,
)

from ._extension import ExtensionState, extension_state, packaged_extension
from ._typescript import NOTE_FILE, PartlySetAside, TypescriptPi, find_typescript, put_back, set_aside, settings_refusal

__all__ = ["InstallPlan", "InstallResult", "apply", "install", "plan", "target_path", "uninstall"]

FOLDERS_NOTE: Final = "pi-folders.json"
"""Beside the backups: the folders an install made for the extension, taken out by uninstall when empty."""
TRUST_NOTE: Final = "Pi loads project extensions only after the project is trusted (answer Pi's prompt once)."
OLD_PARTIAL: Final = ".herdr-link.js.tmp"
"""Where installs before the shared core wrote their partial copy (a killed one could leave it)."""
_WHAT: Final[dict[ExtensionState, str]] = {
    "absent": "create",
    "current": "unchanged (the current extension)",
    "older": "update (an older Herdr Link extension; backup kept)",
    "edited": "replace (an edited copy of Herdr Link's extension; backup kept)",
    "foreign": "replace (not Herdr Link's; backup kept)",
}
_TAKE_OUT: Final[dict[ExtensionState, str]] = {
    "absent": "absent: nothing to take out",
    "current": "remove (backup kept)",
    "older": "remove (an older Herdr Link extension; backup kept)",
    "edited": "remove (an edited copy of Herdr Link's extension; backup kept)",
    "foreign": "left alone (not Herdr Link's)",
}


@dataclass(frozen=True)
class InstallResult:
    """What a run did, in words for the person running it; the last message is the ``state:`` line."""

    path: Path
    action: str  # "installed", "updated", "replaced", "unchanged", "removed", "absent", "refused", "failed"
    messages: list[str]


@dataclass
class InstallPlan:
    """Everything a run would do, decided before anything is written."""

    target: Path
    uninstall: bool
    state: ExtensionState
    before: bytes | None
    after: bytes | None
    location: Path
    refused: str = ""
    """Why the run cannot go ahead at all (no confirmation overrides it)."""
    needs_yes: str = ""
    """What only ``--yes`` (or a yes at the prompt) allows."""
    notes: list[str] = field(default_factory=list)
    typescript: TypescriptPi | None = None
    """The TypeScript Herdr Link wired into the same Pi scope: set aside with ``--yes``."""
    scope: tuple[Path, Path] | None = None
    """Pi's settings file and extensions folder of the scope (where uninstall puts the TypeScript one back)."""

    @property
    def changed(self) -> bool:
        return self.before != self.after or self.typescript is not None

    @property
    def question(self) -> str:
        """What a yes (``--yes``, or at the prompt) allows, as a question's words."""
        if self.needs_yes == _TYPESCRIPT_ONLY:
            return "set the TypeScript Herdr Link aside (Pi keeps one herdr_link of the two; --uninstall puts it back)"
        return f"replace it ({self.needs_yes})"

    def describe(self) -> list[str]:
        """The plan: one line per file, ``!`` for what needs ``--yes``."""
        verb = "uninstall" if self.uninstall else "install"
        lines = [f"plan ({verb} Herdr Link's Pi extension):"]
        if self.refused:  # why is said once, after the plan: "refused: …", or a dry run's "would refuse: …"
            return [*lines, f"  {self.target}: refused"]
        lines.append(f"  {self.target}: {(_TAKE_OUT if self.uninstall else _WHAT)[self.state]}")
        if self.needs_yes and self.needs_yes != _TYPESCRIPT_ONLY:
            lines.append(f"    ! {self.needs_yes}: replaced only with --yes (a backup is kept)")
        aside = self.typescript.describe() if self.typescript else []
        lines.extend(f"  ! {line} (only with --yes; --uninstall puts it back)" for line in aside)
        command = " ".join(bridge_command())
        if self.uninstall:
            lines.append(f"  {self.location}: removed when no other runtime uses it")
        elif self.state != "foreign" or self.needs_yes:
            lines.append(f"  {self.location}: points the JavaScript stubs at {command}")
        return lines + [f"  {note}" for note in self.notes]


_TYPESCRIPT_ONLY: Final = "the TypeScript Herdr Link is wired into Pi as well (Pi keeps one herdr_link of the two)"


def _pi_folder(home: Path, cwd: Path, *, project: bool) -> Path:
    """Pi's folder of one scope: ``~/.pi/agent``, or ``.pi`` in this folder with ``project``."""
    return place_path(host_extension("pi").folder, "project" if project else "user", {}, home, cwd)


def pi_scope(home: Path, cwd: Path, *, project: bool) -> tuple[Path, Path]:
    """Pi's settings file and extensions folder of one scope: the user's, or with ``project`` this folder's."""
    settings = host_extension("pi").settings
    assert settings is not None, "the host table's Pi row names its settings file"
    return _pi_folder(home, cwd, project=project) / settings, target_path(home, cwd, project=project).parent


def target_path(home: Path, cwd: Path, *, project: bool) -> Path:
    """``~/.pi/agent/extensions/herdr-link.js``, or ``.pi/extensions/herdr-link.js`` with ``project``."""
    return _pi_folder(home, cwd, project=project) / host_extension("pi").file


def _refusal(target: Path, settings: Path) -> str:
    """Why the run cannot go ahead at all, found without opening anything (a FIFO would wait for ever)."""
    if target.is_symlink():
        return (
            f"{target} is a symbolic link: Herdr Link owns this file whole and does not write through a link; "
            "replace it by hand"
        )
    if target.is_dir():
        return f"{target} is a folder, not a file"
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        return f"{target} is not a regular file (a FIFO, a device or a socket)"
    if target.exists() and not os.access(target, os.R_OK):
        return f"{target} cannot be read"
    unreadable = settings_refusal(settings)
    return f"{unreadable}: Pi cannot read its settings from it" if unreadable else ""


def plan(
    home: Path, cwd: Path, environ: Mapping[str, str], *, project: bool = False, uninstall: bool = False
) -> InstallPlan:
    """Decide what installing (or, with ``uninstall``, taking out) the extension does; writes nothing."""
    target = target_path(home, cwd, project=project)
    location = location_file(environ, home)
    scope = pi_scope(home, cwd, project=project)
    refused = _refusal(target, scope[0])
    if refused:
        return InstallPlan(target, uninstall, "absent", None, None, location, refused=refused)
    before = target.read_bytes() if target.exists() else None
    state = extension_state(before)
    decided = InstallPlan(target, uninstall, state, before, before, location, scope=scope)
    if uninstall:
        decided.after = before if state == "foreign" else None
        return decided
    decided.after = packaged_extension().read_bytes()
    if state == "foreign":
        decided.needs_yes = f"{target} is not a Herdr Link file"
    elif state == "edited":
        decided.needs_yes = f"{target} is an edited copy of Herdr Link's extension"
    if state not in ("current", "foreign", "edited") and before is not None and not target.stat().st_mode & 0o222:
        decided.needs_yes = f"{target} is read-only (mode {target.stat().st_mode & 0o777:04o}; kept when replaced)"
    decided.typescript = find_typescript(*scope)
    if decided.typescript is not None and not decided.needs_yes:
        decided.needs_yes = _TYPESCRIPT_ONLY
    decided.notes = _pi_notes(environ)
    if project:
        decided.notes.append(TRUST_NOTE)
    return decided


def _clear_leftovers(decided: InstallPlan, backups: Path) -> list[str]:
    """Remove the partial copies a killed run left (beside the extension and Pi's settings, and among their
    backups); says which."""
    target = decided.target
    removed = clear_partials(target, backups=backups)
    if decided.scope is not None:
        removed += clear_partials(decided.scope[0], backups=backups)
    for note in (FOLDERS_NOTE, NOTE_FILE):
        removed += clear_note_partial(backups.parent / note)
    old = target.parent / OLD_PARTIAL
    if old.is_file():
        old.unlink()
        removed.append(old)
    return [f"removed: {left} (a partial copy a killed run left)" for left in removed]


def apply(decided: InstallPlan, environ: Mapping[str, str], home: Path, *, yes: bool = False) -> InstallResult:
    """Carry out ``decided``: the messages say each step and end with the ``state:`` line."""
    target = decided.target
    if decided.refused:
        return InstallResult(target, "refused", [f"refused: {decided.refused}", "state: nothing was changed"])
    backups = backups_root(environ, home)
    if decided.uninstall:
        return _take_out(decided, backups)
    if decided.needs_yes and not yes:
        return InstallResult(
            target,
            "refused",
            [
                f"refused: {decided.needs_yes}; nothing was changed",
                f"to {decided.question}, run again with --yes (a backup is kept); or move it aside",
                "state: nothing was changed",
            ],
        )
    messages: list[str] = []
    action = {"absent": "installed", "current": "unchanged", "older": "updated"}.get(decided.state, "replaced")
    kept = ""
    if decided.typescript is not None:
        try:
            messages += set_aside(decided.typescript, backups).messages
        except PartlySetAside as error:
            left = f"{error.settings} is without the TypeScript Herdr Link's package entry (--uninstall puts it back)"
            return InstallResult(target, "failed", [f"error: {error}", f"state: {left}; {target} is unchanged"])
        except OSError as error:
            return InstallResult(target, "failed", [f"error: {failure_reason(error)}", "state: nothing was changed"])
    made = folders_to_make(target)
    try:
        messages += _clear_leftovers(decided, backups)
    except OSError as error:
        messages.append(f"could not remove a partial copy a killed run left: {failure_reason(error)}")
    if decided.before != decided.after:
        try:
            done = replace_file(target, decided.before, decided.after, backups=backups)
        except OSError as error:
            messages.append(f"error: {failure_reason(error)}")
            if decided.typescript is not None:
                messages += _put_back(decided, backups)
            return InstallResult(target, "failed", [*messages, f"state: {target} is unchanged"])
        if done.backup is not None:
            messages.append(f"backup: {done.backup}")
            kept = f" (backup {done.backup})"
    messages.append(f"{action}: {target}")
    note_made_folders(backups.parent / FOLDERS_NOTE, target, made)  # so that uninstall can take them out again
    try:
        command = bridge_command()
        where = f"{decided.location} -> {' '.join(command)}"
        written = write_location_file(decided.location, command, user="pi", reinstall="herdr-link-pi-bridge install")
        bridge = where if written else f"{where} (already)"
    except OSError as error:
        messages.append(f"error: the bridge location was not written: {failure_reason(error)}")
        messages.append(
            f"state: {target} is the current extension{kept}; bridge location not written: {failure_reason(error)}"
        )
        return InstallResult(target, "failed", messages)
    messages.append("Alternative: Pi's built-in MCP with herdr-link-mcp (herdr-link-mcp wiring --host pi).")
    aside = "; the TypeScript Herdr Link set aside (--uninstall puts it back)" if decided.typescript else ""
    messages.append(f"state: {target} is the current extension{kept}; bridge location {bridge}{aside}")
    return InstallResult(target, action, messages)


def _take_out(decided: InstallPlan, backups: Path) -> InstallResult:
    target = decided.target
    if decided.state == "foreign":
        return InstallResult(
            target, "refused", [f"{target} is not Herdr Link's: left alone", f"state: {target} is unchanged"]
        )
    messages: list[str] = []
    removed = "absent (there was none)"
    try:
        messages += _clear_leftovers(decided, backups)
    except OSError as error:
        messages.append(f"could not remove a partial copy a killed run left: {failure_reason(error)}")
    if decided.state != "absent":
        try:
            done = replace_file(target, decided.before, None, backups=backups)
        except OSError as error:
            return InstallResult(target, "failed", [f"error: {failure_reason(error)}", f"state: {target} is unchanged"])
        removed = f"removed (backup {done.backup})"
        messages += [f"backup: {done.backup}", f"removed: {target}"]
    else:
        messages.append(f"nothing to take out: no Herdr Link extension at {target}")
    messages += remove_made_folders(backups.parent / FOLDERS_NOTE, target)
    given_back = _put_back(decided, backups)
    messages += given_back
    back = "; the TypeScript Herdr Link put back" if any(m.startswith("put back") for m in given_back) else ""
    try:
        bridge = release_location_file(decided.location, "pi", own=bridge_command())
    except OSError as error:
        messages.append(f"error: the bridge location was not released: {failure_reason(error)}")
        messages.append(
            f"state: {target} {removed}; bridge location {decided.location} unchanged: {failure_reason(error)}"
        )
        return InstallResult(target, "failed", messages)
    shown = LOCATION_RELEASED[bridge]
    messages.append(f"state: {target} {removed}; bridge location {decided.location} {shown}{back}")
    return InstallResult(target, "absent" if decided.state == "absent" else "removed", messages)


def install(
    home: Path, cwd: Path, environ: Mapping[str, str], *, project: bool = False, yes: bool = False
) -> InstallResult:
    """Plan and install the packaged extension, and point stubs at this environment's bridge; the
    messages are the plan, then each step, then the ``state:`` line.

    A file of ours of another version is updated; an edited copy of ours or another's file is replaced
    only with ``yes``. Whatever is replaced is backed up first.
    """
    decided = plan(home, cwd, environ, project=project)
    result = apply(decided, environ, home, yes=yes)
    return InstallResult(result.path, result.action, [*decided.describe(), *result.messages])


def uninstall(home: Path, cwd: Path, environ: Mapping[str, str], *, project: bool = False) -> InstallResult:
    """Take out our extension (backed up first; another's file is left alone), and the bridge location
    when no other runtime still needs it."""
    decided = plan(home, cwd, environ, project=project, uninstall=True)
    result = apply(decided, environ, home)
    return InstallResult(result.path, result.action, [*decided.describe(), *result.messages])


def _put_back(decided: InstallPlan, backups: Path) -> list[str]:
    """Give the TypeScript Herdr Link back to this Pi scope, as install found it; never fails the run."""
    if decided.scope is None:
        return []
    try:
        return put_back(*decided.scope, backups)
    except (OSError, ValueError) as error:
        return [f"could not put the TypeScript Herdr Link back: {error}"]


def _pi_notes(environ: Mapping[str, str]) -> list[str]:
    if shutil.which("pi", path=environ.get("PATH", os.defpath)) is None:
        return ["warning: pi is not on PATH; the extension waits for the first Pi session"]
    return []
