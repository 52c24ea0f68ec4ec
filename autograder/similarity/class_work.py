"""A course's class, read for comparison: the release (what nobody's evidence may count), every student's
submitted notebooks (`submitted/<student>/<assignment>/`) and the graders' verdicts in the result files
`autograder grade` writes (`autograded/<student>/<assignment>/autograder-result.json`: the wrong answers).

A student whose notebook cannot be read, or is refused, is left out with one line saying why; the rest of
the class is compared.
"""

import json
from pathlib import Path

from autograder.course.settings import SettingsError, read_course
from autograder.course.submitted import UnsafeFile, read_bytes, shown, valid_student_id
from autograder.grading.model import RESULT_FILE, SubmissionResult
from autograder.grading.reading import read_fast
from autograder.nbgrader_glue.notebook import NotebookError, exercise_label
from autograder.similarity.notebook_work import (
    NotebookRefused,
    ReleasedNotebook,
    StudentWork,
    digest,
    notebook_features,
)

MAX_NOTEBOOK_BYTES = 20 * 2**20  # a notebook of these exercises is tens of kB; larger is refused
MAX_RESULT_BYTES = 5 * 2**20
UNANSWERED = "NotImplementedError"  # the released stub's error: an exercise left blank is no shared answer


class SimilarityError(Exception):
    """The class cannot be compared (no course, no release); the message is one line."""


def read_release(folder: Path) -> list[ReleasedNotebook]:
    notebooks = sorted(folder.glob("*.ipynb"))
    if not notebooks:
        raise SimilarityError(f"no notebook in {folder}: release the assignment first (autograder release)")
    try:
        return [ReleasedNotebook.from_cells(path.stem, read_fast(path.read_bytes(), path.name)["cells"])
                for path in notebooks]
    except (OSError, NotebookError) as exc:
        raise SimilarityError(f"the release cannot be read: {exc}") from None


def wrong_answers(result: SubmissionResult) -> dict[str, str]:
    """Each exercise the graders found wrong -> a digest of what they found (every failing check's name,
    points and message, or the self-check's error): the same bug gives the same digest, since the graders
    draw their inputs from a fixed seed."""
    found = {}
    for cell in result.cells:
        exercise = exercise_label(cell.grade_id)
        if cell.exercise and cell.exercise.score < cell.exercise.max_score:
            failing = [(c.name, c.earned, c.message) for c in cell.exercise.cases if c.earned < c.points]
            found[exercise] = digest(repr((failing, cell.exercise.counterexample)))
        elif cell.visible_error and not cell.visible_error.startswith(UNANSWERED):
            found[exercise] = digest(cell.visible_error)
    return found


def _result(folder: Path) -> SubmissionResult | None:
    try:
        return SubmissionResult.from_dict(json.loads(read_bytes(folder / RESULT_FILE, MAX_RESULT_BYTES)))
    except (UnsafeFile, ValueError, KeyError, TypeError, AttributeError):
        return None  # graded another way, or a broken file: no wrong-answer evidence for this student


def student_work(student: str, folder: Path, releases: list[ReleasedNotebook], results: Path | None
                 ) -> StudentWork:
    """One student's features; NotebookRefused (one line) when a notebook cannot be read or is refused."""
    work = StudentWork(student)
    several = len(releases) > 1
    for release in releases:
        path = folder / f"{release.name}.ipynb"
        if not path.exists() and not path.is_symlink():
            continue  # not handed in: nothing of it to compare
        try:
            nb = read_fast(read_bytes(path, MAX_NOTEBOOK_BYTES), path.name)
        except (UnsafeFile, NotebookError) as exc:
            raise NotebookRefused(str(exc)) from None
        notebook_features(work, nb, release, f"{release.name}/" if several else "")
    if results is not None:
        result = _result(results)
        if result is not None:
            work.wrong = wrong_answers(result)
    return work


def read_class(course: Path, assignment: str) -> tuple[list[StudentWork], frozenset[str], list[str]]:
    """Every student's features, the release's names, and one line per student left out."""
    try:
        settings = read_course(course, required=False)
    except SettingsError as exc:
        raise SimilarityError(str(exc)) from None
    releases = read_release(settings.path("release", ".", assignment))
    names = frozenset().union(*(r.names for r in releases))
    root = settings.path("submitted", ".", ".").resolve()
    works, refused = [], []
    for child in sorted(root.iterdir()) if root.is_dir() else []:
        folder = settings.path("submitted", child.name, assignment)
        if not valid_student_id(child.name) or child.is_symlink() or not folder.is_dir() or folder.is_symlink():
            continue
        try:
            works.append(student_work(child.name, folder, releases,
                                      settings.path("autograded", child.name, assignment)))
        except NotebookRefused as exc:
            refused.append(f"{shown(child.name)}: {exc}")
        except RecursionError:  # JSON nested deeper than the interpreter's stack
            refused.append(f"{shown(child.name)}: not a readable notebook (nested too deeply)")
    return works, names, refused
