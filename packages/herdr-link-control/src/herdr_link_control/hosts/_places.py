"""Where a host's file is on this machine: a host record's ``Place`` resolved for one user and folder."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the record's type only: this package stays on the standard library
    from ._host_forms import Place, Scope

__all__ = ["place_path", "shown_path"]


def place_path(place: Place, scope: Scope, environ: Mapping[str, str], home: Path, cwd: Path) -> Path:
    """The file's absolute path at ``scope`` (``user``, or ``project`` when the place has one)."""
    if scope == "project" and place.project is not None:
        return cwd / place.project
    moved = environ.get(place.variable) if place.variable else None
    if moved:
        return Path(moved) / place.under_variable
    return home / place.user[2:] if place.user.startswith("~/") else Path(place.user)


def shown_path(place: Place, scope: Scope, environ: Mapping[str, str], home: Path) -> str:
    """The path as ``wiring`` prints it: relative at project scope, ``~/…`` under the home folder."""
    if scope == "project" and place.project is not None:
        return place.project
    path = place_path(place, "user", environ, home, home)
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)
