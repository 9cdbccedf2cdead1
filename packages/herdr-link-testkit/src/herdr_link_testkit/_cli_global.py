"""The simulated ``herdr`` command line's global flags and its socket path (``docs/herdr.md`` §1, §10).

Pure: the environment comes in as a mapping. Standard library only, so that a launch stays cheap.
"""

from __future__ import annotations  # annotations stay unevaluated, so typing is never imported

import os

from ._usage import Usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["config_dir", "global_options", "socket_path", "strip_global_flags", "valid_session_name"]


def strip_global_flags(argv: list[str]) -> tuple[list[str], str | None]:
    """Remove --session/--remote/--handoff flags that appear before a literal ``--``."""
    kept: list[str] = []
    session = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            kept.extend(argv[index:])
            break
        if arg in ("--session", "--remote", "--remote-keybindings"):
            if arg == "--remote":
                raise Usage("--remote cannot be combined with a subcommand")
            value = argv[index + 1] if index + 1 < len(argv) else None
            if value is None:
                raise Usage(f"missing value for {arg}")
            if arg == "--session":
                session = value
            index += 2
            continue
        if arg.startswith("--session="):
            session = arg.split("=", 1)[1]
        elif arg.startswith("--remote="):
            raise Usage("--remote cannot be combined with a subcommand")
        elif arg != "--handoff":
            kept.append(arg)
        index += 1
    return kept, session


def valid_session_name(session: str) -> bool:
    """1-64 bytes of ``[A-Za-z0-9._-]``, and not ``.`` or ``..``."""
    return (
        1 <= len(session.encode()) <= 64
        and session not in (".", "..")
        and all(c.isascii() and (c.isalnum() or c in "._-") for c in session)
    )


def global_options(raw: list[str], env: Mapping[str, str]) -> tuple[list[str], str, str]:
    """Strip the global flags and resolve the socket path: the arguments left, the socket path and
    the command that would start its server.

    Raises:
        Usage: a bad global flag or session name (exit 2, no socket access).
    """
    args, session = strip_global_flags(raw)
    if session is not None and not valid_session_name(session):
        raise Usage("error: invalid session name\nrun 'herdr --help' for usage")
    path, start_command = socket_path(session, env)
    return args, path, start_command


def config_dir(env: Mapping[str, str]) -> str:
    """Herdr's config directory: ``$XDG_CONFIG_HOME/herdr``, else ``~/.config/herdr``, else ``/tmp/herdr``."""
    if env.get("XDG_CONFIG_HOME"):
        return os.path.join(env["XDG_CONFIG_HOME"], "herdr")
    if env.get("HOME"):
        return os.path.join(env["HOME"], ".config", "herdr")
    return os.path.join("/tmp", "herdr")


def socket_path(session: str | None, env: Mapping[str, str]) -> tuple[str, str]:
    """The API socket path and the command that would start or attach its server."""
    base = config_dir(env)
    if session is not None and session != "default":
        return os.path.join(base, "sessions", session, "herdr.sock"), f"herdr session attach {session}"
    if session is None and env.get("HERDR_SOCKET_PATH"):
        return env["HERDR_SOCKET_PATH"], "herdr"
    env_session = env.get("HERDR_SESSION")
    if session is None and env_session and env_session != "default":
        return os.path.join(base, "sessions", env_session, "herdr.sock"), f"herdr session attach {env_session}"
    return os.path.join(base, "herdr.sock"), "herdr"
