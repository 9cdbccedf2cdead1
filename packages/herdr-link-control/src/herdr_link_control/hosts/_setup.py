"""A host's set-up wizard: would its next start open it, from its own settings file?

MastraCode 0.32 opens its wizard over the composer at every start until the user finishes or skips it,
and records either as a date under ``onboarding`` with the wizard's version; a missing file is a new
install, which the wizard greets. oh-my-pi 18.2 opens its own at an interactive start until its YAML
``config.yml`` records ``setupVersion`` 2. The rule is the host table's (``Host.setup``); it applies to the
releases the row names only, since a release may ask again with a newer wizard.
"""

import sys
from collections.abc import Mapping
from pathlib import Path

from ._places import place_path
from ._table import Host
from ._trust import NotPredicted, dig, read_host_file

__all__ = ["package_version", "pending_setup", "setup_file"]

PACKAGE_LEVELS = 4
"""How many folders above a program's real file its npm package's ``package.json`` may be (``dist/cli.js``)."""


def package_version(program: Path, package: str) -> tuple[str | None, str]:
    """The version of the npm package ``package`` that the command ``program`` runs (npm links a command to
    its package's script: the nearest ``package.json`` above the link's target, of that name), or ``None``
    and why. Read, not run: MastraCode 0.32.1 has no ``--version`` (without a terminal it runs headless and
    fails; with one it opens its TUI)."""
    try:
        real = program.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        return None, f"{program} cannot be resolved: {error}"
    for folder in real.parents[:PACKAGE_LEVELS]:
        manifest, problem = read_host_file(folder / "package.json", "json")
        if problem:
            return None, problem
        if manifest is not None:
            version = manifest.get("version")
            if manifest.get("name") == package and isinstance(version, str):
                return version, ""
            break
    return None, f"{program} is not the command of the npm package {package}"


def setup_file(host: Host, environ: Mapping[str, str], home: Path) -> Path:
    """Where ``host`` records its wizard's answer for this user (the first of its names that exists, else the
    first).

    Raises:
        NotPredicted: the row names no file for this platform.
    """
    setup = host.setup
    assert setup is not None
    moved = environ.get(setup.folder)
    place = setup.places.get(sys.platform)
    if place is None:
        raise NotPredicted(f"where {host.title} keeps its settings on {sys.platform} is not known", absent=False)
    path = Path(moved) / Path(place.user).name if moved else place_path(place, "user", environ, home, home)
    if path.exists():
        return path
    return next((path.with_name(name) for name in setup.older if path.with_name(name).exists()), path)


def pending_setup(host: Host, environ: Mapping[str, str], home: Path, version: str) -> bool:
    """Whether ``host`` at ``version`` would open its set-up wizard at its next start.

    Raises:
        NotPredicted: the rule does not apply to ``version``, or the file cannot be read.
    """
    setup = host.setup
    if setup is None:
        return False
    if not version.startswith(setup.versions):
        raise NotPredicted(f"{host.title} {version}: the set-up rule is known for {setup.seen_on}", absent=False)
    if setup.skip and environ.get(setup.skip, "").strip().lower() not in ("", "0", "false", "no"):
        return False
    path = setup_file(host, environ, home)
    settings, problem = read_host_file(path, setup.places[sys.platform].format)
    if problem:
        raise NotPredicted(problem, absent=False)
    if settings is None:
        return True  # a new install
    if setup.off and dig(settings, *setup.off) is False:
        return False  # the user turned the wizard off
    record = dig(settings, *setup.record)
    record = record if isinstance(record, dict) else {}
    if setup.done and not any(record.get(key) not in (None, False, 0, "") for key in setup.done):  # JS truthy
        return True
    key, current = setup.version
    answered = record.get(key, 0)
    if isinstance(answered, bool) or not isinstance(answered, int | float):
        raise NotPredicted(f"{path}: its {'.'.join((*setup.record, key))} is not a number", absent=False)
    return answered < current
