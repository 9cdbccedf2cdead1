"""What ``pip install`` gives a user: every distribution built, checked, and installed alone
(``nox -s dist``).

* Each sdist and wheel passes ``twine check --strict``; each wheel built from its sdist holds the same
  files as one built straight from the source tree; two builds of one commit are byte-identical.
* Four distributions are installed alone, each into a fresh virtual environment with pip, as a user
  would: ours from the wheelhouse (``--find-links``), third-party ones from the index. What each
  install pulled in is compared with ``tests/dist/expected/<distribution>.txt``, so a new dependency
  is a visible change (``HERDR_LINK_UPDATE_GOLDEN=1`` rewrites them), and pip's report shows every one
  of ours came from the wheelhouse.
* Each is then used as a user would: its commands, and for the server a stdio handshake outside Herdr
  and inside a simulated pane (the simulator comes from this test environment, not the installed set).
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import build_wheelhouse
import pytest
from packaging.utils import canonicalize_name

from herdr_link_testkit import HerdrSim

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).parent / "expected"
OURS = {canonicalize_name(name) for name in build_wheelhouse.DISTRIBUTIONS}
DEVELOPMENT_ONLY = {"herdr-link-testkit", "nox", "pytest", "ruff", "mypy", "hypothesis", "twine", "build"}
"""What a user's install of the server must never bring."""
UPDATE = os.environ.get("HERDR_LINK_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="session")
def wheelhouse() -> Path:
    """The wheelhouse ``nox -s dist`` built (``HERDR_LINK_WHEELHOUSE``), else one built now."""
    given = os.environ.get("HERDR_LINK_WHEELHOUSE")
    if given:
        return Path(given).resolve()
    out = ROOT / ".cache" / "dist" / "wheelhouse"
    build_wheelhouse.build(out)
    return out


def files(wheelhouse: Path, suffix: str) -> list[Path]:
    found = sorted(wheelhouse.glob(f"*{suffix}"))
    assert len(found) == len(build_wheelhouse.DISTRIBUTIONS), found
    return found


def test_every_distribution_passes_twine_check_strict(wheelhouse: Path):
    built = [*files(wheelhouse, ".whl"), *files(wheelhouse, ".tar.gz")]
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, built)], text=True,
                          capture_output=True, env={**os.environ, "NO_COLOR": "1"})  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == len(built)


def names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return sorted(archive.namelist())


def test_a_wheel_from_its_sdist_holds_what_one_from_the_tree_holds(wheelhouse: Path, tmp_path: Path):
    from_tree = {path.name: names(path) for path in build_wheelhouse.build(tmp_path / "tree", wheel_from_tree=True)}
    from_sdist = {path.name: names(path) for path in files(wheelhouse, ".whl")}
    assert from_sdist == from_tree
    for wheel, listed in from_sdist.items():
        package = wheel.split("-")[0]
        assert f"{package}/py.typed" in listed, wheel  # every distribution is typed


def test_two_builds_of_one_commit_are_byte_identical(wheelhouse: Path, tmp_path: Path, capsys):
    again = {path.name: path.read_bytes() for path in build_wheelhouse.build(tmp_path / "again")}
    count = len(build_wheelhouse.DISTRIBUTIONS)
    assert capsys.readouterr().err.splitlines() == [  # each said as it starts: a build takes minutes
        f"building {name} ({number} of {count}): its sdist, then its wheel from that sdist"
        for number, name in enumerate(build_wheelhouse.DISTRIBUTIONS, 1)
    ]
    first = {path.name: path.read_bytes() for path in [*files(wheelhouse, ".whl"), *files(wheelhouse, ".tar.gz")]}
    assert sorted(again) == sorted(first)
    assert [name for name in first if first[name] != again[name]] == []


def test_the_protocol_wheel_ships_the_specification_and_py_typed(wheelhouse: Path):
    wheel = next(path for path in files(wheelhouse, ".whl") if path.name.startswith("herdr_link_protocol-"))
    listed = names(wheel)
    assert "herdr_link_protocol/PROTOCOL.md" in listed and "herdr_link_protocol/py.typed" in listed
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("herdr_link_protocol/PROTOCOL.md") == (ROOT / "PROTOCOL.md").read_bytes()


class Installed:
    """A fresh virtual environment holding one distribution, installed with pip from the wheelhouse."""

    def __init__(self, where: Path, distribution: str, wheelhouse: Path) -> None:
        self.where = where
        venv.create(where, with_pip=True, symlinks=True)
        self.bin = where / "bin"
        before = self.installed()
        report = where / "report.json"
        command = [str(self.bin / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                   "--find-links", str(wheelhouse), "--report", str(report), distribution]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
        self.pulled_in = sorted(self.installed() - before)
        self.report = json.loads(report.read_text())

    def installed(self) -> set[str]:
        done = subprocess.run([str(self.bin / "python"), "-m", "pip", "list", "--format", "json",
                               "--disable-pip-version-check"], capture_output=True, text=True, check=True)  # fmt: skip
        return {canonicalize_name(entry["name"]) for entry in json.loads(done.stdout)}

    def run(self, *args: str, env: dict[str, str] | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, input=stdin)

    def sources(self) -> dict[str, str]:
        """Each installed distribution of ours and where pip took it from."""
        return {
            canonicalize_name(item["metadata"]["name"]): item["download_info"]["url"]
            for item in self.report["install"]
            if canonicalize_name(item["metadata"]["name"]) in OURS
        }


def expect_pulled_in(installed: Installed, distribution: str, wheelhouse: Path) -> None:
    expected_file = EXPECTED / f"{distribution}.txt"
    found = "\n".join(installed.pulled_in) + "\n"
    sys.stdout.write(f"{distribution} pulled in: {', '.join(installed.pulled_in)}\n")
    if UPDATE:
        expected_file.write_text(found)
    assert found == expected_file.read_text(), (
        f"pip install {distribution} now pulls in another set; if that is intended, "
        f"HERDR_LINK_UPDATE_GOLDEN=1 rewrites {expected_file.relative_to(ROOT)}"
    )
    urls = installed.sources()  # every one of ours came from the wheelhouse, none from the index
    assert urls and all(url.startswith(wheelhouse.as_uri() + "/") for url in urls.values()), urls


def plain_env(home: Path) -> dict[str, str]:
    """A user's environment outside Herdr: no HERDR_* and a throwaway HOME."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("HERDR_", "VIRTUAL_ENV", "PYTHON"))}
    return {**keep, "HOME": str(home)}


HANDSHAKE = "".join(json.dumps(m) + "\n" for m in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "user", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "ping"},
))  # fmt: skip
"""The ping is answered by the SDK's server itself, so the installed SDK has loaded and served."""


def handshake(installed: Installed, env: dict[str, str]) -> list[str]:
    """The tool names ``tools/list`` gives over stdio, after a handshake that the SDK also served."""
    done = installed.run("herdr-link-mcp", env=env, stdin=HANDSHAKE)
    assert done.returncode == 0, done.stderr
    answers = {message["id"]: message for message in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "herdr-link" and answers[3]["result"] == {}
    return [tool["name"] for tool in answers[2]["result"]["tools"]]


def test_herdr_link_mcp_installed_alone_serves_and_wires(wheelhouse: Path, tmp_path: Path, herdr_sim: HerdrSim):
    installed = Installed(tmp_path / "venv", "herdr-link-mcp", wheelhouse)
    expect_pulled_in(installed, "herdr-link-mcp", wheelhouse)
    assert DEVELOPMENT_ONLY & set(installed.pulled_in) == set()
    env = plain_env(tmp_path / "home")
    version = installed.run("herdr-link-mcp", "--version", env=env)
    assert version.returncode == 0 and version.stdout.startswith("herdr-link-mcp 0.")
    wired = installed.run("herdr-link-mcp", "wiring", "--host", "claude", "--json", env=env)
    assert wired.returncode == 0, wired.stderr
    server = json.loads(json.loads(wired.stdout)["files"][0]["content"])["mcpServers"]["herdr_link"]
    assert server["command"] == str(installed.bin / "herdr-link-mcp")  # the script this install made
    assert handshake(installed, env) == []  # outside Herdr: nothing
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    assert handshake(installed, herdr_sim.env(pane, base=env)) == ["herdr_link"]  # dormant: the gateway


def test_herdr_link_installer_installed_alone_plans_an_opencode_install(wheelhouse: Path, tmp_path: Path):
    installed = Installed(tmp_path / "venv", "herdr-link-installer", wheelhouse)
    expect_pulled_in(installed, "herdr-link-installer", wheelhouse)
    home = tmp_path / "home"
    home.mkdir()
    done = installed.run("herdr-link-opencode-install", "--runtime", "v1", "--dry-run", env=plain_env(home))
    # The plan for a user who has not started OpenCode yet: the bundle would be written, but OpenCode has
    # not installed the plugin package it imports, so the install would refuse (exit 1) and says how to fix it.
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"target: {home}/.config/opencode/plugins/herdr-link.js" in done.stdout
    assert "npm install --prefix " in done.stderr and " @opencode-ai/plugin@" in done.stderr  # one command, as printed
    assert "dry run: nothing was written" in done.stdout
    assert list(home.iterdir()) == []  # nothing written


def test_herdr_link_protocol_installed_alone_imports_with_its_declared_dependencies(wheelhouse: Path, tmp_path: Path):
    installed = Installed(tmp_path / "venv", "herdr-link-protocol", wheelhouse)
    expect_pulled_in(installed, "herdr-link-protocol", wheelhouse)
    code = (
        "import herdr_link_protocol as p\n"
        "e = p.build_envelope('brain', 'reviewer', 'hi')\n"
        "assert p.parse_envelope(e.to_line()) == e\n"
        "print(len(p.tools_list(active=True)))\n"
    )
    done = installed.run("python", "-c", code, env=plain_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "5"


def test_the_umbrella_installed_alone_lists_every_distribution_and_runs_the_demo(wheelhouse: Path, tmp_path: Path):
    installed = Installed(tmp_path / "venv", "herdr-link", wheelhouse)
    expect_pulled_in(installed, "herdr-link", wheelhouse)
    env = plain_env(tmp_path / "home")
    version = installed.run("herdr-link", "--version", env=env)
    assert version.returncode == 0, version.stderr
    listed = {line.split()[0] for line in version.stdout.splitlines() if line.strip()}
    assert OURS <= {canonicalize_name(name) for name in listed}, version.stdout
    demo = installed.run("herdr-link", "demo", env=env)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]


def test_a_uvx_registration_runs_the_server_and_the_hook_from_the_wheelhouse(
    wheelhouse: Path, tmp_path: Path, herdr_sim: HerdrSim
):
    """``wiring --launcher uvx --find-links <wheelhouse>`` as printed, with a fresh uv cache: nothing of
    ours installed, uvx fetches ours from the wheelhouse and the rest from the index."""
    uvx = shutil.which("uvx")
    assert uvx is not None, "uv's uvx is not on PATH (nox installs uv)"
    wheel = next(wheelhouse.glob("herdr_link_mcp-*.whl"))  # printed by the wheel itself, run as uvx runs it
    printer = [uvx, "--find-links", str(wheelhouse), f"herdr-link-mcp@{wheel.name.split('-')[1]}"]
    command = [*printer, "wiring", "--host", "claude", "--launcher", "uvx", "--find-links", str(wheelhouse), "--json"]
    outside = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}  # uv's own cache: only prints
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=outside)
    assert done.returncode == 0, done.stderr[-3000:]
    files = json.loads(done.stdout)["files"]
    server = json.loads(files[0]["content"])["mcpServers"]["herdr_link"]
    hook = json.loads(files[1]["content"])["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert server["command"] == "uvx" and server["args"][-1].startswith("herdr-link-mcp@0.")
    env = {**plain_env(tmp_path / "home"), "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    pane = herdr_sim.create_workspace()
    herdr_sim.add_agent(pane, "claude", name="brain")
    in_pane = herdr_sim.env(pane, base=env)
    first = subprocess.run([uvx, *server["args"]], input=HANDSHAKE, capture_output=True, text=True,
                           timeout=600, env=in_pane)  # fmt: skip
    assert first.returncode == 0, first.stderr[-3000:]
    answers = {message["id"]: message for message in map(json.loads, first.stdout.splitlines())}
    assert [tool["name"] for tool in answers[2]["result"]["tools"]] == ["herdr_link"] and answers[3]["result"] == {}
    hinted = subprocess.run(shlex.split(hook), capture_output=True, text=True, timeout=600, env=in_pane)
    assert hinted.returncode == 0, hinted.stderr[-3000:]
    context = json.loads(hinted.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "herdr_link" in context
