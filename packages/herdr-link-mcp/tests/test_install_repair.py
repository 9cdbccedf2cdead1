"""Installs made by Herdr Link 0.1.0 are repaired: a user's key 0.1.0 moved into a table of ours goes
back to the top level, a trust entry 0.1.0 wrote on the user's hook is taken out; both only with
``--yes``, both shown with ``!``, and the doctor warns of both.

The damaged files are laid out exactly as 0.1.0's installer wrote them (reproduced with its code, at
commit 58e980f: ``herdr-link-mcp install --host codex --yes`` over the user's file named in each
case); the command, hook and hash are today's, computed here, as 0.1.0 computed them from the same
hook.
"""

import json
import tomllib
from pathlib import Path

import pytest

from herdr_link_mcp import Damage, codex_damage_at, command_hook_hash, wiring
from herdr_link_mcp._install import apply, plan

USERS_HOOK = {"hooks": [{"type": "command", "command": "echo mine"}]}


def _our_server_and_hook(home: Path) -> tuple[str, dict[str, object], str]:
    """The ``[mcp_servers.herdr_link]`` lines, our hook group and its hash, as 0.1.0 wrote them."""
    config, hooks = wiring("codex", home=home, environ={}).files
    server = config.data["mcp_servers"]["herdr_link"]
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in server.items())
    group = hooks.data["hooks"]["SessionStart"][0]
    handler = group["hooks"][0]
    return lines, group, command_hook_hash("session_start", handler["command"], handler["timeout"])


def _damaged(home: Path, layout: str, *, users_hook: bool) -> tuple[Path, Path]:
    codex = home / ".codex"
    codex.mkdir(parents=True)
    server, group, digest = _our_server_and_hook(home)
    groups = [USERS_HOOK, group] if users_hook else [group]
    hooks_file = codex / "hooks.json"
    hooks_file.write_text(json.dumps({"hooks": {"SessionStart": groups}}, indent=2))
    trust = f'[hooks.state."{hooks_file}:session_start:0:0"]\ntrusted_hash = "{digest}"\n'
    config = codex / "config.toml"
    config.write_text(layout.format(server=server, trust=trust))
    return config, hooks_file


# Before 0.1.0: mcp_servers.other.command = "x" / model = "gpt-5"
MOVED_INTO_SERVER = """mcp_servers.other.command = "x"

[mcp_servers.herdr_link]
{server}model = "gpt-5"

{trust}"""
# Before 0.1.0: hooks.state."/x:session_start:0:0".trusted_hash = "sha256:aa" / model = "gpt-5"
MOVED_INTO_TRUST = """hooks.state."/x:session_start:0:0".trusted_hash = "sha256:aa"

{trust}model = "gpt-5"

[mcp_servers.herdr_link]
{server}"""


def _doctor_damage(config: Path) -> list[Damage]:
    """What the doctor reports of ``config``, with Codex's hook file beside it (as in these homes)."""
    return codex_damage_at(config, config.with_name("hooks.json"))


def _run(home: Path, *, uninstall: bool = False, yes: bool = True) -> tuple[int, list[str]]:
    decided = plan(wiring("codex", home=home, environ={}), home, home, uninstall=uninstall, environ={})
    said = decided.describe()
    if decided.conflicts and not yes:
        return 1, said  # what the command does without --yes: nothing
    return apply(decided, {}, home, said.append), said


@pytest.mark.parametrize("layout", [MOVED_INTO_SERVER, MOVED_INTO_TRUST], ids=["server-table", "trust-table"])
def test_a_key_0_1_0_moved_into_our_table_goes_back_with_yes(tmp_path: Path, layout: str) -> None:
    home = tmp_path / "home"
    config, _ = _damaged(home, layout, users_hook=False)
    damaged = config.read_bytes()
    assert [d.kind for d in _doctor_damage(config)] == ["moved"]  # what the doctor reports
    status, said = _run(home, yes=False)
    assert status == 1 and config.read_bytes() == damaged
    assert any(line.strip().startswith("! model sits in [") for line in said), said
    status, said = _run(home)
    assert status == 0, said
    parsed = tomllib.loads(config.read_text())
    assert parsed["model"] == "gpt-5" and "model" not in parsed["mcp_servers"]["herdr_link"]
    assert all("model" not in entry for entry in parsed["hooks"]["state"].values())
    assert _doctor_damage(config) == []
    status, said = _run(home, uninstall=True)
    assert status == 0, said
    assert tomllib.loads(config.read_text()).get("model") == "gpt-5"  # uninstall no longer takes it


def test_the_users_own_file_comes_back_byte_for_byte(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config, _ = _damaged(home, MOVED_INTO_SERVER, users_hook=False)
    assert _run(home)[0] == 0
    assert _run(home, uninstall=True)[0] == 0
    assert config.read_text() == 'mcp_servers.other.command = "x"\nmodel = "gpt-5"\n'  # as before 0.1.0


def test_a_trust_entry_0_1_0_wrote_on_the_users_hook_is_taken_out_with_yes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config, hooks_file = _damaged(home, MOVED_INTO_SERVER, users_hook=True)
    damage = _doctor_damage(config)
    assert [d.kind for d in damage] == ["moved", "stray"]
    assert "group 0, handler 0" in damage[1].problem
    status, said = _run(home, yes=False)
    assert status == 1 and any("holds Herdr Link's hash" in line for line in said), said
    assert _run(home)[0] == 0
    state = tomllib.loads(config.read_text())["hooks"]["state"]
    assert list(state) == [f"{hooks_file}:session_start:1:0"]  # only our hook's, at its real place
    assert _doctor_damage(config) == []


def test_a_users_own_keys_and_trust_are_not_damage(tmp_path: Path) -> None:
    home = tmp_path / "home"
    codex = home / ".codex"
    config, hooks_file = _damaged(home, MOVED_INTO_SERVER, users_hook=True)
    assert _run(home)[0] == 0
    user_key = f"{hooks_file}:session_start:0:0"
    text = config.read_text().replace(
        "default_tools_approval_mode", "startup_timeout_sec = 30\nenabled = true\ndefault_tools_approval_mode"
    )
    config.write_text(text + f'\n[hooks.state."{user_key}"]\ntrusted_hash = "sha256:users"\n')
    assert _doctor_damage(config) == []
    before = (codex / "config.toml").read_bytes()
    status, said = _run(home, yes=False)
    assert status == 0 and config.read_bytes() == before, said
