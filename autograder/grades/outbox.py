"""The outbox: every change of a student's counted score, kept in the gradebook until the LMS has it.

Whatever changes the score an LMS would show (the gradebook writer for `grade`, `watch` and `regrade`; an
override or an extension, `deadlines.exception_store`) calls `record_changes` in the same transaction as the
change: the row is committed with the grade or not at all. A change made where we cannot join the transaction
(a manual grade typed in nbgrader's formgrader) is found by `reconcile`, which the sender runs when it scans.

Each row holds what is sent: the counted score (after the late penalty, never below 0, as `nbgrader export`
and `autograder push` count it), the points possible, the submission's time, a one-line comment naming the
attempt and the score per exercise, and a sequence number. A new row of a (student, assignment) supersedes
the older ones not yet sent: only the newest is ever sent, so an older score never follows a newer one.
States: pending (to send, at `next_try_at`), sent, failed (the LMS refused it: `last_error` says why; a
push sends it again), superseded (a newer row replaced it before it was sent).

Plain SQL with named parameters through a `Sql` (the writer's `GradebookDatabase`, or `session_sql` over
nbgrader's SQLAlchemy session), so it runs in whichever transaction the caller holds, SQLite or a server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from autograder.grades.points import exercise_text, fmt
from autograder.grades.stamps import now_text, utc_text
from autograder.nbgrader_glue.notebook import exercise_label

log = logging.getLogger("autograder.grades.outbox")

OUTBOX_TABLE = "autograder_lms_outbox"
PENDING, SENT, FAILED, SUPERSEDED = "pending", "sent", "failed", "superseded"
# A score that changed where no command of ours could write its row (the formgrader's manual grade).
DETECTED = "detected"


class Sql(Protocol):
    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple]: ...

    def write(self, sql: str, rows: list[dict[str, Any]]) -> None: ...


@dataclass(frozen=True)
class SessionSql:
    """`Sql` over nbgrader's SQLAlchemy session: the statements join the session's open transaction."""

    session: Any

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple]:
        from sqlalchemy import text

        return [tuple(row) for row in self.session.execute(text(sql), params or {}).all()]

    def write(self, sql: str, rows: list[dict[str, Any]]) -> None:
        from sqlalchemy import text

        if rows:
            self.session.execute(text(sql), rows)


def iso_utc(text: str) -> str:
    """Our sortable UTC text as AGS wants a time: ISO 8601 with sub-second precision and a zone."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class CountedScore:
    """What the LMS is sent for one student's submission of one assignment."""

    assignment: str
    student: str
    score: float
    max_score: float
    submitted_at: str | None  # our UTC text
    comment: str
    pending_points: float = 0.0  # of max_score: answers still to be graded by hand (none of score yet)


def _stamp_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:  # nbgrader stores naive UTC
        value = value.replace(tzinfo=UTC)
    return utc_text(value)


def attempt_comment(submitted_at: str | None, exercises: Iterable[tuple[str, float, float]], late_penalty: float,
                    score: float, max_score: float) -> str:
    """`attempt 2025-03-01 18:00 UTC: concat_weights 6/6, ..., sigmoid 3.5/7; late penalty -7.3; total 29.2/46`:
    the same per-exercise text as `StudentGrade.summary`, after the attempt's time."""
    text = exercise_text(exercises, late_penalty, score, max_score)
    when = submitted_at[:16] + " UTC" if submitted_at else "without a time"
    return f"attempt {when}: {text}"


def counted_scores(sql: Sql, assignment: str, students: Iterable[str] | None = None) -> dict[str, CountedScore]:
    """Each student's counted score of `assignment` as the gradebook holds it now (in the caller's transaction),
    its comment listing the exercises in the notebook's order (`grades.exercise_order`): the students with a
    submission (one holding only an extension, granted before any work, counts as none), scored by
    `grades.arithmetic` with the late penalties `grades.settle` stored."""
    from autograder.grades.arithmetic import stored_grade
    from autograder.grades.exercise_order import cell_order
    from autograder.grades.facts import read_facts

    result: dict[str, CountedScore] = {}
    found = read_facts(lambda q, p: sql.rows(q, p), assignment, students, labels=False)
    order = cell_order(lambda q, p: sql.rows(q, p), assignment) if found else None  # once for every student
    for student, facts in found.items():
        grade = stored_grade(facts)
        when = _stamp_text(facts.arrived)
        exercises = order.sorted((c for c in facts.cells if c.exercise), lambda c: (c.notebook, c.cell))
        comment = attempt_comment(when, ((exercise_label(c.cell), None if c.pending else c.score, c.max_score)
                                         for c in exercises),
                                  grade.penalty, grade.score, grade.max_score)
        result[student] = CountedScore(assignment, student, grade.score, grade.max_score, when, comment,
                                       grade.pending_points())
    return result


def _newest(sql: Sql, assignment: str) -> dict[str, tuple[float, float, str, str]]:
    rows = sql.rows(f"SELECT student_id, score, max_score, comment, created_at, seq FROM {OUTBOX_TABLE} "
                    "WHERE assignment = :a ORDER BY seq", {"a": assignment})
    return {student: (score, maximum, comment, created) for student, score, maximum, comment, created, _ in rows}


def _stamp_after(previous: str | None, now: str) -> str:
    """The time a change is sent with: now, or a whole second after the student's previous change. Moodle keeps
    a score only when its timestamp is newer than the one it holds compared in whole seconds (its
    `mod/lti/service/gradebookservices/classes/local/resources/scores.php` answers 409 otherwise), and the
    sender reads a 409 as "this very score, sent before": two changes within one second would leave the
    older score in Moodle."""
    if previous is None:
        return now
    next_second = datetime.fromisoformat(previous).replace(microsecond=0) + timedelta(seconds=1)
    return max(now, utc_text(next_second.replace(tzinfo=UTC)))


def _serialise(sql: Sql) -> None:
    """Hold the outbox for the rest of the caller's transaction, before reading the scores: a scan (`reconcile`)
    and a grading run queuing at once would otherwise read each other half-way (the scan the score before a
    grade, then the grade's row) and queue a stale score after a newer one, with the newer timestamp. In
    SQLite the transaction takes the database's write lock first (the writer's already holds it); on a server
    the table is locked against other writers of it (readers go on)."""
    sqlite = getattr(sql, "sqlite", None)
    if sqlite is None:  # nbgrader's session: it has written (flushed) already, so SQLite's lock is held
        if sql.session.get_bind().dialect.name != "sqlite":
            from sqlalchemy import text

            sql.session.execute(text(f"LOCK TABLE {OUTBOX_TABLE} IN SHARE ROW EXCLUSIVE MODE"))
        return
    if sqlite:
        if not sql.connection.in_transaction:
            sql.connection.execute("BEGIN IMMEDIATE")
    else:
        sql.write(f"LOCK TABLE {OUTBOX_TABLE} IN SHARE ROW EXCLUSIVE MODE", [{}])


def record_changes(sql: Sql, pairs: Iterable[tuple[str, str]], origin: str) -> list[CountedScore]:
    """Queue, in the caller's transaction, the counted score of each (assignment, student) whose score, points
    possible or comment differ from the newest row queued for them; the rows they replace that were not sent
    yet are superseded. The changes queued."""
    by_assignment: dict[str, set[str]] = {}
    for assignment, student in pairs:
        by_assignment.setdefault(assignment, set()).add(student)
    queued: list[CountedScore] = []
    if by_assignment:
        _serialise(sql)
    for assignment, students in sorted(by_assignment.items()):
        queued += _queue(sql, assignment, counted_scores(sql, assignment, students), origin)
    return queued


def reconcile(sql: Sql, assignment: str) -> list[CountedScore]:
    """Queue every score of `assignment` the outbox does not hold as it is now: a change made outside our
    commands (a manual grade in nbgrader's formgrader), or a gradebook graded before the outbox existed."""
    _serialise(sql)
    queued = _queue(sql, assignment, counted_scores(sql, assignment), DETECTED)
    for change in queued:
        log.info("%s: %s's score changed in the gradebook outside a grading command (a formgrader manual grade?): "
                 "%s queued", assignment, change.student, fmt(change.score))
    return queued


def _queue(sql: Sql, assignment: str, scores: dict[str, CountedScore], origin: str) -> list[CountedScore]:
    newest = _newest(sql, assignment)
    changed = [s for student, s in sorted(scores.items())
               if student not in newest or abs(newest[student][0] - s.score) > 1e-9
               or abs(newest[student][1] - s.max_score) > 1e-9 or newest[student][2] != s.comment]
    if not changed:
        return []
    sql.write(f"UPDATE {OUTBOX_TABLE} SET state = '{SUPERSEDED}' WHERE assignment = :a AND student_id = :s "
              f"AND state IN ('{PENDING}', '{FAILED}')", [{"a": assignment, "s": c.student} for c in changed])
    now = now_text()
    sql.write(f"INSERT INTO {OUTBOX_TABLE} (assignment, student_id, score, max_score, submitted_at, comment, origin, "
              f"created_at, state, attempts, next_try_at) VALUES (:a, :s, :score, :most, :at, :comment, :origin, "
              f":created, '{PENDING}', 0, :now)",
              [{"a": c.assignment, "s": c.student, "score": c.score, "most": c.max_score, "at": c.submitted_at,
                "comment": c.comment[:1024], "origin": origin, "now": now,
                "created": _stamp_after(newest.get(c.student, (None,) * 4)[3], now)} for c in changed])
    return changed


# The sender's view ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutboxRow:
    seq: int
    assignment: str
    student: str
    score: float
    max_score: float
    submitted_at: str | None
    comment: str
    origin: str
    created_at: str
    state: str
    attempts: int
    last_error: str | None
    next_try_at: str | None
    sent_at: str | None


_COLUMNS = ("seq, assignment, student_id, score, max_score, submitted_at, comment, origin, created_at, state, "
            "attempts, last_error, next_try_at, sent_at")


def due(sql: Sql, when: str, assignment: str | None = None) -> list[OutboxRow]:
    """The pending rows to send by `when`, oldest change first; one per (student, assignment), the newest."""
    where = " AND assignment = :a" if assignment else ""
    rows = [OutboxRow(*row) for row in sql.rows(
        f"SELECT {_COLUMNS} FROM {OUTBOX_TABLE} WHERE state = '{PENDING}' AND next_try_at <= :w{where} ORDER BY seq",
        {"w": when, **({"a": assignment} if assignment else {})})]
    newest: dict[tuple[str, str], OutboxRow] = {}
    for row in rows:
        newest[(row.assignment, row.student)] = row
    return sorted(newest.values(), key=lambda r: r.seq)


def next_due(sql: Sql) -> str | None:
    rows = sql.rows(f"SELECT MIN(next_try_at) FROM {OUTBOX_TABLE} WHERE state = '{PENDING}'")
    return rows[0][0] if rows else None


def history(sql: Sql, assignment: str) -> list[OutboxRow]:
    return [OutboxRow(*row) for row in sql.rows(
        f"SELECT {_COLUMNS} FROM {OUTBOX_TABLE} WHERE assignment = :a ORDER BY seq", {"a": assignment})]


def latest(sql: Sql, assignment: str) -> dict[str, OutboxRow]:
    """Each student's newest row of `assignment`: what the LMS has or is to get."""
    return {row.student: row for row in history(sql, assignment)}


def assignments_pending(sql: Sql) -> list[str]:
    return [row[0] for row in sql.rows(f"SELECT DISTINCT assignment FROM {OUTBOX_TABLE} WHERE state = '{PENDING}'")]


def mark_sent(sql: Sql, row: OutboxRow) -> None:
    """`row` is in the LMS: sent, whatever its state says now (a newer change may have superseded it while it
    was on its way; a push may send a failed one); anything older of its pair still waiting is superseded."""
    stamp = now_text()
    sql.write(f"UPDATE {OUTBOX_TABLE} SET state = '{SENT}', sent_at = :t, attempts = attempts + 1, last_error = NULL "
              f"WHERE seq = :seq", [{"t": stamp, "seq": row.seq}])
    sql.write(f"UPDATE {OUTBOX_TABLE} SET state = '{SUPERSEDED}' WHERE assignment = :a AND student_id = :s "
              f"AND seq < :seq AND state IN ('{PENDING}', '{FAILED}')",
              [{"a": row.assignment, "s": row.student, "seq": row.seq}])


def mark_retry(sql: Sql, row: OutboxRow, error: str, wait: float) -> None:
    """A transient failure: `row` stays pending, tried again after `wait` seconds."""
    when = utc_text(datetime.now(UTC) + timedelta(seconds=wait))
    sql.write(f"UPDATE {OUTBOX_TABLE} SET attempts = attempts + 1, last_error = :e, next_try_at = :n "
              f"WHERE seq = :seq AND state = '{PENDING}'", [{"e": error[:512], "n": when, "seq": row.seq}])


def mark_failed(sql: Sql, row: OutboxRow, error: str) -> None:
    """The LMS refused `row` for good (a student not enrolled, a score it will not take); kept, with why."""
    sql.write(f"UPDATE {OUTBOX_TABLE} SET state = '{FAILED}', attempts = attempts + 1, last_error = :e, "
              f"next_try_at = NULL WHERE seq = :seq AND state = '{PENDING}'", [{"e": error[:512], "seq": row.seq}])


def retry_failed(sql: Sql, assignment: str) -> int:
    """Every failed newest row of `assignment` made pending again (a push asked for them); how many."""
    failed = [row for row in latest(sql, assignment).values() if row.state == FAILED]
    sql.write(f"UPDATE {OUTBOX_TABLE} SET state = '{PENDING}', next_try_at = :n WHERE seq = :seq",
              [{"n": now_text(), "seq": row.seq} for row in failed])
    return len(failed)


def has_outbox(sql_rows: Callable[[str, dict[str, Any]], list[tuple]], sqlite: bool) -> bool:
    """Whether the gradebook holds the outbox table (asked without touching it)."""
    if sqlite:
        found = sql_rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = :n", {"n": OUTBOX_TABLE})
    else:
        found = sql_rows("SELECT table_name FROM information_schema.tables WHERE table_name = :n", {"n": OUTBOX_TABLE})
    return bool(found)
