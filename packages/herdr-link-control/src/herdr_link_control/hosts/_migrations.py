"""A host's model-migration notice: would its next start offer a newer model, from its own files?

Codex 0.171 offers the model its catalogue names as the upgrade of the user's model ("Try new model /
Use existing model") until the user answers, and records the answer under ``[notice.model_migrations]``
(``"<model>" = "<model offered>"``), as its published TUI source (``model_migration.rs``) does. The
rule is the host table's (``Host.migration``); it applies to the releases the row names only, since
each release ships its own catalogue.
"""

import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._places import place_path
from ._table import Host
from ._trust import NotPredicted, dig, read_host_file

__all__ = ["host_version", "pending_migration"]

_VERSION = re.compile(r"(\d+\.\d+\.\d+\S*)")
VERSION_TIMEOUT = 10.0
"""Seconds a host's ``--version`` may take (a cold start of an npm-installed host on a busy machine)."""


def host_version(program: Path | str, environ: Mapping[str, str]) -> tuple[str | None, str]:
    """The version ``program --version`` prints, or ``None`` and why."""
    try:
        done = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT, env=dict(environ),
            stdin=subprocess.DEVNULL, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as error:
        return None, f"{program} --version failed: {error}"
    if done.returncode != 0:  # a broken install may still print a version: it is not the one that runs
        return None, f"{program} --version exited {done.returncode}"
    match = _VERSION.search(done.stdout)
    return (match.group(1), "") if match else (None, f"{program} --version printed no version")


def _model(config: Mapping[str, Any], default: str) -> str:
    """The model a new session uses: the active profile's ``model``, else the top-level one, else the
    release's default."""
    profile = config.get("profile")
    chosen = dig(config, "profiles", profile, "model") if isinstance(profile, str) else None
    if not isinstance(chosen, str) or not chosen:
        chosen = config.get("model")
    return chosen if isinstance(chosen, str) and chosen else default


def _upgrades(catalogue: Mapping[str, Any]) -> dict[str, str] | None:
    """``slug → upgrade.model`` from a catalogue object (``{"models": [...]}``), or ``None`` if it holds
    no list of models."""
    models = catalogue.get("models")
    if not isinstance(models, list):
        return None
    slugs = {slug for model in models if isinstance(slug := dig(model, "slug"), str)}
    found: dict[str, str] = {}
    for model in models:
        slug, target = dig(model, "slug"), dig(model, "upgrade", "model")
        if isinstance(slug, str) and isinstance(target, str) and target in slugs:  # Codex offers only a listed one
            found[slug] = target
    return found


def pending_migration(host: Host, environ: Mapping[str, str], home: Path, version: str) -> tuple[str, str] | None:
    """``(model, model offered)`` when ``host`` at ``version`` would show its migration notice, or ``None``.

    Raises:
        NotPredicted: the rule does not apply to ``version``, or the files cannot say (the settings file
            absent, ``absent``; it or the refreshed catalogue unreadable).
    """
    migration = host.migration
    if migration is None:
        return None
    if not version.startswith(migration.versions):
        raise NotPredicted(f"{host.title} {version}: the notice's rule is known for {migration.seen_on}", absent=False)
    path = place_path(migration.place, "user", environ, home, home)
    config, problem = read_host_file(path, migration.place.format)
    if problem:
        raise NotPredicted(problem, absent=False)
    if config is None:
        raise NotPredicted(f"{path}: none exists", absent=True)
    upgrades = migration.upgrades
    cached_path = place_path(migration.catalogue, "user", environ, home, home)
    cached, problem = read_host_file(cached_path, migration.catalogue.format)
    if problem:
        raise NotPredicted(problem, absent=False)
    if cached is not None:
        refreshed = _upgrades(cached)
        if refreshed is None:
            raise NotPredicted(f"{cached_path} holds no list of models", absent=False)
        upgrades = refreshed
    model = _model(config, migration.default)
    target = upgrades.get(model)
    if target is None or target == model:
        return None
    answered = dig(config, *migration.record)
    if isinstance(answered, dict) and answered.get(model) == target:
        return None
    return model, target
