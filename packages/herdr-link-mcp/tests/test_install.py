"""``herdr-link-mcp install``: the plan first, merged without touching other keys, backed up, replaced
whole, undone by ``--uninstall``, and a ``state:`` line whatever happens. Run as a user would: the real
command in a subprocess, with a throwaway HOME."""

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from herdr_link_mcp import wiring
from herdr_link_mcp._install import apply, plan


def install(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "herdr_link_mcp", "install", *args],
        env=env,
        cwd=cwd or home,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _files(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def test_install_help_says_what_the_readme_says():
    """Your files are edited in place (every byte not ours kept), not "replaced whole"."""
    done = subprocess.run([sys.executable, "-m", "herdr_link_mcp", "install", "--help"], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    said = " ".join(done.stdout.split())
    assert "edited in place" in said and "every other byte stays as you wrote it" in said
    assert "replaced whole" not in said


def test_a_long_value_of_yours_is_shown_cut_after_a_whole_element_with_an_ellipsis(home: Path) -> None:
    theirs = {"command": "node", "args": ["/opt/someone-elses/herdr-link/dist/herdr-link.mcp.js"],
              "env": {"HERDR_SOCKET_PATH": "/run/user/1000/herdr.sock", "HERDR_ENV": "1"}}  # fmt: skip
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"herdr_link": theirs}}))
    done = install(home, "--host", "claude", "--dry-run")
    [line] = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("! mcpServers")]
    shown = line.removeprefix("! mcpServers.herdr_link is ").removesuffix("…, would become ours")
    assert line.endswith("…, would become ours") and json.dumps(theirs).startswith(shown)
    assert shown.endswith(", ") and len(shown) <= 120  # after a whole element: no word is cut


def test_codex_trust_of_our_hook_is_said_in_words(home: Path) -> None:
    done = install(home, "--host", "codex", "--dry-run")
    assert "    - add Codex's trust of our hint hook in [hooks.state]" in done.stdout.splitlines()
    assert "trusted_hash" not in done.stdout and "hooks.json:session_start" not in done.stdout


def test_claude_is_merged_into_the_users_files_and_taken_out_again(home: Path) -> None:
    state: dict[str, Any] = {"numStartups": 7, "projects": {"/old": {"allowedTools": ["Bash"]}}, "theme": "dark"}
    (home / ".claude.json").write_text(json.dumps(state))
    (home / ".claude.json").chmod(0o600)
    (home / ".claude").mkdir()
    settings: dict[str, Any] = {
        "permissions": {"allow": ["Bash(ls)"]},
        "model": "opus",
        "hooks": {"Stop": [{"hooks": []}]},
    }
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    (home / "work").mkdir()
    done = install(home, "--host", "claude", "--trust", str(home / "work"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "plan (install Herdr Link for claude):" and lines[-1].startswith("state: ~/.claude.json updated")
    merged = json.loads((home / ".claude.json").read_text())
    assert (
        merged["numStartups"] == 7
        and merged["theme"] == "dark"
        and merged["projects"]["/old"] == state["projects"]["/old"]
    )
    assert (
        merged["mcpServers"]["herdr_link"]["command"].endswith("herdr-link-mcp")
        or "-m" in merged["mcpServers"]["herdr_link"]["args"]
    )
    assert merged["projects"][str(home / "work")] == {"hasTrustDialogAccepted": True}
    assert stat.S_IMODE((home / ".claude.json").stat().st_mode) == 0o600  # as Claude Code keeps it
    user = json.loads((home / ".claude" / "settings.json").read_text())
    assert user["permissions"]["allow"] == ["Bash(ls)", "mcp__herdr_link"] and user["model"] == "opus"
    assert user["hooks"]["Stop"] == settings["hooks"]["Stop"] and len(user["hooks"]["SessionStart"]) == 1
    backups = [p for p in (home / ".config" / "herdr-link" / "backups").rglob("*") if p.is_file()]
    assert sorted(b.name.split(".2")[0] for b in backups) == [".claude.json", "settings.json"]
    assert {b.parent for b in backups} == {
        home / ".config" / "herdr-link" / "backups" / home.relative_to("/") / sub for sub in ("", ".claude")
    }
    assert any(json.loads(b.read_text()) == state for b in backups)

    again = install(home, "--host", "claude", "--trust", str(home / "work"))
    assert (
        again.returncode == 0
        and "nothing to do" in again.stdout
        and again.stdout.endswith("state: nothing was changed\n")
    )

    removed = install(home, "--host", "claude", "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert "folder trust is left as it is" in removed.stdout
    after = json.loads((home / ".claude.json").read_text())
    assert "mcpServers" not in after and after["projects"][str(home / "work")] == {"hasTrustDialogAccepted": True}
    assert json.loads((home / ".claude" / "settings.json").read_text()) == settings
    untrusted = install(home, "--host", "claude", "--uninstall", "--trust", str(home / "work"))
    assert untrusted.returncode == 0 and json.loads((home / ".claude.json").read_text()) == state
    assert "folder trust is left as it is" not in untrusted.stdout


def test_files_install_created_are_removed_by_uninstall(home: Path) -> None:
    warned = install(home, "--host", "gemini", "--trust", str(home))  # the whole home folder: only with --yes
    assert warned.returncode == 1 and "! --trust" in warned.stdout and "trusts your whole home folder" in warned.stdout
    assert install(home, "--host", "gemini", "--trust", str(home), "--yes").returncode == 0
    assert stat.S_IMODE((home / ".gemini" / "trustedFolders.json").stat().st_mode) == 0o600
    assert install(home, "--host", "gemini", "--uninstall", "--trust", str(home)).returncode == 0
    assert not (home / ".gemini" / "settings.json").exists() and not (home / ".gemini" / "trustedFolders.json").exists()


def test_codex_keeps_the_users_comments_and_tables(home: Path) -> None:
    (home / ".codex").mkdir()
    original = '# my settings\nmodel = "o3"  # the one I like\n\n[mcp_servers.other]\ncommand = "x"\n'
    (home / ".codex" / "config.toml").write_text(original)
    assert install(home, "--host", "codex", "--required").returncode == 0
    text = (home / ".codex" / "config.toml").read_text()
    assert text.startswith(original) and tomllib.loads(text)["mcp_servers"]["herdr_link"]["required"] is True
    assert install(home, "--host", "codex").returncode == 0  # our entry is replaced whole: required goes
    text = (home / ".codex" / "config.toml").read_text()
    assert text.startswith(original) and "required" not in tomllib.loads(text)["mcp_servers"]["herdr_link"]
    assert install(home, "--host", "codex", "--uninstall").returncode == 0
    assert (home / ".codex" / "config.toml").read_text() == original
    assert not (home / ".codex" / "hooks.json").exists()


def test_a_dry_run_shows_the_plan_and_writes_nothing(home: Path) -> None:
    (home / ".claude.json").write_text('{"numStartups": 1}')
    before = _files(home)
    done = install(home, "--host", "claude", "--dry-run")
    assert done.returncode == 0 and "  ~/.claude/settings.json: create" in done.stdout
    assert done.stdout.endswith("dry run: nothing was written\nstate: nothing was changed\n")
    assert _files(home) == before


def test_a_dry_run_over_what_is_not_ours_says_the_real_run_asks_first(home: Path) -> None:
    foreign = {"mcpServers": {"herdr_link": {"command": "npx", "args": ["-y", "herdr-link"]}}}
    (home / ".claude.json").write_text(json.dumps(foreign))
    done = install(home, "--host", "claude", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "the real run asks first: go ahead with what is marked ! above (--yes confirms)" in done.stdout
    assert done.stdout.endswith("state: nothing was changed\n")
    (home / ".claude.json").write_text('{"mcpServers": {},}')  # a file Claude Code could not read
    done = install(home, "--host", "claude", "--dry-run")
    assert done.returncode == 1 and done.stdout.endswith("state: nothing was changed\n")


def test_what_is_not_ours_is_replaced_only_when_confirmed(home: Path) -> None:
    foreign = {"mcpServers": {"herdr_link": {"command": "npx", "args": ["-y", "herdr-link"]}}}
    (home / ".claude.json").write_text(json.dumps(foreign))
    before = _files(home)
    refused = install(home, "--host", "claude")
    assert refused.returncode == 1 and "refused without confirmation" in refused.stderr and "--yes" in refused.stderr
    assert "! mcpServers.herdr_link is" in refused.stdout and refused.stdout.endswith("state: nothing was changed\n")
    assert _files(home) == before
    confirmed = install(home, "--host", "claude", "--yes")
    assert confirmed.returncode == 0 and "npx" not in (home / ".claude.json").read_text()
    # A folder the user marked not trusted is theirs too.
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(home): "DO_NOT_TRUST"}))
    distrust = install(home, "--host", "gemini", "--trust", str(home))
    assert distrust.returncode == 1 and '"DO_NOT_TRUST"' in distrust.stdout


@pytest.mark.parametrize(
    "written",
    [
        '[mcp_servers.herdr_link]\ncommand = "npx"\nargs = ["-y", "herdr-link"]\n',  # the TypeScript README's form
        '[mcp_servers]\nherdr_link = { command = "npx", args = ["-y", "herdr-link"] }\n',  # an inline table
        '[mcp_servers.herdr_link]\ncommand = "npx"\nargs = ["-y"]\n[mcp_servers.herdr_link.env]\nX = "1"\n',
    ],
    ids=["table", "inline-table", "with-sub-table"],
)
def test_a_typescript_herdr_link_in_codex_is_shown_replaced_with_yes_and_put_back(home: Path, written: str) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"\n\n' + written)
    theirs = tomllib.loads(config.read_text())
    refused = install(home, "--host", "codex")
    assert refused.returncode == 1 and "! mcp_servers.herdr_link is" in refused.stdout, (refused.stdout, refused.stderr)
    assert tomllib.loads(config.read_text()) == theirs  # not without --yes
    confirmed = install(home, "--host", "codex", "--yes")
    assert confirmed.returncode == 0, (confirmed.stdout, confirmed.stderr)
    ours = tomllib.loads(config.read_text())
    assert ours["mcp_servers"]["herdr_link"]["env_vars"] and ours["model"] == "o3"
    undone = install(home, "--host", "codex", "--uninstall", "--yes")
    assert undone.returncode == 0, (undone.stdout, undone.stderr)
    assert config.read_text() == 'model = "o3"\n\n' + written  # the TypeScript entry is back, byte for byte


CONTEXT7 = '[mcp_servers.context7]\ncommand = "npx"\nargs = ["-y", "@upstash/context7-mcp"]\n'
PROFILE = '\n# the fast profile, for reviews\n[profiles.fast]\nmodel = "gpt-5.5"\n'


@pytest.mark.parametrize(
    ("before", "written", "after"),
    [
        (
            '# my Codex settings\nmodel = "o3"\n\n' + CONTEXT7 + "\n# Herdr Link (TypeScript), added in March\n",
            '[mcp_servers.herdr_link]\ncommand = "npx"   # the npm one\nargs = ["-y", "herdr-link"]\n'
            '# its log\n[mcp_servers.herdr_link.env]\nHERDR_LINK_LOG = "debug"\n',
            PROFILE,
        ),
        (
            'model = "o3"\n\n[mcp_servers]\n# Herdr Link (TypeScript)\nherdr_link = ',
            '{ command = "npx", args = ["-y", "herdr-link"] }',
            '  # keep\ncontext7 = { command = "npx", args = ["-y", "@upstash/context7-mcp"] }\n' + PROFILE,
        ),
        (
            'model = "o3"\nmcp_servers.herdr_link = ',
            '{command="npx",args=["-y","herdr-link"]}',
            '\napproval_policy = "on-request"\n\n' + CONTEXT7 + PROFILE,
        ),
        ('model = "o3"\n\n' + CONTEXT7 + "\n", '[mcp_servers.herdr_link]\ncommand = "npx"\nargs = ["-y"]', ""),
    ],
    ids=["table-between-tables", "inline-in-its-table", "dotted-inline-at-the-top", "last-without-newline"],
)
def test_a_typescript_table_is_replaced_where_it_stands_and_put_back_byte_for_byte(
    home: Path, before: str, written: str, after: str
) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(before + written + after)
    confirmed = install(home, "--host", "codex", "--yes")
    assert confirmed.returncode == 0, (confirmed.stdout, confirmed.stderr)
    installed = config.read_text()
    assert installed.startswith(before), installed  # the comment above it stays above it, over ours
    rest = installed[len(before) :]
    ours = rest[: rest.index(after)] if after else rest
    assert "herdr-link-mcp" in ours and "npx" not in ours, installed  # ours stands where theirs stood
    assert tomllib.loads(installed)["mcp_servers"]["herdr_link"]["env_vars"]
    undone = install(home, "--host", "codex", "--uninstall", "--yes")
    assert undone.returncode == 0, (undone.stdout, undone.stderr)
    assert config.read_text() == before + written + after


def test_launcher_uvx_without_uv_names_a_way_to_uv_that_a_debian_python_allows(home: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "herdr_link_mcp", "install", "--host", "claude", "--launcher", "uvx", "--dry-run"],
        env={"PATH": str(tmp_path / "empty"), "HOME": str(home)}, cwd=home, capture_output=True, text=True,
        timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and "--launcher uvx: no uvx on PATH" in done.stdout, (done.stdout, done.stderr)
    # pip install --user is refused by an externally managed Python (PEP 668: Debian 12's, Ubuntu's own)
    assert "pipx install uv" in done.stdout and "pip install --user" not in done.stdout


def test_a_file_that_cannot_be_read_stops_before_anything_is_written(home: Path) -> None:
    (home / ".claude.json").write_text("{ not json")
    done = install(home, "--host", "claude")
    assert done.returncode == 1 and "is not valid JSON" in done.stderr and "nothing was changed" in done.stderr
    assert done.stdout == "state: nothing was changed\n" and not (home / ".claude").exists()


def test_a_failure_half_way_puts_back_what_was_written(home: Path) -> None:
    (home / ".claude.json").write_text('{"numStartups": 2}')
    (home / ".claude" / "settings.json.herdr-link.partial").mkdir(parents=True)  # the second write fails
    before = _files(home)
    done = install(home, "--host", "claude")
    assert done.returncode == 1 and "herdr-link-mcp install:" in done.stderr
    assert "~/.claude.json: restored from" in done.stdout
    assert done.stdout.endswith("state: ~/.claude.json unchanged; ~/.claude/settings.json unchanged\n")
    assert {k: v for k, v in _files(home).items() if not k.startswith(".config")} == before


def test_uninstall_takes_out_the_folders_install_made_and_only_those(home: Path) -> None:
    assert install(home, "--host", "gemini").returncode == 0
    done = install(home, "--host", "gemini", "--uninstall")
    assert done.returncode == 0 and "removed: ~/.gemini (empty; the install had made it)" in done.stdout
    assert not (home / ".gemini").exists()
    (home / ".gemini").mkdir()  # Gemini CLI's own folder, there before the install
    assert install(home, "--host", "gemini").returncode == 0
    assert install(home, "--host", "gemini", "--uninstall").returncode == 0
    assert (home / ".gemini").is_dir() and not (home / ".gemini" / "settings.json").exists()


def test_a_file_a_running_host_rewrote_meanwhile_is_not_overwritten(home: Path, capsys) -> None:
    (home / ".claude.json").write_text('{"numStartups": 2}')
    decided = plan(wiring("claude", home=home, environ={}), home, home)
    (home / ".claude.json").write_text('{"numStartups": 3}')  # Claude Code saved its state meanwhile
    said: list[str] = []
    assert apply(decided, {}, home, said.append) == 1
    assert "changed while this run was planning" in capsys.readouterr().err
    assert (home / ".claude.json").read_text() == '{"numStartups": 3}' and not (home / ".claude").exists()
    assert said[-1] == "state: ~/.claude.json unchanged; ~/.claude/settings.json unchanged"


def test_the_command_has_help_and_refuses_what_a_host_does_not_have(home: Path) -> None:
    helped = subprocess.run(
        [sys.executable, "-m", "herdr_link_mcp", "install", "--help"], capture_output=True, text=True
    )
    assert helped.returncode == 0 and "--uninstall" in helped.stdout and "--trust" in helped.stdout
    refused = install(home, "--host", "pi", "--trust", str(home))
    assert refused.returncode == 2 and "no folder trust" in refused.stderr and refused.stdout == ""
    empty = install(home, "--host", "claude", "--trust", "")
    assert empty.returncode == 2 and "--trust needs a folder" in empty.stderr and not (home / ".claude.json").exists()
    for folder, words in (("/", "every folder on this machine"), (str(home / "nowhere"), "not an existing folder")):
        warned = install(home, "--host", "claude", "--trust", folder)
        assert warned.returncode == 1 and words in warned.stdout and "refused without confirmation" in warned.stderr
    assert not (home / ".claude.json").exists()
    nothing = install(home, "--host", "claude", "--uninstall")
    assert nothing.returncode == 0 and "nothing to take out: Herdr Link is not installed" in nothing.stdout


def test_nothing_to_do_goes_through_the_one_dialogue_and_a_dry_run_says_it_wrote_nothing(home: Path) -> None:
    assert install(home, "--host", "gemini", "--yes").returncode == 0
    again = install(home, "--host", "gemini")
    assert again.returncode == 0 and again.stdout.endswith(
        "nothing to do: every file already holds it\nstate: nothing was changed\n"
    )
    dry = install(home, "--host", "gemini", "--dry-run")
    assert dry.returncode == 0 and dry.stdout.endswith(
        "nothing to do: every file already holds it\ndry run: nothing was written\nstate: nothing was changed\n"
    )
    assert dry.stdout.startswith(again.stdout.split("nothing to do")[0])  # the same plan first


_COUNTED = """
import sys
from pathlib import Path

reads, cleared = [], []
hooks = str(Path(sys.argv[1]))
sys.addaudithook(lambda event, args: reads.append(args[1:]) if event == "open" and str(args[0]) == hooks else None)
import herdr_link_mcp._install as install
from herdr_link_mcp.cli import main

clear = install.clear_partials
install.clear_partials = lambda path, **kw: cleared.append(str(path)) or clear(path, **kw)
sys.argv[1:2] = []
try:
    main()
finally:
    read = [mode in ("r", "rb") or mode is None and not flags & 3 for mode, flags in reads]  # open() or os.open()
    sys.stderr.write(f"reads {sum(read)} cleared {len(cleared)} "
                     f"paths {len(set(cleared))}\\n")
"""


def test_codex_hooks_file_is_read_once_and_leftovers_cleared_once_per_run(home: Path) -> None:
    """One reading of Codex's hook file makes the trust entry's key, the edit and the config's repairs, and
    each file's partial copies are looked for once, whether the run writes or has nothing to do."""
    hooks = home / ".codex" / "hooks.json"
    env = {"PATH": os.environ["PATH"], "HOME": str(home)}

    def counted(*args: str) -> list[int]:
        argv = [sys.executable, "-c", _COUNTED, str(hooks), "install", "--host", "codex", *args]
        done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)  # fmt: skip
        assert done.returncode == 0, done.stderr
        words = done.stderr.splitlines()[-1].split()
        return [int(words[1]), int(words[3]), int(words[5])]

    reads, cleared, paths = counted("--yes")  # creates both files and the record
    assert (reads, cleared, paths) == (2, 3, 3)  # the plan's, and the compare just before the replace
    assert counted("--yes") == [1, 3, 3]  # nothing to do
    assert counted("--uninstall", "--yes")[1:] == [3, 3]
