"""The TypeScript Herdr Link in Pi, as its README installs it: ``pi install npm:herdr-link`` (or
``git:github.com/LZHcode1986/herdr-link``; ``-l`` for a project) lists the package in Pi's
``settings.json``, or its sources are copied by hand into ``extensions/herdr-link/``.

Pi keeps the first tool of a name it loads, so with ours beside it one ``herdr_link`` silently
shadows the other. Install sets it aside only with ``--yes``: the package entries are taken out of
``packages`` (the list kept as the file spelled it) and the folder is moved under Herdr Link's
backups; a note of both (``pi-typescript.json`` beside the backups) lets uninstall give them back. The
note is written first, so nothing is set aside that uninstall cannot give back; the entries are those
the plan found, taken out only while the settings file still holds what the plan read (a change while
the question waited is refused: run again).
"""

import contextlib
import copy
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from herdr_link_control.userfiles import (
    MISSING,
    ChangedMeanwhile,
    DocumentError,
    JsonDocument,
    backup_stamp,
    failure_reason,
    read_current,
    read_note,
    replace_file,
    write_note,
)

__all__ = [
    "NOTE_FILE",
    "PartlySetAside",
    "SetAside",
    "TypescriptPi",
    "find_typescript",
    "put_back",
    "set_aside",
    "settings_refusal",
]

NOTE_FILE: Final = "pi-typescript.json"
_SOURCE: Final = re.compile(
    r"^(?:npm:herdr-link(?:@[^/]*)?|(?:git:|git\+|https?://|ssh://git@)?github\.com[/:]LZHcode1986/herdr-link(?:\.git)?(?:@.*)?)$"
)
"""A package source Pi reads as the TypeScript Herdr Link: its npm package, or its repository."""


def is_typescript_source(entry: object) -> bool:
    """Whether a ``packages`` entry (a source, or an object with ``source``) is the TypeScript Herdr Link."""
    source = entry.get("source") if isinstance(entry, dict) else entry
    return isinstance(source, str) and bool(_SOURCE.match(source.strip()))


@dataclass(frozen=True)
class TypescriptPi:
    """Where the TypeScript Herdr Link is wired into one Pi scope."""

    settings: Path
    entries: list[int]
    """Indexes in the settings' ``packages`` that are it, in :attr:`text`."""
    text: bytes | None = None
    """The settings file as the plan read it: the entries are taken out of it, only while the file holds it."""
    folder: Path | None = None
    """Its sources copied into ``extensions/herdr-link/``."""

    def describe(self) -> list[str]:
        lines = []
        if self.entries:
            lines.append(f"{self.settings} lists the TypeScript Herdr Link as a Pi package: taken out of packages")
        if self.folder is not None:
            lines.append(f"{self.folder} holds the TypeScript Herdr Link's extension: moved under the backups")
        return lines


def settings_refusal(settings: Path) -> str:
    """Why Pi's ``settings`` cannot be read as a file, found without opening it (a FIFO would wait for
    ever); ``""`` when it is absent or a regular file."""
    try:
        mode = os.stat(settings).st_mode
    except OSError:
        return ""
    if stat.S_ISREG(mode):
        return ""
    return f"{settings} is {'a folder' if stat.S_ISDIR(mode) else 'not a regular file (a FIFO, a device or a socket)'}"


def _read(settings: Path) -> bytes | None:
    """The settings' bytes; ``None`` when missing, unreadable or no regular file (never opened then)."""
    if settings_refusal(settings):
        return None
    try:
        return read_current(settings)
    except OSError:
        return None


def _packages(raw: bytes | None) -> tuple[str | None, Any]:
    """The settings' text and its ``packages`` value, from the bytes ``raw`` (``None``: no file)."""
    if raw is None:
        return None, MISSING
    try:
        document = JsonDocument(raw.decode("utf-8"))
    except (DocumentError, UnicodeDecodeError):
        return None, MISSING
    return document.text, document.get(("packages",))


def find_typescript(settings: Path, extensions: Path) -> TypescriptPi | None:
    """The TypeScript Herdr Link in the scope of ``settings`` and ``extensions``, or ``None``."""
    raw = _read(settings)
    _, packages = _packages(raw)
    listed = packages if isinstance(packages, list) else []
    entries = [i for i, entry in enumerate(listed) if is_typescript_source(entry)]
    folder = extensions / "herdr-link"
    index = folder / "index.ts"
    copied = folder.is_dir() and not folder.is_symlink() and index.is_file() and "herdr_link" in _head(index)
    return TypescriptPi(settings, entries, raw, folder if copied else None) if entries or copied else None


def _head(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read(1 << 20)
    except OSError:
        return ""


class PartlySetAside(OSError):
    """Setting aside failed, and so did giving the settings back: they are without the TypeScript Herdr
    Link's package entry (noted: uninstall gives it back); its folder is where it was."""

    def __init__(self, message: str, settings: Path) -> None:
        super().__init__(message)
        self.settings = settings


@dataclass(frozen=True)
class SetAside:
    """What :func:`set_aside` did, to say and to undo."""

    messages: list[str]


def _note_path(backups: Path) -> Path:
    return backups.parent / NOTE_FILE


def set_aside(found: TypescriptPi, backups: Path) -> SetAside:
    """Take the TypeScript Herdr Link out of Pi: its package entries (the settings file backed up and
    replaced whole, only while it holds what the plan read) and its copied folder (moved under
    ``backups``). The note for :func:`put_back` is written first; on a failure it is given back with
    whatever was changed.

    Raises:
        OSError: nothing of it was changed (or what was changed was put back); ``ChangedMeanwhile``: the
        settings file changed since the plan (the question waits as long as the user likes).
    """
    earlier = read_note(_note_path(backups))
    note = copy.deepcopy(earlier)  # the earlier note is written back on a failure
    after = None
    if found.entries:
        if found.text is None:
            raise ChangedMeanwhile(f"{found.settings} changed while this run was planning (it cannot be read now)")
        document = JsonDocument(found.text.decode("utf-8"))
        spelled = document.source(("packages",))
        for index in reversed(found.entries):
            document.remove(("packages", index))
        after = document.text.encode("utf-8")
        note.setdefault("settings", {})[str(found.settings)] = {
            "before_text": spelled, "after": document.get(("packages",))}  # fmt: skip
    moved = backups / f"pi-typescript-extension.{backup_stamp()}"
    if found.folder is not None:
        note.setdefault("folders", {})[str(found.folder)] = str(moved)
    write_note(_note_path(backups), note)  # first: nothing is set aside that uninstall cannot give back
    messages: list[str] = []
    done_settings = None
    try:
        if after is not None:
            done_settings = replace_file(found.settings, found.text, after, backups=backups)
            backup = done_settings.backup
            messages.append(f"took the TypeScript Herdr Link out of {found.settings} packages (backup {backup})")
        if found.folder is not None:
            moved.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.rename(found.folder, moved)
            messages.append(f"moved {found.folder} (the TypeScript Herdr Link's extension) to {moved}")
    except OSError as error:
        if done_settings is not None:  # give the settings back: nothing of it changed
            try:
                replace_file(found.settings, done_settings.after, done_settings.before, backups=backups)
            except OSError as undo:  # the note stays: uninstall gives the entry back
                raise PartlySetAside(
                    f"{failure_reason(error)}; giving {found.settings} back failed too ({failure_reason(undo)})",
                    found.settings,
                ) from None
        with contextlib.suppress(OSError):  # a note naming what was not set aside: put_back skips it
            write_note(_note_path(backups), earlier)
        raise
    return SetAside(messages)


def put_back(settings: Path, extensions: Path, backups: Path) -> list[str]:
    """Give back what :func:`set_aside` took out of this scope, where nothing has changed since; says
    what it did and what it could not."""
    note = read_note(_note_path(backups))
    messages: list[str] = []
    aside = note.get("settings", {}).pop(str(settings), None)
    if isinstance(aside, dict):
        text, packages = _packages(_read(settings))
        spelled = JsonDocument(text).source(("packages",)) if text is not None else None
        if spelled == aside.get("before_text"):  # never taken out (a run killed before it): nothing to give back
            pass
        elif text is not None and packages == aside.get("after"):
            document = JsonDocument(text)
            document.set_source(("packages",), str(aside["before_text"]))
            replace_file(settings, text.encode("utf-8"), document.text.encode("utf-8"), backups=backups)
            messages.append(f"put back the TypeScript Herdr Link's package entry in {settings}")
        else:
            messages.append(f"{settings} changed since: the TypeScript Herdr Link's package entry stays out "
                            "(its backup holds it)")  # fmt: skip
    folder = extensions / "herdr-link"
    moved = note.get("folders", {}).pop(str(folder), None)
    if isinstance(moved, str) and Path(moved).is_dir():
        if folder.exists():
            messages.append(f"{folder} exists again: the TypeScript Herdr Link's extension stays at {moved}")
        else:
            os.rename(moved, folder)
            messages.append(f"put back {folder} (the TypeScript Herdr Link's extension)")
    if aside is not None or moved is not None:
        write_note(_note_path(backups), note)
    return messages
