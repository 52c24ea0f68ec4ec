"""A feedback page's grade: the notebook's score, its late penalty and the deadline line, computed together by
`grades.arithmetic` from the gradebook's facts as they are when the page is made (so the heading, the penalty row
and the sentence about the deadline are one statement), and each cell an instructor scored by hand with their
score and reason. `feedback.ScoreSummary` asks for it once per page, from nbgrader's resources."""

from dataclasses import dataclass, field
from typing import Any

from autograder.deadlines.student_line import deadline_line
from autograder.deadlines.tables import EVENT_TABLE
from autograder.display.page_markup import Markup
from autograder.grades.arithmetic import Grade


@dataclass(frozen=True)
class InstructorScore:
    """A cell whose score an instructor set over the graders' (`autograder override`, or the formgrader)."""

    score: float
    graders: float  # what the graders gave
    reason: str  # the instructor's words, "" when none was recorded


@dataclass(frozen=True)
class PageGrade:
    grade: Grade
    notebook: str
    line: Markup | None  # the student's deadline and the credit applied; None without a due date
    set_by_instructor: dict[str, InstructorScore] = field(default_factory=dict)  # by grade cell name
    pending: frozenset[str] = frozenset()  # the answers of this notebook still to be graded by hand, by cell name

    @property
    def penalty(self) -> float:
        return self.grade.penalties.get(self.notebook) or 0.0

    @property
    def score(self) -> float:
        """The notebook's score after its late penalty (nbgrader's feedback heading)."""
        return self.grade.notebook_scores.get(self.notebook, 0.0) - self.penalty


def page_grade(nbgrader: dict[str, Any], config: Any) -> PageGrade | None:
    """The grade of the page being made (`resources["nbgrader"]`: its assignment, notebook, student and gradebook);
    None when the gradebook cannot be read this way (the page then keeps nbgrader's own numbers)."""
    from sqlalchemy import create_engine, inspect, text
    from sqlalchemy.pool import NullPool

    from autograder.deadlines.schedule import DeadlineError
    from autograder.grades.settle import GradeRules

    assignment, student, db_url = nbgrader.get("assignment"), nbgrader.get("student"), nbgrader.get("db_url")
    notebook = nbgrader.get("notebook")
    if not (assignment and student and db_url and notebook):
        return None
    try:
        rules = GradeRules.of(config)
    except DeadlineError:
        return None  # the grading commands refuse such settings, in one line; the page keeps nbgrader's numbers
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            def rows(sql: str, params: dict[str, Any]) -> list[tuple]:
                return [tuple(row) for row in connection.execute(text(sql), params).fetchall()]

            ours = inspect(connection).has_table(EVENT_TABLE)  # our tables: made by any command of ours
            grade = rules.grades(rows, assignment, [student], labels=ours).get(student)
            if grade is None:
                return None
            reasons = _override_reasons(rows, assignment, student) if ours else {}
    except Exception:  # a server gone, a gradebook of another release: the page keeps nbgrader's numbers
        return None
    finally:
        engine.dispose()
    deadline = grade.facts.deadline
    line = deadline_line(deadline, grade.facts.arrived, grade.credit) if deadline is not None else None
    by_hand = {cell.cell: InstructorScore(cell.manual, cell.auto, reasons.get(cell.cell, ""))
               for cell in grade.facts.cells if cell.notebook == notebook and cell.set_by_instructor}
    pending = frozenset(cell.cell for cell in grade.facts.cells if cell.notebook == notebook and cell.pending)
    return PageGrade(grade, notebook, line, by_hand, pending)


def _override_reasons(rows: Any, assignment: str, student: str) -> dict[str, str]:
    """The reason of each cell's newest override (`deadlines.exception_store` writes `<cell>: ...` as its
    detail); a score typed in the formgrader has the exception store's words for "no reason recorded"."""
    reasons = {}
    for detail, reason in rows(f"SELECT detail, reason FROM {EVENT_TABLE} WHERE assignment = :a AND student_id = :s "
                               "AND kind = 'override' ORDER BY at", {"a": assignment, "s": student}):
        reasons[str(detail).split(":", 1)[0]] = str(reason)
    return reasons
