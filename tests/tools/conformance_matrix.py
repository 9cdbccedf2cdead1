"""Every broken adapter against every check (``nox -s conformance_matrix``): which checks
each one fails, written into ``docs/conformance.md`` between its matrix markers.

    python tests/tools/conformance_matrix.py [--only NAME]... [--print] [--jobs N]

Slow by design (every check of every broken adapter, each in a fresh simulated Herdr): about two
hours of one core (``--jobs 2`` runs two broken adapters at a time). CI runs only the checks each one
must fail (``tests/test_conformance_bites.py``).
"""

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import anyio
from broken_adapters import BREAKS

from herdr_link_conformance import CHECKS, AdapterSpec, run_checks

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "conformance.md"
START, END = "<!-- matrix -->", "<!-- /matrix -->"
SERVER = str(Path(sys.executable).parent / "herdr-link-mcp")


def failing(name: str) -> list[str]:
    """The checks the broken adapter ``name`` fails (or errs on), in the kit's order."""
    spec = AdapterSpec("mcp", (sys.executable, str(Path(__file__).with_name("broken_adapters.py")), "mcp", name,
                               "--", SERVER))  # fmt: skip
    results = anyio.run(lambda: run_checks(spec, CHECKS))
    return [f"{r.id}{'' if r.status == 'FAIL' else ' (' + r.status + ')'}" for r in results if r.status != "PASS"]


def _exactly(name: str, failed: list[str]) -> bool:
    return sorted(failed) == sorted(BREAKS[name].fails)


def table(rows: dict[str, list[str]], seconds: float) -> str:
    lines = [
        f"Run with `nox -s conformance_matrix` on {time.strftime('%Y-%m-%d')}, {seconds / 60:.0f} min.",
        "",
        f"{sum(_exactly(name, failed) for name, failed in rows.items())} of {len(rows)} broken adapters failed exactly "
        "the checks they must fail and passed every other.",
        "",
        "| broken adapter | the promise it breaks | checks it must fail | checks it failed |",
        "|---|---|---|---|",
    ]
    for name, failed in rows.items():
        must = ", ".join(f"`{c}`" for c in BREAKS[name].fails)
        lines.append(f"| `{name}` | {BREAKS[name].promise} | {must} | {', '.join(f'`{c}`' for c in failed)} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], help="just this broken adapter (repeatable)")
    parser.add_argument("--print", action="store_true", help="print the table; do not write docs/conformance.md")
    parser.add_argument("--jobs", type=int, default=1, help="broken adapters run at a time (default 1)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    names = args.only or sorted(BREAKS)
    rows = {}
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        for name, failed in zip(names, pool.map(failing, names), strict=True):
            rows[name] = failed
            sys.stderr.write(f"{name}: {', '.join(failed) or 'nothing'}\n")
    text = table(rows, time.monotonic() - started)
    missed = [name for name, failed in rows.items() if not set(BREAKS[name].fails) <= {f.split()[0] for f in failed}]
    if args.print or args.only:
        sys.stdout.write(text + "\n")
    else:
        doc = DOC.read_text()
        head, rest = doc.split(START, 1)
        DOC.write_text(f"{head}{START}\n{text}\n{END}{rest.split(END, 1)[1]}")
    if missed:
        sys.stderr.write(f"these broken adapters passed a check they must fail: {', '.join(missed)}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
