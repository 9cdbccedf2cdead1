"""``Check``: one line of ``herdr-link doctor``, the type every one of the doctor's checks returns."""

from dataclasses import dataclass
from typing import Literal

__all__ = ["Check"]


@dataclass(frozen=True)
class Check:
    """One line of a diagnosis: PASS, FAIL (with the fix), WARN (works, but look) or SKIP (not
    applicable, with the reason)."""

    name: str
    status: Literal["PASS", "FAIL", "WARN", "SKIP"]
    detail: str
    fix: str = ""

    def render(self) -> str:
        """The line as printed, with the fix on its own indented line."""
        line = f"{self.status}  {self.name}: {self.detail}"
        return line + (f"\n      fix: {self.fix}" if self.fix else "")
