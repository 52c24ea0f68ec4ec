"""One student's deadline facts as the gradebook holds them: the assignment's due date (nbgrader's, the one
source), the student's extension (nbgrader's column) and their label (ours). Read with plain SQL through any
`rows(sql, params)` function: the writer's connection or nbgrader's session."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from autograder.deadlines.rules import LateRules
from autograder.deadlines.schedule import Credit, as_utc, credit_at

_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class StudentDeadline:
    due: datetime  # the assignment's, UTC
    extension: timedelta | None
    label: str | None

    def credit(self, rules: LateRules, assignment: str, arrived: datetime) -> Credit:
        """The credit of work that arrived at `arrived`; a label the course no longer declares counts as none."""
        label = rules.labels.get(self.label or "", rules.label(None))
        return credit_at(rules.schedule(assignment), self.due, arrived, self.extension, label)


def read_deadline(rows: Any, assignment: str, student: str) -> StudentDeadline | None:
    """None when the assignment has no due date."""
    from autograder.deadlines.exception_store import LABEL_TABLE

    found = rows("SELECT a.duedate, (SELECT sa.extension FROM submitted_assignment sa WHERE sa.assignment_id = a.id "
                 "AND sa.student_id = :s) FROM assignment a WHERE a.name = :a", {"a": assignment, "s": student})
    if not found or found[0][0] is None:
        return None
    due, extension = found[0]
    label = rows(f"SELECT label FROM {LABEL_TABLE} WHERE student_id = :s", {"s": student})
    return StudentDeadline(as_utc(_time(due)), _interval(extension), label[0][0] if label else None)


def read_arrival(rows: Any, assignment: str, student: str) -> datetime | None:
    """When the submission arrived, as nbgrader recorded it (from the exchange, never the student's files)."""
    found = rows("SELECT sa.timestamp FROM submitted_assignment sa JOIN assignment a ON sa.assignment_id = a.id "
                 "WHERE a.name = :a AND sa.student_id = :s", {"a": assignment, "s": student})
    return as_utc(_time(found[0][0])) if found and found[0][0] is not None else None


# As SQLAlchemy keeps them in SQLite (text; an Interval as a time counted from the epoch); a server's driver
# gives datetime and timedelta.
def _time(value: Any) -> datetime:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def _interval(value: Any) -> timedelta | None:
    if value is None:
        return None
    return _time(value) - _EPOCH if isinstance(value, str | datetime) else value
