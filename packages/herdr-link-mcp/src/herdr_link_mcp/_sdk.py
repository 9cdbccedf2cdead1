"""The MCP SDK's stdio server, loaded without its HTTP side.

``import mcp.server`` loads far more than a stdio tools server runs: ``mcp/__init__`` imports the
SDK's client (and through it httpx and cryptography), ``mcp/server/__init__`` imports ``MCPServer``,
and the module that defines the low-level ``Server`` imports starlette, uvicorn and the OAuth stack
for the one method that builds an HTTP app (``Server.streamable_http_app``). Together that is about
a third of the server's start and of its memory (``nox -s bench`` has the figures).

:func:`load_stdio_sdk` imports the same modules without those: the two package ``__init__`` files
are skipped (the packages get a plain module with the package's path, so their submodules import as
usual), and while ``mcp.server.lowlevel.server`` is executed, the HTTP modules it names are stand-ins
whose names refuse to be used (:class:`HttpOnly`). The stand-ins are gone from ``sys.modules`` once it
has loaded. If the SDK's layout ever makes this fail, the SDK is imported whole, as before, and the
log says so: slower, never broken.

Call it once, before the server's modules import ``mcp``, in a process that serves stdio and nothing
else (``herdr-link-mcp serve``): in it, ``import mcp`` is then the bare package, without the client.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys
from types import ModuleType
from typing import Final, Literal

__all__ = ["HTTP_ONLY_MODULES", "STDIO_MODULES", "HttpOnly", "load_stdio_sdk"]

log: Final = logging.getLogger("herdr_link")

SKIPPED_PACKAGE_INITS: Final = ("mcp", "mcp.server")
"""Packages whose ``__init__`` imports what stdio does not use (the client; ``MCPServer``)."""

HTTP_ONLY_MODULES: Final = (
    "starlette.applications",
    "starlette.middleware",
    "starlette.middleware.authentication",
    "starlette.routing",
    "mcp.server.auth.middleware.auth_context",
    "mcp.server.auth.middleware.bearer_auth",
    "mcp.server.auth.provider",
    "mcp.server.auth.routes",
    "mcp.server.auth.settings",
    "mcp.server.streamable_http",
    "mcp.server.streamable_http_manager",
    "mcp.server.transport_security",
)
"""What ``mcp.server.lowlevel.server`` imports only for ``Server.streamable_http_app`` (mcp 2.3)."""

STDIO_MODULES: Final = (
    "mcp.types",
    "mcp.shared.exceptions",
    "mcp.shared.message",
    "mcp.server.lowlevel.server",
    "mcp.server.context",
    "mcp.server.subscriptions",
)
"""Every SDK module the server imports (``_server``, ``_transport``)."""

Loaded = Literal["stdio only", "whole", "already loaded"]


class HttpOnly:
    """A name of an HTTP-only module, as seen by a ``Server`` loaded for stdio: using it says so."""

    def __init__(self, module: str, name: str) -> None:
        self._where = f"{module}.{name}"

    def __repr__(self) -> str:
        return f"<HttpOnly {self._where}>"

    def _refuse(self) -> RuntimeError:
        return RuntimeError(f"{self._where} is not loaded: this process loaded the MCP SDK for stdio only")

    def __call__(self, *args: object, **kwargs: object) -> object:
        raise self._refuse()

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # what ``hasattr``, ``copy`` and ``inspect`` probe: plainly absent
            raise AttributeError(name)
        raise self._refuse()


class _HttpOnlyModule(ModuleType):
    """A stand-in for an HTTP-only module while ``mcp.server.lowlevel.server`` executes."""

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return HttpOnly(self.__name__, name)


def _bare_package(name: str) -> None:
    """``name`` in ``sys.modules`` as its package without its ``__init__`` having run."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError(f"{name} is not a package")
    package = ModuleType(name)
    package.__spec__ = spec
    package.__path__ = list(spec.submodule_search_locations)
    package.__file__ = spec.origin
    package.__package__ = name
    sys.modules[name] = package
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, package)


def _forget(prefixes: tuple[str, ...]) -> None:
    for name in [m for m in sys.modules if m in prefixes or m.startswith(tuple(f"{p}." for p in prefixes))]:
        del sys.modules[name]


def load_stdio_sdk(http_only: tuple[str, ...] = HTTP_ONLY_MODULES, stdio: tuple[str, ...] = STDIO_MODULES) -> Loaded:
    """Import the SDK modules ``stdio`` names without the HTTP side (see the module docstring); says
    how it loaded. ``http_only`` and ``stdio`` are parameters so a test can give a layout that fails."""
    if "mcp" in sys.modules:
        return "already loaded"
    try:
        for package in SKIPPED_PACKAGE_INITS:
            _bare_package(package)
        for name in http_only:
            sys.modules[name] = _HttpOnlyModule(name)
        try:
            importlib.import_module("mcp.server.lowlevel.server")
        finally:
            for name in http_only:
                if isinstance(sys.modules.get(name), _HttpOnlyModule):
                    del sys.modules[name]
        for name in stdio:
            importlib.import_module(name)
    except Exception:
        log.warning("the MCP SDK could not be loaded for stdio only: loading all of it", exc_info=True)
        _forget(("mcp", "starlette"))
        for name in stdio:
            importlib.import_module(name)
        return "whole"
    return "stdio only"
