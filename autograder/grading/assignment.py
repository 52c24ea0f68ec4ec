"""The assignment itself, before any student: its graders' points agree with the notebook's, and it is in
the gradebook (added as nbgrader adds it when only its source exists)."""

import tempfile
from typing import TYPE_CHECKING

from autograder.course.nbgrader_cli import CourseError, nbgrader
from autograder.course.settings import CourseSettings
from autograder.grader_support.exercise import GradersError, max_score, reference_function
from autograder.grading.model import SourceNotebook
from autograder.grading.prepare import AssemblyError, grade_call
from autograder.nbgrader_glue.notebook import HIDDEN_BEGIN, hidden_part

if TYPE_CHECKING:  # the writer loads after the workers have started (see `grading.startup`)
    from autograder.grading.writer import GradebookWriter


class AssignmentError(Exception):
    """An operational problem with the assignment (no such assignment, graders worth other points): one line
    for the user."""


def check_graders(sources: list[SourceNotebook]) -> None:
    """Each hidden `grade(...)` call must name graders worth the cell's points, or every score would be
    off; checked once, before any student, so the mistake is the instructor's one-line error."""

    for source in sources:
        for cell in source.cells:
            if cell.name not in source.grade_cells or HIDDEN_BEGIN not in cell.source:
                continue
            try:
                grader_assignment, exercise = grade_call(hidden_part(cell.source), cell.name)
                total = max_score(grader_assignment, exercise)
                reference_function(grader_assignment, exercise)
            except (AssemblyError, ImportError, GradersError) as exc:
                raise AssignmentError(f"{source.name}.ipynb {cell.name}: {exc}") from None
            if abs(total - source.grade_cells[cell.name]) > 1e-9:
                raise AssignmentError(f"{source.name}.ipynb {cell.name} is worth {source.grade_cells[cell.name]:g} "
                                      f"points but its graders add up to {total:g}")


def record_assignment(settings: CourseSettings, assignment: str) -> None:
    """Add the assignment to the gradebook, or bring it up to date with its source, as nbgrader does
    (`generate_assignment`, into a scratch release folder so the course's release/ is left alone)."""
    source = settings.path("source", ".", assignment)
    if not any(source.glob("*.ipynb")):
        raise AssignmentError(f"no such assignment: {assignment!r} is neither in the gradebook nor in {source}")

    with tempfile.TemporaryDirectory(prefix="autograder-release-") as scratch:
        try:
            nbgrader(settings.root, "generate_assignment", assignment, "--force",
                     f"--CourseDirectory.release_directory={scratch}")
        except CourseError as exc:
            raise AssignmentError(str(exc).splitlines()[0]) from None


def ensure_assignment(settings: CourseSettings, writer: "GradebookWriter", assignment: str) -> None:
    """The assignment must be in the gradebook; if only its source exists, add it as nbgrader would."""
    if writer.has_assignment(assignment):
        return
    record_assignment(settings, assignment)
    if not writer.has_assignment(assignment):
        raise AssignmentError(f"nbgrader generate_assignment did not add {assignment!r} to the gradebook")
