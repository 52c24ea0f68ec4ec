"""Read the course's nbgrader gradebook: where it is, and every grade an LMS export or push needs.

The database URL and course id come from the course's settings (`autograder.course.settings`), so a
course that moved its gradebook (`c.CourseDirectory.db_url`, to another file or a database server) is
read where nbgrader writes it; the default is `sqlite:///<course root>/gradebook.db`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from autograder.course.settings import CONFIG_FILE, SettingsError, read_course, shown_url, sqlite_path
from autograder.grades.points import exercise_text, fmt  # noqa: F401 (fmt: the name the exports import)
from autograder.grades.settle import GradeRules, settle_course
from autograder.migrations import MigrationError
from autograder.watch.stale_pages import mark_stale

from .errors import LmsError
from .identity import Person, load_people


@dataclass(frozen=True)
class Exercise:
    """One grade cell: its points possible and, in a student's grade, the points earned."""

    notebook: str
    cell: str
    max_score: float
    score: float | None = None
    pending: bool = False  # an answer graded by hand that no one has graded yet: "to be graded", never a 0

    @property
    def label(self) -> str:
        from autograder.nbgrader_glue.notebook import exercise_label

        return exercise_label(self.cell)


@dataclass(frozen=True)
class AssignmentInfo:
    name: str
    max_score: float
    exercises: tuple[Exercise, ...]
    duedate: datetime | None


@dataclass(frozen=True)
class StudentGrade:
    """A student's result for one assignment, as `grades.arithmetic` scores it (nbgrader export's rule)."""

    assignment: str
    student: Person
    submitted: bool
    timestamp: datetime | None
    seconds_late: float  # after their own due date (extension or label), 0 when on time (grace included)
    raw_score: float | None
    late_penalty: float
    max_score: float
    exercises: tuple[Exercise, ...]
    score: float | None = None  # after the late penalty; None for a student who submitted nothing
    status: str = "missing"  # missing, on time, late, practice, not accepted

    def summary(self) -> str:
        """A short per-exercise comment for the LMS: `concat_weights 6/6, sigmoid 3.5/7; late -4; 40/46`."""
        score = self.score
        return exercise_text(((e.label, None if e.pending else e.score or 0.0, e.max_score)
                              for e in self.exercises), self.late_penalty,
                             score if score is not None else 0.0, self.max_score)


@dataclass(frozen=True)
class Gradesheet:
    """Every student in the gradebook against the requested assignments (non-submitters included)."""

    assignments: tuple[AssignmentInfo, ...]
    people: tuple[Person, ...]
    grades: dict[tuple[str, str], StudentGrade]

    def grade(self, assignment: str, student_id: str) -> StudentGrade:
        return self.grades[(assignment, student_id)]

    def only(self, students: set[str] | None) -> Gradesheet:
        """The same sheet with only `students` (every one when None)."""
        if students is None:
            return self
        return Gradesheet(self.assignments, tuple(p for p in self.people if p.id in students), self.grades)


def course_rules(course: Path) -> GradeRules:
    """The late rules the course's grades are computed with (`grades.settle.GradeRules`)."""
    try:
        settings = read_course(course)
        return GradeRules(settings.late_rules, settings.config)
    except SettingsError as exc:
        raise LmsError(str(exc)) from None


def find_course(start: Path) -> Path:
    """The course root: `start` itself, which must hold nbgrader_config.py."""
    if not (start / CONFIG_FILE).is_file():
        raise LmsError(f"{start}: no {CONFIG_FILE} here; run this in the course folder")
    return start


@contextlib.contextmanager
def open_gradebook(course: Path, must_exist: bool = True) -> Iterator:
    """The course's nbgrader Gradebook, closed on exit. `must_exist`: a missing gradebook is an error, not
    an empty one made (nbgrader's `Gradebook` creates the tables of a database that has none)."""
    try:
        settings = read_course(course)
        if must_exist and not settings.gradebook_tables():
            where = sqlite_path(settings.db_url) or shown_url(settings.db_url)
            raise LmsError(f"{where}: no gradebook yet (run nbgrader autograde or `autograder roster import`)")
        gradebook = settings.open_gradebook()
    except SettingsError as exc:
        raise LmsError(str(exc)) from None
    try:
        try:
            mark_stale(settings, settle_course(gradebook, settings), "rederived")
        except (SettingsError, MigrationError) as exc:
            raise LmsError(str(exc)) from None
        yield gradebook
    finally:
        gradebook.close()


def read_gradesheet(gradebook, assignments: list[str], grade_rules: GradeRules) -> Gradesheet:
    """Scores of every student in the gradebook for `assignments`, with per-exercise detail, each computed by
    `grades.arithmetic` (`grade_rules`: the course's late rules)."""
    from autograder.deadlines.schedule import Outcome
    from autograder.grades.exercise_order import cell_order
    from autograder.grades.outbox import SessionSql

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
        order = cell_order(SessionSql(gradebook.db).rows, name)  # the notebook's, as the feedback page lists them
        exercises = tuple(order.sorted((Exercise(notebook.name, cell.name, float(cell.max_score))
                                        for notebook in assignment.notebooks for cell in notebook.grade_cells),
                                       lambda e: (e.notebook, e.cell)))
        info = AssignmentInfo(name, float(assignment.max_score), exercises, assignment.duedate)
        infos.append(info)
        computed = grade_rules.grades(SessionSql(gradebook.db).rows, name)
        for person in people:
            found = computed.get(person.id)
            if found is None:  # nothing handed in (an extension granted before any work counts as nothing)
                grades[(name, person.id)] = StudentGrade(
                    name, person, False, None, 0.0, None, 0.0, info.max_score,
                    tuple(Exercise(e.notebook, e.cell, e.max_score, None) for e in exercises),
                )
                continue
            earned = {(cell.notebook, cell.cell): cell.score for cell in found.facts.cells}
            pending = {(cell.notebook, cell.cell) for cell in found.facts.cells if cell.pending}
            credit = found.credit
            on_time = credit is None or credit.outcome is Outcome.ON_TIME
            grades[(name, person.id)] = StudentGrade(
                assignment=name,
                student=person,
                submitted=True,
                timestamp=found.facts.arrived.replace(tzinfo=None) if found.facts.arrived else None,
                seconds_late=0.0 if on_time else credit.late_by.total_seconds(),
                raw_score=found.raw,
                late_penalty=found.penalty,
                max_score=info.max_score,
                exercises=tuple(
                    Exercise(e.notebook, e.cell, e.max_score, earned.get((e.notebook, e.cell)),
                             (e.notebook, e.cell) in pending) for e in exercises
                ),
                score=found.score,
                status="on time" if on_time else credit.outcome.value,
            )
    return Gradesheet(tuple(infos), tuple(people), grades)


@dataclass(frozen=True)
class Linkable:
    """An assignment the instructor can link: its name, points and due date (UTC) from the gradebook."""

    name: str
    points: float
    due: datetime | None


def linkable(course: Path) -> list[Linkable]:
    """The course's assignments as the gradebook holds them, by name."""
    with open_gradebook(course) as gradebook:
        return sorted((Linkable(a.name, float(a.max_score), a.duedate) for a in gradebook.assignments),
                      key=lambda a: a.name)
