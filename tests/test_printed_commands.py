"""Every command of ours that a README, a doc or a tool's own output names exists and takes the
arguments it is written with. Each is run as written (placeholders such as ``<host>`` filled in), in a
throwaway HOME and folder, stdin closed, for at most a few seconds:

* a line of a shell block must run without a usage error (exit status 2);
* a command named in prose (an inline span, a tool's message) may leave out required arguments (it
  names the command), but never has an unknown subcommand, option or choice, and its program exists.

An appended ``--help`` would prove nothing (``install --uninstall --help`` exits 0 while the command
exits 2), so nothing is appended. Long runners (``herdr-sim serve``, the conformance kit) are stopped
after the limit: by then the arguments were long accepted.
"""

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from herdr_link_mcp import wiring_hosts

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PROGRAMS = (
    "herdr-link-conformance", "herdr-link-opencode-install", "herdr-link-opencode-bridge", "herdr-link-pi-bridge",
    "herdr-link-bridge", "herdr-link-mcp", "herdr-sim", "herdr-link",
)  # fmt: skip
"""Our console scripts, longest first (``herdr-link`` is a prefix of the others)."""
PLACEHOLDERS = {
    "<host>": "claude", "<宿主>": "claude", "H": "claude", "<folder>": "{work}", "<project>": "{work}",
    "DIR": "{work}", "<DIR>": "{work}", "CMD": "herdr-link-mcp", "RUNTIME:FILE": "pi:{work}/x.js",
}  # fmt: skip
USAGE_ERRORS = (
    "unrecognized arguments",
    "invalid choice",
    "unknown option",
    "ambiguous option",
    "expected one argument",
)
LIMIT = 8.0
"""Seconds a command may run before it is stopped (its arguments were accepted long before)."""


@dataclass(frozen=True)
class Named:
    """A command as a text names it: where, and whether it stands in a shell block (run as written)."""

    command: str
    source: str
    in_block: bool


def _doc_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / name for name in listed.stdout.split() if not name.startswith("CHANGELOG") and "/tests/" not in name]


_START = re.compile(r"^(?:\.venv/bin/|\.tools/bin/)?(herdr-link[\w-]*|herdr-sim)(?=$|\s)")
"""A word that reads as one of our programs: checked to be one (``herdr-link-pi-install`` was not)."""
DISTRIBUTIONS = {p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file()}
"""Names a sentence may use bare: a distribution is not a command."""


PROSE = {"on", "in", "is", "with", "to", "for", "and", "then", "once", "when", "that", "which", "by", "from",
         "the", "a", "an", "as", "it", "its", "or", "not", "before", "after", "where"}  # fmt: skip
"""Words that end a command named in a sentence (``… herdr-link-bridge on PATH``)."""


def _synopsis_to_command(text: str) -> str:
    """A synopsis as a command: the first of alternatives (``--mcp CMD | --bridge CMD``, ``v1|v2``)."""
    text = text.replace("\\|", "|")
    text = text.split(" | ")[0]
    return " ".join(word.split("|")[0] if "|" in word and not word.startswith("'") else word for word in text.split())


def _commands_in(text: str, source: str, *, in_block: bool) -> list[Named]:
    """The commands a text holds: a span or line that starts with one of our programs (a shell line's
    redirections and ``&`` left out; in prose, a bare program name is a name, not a command)."""
    named = []
    for piece in re.split(r"\s*(?:&&|;|\|\|)\s*", text.split("  #")[0].strip()):
        piece = re.split(r"\s+(?:[0-9]?>>?|<)(?=\s)|\s+&$", piece.strip())[0].strip()
        found = _START.match(piece)
        if found is None or "…" in piece or piece.endswith("\\") or "─" in piece:
            continue
        command = _synopsis_to_command(piece[found.start(1) :])
        if not in_block:
            words = command.split()
            cut = next((i for i, word in enumerate(words) if word in PROSE), len(words))
            command = " ".join(words[:cut])
            if len(command.split()) < 2 and (command in DISTRIBUTIONS or command in PROGRAMS):
                continue  # a name in a sentence
        named.append(Named(command, source, in_block))
    return named


def _from_docs() -> list[Named]:
    named: list[Named] = []
    for path in _doc_files():
        text = path.read_text(encoding="utf-8")
        source = str(path.relative_to(ROOT))
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
            for line in block.splitlines():
                named += _commands_in(line, source, in_block=True)
        for span in re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.DOTALL)):
            named += _commands_in(span, source, in_block=False)
    return named


def _from_tools(home: Path) -> list[Named]:
    """The commands our tools print: every host's wiring (notes included), the doctor's fixes, each
    program's ``--help``."""
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home)}
    outputs = {}
    for host in wiring_hosts():  # every host of the table
        outputs[f"wiring --host {host}"] = _output(["herdr-link-mcp", "wiring", "--host", host], env)
    outputs["doctor"] = _output(["herdr-link", "doctor"], env)
    for program in PROGRAMS:
        outputs[f"{program} --help"] = _output([program, "--help"], env)
    named = []
    for source, output in outputs.items():
        for line in output.splitlines():
            pieces = re.findall(r"`([^`\n]+)`", line)
            if not pieces and not source.endswith("--help"):  # help texts name commands in backticks only
                pieces = [re.sub(r"^\s*(fix:|- )\s*", "", line)]
            for piece in pieces:
                for part in re.split(r",\s*|\s+or\s+|\(|\)", piece):
                    named += _commands_in(part.strip().rstrip(".:;"), source, in_block=False)
    return named


def _output(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run([str(BIN / argv[0]), *argv[1:]], env=env, capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


def _argv(command: str, work: Path) -> list[str]:
    words = []
    for word in shlex.split(re.sub(r"\[[^\]]*\]", "", command)):  # optional parts left out
        word = PLACEHOLDERS.get(word, word).format(work=work)
        words.append(word.replace("~", str(work / "home"), 1) if word.startswith("~") else word)
    return [str(BIN / words[0]), *words[1:]]


def _run(argv: list[str], work: Path) -> tuple[int | None, str]:
    env = {
        "PATH": f"{BIN}:/usr/bin:/bin",
        "HOME": str(work / "home"),
        "XDG_CONFIG_HOME": str(work / "home" / ".config"),
    }
    with subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, start_new_session=True) as process:  # fmt: skip
        try:
            _, err = process.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.communicate()
            return None, ""
    return process.returncode, err


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> list[Named]:
    home = tmp_path_factory.mktemp("home")
    found = {(n.command, n.in_block): n for n in [*_from_docs(), *_from_tools(home)]}
    return sorted(found.values(), key=lambda n: (n.source, n.command))


def test_the_collection_finds_what_the_docs_and_tools_name(named: list[Named]) -> None:
    commands = {n.command for n in named}
    assert "herdr-link-pi-bridge install --uninstall" in commands  # a README's
    assert any(n.source == "doctor" for n in named)  # a tool's message
    assert any(n.in_block for n in named) and len(named) >= 40


def _problem(entry: Named, work: Path) -> str | None:
    """Why ``entry`` does not work as written, or ``None``."""
    (work / "home").mkdir(parents=True, exist_ok=True)
    argv = _argv(entry.command, work)
    if Path(argv[0]).name not in PROGRAMS or not Path(argv[0]).exists():
        return f"{entry.source}: `{entry.command}`: there is no program {Path(argv[0]).name}"
    status, err = _run(argv, work)
    usage = status == 2 and (entry.in_block or any(e in err for e in USAGE_ERRORS) or "required" not in err)
    return f"{entry.source}: `{entry.command}` is a usage error: {err.strip().splitlines()[-1:]}" if usage else None


def test_every_named_command_exists_and_takes_its_arguments(named: list[Named], tmp_path: Path) -> None:
    problems = [_problem(entry, tmp_path / str(index)) for index, entry in enumerate(named)]
    assert not any(problems), "\n".join(p for p in problems if p)


@pytest.mark.parametrize(
    ("text", "in_block"),
    [
        ("the native extension (herdr-link-pi-bridge, herdr-link-pi-install) gives it", False),  # wiring once said
        ("herdr-link-pi-bridge install --uninstall --force", True),  # an option it does not have
        ("`herdr-link-mcp wiring --host nosuchhost`", False),  # a choice it does not have
        ("herdr-sim env", True),  # in a shell block, a command must run as written
    ],
)
def test_the_check_fails_on_a_command_that_does_not_work_as_written(text: str, in_block: bool, tmp_path: Path):
    pieces = re.findall(r"`([^`\n]+)`", text) or re.split(r",\s*|\(|\)", text)
    entries = [n for piece in pieces for n in _commands_in(piece.strip(), "test", in_block=in_block)]
    assert entries and any(_problem(entry, tmp_path / str(i)) for i, entry in enumerate(entries))
