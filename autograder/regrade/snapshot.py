"""A class's grades of one assignment at one moment: each student's grade rows from the gradebook (auto
score, manual score, extra credit) and the checks behind each auto score from their result files."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.grader_support.exercise import points_total
from autograder.grading.model import RESULT_FILE, CellResult, SubmissionResult
from autograder.grading.reading import read_fast
from autograder.nbgrader_glue.notebook import NotebookError, content_checksum, exercise_label

Rows = Callable[[str, dict[str, Any]], list[tuple]]


@dataclass(frozen=True)
class Cell:
    """One graded cell of a student's submission, as the gradebook holds it."""

    notebook: str
    name: str  # the grade cell's id, e.g. "test_sigmoid"
    auto: float | None
    manual: float | None
    extra: float | None

    @property
    def score(self) -> float:
        """nbgrader's `Grade.score`: the manual score if any, else the auto score, plus extra credit."""
        base = self.manual if self.manual is not None else self.auto
        return (base or 0.0) + (self.extra or 0.0)


@dataclass
class Snapshot:
    cells: dict[str, dict[tuple[str, str], Cell]] = field(default_factory=dict)  # student -> (notebook, cell)
    notebooks: set[str] = field(default_factory=set)

    @property
    def students(self) -> list[str]:
        """Every student with a submission of the assignment in the gradebook."""
        return sorted(self.cells)

    def total(self, student: str) -> float | None:
        cells = self.cells.get(student)
        return None if cells is None else points_total(c.score for c in cells.values())

    def label(self, key: tuple[str, str]) -> str:
        """What an instructor reads: `sigmoid` for the grade cell `test_sigmoid` (`notebook/sigmoid` when the
        assignment has several notebooks), as the class report names exercises."""
        notebook, name = key
        label = exercise_label(name)
        return f"{notebook}/{label}" if len(self.notebooks) > 1 else label


def read(rows: Rows, assignment: str) -> Snapshot:
    """The grade rows of every submission of `assignment`, through `rows(sql, params)` on the gradebook."""
    snapshot = Snapshot()
    for (student,) in rows("SELECT sa.student_id FROM submitted_assignment sa JOIN assignment a "
                           "ON sa.assignment_id = a.id WHERE a.name = :a", {"a": assignment}):
        snapshot.cells[student] = {}
    for student, notebook, name, auto, manual, extra in rows(
            "SELECT sa.student_id, nb.name, bc.name, g.auto_score, g.manual_score, g.extra_credit "
            "FROM grade g JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id "
            "JOIN notebook nb ON sn.notebook_id = nb.id JOIN base_cell bc ON g.cell_id = bc.id "
            "WHERE a.name = :a", {"a": assignment}):
        snapshot.notebooks.add(notebook)
        snapshot.cells.setdefault(student, {})[(notebook, name)] = Cell(notebook, name, _number(auto),
                                                                        _number(manual), _number(extra))
    return snapshot


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def results(folder_of: Callable[[str], Path], students: Iterable[str]) -> dict[str, dict[str, CellResult]]:
    """Each student's result file (`folder_of(student)` holds it), by grade cell id: the checks behind the
    auto scores. A student graded without one (by `nbgrader autograde`) or with a broken one has none."""
    found = {}
    for student in students:
        folder = folder_of(student)
        if not (folder / RESULT_FILE).is_file():
            continue
        try:
            result = SubmissionResult.load(folder)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        found[student] = {cell.grade_id: cell for cell in result.cells}
    return found


def graded_notebooks(folder_of: Callable[[str], Path], students: Iterable[str], notebooks: Iterable[str]
                     ) -> dict[str, dict[str, str]]:
    """The content checksum (`notebook.content_checksum`) of each notebook the gradebook's scores were
    given to: the executed copy in `folder_of(student)` (autograded/), by student and notebook name. A
    notebook without a readable copy there has none: nothing says what was graded."""
    names = list(notebooks)
    found: dict[str, dict[str, str]] = {}
    for student in students:
        for name in names:
            path = folder_of(student) / f"{name}.ipynb"
            try:
                cells = read_fast(path.read_bytes(), path.name)["cells"]
            except (OSError, NotebookError):  # missing or unreadable: no checksum, so never "the same"
                continue
            found.setdefault(student, {})[name] = content_checksum(cells)
    return found
