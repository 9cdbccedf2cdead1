"""Ship the repository's PROTOCOL.md inside the package, from a checkout and from an sdist alike."""

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ProtocolDocumentHook(BuildHookInterface):  # type: ignore[type-arg]
    """Copy PROTOCOL.md into the sdist root and into ``herdr_link_protocol/`` in the wheel."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        # In a checkout the spec sits two levels up; an sdist carries it at its own root.
        for source in (root / "PROTOCOL.md", root.parent.parent / "PROTOCOL.md"):
            if source.is_file():
                target = "PROTOCOL.md" if self.target_name == "sdist" else "herdr_link_protocol/PROTOCOL.md"
                build_data["force_include"][str(source)] = target
                return
        raise FileNotFoundError("PROTOCOL.md not found next to the package or at the repository root")
