"""The one install dialogue every installer runs: plan → show → confirm (or ``--yes``) → apply → ``state:``.

An installer decides what it would do (its plan) and carries it out (its apply); between the two,
everything a person sees is said here, the same way for ``herdr-link-mcp install``,
``herdr-link-pi-bridge install`` and ``herdr-link-opencode-install``:

- the plan's lines first, then any question about them;
- ``--dry-run``: what the real run would refuse (``would refuse: …``, on stderr as a refusal is) or ask
  (``the real run asks first: … (--yes confirms)``), ``dry run: nothing was written`` and
  ``state: nothing was changed``;
  exit 0 when the real run would go ahead, 1 when it would be refused;
- a question is asked on the terminal (``…? [y/N]``) unless ``--yes`` answered it: no is ``declined``,
  no terminal is ``refused without confirmation``; both change nothing, say so and exit 1;
- otherwise the installer applies its plan and its own last line says the final state.
"""

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._boundary import confirm

__all__ = ["NOTHING_CHANGED", "Proposal", "install_dialogue"]

NOTHING_CHANGED = "state: nothing was changed"
"""The last line of a run that wrote nothing."""


@dataclass(frozen=True)
class Proposal:
    """What an installer's plan puts to the person running it."""

    lines: Sequence[str]
    """The plan, as shown (each line whole)."""
    question: str = ""
    """What the real run asks before it goes ahead, as a verb phrase ("replace ~/x.js"); empty: nothing."""
    refusals: Sequence[str] = ()
    """Why the real run would be refused (the installer's apply refuses and says so); empty: it would not."""
    dry_run_notes: Sequence[str] = ()
    """What else a dry run says the real run would do."""


def install_dialogue(
    prog: str,
    proposal: Proposal,
    apply: Callable[[bool], int],
    *,
    dry_run: bool,
    yes: bool,
    say: Callable[[str], None],
) -> int:
    """Show ``proposal``, settle its question, and run ``apply(confirmed)``; returns the exit status.

    ``apply`` is called only when the run goes ahead (its argument says whether the question, if any,
    was answered yes), or when the plan is refused, so that the installer says why in its own words.
    """
    for line in proposal.lines:
        say(line)
    if dry_run:
        for refusal in proposal.refusals:  # the reason goes to stderr, as a real run's refusal does
            sys.stderr.write(f"{prog}: would refuse: {refusal}\n")
        if not proposal.refusals:
            for note in proposal.dry_run_notes:
                say(note)
            if proposal.question:
                say(f"the real run asks first: {proposal.question} (--yes confirms)")
        say("dry run: nothing was written")
        say(NOTHING_CHANGED)
        return 1 if proposal.refusals else 0
    if proposal.refusals or not proposal.question or yes:
        return apply(yes)
    answer = confirm(proposal.question)
    if answer is True:
        return apply(True)
    if answer is False:
        sys.stderr.write(f"{prog}: declined: did not {proposal.question}; nothing was changed\n")
    else:
        sys.stderr.write(
            f"{prog}: refused without confirmation: {proposal.question} (no terminal to ask: run again with "
            "--yes); nothing was changed\n"
        )
    say(NOTHING_CHANGED)
    return 1
