"""The class report's deadline data: each student of the assignment who was late, had an extension or a label,
or has a score overridden by hand, with what that did: their grade as `grades.arithmetic` computes it (the same
due date, lateness and penalty as the feedback page and the LMS), our labels and overrides."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from autograder.deadlines.rules import LateRules
from autograder.deadlines.schedule import Outcome
from autograder.grades.arithmetic import Grade


@dataclass(frozen=True)
class DeadlineRow:
    student: str
    due: datetime | None  # for them (UTC), None without a due date
    arrived: datetime | None
    late_by: timedelta  # past their own due date and grace: 0 when on time
    penalty: float  # points the late rule took
    extension: timedelta | None
    label: str | None
    overrides: tuple[str, ...]  # cells whose score an instructor set


def deadline_rows(grades: dict[str, Grade], rules: LateRules) -> list[DeadlineRow]:
    """`grades`: the submissions of one assignment that count as submitted, by student."""
    rows = []
    for student, grade in sorted(grades.items()):
        deadline, credit = grade.facts.deadline, grade.credit
        changed = tuple(cell.cell for cell in grade.facts.cells if cell.set_by_instructor)
        due = deadline.due_for(rules) if deadline is not None else None
        late = credit.late_by if credit is not None and credit.outcome is not Outcome.ON_TIME else timedelta(0)
        extension, label = (deadline.extension, deadline.label) if deadline is not None else (None, None)
        if late or grade.penalty or extension or label or changed:
            rows.append(DeadlineRow(student, due, grade.facts.arrived, late, grade.penalty, extension, label, changed))
    return rows
