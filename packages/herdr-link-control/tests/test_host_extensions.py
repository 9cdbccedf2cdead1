"""The host table's ``Extension`` rows: where Pi and OpenCode load a file of ours, read by their installers."""

from pathlib import Path

import pytest

from herdr_link_control.hosts import HOSTS, Extension, Host, Place, host_extension, place_path


def test_opencode_and_pi_name_their_extension_and_the_mcp_hosts_none():
    assert {host.name for host in HOSTS if host.extension is not None} == {"pi", "opencode"}
    for name in ("claude", "codex", "gemini", "agy"):
        with pytest.raises(LookupError, match=name):
            host_extension(name)
    with pytest.raises(LookupError):
        host_extension("no-such-host")


def test_opencodes_row_places_the_plugin_as_opencode_finds_its_config_folder(tmp_path):
    opencode = host_extension("opencode")
    home, work = tmp_path / "home", tmp_path / "work"
    # xdg-basedir: $XDG_CONFIG_HOME/opencode, else ~/.config/opencode, on every platform
    assert place_path(opencode.folder, "user", {}, home, work) / opencode.file == (
        home / ".config" / "opencode" / "plugins" / "herdr-link.js"
    )
    moved = place_path(opencode.folder, "user", {"XDG_CONFIG_HOME": str(tmp_path / "x")}, home, work)
    assert moved == tmp_path / "x" / "opencode"
    assert place_path(opencode.folder, "project", {}, home, work) / opencode.file == (
        work / ".opencode" / "plugins" / "herdr-link.js"
    )
    assert opencode.folders() == ("plugins", "plugin") and opencode.file_name == "herdr-link.js"
    assert opencode.extra_folder == "OPENCODE_CONFIG_DIR" and "opencode --standalone" in opencode.shared_setup


def test_pis_row_places_the_extension_and_its_settings(tmp_path):
    pi = host_extension("pi")
    assert place_path(pi.folder, "user", {}, tmp_path, tmp_path) / pi.file == (
        tmp_path / ".pi" / "agent" / "extensions" / "herdr-link.js"
    )
    assert pi.settings == "settings.json" and pi.folders() == ("extensions",) and pi.shared_setup == ""


def test_a_lookup_reads_the_table_it_is_given():
    mine = Extension(Place("~/.mine"), "x/ours.js", older_files=("y/ours.js", "x/other.js"))
    table = (Host("mine", "Mine", kind="mine", extension=mine),)
    assert host_extension("mine", table) is mine and mine.folders() == ("x", "y")
    with pytest.raises(LookupError):
        host_extension("opencode", table)
    assert Path(mine.file).name == mine.file_name
