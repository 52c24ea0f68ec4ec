"""Helpers for the regrade tests: the catalogue class in a scratch course, graders changed the way an
instructor changes them, and the commands run as an instructor runs them.

The graders are this package's own (`autograder/graders/<assignment>/`), so a changed grader is a copy of
the package, edited, put first on the commands' `PYTHONPATH`: the repository is never touched, and the
commands (and their workers) import every module, graders included, from that copy.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.devtools.catalogue import Answer, correct_answers, wrong_answers
from tests.grading_course import ASSIGNMENT, CLI, submit

SIGMOID = "test_sigmoid.py"
# The changes, each an edit of the sigmoid grader that keeps the cell's 7 points.
INTEGERS = '    z = np.arange(-4, 5).reshape(3, 3)\n    judge(student, "sigmoid", {"z": z}, '
# A bug: the integer-input check compares with a rounded reference, so every right answer fails it.
BUG = [(INTEGERS + "sigmoid,", INTEGERS + "lambda z: np.round(sigmoid(z), 2),")]
# A points value: the four value checks drop to 0.75 each, the input-unmodified check rises to 2.
VALUE = '@pytest.mark.parametrize("shape"'
VALUES_AT_075 = (f"@pytest.mark.points(1)\n{VALUE}", f"@pytest.mark.points(0.75)\n{VALUE}")
UNMODIFIED = "def test_input_unmodified(student):"
POINTS = [VALUES_AT_075, (f"@pytest.mark.points(1)\n{UNMODIFIED}", f"@pytest.mark.points(2)\n{UNMODIFIED}")]
# A new check, worth the point the value checks give up: a second input must come back unmodified.
NEW_CHECK = [VALUES_AT_075, (UNMODIFIED, "def test_integer_valued_input_unmodified(student):\n"
                             '    judge_unmodified(student, "sigmoid", {"z": np.arange(-6.0, 6.0).reshape(3, 4)})'
                             f"\n\n\n@pytest.mark.points(1)\n{UNMODIFIED}")]
# The misconception the unmodified-input checks name: the answers the points change and the new check touch.
MODIFIES_INPUT = "modifies_input"


def changed_graders(folder: Path, edits: list[tuple[str, str]], module: str = SIGMOID) -> dict[str, str]:
    """A copy of this package in `folder` with one grader module edited (each (old, new) replaced once);
    returns the environment that makes the commands grade with it."""
    import autograder

    copy = folder / "autograder"
    shutil.copytree(Path(autograder.__file__).resolve().parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    path = copy / "graders" / ASSIGNMENT / module
    text = path.read_text()
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} is not once in {module}"
        text = text.replace(old, new)
    path.write_text(text)
    return {"PYTHONPATH": str(folder)}


def catalogue_class(course: Path) -> dict[str, tuple[Answer, ...]]:
    """One student per catalogue answer (the rest of their notebook the reference), the reference itself,
    and a blank notebook; returns each student's answers."""
    answers = correct_answers(ASSIGNMENT) + wrong_answers(ASSIGNMENT)
    plan: dict[str, tuple[Answer, ...]] = {f"s{i:02d}": (answer,) for i, answer in enumerate(answers)}
    for student, chosen in plan.items():
        submit(course, student, list(chosen))
    submit(course, "reference")
    plan["reference"] = ()
    blank = course / "submitted" / "blank" / ASSIGNMENT
    blank.mkdir(parents=True)
    shutil.copy(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", blank)
    plan["blank"] = ()
    return plan


def with_misconception(plan: dict[str, tuple[Answer, ...]], exercise: str, hint: str) -> set[str]:
    """The students whose answer to `exercise` is a known mistake carrying `hint`."""
    return {s for s, answers in plan.items() if any(a.exercise == exercise and a.hint == hint for a in answers)}


def cli(course: Path, *args: str, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                   "COLUMNS": "400", **(env or {})}
    return subprocess.run([CLI, *args], cwd=course, env=environment, capture_output=True, text=True, timeout=timeout)
