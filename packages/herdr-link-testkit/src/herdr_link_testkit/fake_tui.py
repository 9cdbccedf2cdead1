"""A fake interactive agent TUI for real panes: a small full-screen program that draws what Claude
Code's TUI draws at the moments detection cares about, and records every byte it reads.

:func:`install_fake_agent` writes it as an executable named after an agent kind (``claude`` by
default) into a directory: put that directory first on the simulated server's ``PATH`` and
``herdr agent start … --kind claude`` runs it, as Herdr would run the real one.

What it does, read from ``.fake-tui.json`` in its working directory (all keys optional):

- ``"start"``: ``"ready"`` (default) shows the composer; ``"trust"`` first shows a folder-trust
  dialog (``blocked``) until ``1`` then Enter is typed.
- it switches bracketed paste on (``"bracketed_paste": false`` leaves it off), sets an idle title
  (``✳``) and draws a ``❯`` composer;
- Enter outside a paste submits the composer: a text containing ``dialog`` shows a permission
  dialog (``blocked``) until ``1`` then Enter; any other text shows a working line and a spinner title
  (``working``) until a file ``release`` appears in the working directory (it is then removed), then
  prints ``● done: <text>`` and is idle again;
- every ``read()`` it makes is appended to ``input.jsonl`` in its working directory as
  ``{"t": <monotonic seconds>, "hex": <bytes>}``, so a test sees exactly what arrived and when;
- ``q`` then Enter at the composer quits.

Standard library only; POSIX only.
"""

import os
import stat
import sys
from pathlib import Path

__all__ = ["install_fake_agent", "main"]

_PASTE_START = b"\x1b[200~"
_PASTE_END = b"\x1b[201~"


def install_fake_agent(directory: str | os.PathLike[str], kind: str = "claude", python: str = sys.executable) -> Path:
    """Write the fake TUI as the executable ``<directory>/<kind>``; returns its path."""
    path = Path(directory) / kind
    path.parent.mkdir(parents=True, exist_ok=True)
    source = Path(__file__).resolve()
    path.write_text(
        f"#!{python} -S\nimport runpy\nrunpy.run_path({str(source)!r}, run_name='__main__')\n", encoding="utf-8"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


class _Tui:
    def __init__(self, options: dict[str, object]) -> None:
        self.options = options
        self.composer = ""
        self.transcript: list[str] = []
        self.screen = "trust" if options.get("start") == "trust" else "composer"
        self.answer = ""

    def out(self, data: str) -> None:
        os.write(1, data.encode())

    def draw(self) -> None:
        title = {"working": "\u2810 Fake Claude", "composer": "\u2733 Fake Claude"}.get(self.screen, "Fake Claude")
        lines = list(self.transcript[-8:])
        if self.screen == "trust":
            lines += [
                "Accessing workspace:",
                os.getcwd(),
                "Is this a project you created or one you trust?",
                "\u276f 1. Yes, I trust this folder",
                "  2. No, exit",
                "Enter to confirm \u00b7 Esc to cancel",
            ]
        elif self.screen == "dialog":
            lines += [
                "Tool use",
                "Do you want to proceed?",
                "\u276f 1. Yes",
                "  2. No",
                "Esc to cancel",
            ]
        elif self.screen == "working":
            lines += ["\u273b Working\u2026 (esc to interrupt)", "\u2500" * 40, "\u276f "]
        else:
            lines += ["\u2500" * 40, f"\u276f {self.composer}", "\u2500" * 40, "  ? for shortcuts"]
        self.out(f"\x1b]0;{title}\x07\x1b[2J\x1b[H" + "\r\n".join(lines))

    def key(self, data: bytes) -> bool:
        """Handle typed (not pasted) bytes; returns False to quit."""
        for char in data.decode("utf-8", "replace"):
            if char == "\r":
                if not self.submit():
                    return False
            elif char in ("\x7f", "\b"):
                self.composer = self.composer[:-1]
            elif char >= " ":
                self.composer += char
        return True

    def submit(self) -> bool:
        text, self.composer = self.composer, ""
        if self.screen in ("trust", "dialog"):
            if text.strip() == "1":
                self.screen = "composer"
            return True
        if self.screen == "working":
            return True
        if text == "q":
            return False
        if "dialog" in text:
            self.screen = "dialog"
        else:
            self.screen = "working"
            self.working_on = text
        return True

    def tick(self) -> None:
        release = Path("release")
        if self.screen == "working" and release.exists():
            release.unlink()
            self.transcript.append(f"\u25cf done: {self.working_on}")
            self.screen = "composer"


def main() -> int:
    """Run the fake TUI on the terminal it was started in."""
    import json
    import select
    import termios
    import time
    import tty

    config = Path(".fake-tui.json")
    options = json.loads(config.read_text(encoding="utf-8")) if config.exists() else {}
    log = open("input.jsonl", "a", encoding="utf-8")
    saved = termios.tcgetattr(0)
    tty.setraw(0)
    tui = _Tui(options)
    if options.get("bracketed_paste", True):
        tui.out("\x1b[?2004h")
    pasting = False
    try:
        tui.draw()
        while True:
            ready, _, _ = select.select([0], [], [], 0.05)
            before = tui.screen
            if ready:
                data = os.read(0, 65536)
                log.write(json.dumps({"t": time.monotonic(), "hex": data.hex()}) + "\n")
                log.flush()
                if not data:
                    return 0
                while data:
                    if pasting:
                        body, end, data = data.partition(_PASTE_END)
                        tui.composer += body.decode("utf-8", "replace")
                        pasting = not end
                        continue
                    typed, start, data = data.partition(_PASTE_START)
                    if not tui.key(typed):
                        return 0
                    pasting = bool(start)
                tui.draw()
            tui.tick()
            if tui.screen != before:
                tui.draw()
    finally:
        tui.out("\x1b[?2004l\x1b[2J\x1b[H")
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
        log.close()


if __name__ == "__main__":
    raise SystemExit(main())
