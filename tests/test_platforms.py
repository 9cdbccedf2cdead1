"""The systems Herdr runs on: every module of every distribution imports where the POSIX-only modules
do not exist (Windows), so the MCP server and the bridge can start there. Only Linux runs here; the
other platforms' code paths are checked statically (``mypy --platform win32|darwin`` in ``nox -s
typecheck``)."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POSIX_ONLY = ("fcntl", "termios", "tty", "pty", "resource", "grp", "pwd", "posix_ipc", "readline")
"""Standard modules Windows does not have (``posix`` itself is what ``os`` wraps there: not hidden)."""

IMPORT_ALL = textwrap.dedent(
    """
    import builtins, importlib, pkgutil, sys
    hidden, ours = set(sys.argv[1].split(",")), tuple(sys.argv[2:])
    real_import = builtins.__import__

    def windows_import(name, globals=None, locals=None, fromlist=(), level=0):
        importer = (globals or {}).get("__name__", "")
        if level == 0 and name.split(".")[0] in hidden and importer.startswith(ours):
            raise ImportError(f"{importer} imports {name}, which Windows does not have")
        return real_import(name, globals, locals, fromlist, level)

    # Only our modules are refused them: a library's own "if sys.platform != 'win32': import fcntl"
    # takes its Windows branch on Windows.
    builtins.__import__ = windows_import
    failed = []
    for package in ours:
        root = importlib.import_module(package)
        names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
        for name in names:
            if name.rsplit(".", 1)[-1] == "__main__":
                continue  # running it is not importing it
            try:
                importlib.import_module(name)
            except ImportError as error:
                failed.append(f"{name}: {error}")
    print("\\n".join(failed))
    sys.exit(1 if failed else 0)
    """
)


def _packages() -> list[str]:
    return sorted(
        child.name
        for source in ROOT.glob("packages/*/src")
        for child in source.iterdir()
        if (child / "__init__.py").is_file()
    )


def test_every_module_imports_without_the_posix_only_modules():
    packages = _packages()
    assert "herdr_link_mcp" in packages and "herdr_link_control" in packages and len(packages) >= 9
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, ",".join(POSIX_ONLY), *packages],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_check_fails_on_a_module_that_imports_fcntl_at_the_top(tmp_path):
    """The check bites: a package importing ``fcntl`` at module level is reported."""
    package = tmp_path / "posix_bound"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "wire.py").write_text("import os\nimport fcntl\n")
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, ",".join(POSIX_ONLY), "posix_bound"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1 and "posix_bound.wire" in done.stdout
