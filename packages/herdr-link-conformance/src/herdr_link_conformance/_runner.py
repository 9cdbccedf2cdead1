"""Run the checks against one adapter: each in its own simulated Herdr, each bounded in time."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Final, Literal

import anyio

from herdr_link_testkit import DEFAULT_RELEASE

from ._adapters import AdapterError, AdapterSpec, unwrapped
from ._checks import CHECKS, CheckSpec, Failed, world

__all__ = ["CHECK_TIMEOUT", "Result", "list_json", "run_checks", "selected", "to_json"]

CHECK_TIMEOUT: Final = 120.0
"""Seconds one check may take in all before it fails."""


@dataclass(frozen=True)
class Result:
    """One check's verdict, as ``--json`` prints it."""

    id: str
    section: str
    status: Literal["PASS", "FAIL", "SKIP", "ERROR"]
    """``ERROR``: the kit itself failed (a bug in ``herdr-link-conformance``), so nothing is said of the adapter."""
    detail: str
    promise: str = ""
    """What the check holds the adapter to (its title), so a verdict reads on its own."""

    def line(self, check: CheckSpec) -> str:
        """The verdict as the command prints it, with the check's title."""
        kind = " (addition)" if check.addition else ""
        text = f"{self.status}  §{self.section:<5} {self.id}: {check.title}{kind}"
        return text + (f" — {self.detail}" if self.detail and self.status != "PASS" else "")


def _with_promise(result: Result, check: CheckSpec) -> Result:
    return Result(result.id, result.section, result.status, result.detail, check.title)


def _matches(check: CheckSpec, patterns: Sequence[str]) -> bool:
    for pattern in patterns:
        bare = pattern.removeprefix("§")
        if check.id == bare or check.section == bare or check.section.startswith(bare + "."):
            return True
    return False


def selected(only: Sequence[str], skip: Sequence[str]) -> list[CheckSpec]:
    """The checks ``--only`` and ``--skip`` (sections like ``4.2`` or ``§6``, or check ids) leave."""
    return [c for c in CHECKS if (not only or _matches(c, only)) and not _matches(c, skip)]


async def _one(spec: AdapterSpec, check: CheckSpec, herdr_version: str) -> Result:
    missing = sorted(check.needs - spec.capabilities)
    if missing:
        whose = "this adapter does not claim" if set(missing) & spec.lacks else f"{spec.label} does not offer"
        reason = f"needs {', '.join(missing)}, which {whose}"
        return Result(check.id, check.section, "SKIP", reason)
    try:
        with anyio.fail_after(CHECK_TIMEOUT):
            async with world(spec, herdr_version) as context:
                await check.run(context)
    except Exception as error:
        return _verdict(check, unwrapped(error))
    return Result(check.id, check.section, "PASS", "")


def _verdict(check: CheckSpec, error: BaseException) -> Result:
    if isinstance(error, Failed):
        return Result(check.id, check.section, "FAIL", str(error))
    if isinstance(error, TimeoutError):
        return Result(check.id, check.section, "FAIL", f"no verdict within {CHECK_TIMEOUT:.0f} s")
    if isinstance(error, AdapterError):  # the adapter crashed, refused to start or broke its protocol
        return Result(check.id, check.section, "FAIL", f"the adapter broke the check: {error}")
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    last = traceback.format_exception_only(type(error), error)[-1].strip()
    detail = f"the kit itself failed{where} ({last}); this says nothing of the adapter: please report it"
    return Result(check.id, check.section, "ERROR", detail)


async def run_checks(
    spec: AdapterSpec,
    checks: Sequence[CheckSpec] | None = None,
    *,
    herdr_version: str = DEFAULT_RELEASE,
    report: Callable[[Result, CheckSpec], None] | None = None,
) -> list[Result]:
    """Run ``checks`` (default: all) against the adapter, one after another; ``report`` sees each verdict."""
    results = []
    for check in checks if checks is not None else CHECKS:
        result = _with_promise(await _one(spec, check, herdr_version), check)
        if report is not None:
            report(result, check)
        results.append(result)
    return results


def to_json(results: Sequence[Result]) -> str:
    """``{"checks": [{"id", "section", "status", "detail", "promise"}]}`` (fields are only ever added)."""
    return json.dumps({"checks": [asdict(r) for r in results]}, ensure_ascii=False, indent=2)


def list_json(checks: Sequence[CheckSpec]) -> str:
    """``--list --json``: ``{"checks": [{"id", "section", "promise", "addition", "needs"}]}``."""
    listed = [
        {"id": c.id, "section": c.section, "promise": c.title, "addition": c.addition, "needs": sorted(c.needs)}
        for c in checks
    ]
    return json.dumps({"checks": listed}, ensure_ascii=False, indent=2)
