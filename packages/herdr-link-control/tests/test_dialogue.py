"""The one install dialogue (``commandline.install_dialogue``): what each answer and each kind of run
says, and when the installer's apply runs. The three installers' own tests run it through their
commands, in real terminals (``tests/test_command_boundary.py``)."""

import pytest

from herdr_link_control.commandline import Proposal, _dialogue as dialogue, install_dialogue

PLAN = Proposal(["target: ~/x.js", "  ! ~/x.js is not Herdr Link's"], question="replace ~/x.js")


def run(proposal, *, dry_run=False, yes=False, answer: bool | None = None, monkeypatch=None, capsys=None):
    """The dialogue's exit status, what it said (stdout lines), its stderr, and each apply's argument."""
    asked: list[str] = []
    if monkeypatch is not None:

        def confirm(question: str) -> bool | None:
            asked.append(question)
            return answer

        monkeypatch.setattr(dialogue, "confirm", confirm)
    applied: list[bool] = []
    said: list[str] = []

    def apply(confirmed: bool) -> int:
        applied.append(confirmed)
        said.append("state: applied")
        return 0

    code = install_dialogue("prog", proposal, apply, dry_run=dry_run, yes=yes, say=said.append)
    err = capsys.readouterr().err if capsys is not None else ""
    return code, said, err, applied, asked


def test_a_dry_run_says_what_the_real_run_would_ask_and_applies_nothing(monkeypatch, capsys):
    code, said, _, applied, asked = run(PLAN, dry_run=True, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and applied == [] and asked == []
    assert said[:2] == list(PLAN.lines)
    assert said[2:] == [
        "the real run asks first: replace ~/x.js (--yes confirms)",
        "dry run: nothing was written",
        "state: nothing was changed",
    ]


def test_a_dry_run_of_a_refused_plan_says_why_and_exits_1(monkeypatch, capsys):
    refused = Proposal(["target: ~/x.js"], question="replace ~/x.js", refusals=["no Node"], dry_run_notes=["x"])
    code, said, err, applied, _ = run(refused, dry_run=True, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1 and applied == []
    assert said == ["target: ~/x.js", "dry run: nothing was written", "state: nothing was changed"]
    assert err == "prog: would refuse: no Node\n"  # the reason on stderr, as a real run's refusal


@pytest.mark.parametrize(
    ("answer", "words"),
    [(False, "prog: declined: did not replace ~/x.js"), (None, "prog: refused without confirmation: replace ~/x.js")],
    ids=["no", "no-terminal"],
)
def test_a_question_not_answered_yes_changes_nothing_and_says_so(answer, words, monkeypatch, capsys):
    code, said, err, applied, asked = run(PLAN, answer=answer, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1 and applied == [] and asked == ["replace ~/x.js"]
    assert err.startswith(words) and err.rstrip().endswith("nothing was changed")
    assert ("--yes" in err) == (answer is None)  # without a terminal, it says what answers instead
    assert said == [*PLAN.lines, "state: nothing was changed"]


def test_yes_at_the_prompt_or_on_the_command_line_applies_the_plan_confirmed(monkeypatch, capsys):
    assert run(PLAN, answer=True, monkeypatch=monkeypatch, capsys=capsys)[3] == [True]
    code, said, _, applied, asked = run(PLAN, yes=True, answer=False, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and applied == [True] and asked == [] and said[-1] == "state: applied"


def test_a_plan_without_a_question_or_a_refused_one_goes_to_the_installer_unasked(monkeypatch, capsys):
    quiet = Proposal(["target: ~/x.js"])
    assert run(quiet, answer=False, monkeypatch=monkeypatch, capsys=capsys)[3:] == ([False], [])
    refused = Proposal(["target: ~/x.js"], question="replace ~/x.js", refusals=["no Node"])
    assert run(refused, answer=False, monkeypatch=monkeypatch, capsys=capsys)[3:] == ([False], [])
