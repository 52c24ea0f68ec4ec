"""The class report's deadline data: each student of the assignment who was late, had an extension or a label,
or has a score overridden by hand, with what that did (read from the gradebook: nbgrader's timestamp,
extension and late penalty, our labels and overrides)."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from autograder.deadlines.rules import LateRules
from autograder.deadlines.schedule import as_utc, student_due


@dataclass(frozen=True)
class DeadlineRow:
    student: str
    due: datetime | None  # for them (UTC), None without a due date
    arrived: datetime | None
    late_by: timedelta
    penalty: float  # points the late rule took
    extension: timedelta | None
    label: str | None
    overrides: tuple[str, ...]  # cells whose score an instructor set


def deadline_rows(gradebook: Any, assignment: str, records: list[Any], rules: LateRules) -> list[DeadlineRow]:
    """`records`: nbgrader's submissions of `assignment` (its ORM objects) that count as submitted. The due date
    and lateness are the student's own (their extension or label), as the late rule and the feedback page
    count them."""
    from sqlalchemy import inspect, text

    from autograder.deadlines.exception_store import LABEL_TABLE, instructor_scores

    labels: dict[str, str] = {}
    if inspect(gradebook.db.get_bind()).has_table(LABEL_TABLE):  # our tables may not be made yet
        labels = dict(gradebook.db.execute(text(f"SELECT student_id, label FROM {LABEL_TABLE}")).fetchall())
    overrides: dict[str, list[str]] = {}  # by `override` or in the formgrader: nbgrader's manual scores
    for _, student, _, cell, _, _ in instructor_scores(lambda sql, **params: gradebook.db.execute(text(sql), params),
                                                       assignment):
        overrides.setdefault(student, []).append(cell)
    rows = []
    for record in records:
        penalty = float(record.late_submission_penalty or 0.0)
        label, changed = labels.get(record.student_id), tuple(overrides.get(record.student_id, ()))
        arrived = as_utc(record.timestamp) if record.timestamp is not None else None
        due, late = None, timedelta(0)
        if record.assignment.duedate is not None:
            due = student_due(record.assignment.duedate, record.extension,
                              rules.labels.get(label or "", rules.label(None)))
            late = max(arrived - due, timedelta(0)) if arrived is not None else timedelta(0)
        if late or penalty or record.extension or label or changed:
            rows.append(DeadlineRow(record.student_id, due, arrived, late, penalty, record.extension, label, changed))
    return sorted(rows, key=lambda row: row.student)
