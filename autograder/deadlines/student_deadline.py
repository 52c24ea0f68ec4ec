"""One student's deadline facts as the gradebook holds them: the assignment's due date (nbgrader's, the one
source), the student's extension (nbgrader's column) and their label (ours). Read with plain SQL through any
`rows(sql, params)` function: the writer's connection or nbgrader's session."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from autograder.deadlines.rules import LateRules
from autograder.deadlines.schedule import Credit, Label, as_utc, credit_at, student_due
from autograder.deadlines.tables import LABEL_TABLE

_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class StudentDeadline:
    due: datetime  # the assignment's, UTC
    extension: timedelta | None
    label: str | None

    def label_in(self, rules: LateRules) -> Label:
        """The student's label as the course declares it now; one it no longer declares counts as none."""
        return rules.labels.get(self.label or "", rules.label(None))

    def due_for(self, rules: LateRules) -> datetime:
        """The student's own due date (an extension, else the label's extra time), UTC."""
        return student_due(self.due, self.extension, self.label_in(rules))

    def credit(self, rules: LateRules, assignment: str, arrived: datetime) -> Credit:
        """The credit of work that arrived at `arrived`."""
        return credit_at(rules.schedule(assignment), self.due, arrived, self.extension, self.label_in(rules))


def read_deadline(rows: Any, assignment: str, student: str, labels: bool = True) -> StudentDeadline | None:
    """None when the assignment has no due date. `labels`: whether our label table exists to be read."""
    found = rows("SELECT a.duedate, (SELECT sa.extension FROM submitted_assignment sa WHERE sa.assignment_id = a.id "
                 "AND sa.student_id = :s) FROM assignment a WHERE a.name = :a", {"a": assignment, "s": student})
    if not found or found[0][0] is None:
        return None
    due, extension = found[0]
    label = rows(f"SELECT label FROM {LABEL_TABLE} WHERE student_id = :s", {"s": student}) if labels else []
    return StudentDeadline(read_time(due), read_interval(extension), label[0][0] if label else None)


def read_arrival(rows: Any, assignment: str, student: str) -> datetime | None:
    """When the submission arrived, as nbgrader recorded it (from the exchange, never the student's files)."""
    found = rows("SELECT sa.timestamp FROM submitted_assignment sa JOIN assignment a ON sa.assignment_id = a.id "
                 "WHERE a.name = :a AND sa.student_id = :s", {"a": assignment, "s": student})
    return read_time(found[0][0]) if found else None


# As SQLAlchemy keeps them in SQLite (text; an Interval as a time counted from the epoch); a server's driver
# gives datetime and timedelta.
def read_time(value: Any) -> datetime | None:
    """A time as the gradebook keeps it (naive UTC), as an aware UTC instant."""
    if value is None:
        return None
    return as_utc(datetime.fromisoformat(value) if isinstance(value, str) else value)


def read_interval(value: Any) -> timedelta | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value - _EPOCH if isinstance(value, datetime) else value
