"""The late-penalty plugin of the course (`c.AssignLatePenalties.plugin_class`, set in `course.defaults`):
nbgrader's `autograde` (and the formgrader's) asks it through `AssignLatePenalties`, and our gradebook writer
(`autograder grade`, `watch`, `regrade`) asks the same class with the same settings, so the gradebook's late
penalty is the same whichever command wrote it.

Its traits are the course's late rules (`c.LateCredit.*`, read by `deadlines.rules`). nbgrader hands a plugin
only the student, the score and the seconds late (counted from the due date plus the student's extension,
from the submission's timestamp as nbgrader recorded it from the exchange); the assignment, its due date,
the extension and the student's label are read from the gradebook through the plugin's parent: nbgrader's
`AssignLatePenalties` (its open `gradebook`) or the writer's `LateContext` (its connection, inside the
transaction it is writing).
"""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Dict, List, Unicode
from traitlets.config import Configurable

from autograder.deadlines.rules import rules_from
from autograder.deadlines.schedule import Credit
from autograder.deadlines.student_deadline import read_deadline

Rows = Callable[[str, dict[str, Any]], list[tuple]]


class LateContext(Configurable):
    """What our writer gives the plugin in place of nbgrader's `AssignLatePenalties`: the assignment graded and
    a way to read the gradebook in the writer's own transaction."""

    assignment_id = Unicode()

    def __init__(self, assignment_id: str, rows: Rows, **kwargs: Any) -> None:
        super().__init__(assignment_id=assignment_id, **kwargs)
        self.rows = rows


class LateCredit(LateSubmissionPlugin):
    """Late credit by the course's schedule, the student's extension and label."""

    schedule = List(help="Credit steps after the due date: [[until, credit], ...]; until is a duration "
                         "after the due date (48h, 7d) or an ISO 8601 date with its offset.").tag(config=True)
    after = Unicode(None, allow_none=True, help="After the last step: 'practice' or 'not-accepted'."
                    ).tag(config=True)
    grace = Unicode("0s", help="Late by this much or less is on time (15m).").tag(config=True)
    assignments = Dict(help="An assignment's own schedule, after and grace: {name: {...}}.").tag(config=True)
    labels = Dict(help="Group accommodations: {name: {'extra': '1d', 'stretch': 1.5}}.").tag(config=True)

    def credit(self, student_id: str, total_seconds_late: float) -> Credit | None:
        """The student's credit for the assignment being graded; None without a due date."""
        rules = rules_from({key: getattr(self, key) for key in ("schedule", "after", "grace", "assignments",
                                                                 "labels", "penalty_method")})
        assignment = self.parent.assignment_id
        deadline = read_deadline(self._rows(), assignment, student_id)
        if deadline is None:
            return None
        # nbgrader counts the seconds from the due date plus the extension: that is when the work arrived.
        arrived = deadline.due + (deadline.extension or timedelta(0)) + timedelta(seconds=total_seconds_late)
        return deadline.credit(rules, assignment, arrived)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        from autograder.grades.arithmetic import late_penalty

        found = self.credit(student_id, total_seconds_late)
        return None if found is None else late_penalty(score, found)

    def _rows(self) -> Rows:
        parent = self.parent
        if isinstance(parent, LateContext):
            return parent.rows
        from sqlalchemy import text

        from autograder.migrations import upgrade

        # Under nbgrader's autograde our tables (the labels') are made or upgraded as our own commands do (the
        # writer has done it before it asks), when they are first read: nbgrader has only read the gradebook by
        # then, so its session holds no lock the upgrade would wait on.
        upgrade(parent.db_url)
        session = parent.gradebook.db  # nbgrader's AssignLatePenalties, inside its `with gradebook`
        return lambda sql, params: [tuple(row) for row in session.execute(text(sql), params).fetchall()]
