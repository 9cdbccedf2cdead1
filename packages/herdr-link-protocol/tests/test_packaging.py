import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
REPOSITORY = PACKAGE.parents[1]


def test_wheel_built_from_the_sdist_ships_protocol_md_and_py_typed(tmp_path):
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path)]
    subprocess.run([*build, "--sdist", str(PACKAGE)], check=True, capture_output=True)
    sdist = next(tmp_path.glob("*.tar.gz"))
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    unpacked = next((tmp_path / "unpacked").iterdir())
    subprocess.run([*build, "--wheel", str(unpacked)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "herdr_link_protocol/py.typed" in names
        shipped = archive.read("herdr_link_protocol/PROTOCOL.md").decode("utf-8")
    assert shipped == (REPOSITORY / "PROTOCOL.md").read_text(encoding="utf-8")
