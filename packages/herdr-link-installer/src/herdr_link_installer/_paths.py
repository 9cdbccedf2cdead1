"""Where OpenCode keeps its global configuration and loads plugins from, per platform (the platform can be
injected): the host table's OpenCode row (``herdr_link_control.hosts``), resolved on this machine."""

import os
import platform as _platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from herdr_link_control.hosts import Extension, host_extension, place_path
from herdr_link_opencode_bridge import PluginState, classify_plugin

from ._typescript import is_typescript_bundle

__all__ = [
    "Platform",
    "PluginFile",
    "ProgramFailed",
    "config_dirs",
    "current_platform",
    "global_config_dir",
    "herdr_link_plugins",
    "installed_plugin",
    "opencode_version",
    "plugin_target",
    "stderr_tail",
]

OPENCODE: Final[Extension] = host_extension("opencode")
"""Where OpenCode loads our plugin: its config folder, ``plugins/herdr-link.js`` in it, the older ``plugin/``."""


def plugin_target(config: Path) -> Path:
    """Where the plugin goes in OpenCode's config folder ``config``: ``<config>/plugins/herdr-link.js``."""
    return config / OPENCODE.file


@dataclass(frozen=True)
class Platform:
    """``system`` is ``linux``, ``darwin`` or ``windows``; ``wsl`` marks Linux under WSL."""

    system: str
    wsl: bool = False


def current_platform() -> Platform:
    """The platform this process runs on."""
    if sys.platform == "win32":
        return Platform("windows")
    if sys.platform == "darwin":
        return Platform("darwin")
    return Platform("linux", wsl="microsoft" in _platform.release().lower())


class ProgramFailed(Exception):
    """A program this installer asks (``opencode``, ``node``) is there but did not answer: it could not
    be executed, timed out, or exited non-zero. The message says which and how."""


def stderr_tail(stderr: str) -> str:
    """``": <the last line of stderr>"`` (at most 200 characters), or ``""`` when it printed nothing:
    the end of a :class:`ProgramFailed` message about a program that exited non-zero."""
    lines = stderr.strip().splitlines()
    return f": {lines[-1][:200]}" if lines else ""


def _ask_opencode(run: Callable[[list[str]], str | None] | None) -> Path | None:
    """``opencode debug paths`` when OpenCode is installed: its own word on the config directory."""
    try:
        output = run(["opencode", "debug", "paths"]) if run else _run(["opencode", "debug", "paths"])
    except ProgramFailed:
        return None  # the platform default stands; opencode_version reports the failure
    for line in (output or "").splitlines():
        key, _, value = line.strip().partition(" ")
        if key == "config" and value.strip():
            return Path(value.strip())
    return None


def _run(argv: list[str]) -> str | None:
    """The program's stdout; ``None`` when it is not on PATH.

    Raises:
        ProgramFailed: it is on PATH but could not be run, timed out or exited non-zero.
    """
    found = shutil.which(argv[0])
    if found is None:
        return None
    try:
        done = subprocess.run([found, *argv[1:]], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ProgramFailed(f"`{' '.join(argv)}` ({found}) did not answer within 30 s") from None
    except OSError as error:
        raise ProgramFailed(f"{found} cannot be run: {error.strerror or error}") from None
    if done.returncode != 0:
        raise ProgramFailed(
            f"`{' '.join(argv)}` ({found}) exited with status {done.returncode}{stderr_tail(done.stderr)}"
        )
    return done.stdout


def _default(environ: Mapping[str, str], home: Path) -> Path:
    """OpenCode's own default: xdg-basedir's ``$XDG_CONFIG_HOME/opencode``, else ``~/.config/opencode``, on
    every platform (Windows included: xdg-basedir has no ``%APPDATA%`` branch); under WSL, WSL's own."""
    return place_path(OPENCODE.folder, "user", environ, home, home)


def global_config_dir(
    environ: Mapping[str, str], home: Path, platform: Platform, *, run: Callable[[list[str]], str | None] | None = None
) -> Path:
    """OpenCode's global config dir: ``opencode debug paths`` first, else the platform default.

    ``OPENCODE_CONFIG_DIR`` adds an extra config dir; it does not move the global one.
    """
    asked = _ask_opencode(run)
    if asked is not None and not (platform.wsl and str(asked).startswith("/mnt/")):
        return asked
    return _default(environ, home)


def config_dirs(environ: Mapping[str, str], home: Path, platform: Platform) -> list[Path]:
    """The default global dir and, when set, ``OPENCODE_CONFIG_DIR``."""
    dirs = [_default(environ, home)]
    extra = environ.get(OPENCODE.extra_folder) if OPENCODE.extra_folder else None
    if extra:
        dirs.append(Path(os.path.expanduser(extra)))
    return dirs


def installed_plugin(
    environ: Mapping[str, str], home: Path, platform: Platform | None = None
) -> tuple[PluginState, Path | None, str]:
    """The first Herdr Link plugin file in OpenCode's plugin directories (``plugins/``, then the
    older ``plugin/``, of each of :func:`config_dirs`), what it is and, for an edited one of ours, its
    first line; ``("absent", None, "")`` when there is none. Reads only."""
    for config in config_dirs(environ, home, platform or current_platform()):
        for file in (OPENCODE.file, *OPENCODE.older_files):
            path = config / file
            if path.is_file():
                state, detail = classify_plugin(path.read_bytes())
                return state, path, detail
    return "absent", None, ""


def opencode_version(run: Callable[[list[str]], str | None] | None = None) -> str | None:
    """``opencode --version`` of the OpenCode on PATH (``1.18.33``; OpenCode 2 prints ``opencode v2.0.18``,
    read as ``2.0.18``), or ``None`` when there is none.

    Raises:
        ProgramFailed: ``opencode`` is on PATH but failed, or printed no version.
    """
    output = run(["opencode", "--version"]) if run else _run(["opencode", "--version"])
    if output is None:
        return None
    words = output.strip().split()
    last = words[-1].removeprefix("v").removeprefix("V") if words else ""
    if not last[:1].isdigit():
        raise ProgramFailed(f"`opencode --version` printed no version ({output.strip()[:80]!r})")
    return last


@dataclass(frozen=True)
class PluginFile:
    """One Herdr Link plugin file OpenCode loads: ours (``state`` from ``classify_plugin``, ``detail``
    an edited one's first line), the TypeScript implementation's (``state`` ``"typescript"``), or a foreign file under
    our name (``"foreign"``)."""

    path: Path
    state: str
    detail: str


def _plugin_file(path: Path) -> PluginFile | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    state, detail = classify_plugin(data)
    if state == "foreign" and is_typescript_bundle(data):
        return PluginFile(path, "typescript", "")
    if state == "foreign" and path.name != OPENCODE.file_name:
        return None
    return PluginFile(path, state, detail)


def herdr_link_plugins(
    environ: Mapping[str, str],
    home: Path,
    cwd: Path,
    platform: Platform,
    *,
    run: Callable[[list[str]], str | None] | None = None,
    config: Path | None = None,
) -> list[PluginFile]:
    """Every Herdr Link plugin file OpenCode loads, each once: in ``plugins/`` and the older
    ``plugin/`` of the global config dir (``config`` when the caller already has it, else as
    ``opencode debug paths`` reports it, else the platform default), of ``OPENCODE_CONFIG_DIR``, and
    of the project's ``.opencode/``. OpenCode loads all of them, and each starts its own bridge.
    Reads only."""
    known = config if config is not None else global_config_dir(environ, home, platform, run=run)
    roots = [known, *config_dirs(environ, home, platform)]
    roots.append(place_path(OPENCODE.folder, "project", environ, home, cwd))
    found: list[PluginFile] = []
    seen: set[Path] = set()
    for root in roots:
        for directory in OPENCODE.folders():
            folder = root / directory
            if not folder.is_dir():
                continue
            for path in sorted(folder.iterdir()):
                key = path.resolve()
                if key in seen or not path.is_file() or path.suffix not in (".js", ".ts", ".mjs"):
                    continue
                seen.add(key)
                plugin = _plugin_file(path)
                if plugin is not None:
                    found.append(plugin)
    return found
