"""Developer sessions. ``nox`` runs tests, lint and type checks, as CI does.

Each package's tests run in an environment holding only that package and what it declares, so a
missing dependency declaration fails here rather than on a user's machine.
"""

import os
import shutil
from pathlib import Path
from typing import Final

import nox

nox.needs_version = ">=2025.5.1"
nox.options.default_venv_backend = "uv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "herdr_0_9", "integration", "mcp_node", "real_hosts", "dist", "lint", "typecheck"]

ROOT = Path(__file__).parent
PACKAGES = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())


def _sync(session: nox.Session, *selection: str) -> None:
    """``uv sync`` of the locked environment: the dev group and ``selection``, or only the group
    ``selection`` names with ``--only-group``."""
    groups = () if "--only-group" in selection else ("--group", "dev")
    session.run_install(
        "uv", "sync", "--locked", *groups, *selection,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location, "UV_PYTHON_DOWNLOADS": "never"},
        external=True,
    )  # fmt: skip


@nox.session
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """One package's own tests, in an environment with only that package and its dependencies."""
    _sync(session, "--package", package)
    session.run("pytest", f"packages/{package}/tests", *session.posargs)


@nox.session
def herdr_0_9(session: nox.Session) -> None:
    """The control layer's and the MCP server's suites again, against a simulated Herdr 0.9.0 (protocol 22):
    the tests using the ``herdr_sim`` fixtures, the only ones ``--herdr-version`` reaches (``--herdr-sim-only``;
    the others ran in ``tests`` already, and would run the same again)."""
    _sync(session, "--all-packages")
    session.run("pytest", "packages/herdr-link-control/tests", "packages/herdr-link-mcp/tests",
                "--herdr-version", "0.9.0", "--herdr-sim-only", *session.posargs)  # fmt: skip


SHELLS: Final = {"bash": "bash", "dash": "dash", "zsh": "zsh", "fish": "fish"}
"""The shells ``tests/test_shell_inert.py`` types wrappers into, and the Debian package of each."""


TERMINAL_TOOLS: Final = {"tmux": "tmux"}
"""Programs the root tests run in real panes (``tests/test_pane_proof_tmux.py``), and the Debian package of each."""


def _shells(session: nox.Session) -> None:
    """Install the shells (and terminal tools) that are missing from Debian's packages, where this is Debian
    and we are root (as CI is); elsewhere the test names what is missing and fails."""
    wanted = {**SHELLS, **TERMINAL_TOOLS}
    missing = [package for program, package in wanted.items() if shutil.which(program) is None]
    if missing and shutil.which("apt-get") and os.geteuid() == 0:
        quiet = {"DEBIAN_FRONTEND": "noninteractive"}
        session.run("apt-get", "update", "-qq", external=True, env=quiet)
        session.run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing, external=True, env=quiet)


@nox.session
def integration(session: nox.Session) -> None:
    """Cross-package tests (the root ``tests/``) with every package installed."""
    _sync(session, "--all-packages")
    _shells(session)
    # tests/real_hosts and tests/dist run only when named; two workers: most tests wait on subprocesses
    session.run("pytest", "-n", "2", "tests", *session.posargs)


@nox.session
def real_hosts(session: nox.Session) -> None:
    """Real hosts from npm (Claude Code, Codex, Gemini CLI, OpenCode, Pi), offline on loopback, scripted models.

    Installs the pinned hosts into ``.cache/real-hosts`` first (that needs the network), then runs
    ``tests/real_hosts`` through ``isolate.py`` on two pytest-xdist workers, each in namespaces of its own
    (``tests/real_hosts/conftest.py``); fails, never skips, where namespaces are unavailable.
    """
    _sync(session, "--all-packages")
    session.run("python", "tests/real_hosts/hosts.py")
    python = str(Path(session.virtualenv.location) / "bin" / "python")
    # two workers, each in namespaces of its own (tests/real_hosts/conftest.py)
    session.run("python", "tests/real_hosts/isolate.py", python, "-m", "pytest", "-p", "no:cacheprovider",
                "-n", "2", "tests/real_hosts", *session.posargs)  # fmt: skip


@nox.session
def dist(session: nox.Session) -> None:
    """Release-ready distributions: build every sdist and wheel into ``dist/`` (reproducibly), check
    them, and install four of them alone, each into a fresh virtual environment, as a user would.

    ``.tools/bin/uv tool install --find-links dist herdr-link-mcp`` then installs from the wheelhouse it
    leaves. It also runs the README's commands as written on an OS-managed Python
    (``tests/dist/test_readme_commands.py``).
    """
    _sync(session, "--only-group", "dist")  # what building and checking need (39 MB), not the dev tools (355 MB)
    wheelhouse = str(ROOT / "dist")
    session.log(f"Building every sdist and wheel into {wheelhouse}")
    session.run("python", "tests/dist/build_wheelhouse.py", wheelhouse)
    session.log(
        "dist/ is written. Checking it (a few minutes, each check named as it ends): twine, a second build "
        "byte for byte, four distributions installed alone, the README's commands as written"
    )
    session.run("pytest", "-p", "no:cacheprovider", "-v", "tests/dist", *session.posargs,
                env={"HERDR_LINK_WHEELHOUSE": wheelhouse})  # fmt: skip


@nox.session
def mcp_node(session: nox.Session) -> None:
    """herdr-link-mcp driven by an independent client: the TypeScript MCP SDK from npm."""
    _sync(session, "--package", "herdr-link-mcp")
    node_dir = "packages/herdr-link-mcp/tests/node"
    session.run("npm", "ci", "--no-audit", "--no-fund", "--prefix", node_dir, external=True)
    session.run("pytest", f"{node_dir}/ts_client_check.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff: lint rules and formatting."""
    _sync(session, "--all-packages")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over every package's sources (tests with the relaxed override)."""
    _sync(session, "--all-packages")
    relaxed = ("--allow-untyped-defs", "--allow-incomplete-defs", "--allow-untyped-calls")
    for package in PACKAGES:
        session.run("mypy", f"packages/{package}/src")
        session.run("mypy", *relaxed, f"packages/{package}/tests")  # one run each: test module names repeat
    # The systems Herdr runs on, checked statically (only Linux runs here). The testkit's simulator is
    # POSIX only (a Unix socket, pseudo-terminals): macOS, not Windows.
    sources = [f"packages/{package}/src" for package in PACKAGES]
    session.run("mypy", "--platform", "darwin", *sources)
    session.run("mypy", "--platform", "win32", *[s for s in sources if "testkit" not in s])
    if any((ROOT / "tests").glob("**/*.py")):
        session.run(
            "mypy",
            *relaxed,
            "tests",
            env={"MYPYPATH": "tests/real_hosts:tests/stubs:tests/tools:tests/dist:scripts"},
        )
    session.run("mypy", "benchmarks", env={"MYPYPATH": "benchmarks:tests/tools"})


@nox.session(default=False)
def fuzz(session: nox.Session) -> None:
    """The seeded fuzz at full size: 10,000 hostile lines into a real herdr-link-mcp (1,000 in ``tests``)."""
    _sync(session, "--package", "herdr-link-mcp")
    session.run("pytest", "packages/herdr-link-mcp/tests/test_transport.py", "-k", "fuzz", *session.posargs,
                env={"HERDR_LINK_FUZZ_COUNT": "10000"})  # fmt: skip


@nox.session(default=False)
def conformance_matrix(session: nox.Session) -> None:
    """Every broken adapter against every conformance check; the table goes into docs/conformance.md."""
    _sync(session, "--all-packages")
    session.run("python", "tests/tools/conformance_matrix.py", *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Figures, not tests: regenerate docs/benchmarks.md (surface, calls, overhead, wall, start, load)."""
    _sync(session, "--all-packages")
    session.run("python", "benchmarks/run.py", *session.posargs)
