"""Each student's answer to one question, read from their autograded notebook (the submission as graded:
`autograded/<student>/<assignment>/<notebook>.ipynb`). The files are the students': read without following a
link, at most `MAX_NOTEBOOK_BYTES`, and an unreadable one gives an answer saying so rather than stopping the class.
"""

from pathlib import Path

from autograder.by_question.answer_groups import Answer
from autograder.course.submitted import read_bytes
from autograder.grading.reading import read_fast

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


def _grade_id(cell: object) -> str | None:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    found = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
    return found if isinstance(found, str) else None


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else str(source)
