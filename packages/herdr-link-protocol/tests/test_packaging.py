import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
REPOSITORY = PACKAGE.parents[1]

# Debian 12's own Python is 3.11.2: its tarfile has no ``filter=`` (PEP 706 came in 3.11.4).
OLD_TARFILE = """\
import sys, tarfile
sys.version_info = (3, 11, 2, "final", 0)
vars(tarfile).pop("data_filter", None)
_extractall = tarfile.TarFile.extractall
def extractall(self, path=".", members=None, *, numeric_owner=False, **kwargs):
    if kwargs:
        raise TypeError(f"extractall() got an unexpected keyword argument {next(iter(kwargs))!r}")
    return _extractall(self, path, members, numeric_owner=numeric_owner)
tarfile.TarFile.extractall = extractall
"""


@pytest.fixture(params=["this Python", "Python 3.11.2"])
def build_env(request, tmp_path, monkeypatch) -> dict[str, str]:
    """The environment ``python -m build`` runs in; the second one acts as Debian 12's Python."""
    env = dict(os.environ)
    if request.param == "Python 3.11.2":
        site = tmp_path / "old-tarfile"
        site.mkdir()
        (site / "sitecustomize.py").write_text(OLD_TARFILE, encoding="utf-8")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
        monkeypatch.setattr(tarfile.TarFile, "extractall", tarfile.TarFile.extractall)
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
        monkeypatch.setattr(sys, "version_info", sys.version_info)
        exec(OLD_TARFILE, {})  # and so does this process
    return env


def test_wheel_built_from_the_sdist_ships_protocol_md_and_py_typed(tmp_path, build_env):
    out = tmp_path / "dist"
    # Without --sdist/--wheel, build makes the sdist and then the wheel from that sdist.
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(PACKAGE)]
    done = subprocess.run(build, capture_output=True, text=True, env=build_env)
    assert done.returncode == 0, done.stderr
    wheel = next(out.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "herdr_link_protocol/py.typed" in names
        shipped = archive.read("herdr_link_protocol/PROTOCOL.md").decode("utf-8")
    assert shipped == (REPOSITORY / "PROTOCOL.md").read_text(encoding="utf-8")
