"""Each student's answer to one question, read from their autograded notebook (the submission as graded:
`autograded/<student>/<assignment>/<notebook>.ipynb`). The files are the students': read without following a
link, at most `MAX_NOTEBOOK_BYTES`, and an unreadable one gives an answer saying so rather than stopping the class.

An autograded exercise (`read_code_answers`) is answered in its solution cell (the grade cell `test_<exercise>`
holds the checks, the cell `<exercise>` the student's code), and its answers carry the mistakes the graders named
in them: the hint ids of that grade cell in the result file `autograder grade` wrote beside the same notebook
(`grading.model.SubmissionResult`), so text and mistakes are of the one attempt that counts. A student graded
without one (plain `nbgrader autograde`) or with a broken one has no mistakes named, and is grouped by text alone.
"""

import json
from pathlib import Path

from autograder.by_question.answer_groups import Answer
from autograder.course.result_file import RESULT_FILE
from autograder.course.submitted import read_bytes
from autograder.grading.model import SubmissionResult
from autograder.grading.reading import read_fast
from autograder.nbgrader_glue.notebook import exercise_label

MAX_NOTEBOOK_BYTES = 20 << 20
MAX_ANSWER_CHARS = 20_000  # a page shows this much of one answer; the rest is said to be cut
UNREADABLE = "(this notebook could not be read: {problem})"
MISSING = "(no such cell in this notebook)"


def read_answers(autograded: Path, assignment: str, notebook: str, cell: str, students: list[str],
                 mistakes: dict[str, frozenset[str]] | None = None) -> list[Answer]:
    """The answer of each of `students` to the cell `cell` (its nbgrader id); `mistakes`: the mistakes the
    graders named in each student's answer (code questions)."""
    found = []
    for student in students:
        path = autograded / student / assignment / f"{notebook}.ipynb"
        try:
            cells = read_fast(read_bytes(path, MAX_NOTEBOOK_BYTES), path.name).get("cells", [])
            text = next((_source(c) for c in cells if _grade_id(c) == cell), MISSING)
        except Exception as problem:  # noqa: BLE001 - a student's file (UnsafeFile, bad JSON, ...): said, class goes on
            text = UNREADABLE.format(problem=str(problem).splitlines()[0][:200] if str(problem) else "unknown")
        if len(text) > MAX_ANSWER_CHARS:
            text = text[:MAX_ANSWER_CHARS] + f"\n(cut: {len(text) - MAX_ANSWER_CHARS} more characters)"
        found.append(Answer(student, text, (mistakes or {}).get(student, frozenset())))
    return found


def read_code_answers(autograded: Path, assignment: str, notebook: str, grade_cell: str,
                      students: list[str]) -> list[Answer]:
    """Each student's code for the autograded exercise whose grade cell is `grade_cell` (`test_<exercise>`), with
    the mistakes the graders named in it (module docstring)."""
    mistakes = {s: named_mistakes(autograded / s / assignment, grade_cell) for s in students}
    return read_answers(autograded, assignment, notebook, exercise_label(grade_cell), students, mistakes)


def named_mistakes(folder: Path, grade_cell: str) -> frozenset[str]:
    """The hint ids the graders named for `grade_cell` in the result file in `folder`; none when there is no
    readable result file or it does not grade that cell."""
    try:
        result = SubmissionResult.from_dict(json.loads(read_bytes(folder / RESULT_FILE, MAX_NOTEBOOK_BYTES)))
        return frozenset(next((c.exercise.hints for c in result.cells if c.grade_id == grade_cell and c.exercise),
                              ()))
    except Exception:  # noqa: BLE001 - absent, a link, truncated or hand-edited: graded by text alone
        return frozenset()


def _grade_id(cell: object) -> str | None:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    found = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
    return found if isinstance(found, str) else None


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else str(source)
