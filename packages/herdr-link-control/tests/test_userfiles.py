"""The install core every installer writes a user's files with (``herdr_link_control.userfiles``)."""

import os
import stat
import sys
import time
from pathlib import Path

import pytest

from herdr_link_control.userfiles import (
    ChangedMeanwhile,
    back_up,
    backup_stamp,
    copy_complete,
    made_by,
    prune_backups,
    replace_file,
    write_complete,
)


def test_a_complete_write_replaces_the_file_in_one_step(tmp_path):
    path = tmp_path / "plugin.js"
    path.write_bytes(b"old")
    write_complete(path, b"new")
    assert path.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["plugin.js"]


def test_a_failed_verification_leaves_the_old_file_and_no_partial(tmp_path):
    path, partial = tmp_path / "plugin.js", tmp_path / "work" / "plugin.js.tmp"
    partial.parent.mkdir()
    path.write_bytes(b"old")
    seen = []

    def refuse(candidate: Path) -> None:
        seen.append(candidate.read_bytes())
        raise OSError("does not match")

    with pytest.raises(OSError, match="does not match"):
        write_complete(path, b"new", partial=partial, verify=refuse)
    assert seen == [b"new"] and path.read_bytes() == b"old" and not partial.exists()


def test_a_write_that_dies_before_the_rename_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "bridge.json"
    path.write_bytes(b"old")

    def no_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_disk)
    with pytest.raises(OSError):
        write_complete(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["bridge.json"]


def test_a_complete_copy_keeps_bytes_and_times(tmp_path):
    source, copy = tmp_path / "a", tmp_path / "b"
    source.write_bytes(b"x" * 100_000)
    os.utime(source, (1_000_000_000, 1_000_000_000))
    copy_complete(source, copy)
    assert copy.read_bytes() == source.read_bytes() and copy.stat().st_mtime == 1_000_000_000


def test_backup_names_sort_by_utc_so_a_clock_zone_change_never_prunes_the_newer(tmp_path, monkeypatch):
    stamps = []
    for zone in ("ASIA-14", "AMER+12"):  # 26 hours apart on the wall clock, written a moment apart
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        stamps.append(backup_stamp())
        time.sleep(0.01)
    monkeypatch.delenv("TZ")
    time.tzset()
    assert sorted(stamps) == stamps
    backups = tmp_path / "backups"
    backups.mkdir()
    for stamp in ["20000101T000000.000000000Z-1", "20000101T000001.000000000Z-1", *stamps]:
        (backups / f"herdr-link.js.{stamp}").write_text(stamp)
    (backups / "other.js.20000101T000000.000000000Z-1").write_text("another file's backup")
    (backups / "herdr-link.js.20000101T000002.000000000Z-1.partial").write_text("a partial copy")
    prune_backups(backups, "herdr-link.js", keep=3)
    kept = sorted(p.read_text() for p in backups.iterdir())
    oldest = "20000101T000000.000000000Z-1"  # the original bytes: never pruned
    assert kept == sorted([oldest, *stamps, "another file's backup", "a partial copy"])  # and the two newest


def test_a_backup_is_complete_and_prunes_its_older_ones(tmp_path):
    target, backups = tmp_path / "herdr-link.js", tmp_path / "backups"
    for number in range(7):
        target.write_text(f"version {number}")
        back_up(target, backups, stamp=f"2026010{number}T000000.000000000Z-1", keep=3)
    assert sorted(p.read_text() for p in backups.iterdir()) == ["version 0", "version 5", "version 6"]
    assert stat.S_IMODE(backups.stat().st_mode) == 0o700


def test_every_copy_is_as_private_as_its_file_from_its_first_byte(tmp_path, monkeypatch):
    """The partial copy of a 0600 file is 0600 the moment it exists (it was 0644 until chmod-ed)."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"primaryApiKey": "sk"}')
    secret.chmod(0o600)
    seen: list[int] = []
    real_open = os.open

    def watching_open(path, flags, mode=0o777, *args, **kwargs):
        fd = real_open(path, flags, mode, *args, **kwargs)
        if str(path).endswith(".partial"):
            seen.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return fd

    monkeypatch.setattr(os, "open", watching_open)
    old = os.umask(0o022)
    try:
        write_complete(secret, b"{}")
        back_up(secret, tmp_path / "backups")
    finally:
        os.umask(old)
    assert seen == [0o600, 0o600]


def test_a_partial_a_killed_run_left_is_cleared_by_the_next(tmp_path):
    target, backups = tmp_path / "settings.json", tmp_path / "backups"
    target.write_text("{}")
    backups.mkdir()
    (backups / "settings.json.20260101T000000.000000000Z-1.partial").write_text("half")
    (tmp_path / "settings.json.partial").write_text("half")
    back_up(target, backups)
    write_complete(target, b"[]")
    assert not list(tmp_path.rglob("*.partial"))


def test_ownership_is_the_generators_id_line(tmp_path):
    ours = b"// herdr-link-pi-bridge 0.1.0 | generated\nexport default 1;\n"
    assert made_by(ours, "herdr-link-pi-bridge")
    assert not made_by(ours, "herdr-link-opencode-bridge")
    assert not made_by(b"export default 1; // herdr-link-pi-bridge 0.1.0\n", "herdr-link-pi-bridge")
    assert not made_by(b"// herdr-link-pi-bridge-fork 0.1.0\n", "herdr-link-pi-bridge")


def _host_writes_after_reading(monkeypatch, path: Path, writes: dict[int, bytes]) -> None:
    """Another program writes ``path`` (whole, atomically) right after the run's N-th read of it."""
    real_read = Path.read_bytes
    reads = 0

    def read_bytes(self: Path) -> bytes:
        nonlocal reads
        data = real_read(self)
        if self == path:
            reads += 1
            if reads in writes:
                scratch = path.with_name("host.scratch")
                scratch.write_bytes(writes[reads])
                os.replace(scratch, path)
        return data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)


def test_a_write_landing_just_after_the_compare_is_given_back(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    path.write_bytes(b"old")
    _host_writes_after_reading(monkeypatch, path, {1: b"host"})  # the compare is the first read
    with pytest.raises(ChangedMeanwhile):
        write_complete(path, b"ours", expect=b"old")
    assert path.read_bytes() == b"host" and sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_newer_write_that_replaced_ours_stays(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    path.write_bytes(b"old")
    partial = tmp_path / "state.json.partial"
    real_read = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        data = real_read(self)
        if self == path and data == b"old":  # the compare: then the host writes
            (tmp_path / "h").write_bytes(b"host 1")
            os.replace(tmp_path / "h", path)
        elif self == partial:  # ours was swapped in; the host writes again before the run looks
            (tmp_path / "h").write_bytes(b"host 2")
            os.replace(tmp_path / "h", path)
        return data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    with pytest.raises(ChangedMeanwhile):
        write_complete(path, b"ours", partial=partial, expect=b"old")
    assert path.read_bytes() == b"host 2" and sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_file_that_appears_meanwhile_is_never_replaced_by_a_new_one(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(b"the host's")
    with pytest.raises(ChangedMeanwhile):
        write_complete(path, b"ours", expect=None)  # the run saw no file
    assert path.read_bytes() == b"the host's" and sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_a_removal_gives_back_a_write_that_landed_after_the_compare(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    path.write_bytes(b"ours")
    _host_writes_after_reading(monkeypatch, path, {2: b"host"})  # the first read is replace_file's own check
    with pytest.raises(ChangedMeanwhile):
        replace_file(path, b"ours", None, backups=tmp_path / "backups")
    assert path.read_bytes() == b"host"
    assert not (tmp_path / "settings.json.herdr-link.partial").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="the swap (renameat2) is Linux's")
def test_an_error_just_after_the_swap_is_a_finished_replace(tmp_path, monkeypatch):
    """The file already holds the new bytes: an I/O error while tidying up after the swap must not be
    reported as a failed write (an installer then wrote no record, and said "unchanged")."""
    from herdr_link_control.userfiles import _complete

    swap = _complete._exchange

    def swap_then_fail(first: Path, second: Path) -> bool:
        swap(first, second)  # the new file is in place ...
        raise OSError(5, "Input/output error", str(second))  # ... and the tidying up after it fails

    monkeypatch.setattr(_complete, "_exchange", swap_then_fail)
    target = tmp_path / "settings.json"
    target.write_bytes(b"old\n")
    done = replace_file(target, b"old\n", b"new\n", backups=tmp_path / "backups")
    assert target.read_bytes() == b"new\n" and done.after == b"new\n" and done.backup is not None
    monkeypatch.setattr(_complete, "_exchange", lambda first, second: (_ for _ in ()).throw(OSError(5, "EIO")))
    with pytest.raises(OSError):  # an error before anything changed is still an error
        replace_file(target, b"new\n", b"newer\n", backups=tmp_path / "backups")
    assert target.read_bytes() == b"new\n"


def test_every_installer_words_a_failed_write_alike(tmp_path):
    from herdr_link_control.userfiles import failure_reason

    denied = PermissionError(13, "Permission denied", str(tmp_path / "x.json"))
    assert failure_reason(denied) == f"Permission denied: {tmp_path / 'x.json'}"
    assert failure_reason(OSError("the copy written does not match the manifest")) == (
        "the copy written does not match the manifest"
    )
    assert failure_reason(ChangedMeanwhile("x.json changed meanwhile")) == "x.json changed meanwhile: run again"
