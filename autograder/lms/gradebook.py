"""Read the course's nbgrader gradebook: where it is, and every grade an LMS export or push needs.

The database URL and course id come from the course's `nbgrader_config.py` through nbgrader's own
`CourseDirectory`, so a course that moved its gradebook (`c.CourseDirectory.db_url`) is read where
nbgrader writes it; the default is `sqlite:///<course root>/gradebook.db`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from autograder.course import tools_on_path

from .errors import LmsError
from .identity import Person, load_people


@dataclass(frozen=True)
class Exercise:
    """One grade cell: its points possible and, in a student's grade, the points earned."""

    notebook: str
    cell: str
    max_score: float
    score: float | None = None

    @property
    def label(self) -> str:
        # Grade cells are named after the test they run (`test_sigmoid`); the exercise is `sigmoid`.
        return self.cell.removeprefix("test_")


@dataclass(frozen=True)
class AssignmentInfo:
    name: str
    max_score: float
    exercises: tuple[Exercise, ...]
    duedate: datetime | None


@dataclass(frozen=True)
class StudentGrade:
    """A student's result for one assignment, scored the way `nbgrader export` scores it."""

    assignment: str
    student: Person
    submitted: bool
    timestamp: datetime | None
    seconds_late: float
    raw_score: float | None
    late_penalty: float
    max_score: float
    exercises: tuple[Exercise, ...]

    @property
    def score(self) -> float | None:
        """The score after the late penalty; None for a student who submitted nothing."""
        if not self.submitted or self.raw_score is None:
            return None
        # Same rule as nbgrader's CsvExportPlugin: penalty subtracted, never below zero.
        return max(0.0, self.raw_score - self.late_penalty)

    def summary(self) -> str:
        """A short per-exercise comment for the LMS: `concat_weights 6/6, sigmoid 3.5/7; late -4; 40/46`."""
        parts = [f"{e.label} {fmt(e.score or 0.0)}/{fmt(e.max_score)}" for e in self.exercises]
        text = ", ".join(parts)
        if self.late_penalty:
            text += f"; late penalty -{fmt(self.late_penalty)}"
        score = self.score
        return f"{text}; total {fmt(score if score is not None else 0.0)}/{fmt(self.max_score)}"


@dataclass(frozen=True)
class Gradesheet:
    """Every student in the gradebook against the requested assignments (non-submitters included)."""

    assignments: tuple[AssignmentInfo, ...]
    people: tuple[Person, ...]
    grades: dict[tuple[str, str], StudentGrade]

    def grade(self, assignment: str, student_id: str) -> StudentGrade:
        return self.grades[(assignment, student_id)]


def fmt(value: float) -> str:
    """Points as an LMS shows them: `6`, `4.5`, `3.33` (two decimals at most, no trailing zeros)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def find_course(start: Path) -> Path:
    """The course root: `start` itself, which must hold nbgrader_config.py."""
    if not (start / "nbgrader_config.py").is_file():
        raise LmsError(f"{start}: no nbgrader_config.py here; run this in the course folder")
    return start


def course_database(course: Path) -> tuple[str, str]:
    """(db_url, course_id) for the course, as nbgrader computes them from its config file."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    config_file = course / "nbgrader_config.py"
    try:
        config = PyFileConfigLoader(config_file.name, path=str(course)).load_config()
    except ConfigFileNotFound as exc:
        raise LmsError(f"{config_file}: not found") from exc
    except Exception as exc:  # a config file is Python: any error in it is the user's to fix
        raise LmsError(f"{config_file}: cannot be loaded ({type(exc).__name__}: {exc})") from exc
    # nbgrader's root defaults to the working directory; ours is the course folder, wherever we run from.
    configured = config.CourseDirectory.get("root") if "CourseDirectory" in config else None
    coursedir = CourseDirectory(config=config)
    coursedir.root = str((course / configured).resolve() if configured else course.resolve())
    return coursedir.db_url, coursedir.course_id


@contextlib.contextmanager
def open_gradebook(course: Path, must_exist: bool = True) -> Iterator:
    """The course's nbgrader Gradebook, closed on exit."""
    from nbgrader.api import Gradebook

    db_url, course_id = course_database(course)
    if must_exist and db_url.startswith("sqlite:///"):
        path = Path(db_url.removeprefix("sqlite:///"))
        if not path.is_absolute():
            path = course / path
        if not path.is_file():
            raise LmsError(f"{path}: no gradebook yet (run nbgrader autograde or `autograder roster import`)")
    tools_on_path()
    gradebook = Gradebook(db_url, course_id=course_id)
    try:
        yield gradebook
    finally:
        gradebook.close()


def read_gradesheet(gradebook, assignments: list[str]) -> Gradesheet:
    """Scores of every student in the gradebook for `assignments`, with per-exercise detail."""
    from nbgrader.api import MissingEntry

    if not assignments:
        raise LmsError("name at least one assignment")
    known = {a.name for a in gradebook.assignments}
    unknown = [a for a in assignments if a not in known]
    if unknown:
        raise LmsError(
            f"assignment(s) not in the gradebook: {', '.join(unknown)} (known: {', '.join(sorted(known)) or 'none'})"
        )
    people = load_people(gradebook)
    infos = []
    grades: dict[tuple[str, str], StudentGrade] = {}
    for name in assignments:
        assignment = gradebook.find_assignment(name)
        exercises = tuple(
            Exercise(notebook.name, cell.name, float(cell.max_score))
            for notebook in sorted(assignment.notebooks, key=lambda n: n.name)
            for cell in sorted(notebook.grade_cells, key=lambda c: c.name)
        )
        info = AssignmentInfo(name, float(assignment.max_score), exercises, assignment.duedate)
        infos.append(info)
        for person in people:
            try:
                submission = gradebook.find_submission(name, person.id)
            except MissingEntry:
                grades[(name, person.id)] = StudentGrade(
                    name, person, False, None, 0.0, None, 0.0, info.max_score,
                    tuple(Exercise(e.notebook, e.cell, e.max_score, None) for e in exercises),
                )
                continue
            earned = {
                (grade.notebook.name, grade.name): grade.score
                for notebook in submission.notebooks
                for grade in notebook.grades
            }
            grades[(name, person.id)] = StudentGrade(
                assignment=name,
                student=person,
                submitted=True,
                timestamp=submission.timestamp,
                seconds_late=float(submission.total_seconds_late),
                raw_score=float(submission.score),
                late_penalty=float(submission.late_submission_penalty or 0.0),
                max_score=info.max_score,
                exercises=tuple(
                    Exercise(e.notebook, e.cell, e.max_score, earned.get((e.notebook, e.cell))) for e in exercises
                ),
            )
    return Gradesheet(tuple(infos), tuple(people), grades)
