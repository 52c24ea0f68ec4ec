"""One student's assignments, as their "My assignments" page on the hub shows them: for each assignment of the
course, the due date for them (their extension or label applied, in the words of their feedback page's deadline
line), their graded attempts in the window now and how many are left, the attempt that counts for their grade
(latest or best; a practice attempt never does), the feedback pages of their latest attempt, and the graded
questions they may ask about with their regrade requests (`by_question.regrade_requests`).

`assignment_rows` is pure (the ledger's records, the gradebook's deadlines, the course's policy and rules);
`read_rows` reads them for one student from the course folder."""

from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from autograder.by_question.regrade_requests import QuestionScore, Request
from autograder.deadlines.rules import LateRules
from autograder.deadlines.student_deadline import StudentDeadline
from autograder.deadlines.student_line import deadline_line
from autograder.display.page_markup import Markup
from autograder.grades.outbox import CountedScore, counted_scores
from autograder.watch.attempt_policy import Policy
from autograder.watch.ledger import Record
from autograder.watch.standing import Attempt, attempts_of, counted


@dataclass(frozen=True)
class AssignmentRow:
    assignment: str
    due: Markup | None  # "Due for you: ..." as the feedback page says it; None: no due date
    attempts: tuple[Attempt, ...]  # every graded attempt, first to latest
    used: int  # graded attempts in the window now (practice ones too: the watcher's limit counts them)
    limit: int  # graded attempts per window; 0: no limit
    next_slot: datetime | None  # when the limit is reached: the next graded attempt is possible then
    counting: Attempt | None  # the attempt the grade holds; None when none may count
    grade: float | None = None  # what the gradebook holds (late credit applied) and the LMS is sent; None: nothing
    grade_max: float | None = None  # its maximum: every graded cell's, the ones graded by hand too
    pending: float = 0.0  # points of answers still to be graded by hand
    questions: tuple[QuestionScore, ...] = ()  # the graded questions of their submission: what they may ask about
    requests: tuple[Request, ...] = ()  # their regrade requests about this assignment, newest first

    @property
    def left(self) -> int | None:
        """Graded attempts possible now; None without a limit."""
        return max(self.limit - self.used, 0) if self.limit else None

    @property
    def latest(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None


def due_for(deadline: StudentDeadline | None, rules: LateRules, assignment: str) -> Markup | None:
    """The due date line of the student's feedback page, without a hand-in: the credit is only asked for the due
    date it moves to (a label's extra time)."""
    if deadline is None:
        return None
    return deadline_line(deadline, None, deadline.credit(rules, assignment, deadline.due))


def assignment_rows(student: str, assignments: list[str], deadlines: dict[str, StudentDeadline | None],
                    records: list[Record], policy: Policy, rules: LateRules, now: datetime,
                    grades: dict[str, CountedScore] | None = None) -> list[AssignmentRow]:
    """`student`'s row of each of `assignments` (in that order), from the ledger's last `records` (anyone's: only
    `student`'s graded ones are read), their `deadlines` and the `grades` the gradebook holds for them (the
    counted attempt's score after late credit); `now` naive UTC, as the ledger's times."""
    rows = []
    for assignment in assignments:
        attempts = attempts_of([r for r in records if r.state == "graded" and r.student == student
                                and r.assignment == assignment])
        graded_at = [a.graded_at for a in attempts]
        rows.append(AssignmentRow(
            assignment, due_for(deadlines.get(assignment), rules, assignment), tuple(attempts),
            sum(now - t < policy.window for t in graded_at), policy.attempts, policy.next_slot(graded_at, now),
            counted(policy, attempts), *grade_of((grades or {}).get(assignment))))
    return rows


def grade_of(found: CountedScore | None) -> tuple[float | None, float | None, float]:
    return (None, None, 0.0) if found is None else (found.score, found.max_score, found.pending_points)


def read_rows(settings: Any, policy: Policy, student: str, now: datetime) -> list[AssignmentRow]:
    """`student`'s rows in the course of `settings` (its `CourseSettings`): the gradebook's assignments (by due
    date, then name), their deadlines for `student`, the questions they may ask about and their regrade requests,
    and the watcher's ledger."""
    from dataclasses import replace

    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    from autograder.by_question.regrade_requests import requests_of, student_questions
    from autograder.deadlines.student_deadline import read_deadline
    from autograder.deadlines.tables import LABEL_TABLE, REGRADE_TABLE
    from autograder.watch.ledger import read_ledger
    from autograder.watch.watch_status import LEDGER_FILE, STATE_FOLDER

    tables = settings.gradebook_tables() or set()
    assignments: list[str] = []
    deadlines: dict[str, StudentDeadline | None] = {}
    grades: dict[str, CountedScore] = {}
    questions: dict[str, list[QuestionScore]] = {}
    requests: dict[str, list[Request]] = {}
    if "assignment" in tables:  # no gradebook yet: nothing released, nothing to show
        engine = create_engine(settings.db_url, poolclass=NullPool)
        try:
            with engine.connect() as connection:
                def rows(sql: str, params: dict[str, Any]) -> list[tuple]:
                    if LABEL_TABLE in sql and LABEL_TABLE not in tables:  # our tables not made yet: no labels
                        return []
                    return [tuple(row) for row in connection.execute(text(sql), params).fetchall()]

                # An assignment without a due date sorts last.
                assignments = [name for (name,) in rows(
                    "SELECT name FROM assignment ORDER BY duedate IS NULL, duedate, name", {})]
                deadlines = {name: read_deadline(rows, name, student) for name in assignments}
                # The score export and push send: the one computation of it (lms.outbox), read-only here.
                reader = SimpleNamespace(rows=lambda sql, params=None: rows(sql, params or {}))
                for name in assignments:
                    found = counted_scores(reader, name, [student]).get(student)
                    if found is not None:
                        grades[name] = found
                        questions[name] = student_questions(reader, student, name)
                if REGRADE_TABLE in tables:  # made by the first request (migrations): none before
                    for request in requests_of(reader, student):
                        requests.setdefault(request.assignment, []).append(request)
        finally:
            engine.dispose()
    records = list(read_ledger(settings.root / STATE_FOLDER / LEDGER_FILE).values())
    return [replace(row, questions=tuple(questions.get(row.assignment, ())),
                    requests=tuple(requests.get(row.assignment, ())))
            for row in assignment_rows(student, assignments, deadlines, records, policy, settings.late_rules, now,
                                       grades)]
