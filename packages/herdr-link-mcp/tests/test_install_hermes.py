"""Hermes Agent's ``config.yaml``: install writes our server under ``mcp_servers`` in the file's own layout,
forwarding the Herdr variables as Hermes expands them, where ``HERMES_HOME`` says; what it cannot edit
safely is refused with nothing written. (The install-then-uninstall round trip over Hermes's layouts is
in ``test_install_files.py``'s corpus.)"""

from pathlib import Path

import pytest
from install_corpus import HERMES_SAVED

from herdr_link_control.userfiles import yaml_value
from herdr_link_mcp import wiring
from herdr_link_mcp._install import InstallError, apply, plan


def _run(home: Path, environ: dict[str, str], *, uninstall: bool = False) -> list[str]:
    said: list[str] = []
    decided = plan(wiring("hermes", home=home, environ=environ), home, home, uninstall=uninstall, environ=environ)
    status = apply(decided, environ, home, said.append)
    assert status == 0, said
    return [*decided.describe(), *said]


def _command() -> tuple[str, list[str]]:
    entry = wiring("hermes", home=Path("/nowhere"), environ={}).files[0].data["mcp_servers"]["herdr_link"]
    return entry["command"], entry["args"]


def test_our_server_goes_under_mcp_servers_in_the_files_layout_and_forwards_the_herdr_variables(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / ".hermes").mkdir(parents=True)
    config = home / ".hermes" / "config.yaml"
    config.write_text(HERMES_SAVED)
    said = _run(home, {})
    command, args = _command()
    ours = (
        "  herdr_link:\n"
        f'    command: "{command}"\n'
        f"    args: [{', '.join(f'{a!r}'.replace(chr(39), chr(34)) for a in args)}]\n"
        "    env:\n"
        '      HERDR_ENV: "${HERDR_ENV}"\n'
        '      HERDR_BIN_PATH: "${HERDR_BIN_PATH}"\n'
        '      HERDR_PANE_ID: "${HERDR_PANE_ID}"\n'
        '      HERDR_SOCKET_PATH: "${HERDR_SOCKET_PATH}"\n'
    )
    assert config.read_text() == HERMES_SAVED.replace("display:\n", ours + "display:\n"), said
    assert any(line.startswith("state:") for line in said), said
    _run(home, {}, uninstall=True)
    assert config.read_text() == HERMES_SAVED


def test_hermes_home_moves_the_file_as_it_moves_hermes(tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "profiles" / "work"
    home.mkdir()
    _run(home, {"HERMES_HOME": str(elsewhere)})
    written = yaml_value((elsewhere / "config.yaml").read_text())
    assert written["mcp_servers"]["herdr_link"]["env"]["HERDR_PANE_ID"] == "${HERDR_PANE_ID}"
    assert not (home / ".hermes").exists()
    _run(home, {"HERMES_HOME": str(elsewhere)}, uninstall=True)
    assert not (elsewhere / "config.yaml").exists()


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("mcp_servers:\n  - github\n", r"mcp_servers is not a table here"),
        ("mcp_servers:\nmodel: x\n", r"mcp_servers is not a table here"),
        ("base: &s\n  gh: {command: x}\nmcp_servers: *s\n", r"anchor, an alias or a merge key"),
        ("mcp_servers: [\n", r"is not valid YAML"),
        ("- model\n", r"is not valid YAML \(the document is not a mapping\)"),
    ],
    ids=["a list", "empty", "an alias", "broken", "not a mapping"],
)
def test_a_config_that_cannot_be_edited_safely_is_refused_and_nothing_written(
    tmp_path: Path, text: str, refused: str
) -> None:
    home = tmp_path / "home"
    (home / ".hermes").mkdir(parents=True)
    config = home / ".hermes" / "config.yaml"
    config.write_text(text)
    with pytest.raises(InstallError, match=rf"\.hermes/config\.yaml.*{refused}.*nothing was changed"):
        plan(wiring("hermes", home=home, environ={}), home, home, uninstall=False, environ={})
    assert config.read_text() == text and not (home / ".config" / "herdr-link").exists()
