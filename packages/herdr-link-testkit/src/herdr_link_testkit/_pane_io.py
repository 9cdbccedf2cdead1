"""What the simulated Herdr types into a pane and reads back from it (``docs/herdr.md`` §8.3, §8.4;
Herdr's ``src/app/api_helpers.rs``, ``src/platform/linux.rs`` and ``src/pane/terminal.rs``)."""

from typing import TYPE_CHECKING, Final

from ._cli_args import READ_SOURCES as CLI_READ_SOURCES
from ._detection import identify_agent

if TYPE_CHECKING:
    from ._terminal import PaneTerminal

__all__ = [
    "ENTER",
    "PROMPT_SUBMIT_DELAY",
    "READ_SOURCES",
    "identify_foreground",
    "paste_bytes",
    "read_text",
    "shell_command",
]

ENTER: Final = b"\r"
"""The Enter key as Herdr encodes it for a terminal without keyboard enhancements."""
PROMPT_SUBMIT_DELAY: Final = 0.3
"""``agent prompt`` sends the Enter 300 ms after the text (``AGENT_PROMPT_SUBMIT_DELAY``)."""
READ_SOURCES: Final = frozenset(CLI_READ_SOURCES.values())
"""The ``source`` values ``agent.read`` accepts (what the CLI sends for each ``--source``)."""
_PASTE_START: Final = b"\x1b[200~"
_PASTE_END: Final = b"\x1b[201~"
_SAFE: Final = frozenset("@%_+=:,./-")


def paste_bytes(text: str, bracketed: bool) -> bytes:
    """The bytes Herdr writes for ``text``: inside paste brackets when the program enabled them."""
    data = text.encode("utf-8", "surrogateescape")
    return _PASTE_START + data + _PASTE_END if bracketed else data


def _quote(value: str) -> str:
    if value and all((c.isascii() and c.isalnum()) or c in _SAFE for c in value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def shell_command(argv: list[str]) -> str:
    """The command line ``agent start`` types into a POSIX shell: each word quoted only when needed."""
    return " ".join(_quote(word) for word in argv)


def identify_foreground(terminal: "PaneTerminal") -> str | None:
    """The agent in the pane's foreground right now (Herdr's live check before it types a prompt)."""
    job = terminal.foreground_job()
    return None if job is None else identify_agent(*job)


def read_text(terminal: "PaneTerminal | None", source: str, lines: int | None) -> tuple[str, bool]:
    """``agent read``'s text and whether lines were left out: ``visible`` is the screen,
    ``detection`` the rows detection reads (the screen's height, from the bottom), ``recent`` the
    last ``lines`` (default 80, at most 1000) rows of scrollback and screen. Each row without its
    trailing blanks, blank rows at the bottom dropped, every row ending in a newline. A modelled
    pane (``terminal`` is ``None``) shows nothing. Wrapped rows are not re-joined for
    ``recent-unwrapped``: the emulator does not keep soft wraps."""
    if terminal is None:
        return "", False
    limit = None if lines is None else min(lines, 1000)
    if source in ("visible", "detection"):
        rows = terminal.visible_lines()
        if limit is None:
            return _joined(rows), False
        return _joined(rows[max(0, len(rows) - limit) :]), len(rows) > limit
    count = 80 if limit is None else limit
    rows = terminal.recent_lines()
    return _joined(rows[max(0, len(rows) - count) :]), len(rows) > count


def _joined(rows: list[str]) -> str:
    return "".join(f"{row}\n" for row in rows)
