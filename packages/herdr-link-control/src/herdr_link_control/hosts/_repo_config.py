"""Does a folder hold configuration that runs commands, as Grok Build looks for it before its trust question?

Grok Build (1.0) asks "Do you trust the contents of this directory?" only where its scan finds such
configuration in the folder or its repository (``collect_repo_config_kinds`` in xai-org/grok-build
``crates/codegen/xai-grok-workspace/src/folder_trust.rs`` @ 19d42e35); this is that scan, marker for
marker. Where it cannot be sure (a folder it may not read), it says yes, as Grok Build does.
"""

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["grok_repo_config"]


def _present(path: Path) -> bool:
    """Anything at ``path``, or it cannot be told (not "no such file")."""
    try:
        path.lstat()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def _folder(path: Path) -> bool:
    """A folder at ``path``, or it cannot be told."""
    try:
        return path.is_dir()
    except OSError:
        return True


def _file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _up_to(folder: Path, root: Path | None) -> list[Path]:
    """``folder`` and the folders above it up to ``root`` (only ``folder`` outside a repository)."""
    if root is None:
        return [folder]
    chain = [folder]
    for parent in folder.parents:
        if chain[-1] == root:
            break
        chain.append(parent)
    return chain


def _nonempty(value: object, kind: type) -> bool:
    return isinstance(value, kind) and len(value) > 0  # type: ignore[arg-type]


def _permission_contributes(permission: object) -> bool:
    """A ``[permission]`` that adds a rule (anything but a table counts, as Grok Build counts it)."""
    if not isinstance(permission, dict):
        return True
    return any(_nonempty(permission.get(key), list) for key in ("deny", "allow", "ask", "rules"))


def _config_runs_commands(path: Path) -> bool:
    """A project ``.grok/config.toml`` with servers, plugin paths or permission rules (unreadable: no)."""
    try:
        config: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    plugins = config.get("plugins")
    return (
        _nonempty(config.get("mcp_servers"), dict)
        or (isinstance(plugins, dict) and _nonempty(plugins.get("paths"), list))
        or ("permission" in config and _permission_contributes(config["permission"]))
    )


def _claude_project_servers(folder: Path, home: Path) -> bool:
    """``~/.claude.json`` names MCP servers for ``folder`` (``projects.<folder>.mcpServers``)."""
    from ._trust import read_host_file  # here: _trust asks this module, and reads the file as a host does

    value, _ = read_host_file(home / ".claude.json", "json")
    projects = value.get("projects") if value is not None else None
    entry = projects.get(str(folder)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and _nonempty(entry.get("mcpServers"), dict)


def _markers(folder: Path, root: Path | None, home: Path, user_config: Path) -> Iterator[bool]:
    """Each of Grok Build's markers in its order, lazily (the first found ends the scan)."""
    chain = _up_to(folder, root)
    yield any(_file(d / ".mcp.json") for d in chain)
    yield any(
        _file(d / ".grok" / "config.toml") and d / ".grok" / "config.toml" != user_config and
        _config_runs_commands(d / ".grok" / "config.toml")
        for d in chain
    )  # fmt: skip
    yield _file(folder / ".grok" / "lsp.json") or _file(folder / ".cursor" / "mcp.json") or _file(folder / ".envrc")
    yield any(_file(d / ".claude" / name) for d in chain for name in ("settings.local.json", "settings.json"))
    base = root or folder
    yield _present(base / ".grok" / "hooks") or _file(base / ".cursor" / "hooks.json")
    yield any(_folder(d / sub / kind) for d in chain for sub in (".grok", ".claude") for kind in ("plugins", "agents"))
    yield _folder(folder / ".grok" / "roles") or _folder(folder / ".grok" / "personas")
    yield _folder(base / ".grok" / "workflows")
    yield _claude_project_servers(folder, home)


def grok_repo_config(folder: Path, root: Path | None, home: Path, user_config: Path) -> bool:
    """Whether Grok Build, started in ``folder`` (in the repository at ``root``, ``None``: none), finds
    configuration there that runs commands: ``.mcp.json``, a project ``.grok/config.toml`` with
    ``mcp_servers``, ``[plugins] paths`` or ``[permission]`` rules, ``.grok/lsp.json``, ``.cursor/mcp.json``,
    ``.envrc``, Claude Code's project settings, hooks, plugins, agents, roles, personas, workflows, or
    servers ``~/.claude.json`` keeps for the folder. ``user_config`` is the user's own ``config.toml``
    (never a project's)."""
    return any(_markers(folder, None if root == home else root, home, user_config))
