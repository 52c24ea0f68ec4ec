"""The single gradebook writer: applies graded submissions to nbgrader's gradebook as `nbgrader autograde`
would leave it (the autograded folders are `grading.autograded`'s), so `generate_feedback`, `export` and the
formgrader work on them.

Submissions are committed in batches (one transaction for a few dozen students: their students,
submissions, per-cell auto scores, comments, late penalties), and each student's autograded folder is
built beside its place but swapped in only after its batch committed. A crash mid-class leaves every
student of an earlier batch as graded; the students of the batch in progress are either all graded or
none of them (and are graded again next run), never half-written.

The rows are nbgrader's own tables written with plain SQL (one executemany per table and batch), with the
values nbgrader's ORM objects would get: ids from nbgrader's `new_uuid`, its column defaults (`flagged`
False, manual scores, extra credit and manual comments NULL), times as SQLAlchemy stores them. The late
penalties of the students a batch touched are derived at its commit by `grades.settle`, the one path every
change of a grade takes (an extension or an override as well as a grading run). An existing SQLite
gradebook (the embedded one) is opened with the standard library: SQLAlchemy and nbgrader's ORM, a large
share of a short grading run's start-up (docs, "Speed"), never load.
Any other database, or a gradebook not made yet, is opened by nbgrader's `Gradebook` (which creates its
tables), and the same SQL runs on the driver beneath: on a PostgreSQL server, psycopg (named parameters
rewritten to its style, times as `timestamp` and `interval` values). There as in SQLite, a batch's writes are
one transaction, waiting at most `lock_seconds` for another program's locks.
"""

import contextlib
import dataclasses
import os
import uuid
from typing import Any

from autograder.course.settings import database_error
from autograder.grading.gradebook_db import GradebookDatabase, GradebookError
from autograder.grading.model import Outcome, SourceNotebook
from autograder.grading.sources import read_sources
from autograder.nbgrader_glue.notebook import NO_RESPONSE, checksum, is_grade, nbgrader_meta, nbutils, node


def lock_seconds_allowed() -> float:
    """How long to wait for another program's lock on the gradebook before giving up (one line, exit 1):
    AUTOGRADER_GRADEBOOK_TIMEOUT seconds, 30 unless set."""
    return float(os.environ.get("AUTOGRADER_GRADEBOOK_TIMEOUT", "30"))


class GradebookWriter:
    def __init__(self, db_url: str, course_id: str, lock_seconds: float | None = None, config: Any = None) -> None:
        """`config`: the course's nbgrader configuration (traitlets), for its late rules and plugin.
        `lock_seconds`: lock_seconds_allowed() unless given."""
        lock_seconds = lock_seconds_allowed() if lock_seconds is None else lock_seconds
        self.lock_seconds = lock_seconds
        self.config = config
        self.db = GradebookDatabase.open(db_url, course_id, lock_seconds)
        self._assignments: dict[str, _Assignment] = {}
        self._rows: dict[tuple[str, str], list[dict[str, Any]]] = {}  # staged, not yet sent: (table, kind)
        self._students: set[str] | None = None
        self._submissions: tuple[str, dict[str, str]] | None = None  # (assignment id, {student: submission id})
        self._writing = False  # statements sent in the open transaction
        # Issue 18: a `regrade.audit.AuditTrail`, set by the command that grades, records each run and each
        # student's score before and after, in the same transactions as the grades.
        self.audit: Any = None
        # The (assignment, student) pairs staged since the last commit: settled (`grades.settle`: late penalties
        # derived, counted scores queued for the LMS) in the commit's transaction.
        self._touched: list[tuple[str, str]] = []
        self._grade_rules: Any = None
        # The grades the committed batches changed (a resubmission graded, a regrade): the command marks the pages
        # made before them (`watch.stale_pages`), as it does for a grade `settle_stale` finds changed.
        self.changed: list[Any] = []

    def close(self) -> None:
        self.db.close()

    @property
    def grade_rules(self) -> Any:
        """The course's `grades.settle.GradeRules`, read from its configuration once."""
        if self._grade_rules is None:
            from autograder.deadlines.schedule import DeadlineError
            from autograder.grades.settle import GradeRules

            try:
                self._grade_rules = GradeRules.of(self.config)
            except DeadlineError as exc:
                raise GradebookError(str(exc)) from None
        return self._grade_rules

    def settle_stale(self) -> list[Any]:
        """Every grade whose stored late penalties its facts no longer give (a due date or the late rules changed,
        a score typed in the formgrader) settled and committed; the grades changed. Run when a command opens
        the course, before it grades."""
        from autograder.grades.settle import settle_stale

        changed: list[Any] = []
        self._guarded(lambda: changed.extend(settle_stale(self.db, self.grade_rules)))
        self._guarded(self._commit)
        return changed

    def refresh(self) -> None:
        """Forget what was read of the gradebook (its students, submissions, assignments and due dates): a
        writer kept open for long (the watcher's) reads them again, as other programs may have changed them."""
        self._students = self._submissions = None
        self._assignments.clear()

    # reading ------------------------------------------------------------------------------------
    def has_assignment(self, assignment: str) -> bool:
        try:
            return bool(self.db.rows("SELECT id FROM assignment WHERE name = :name", {"name": assignment}))
        except self.db.errors as exc:
            raise GradebookError(f"cannot read the gradebook: {database_error(exc)}") from None
        finally:
            self._end_reading()

    def deadline(self, assignment: str, student: str) -> Any:
        """The student's `deadlines.student_deadline.StudentDeadline` as the gradebook holds it now (due date,
        extension, label); None when the assignment has no due date."""
        from autograder.deadlines.student_deadline import read_deadline

        try:
            return read_deadline(self.db.rows, assignment, student)
        except self.db.errors as exc:
            raise GradebookError(f"cannot read the gradebook: {database_error(exc)}") from None
        finally:
            self._end_reading()

    def counted_score(self, assignment: str, student: str) -> Any:
        """The student's `grades.outbox.CountedScore` of `assignment` as the gradebook holds it now; None: none."""
        from autograder.grades.outbox import counted_scores

        try:
            return counted_scores(self.db, assignment, [student]).get(student)
        except self.db.errors as exc:
            raise GradebookError(f"cannot read the gradebook: {database_error(exc)}") from None
        finally:
            self._end_reading()

    def source_notebooks(self, assignment: str) -> list[SourceNotebook]:
        # The same plain SQL the grade command uses before this writer exists.
        try:
            found = read_sources(self.db.connection, assignment)
        except self.db.errors as exc:
            raise GradebookError(f"cannot read the gradebook: {database_error(exc)}") from None
        finally:
            self._end_reading()
        if found is None:
            raise GradebookError(f"the gradebook has no assignment {assignment!r}")
        return found

    # writing ------------------------------------------------------------------------------------
    def add(self, outcome: Outcome, timestamp: str | None, cells: dict[str, list[Any]]) -> None:
        """Stage one student's rows in the open transaction; nothing is written for good until `commit`.
        On any error the whole open transaction (every student staged since the last commit) is rolled
        back: the caller must then drop those students' staged files too."""
        self._guarded(self._record, outcome.result, timestamp, cells)

    def commit(self) -> None:
        """Write every staged student in one transaction: one executemany per table for the batch, and
        the journal synced once per batch instead of once per student."""
        self._guarded(self._commit)

    def rollback(self) -> None:
        self._rows.clear()
        self._students = self._submissions = None  # they may name rows that were just rolled back
        self._writing = False
        self._touched.clear()
        if self.audit is not None:  # the audit rows of the rolled-back students go with them
            self.audit.discard()
        # A server that went away rolled back already; its error, not this one, is what the user reads.
        with contextlib.suppress(*self.db.errors):
            self.db.connection.rollback()

    def _end_reading(self) -> None:
        """Close the transaction a read opened (the DB-API opens one for any statement on a server), unless
        it holds writes: an idle open transaction would keep its locks, and its snapshot, until grading."""
        if not self._writing and not self._rows:
            with contextlib.suppress(*self.db.errors):
                self.db.connection.rollback()

    def _commit(self) -> None:
        self._flush()
        if self.audit is not None:  # the batch's audit rows, in its transaction
            self.audit.write(self.db)
        if self._touched:  # penalties derived, the LMS outbox's rows queued: in the same transaction, never lost
            from autograder.grades.settle import settle_changes

            origin = self.audit.kind if self.audit is not None else "grade"
            self.changed += settle_changes(self.db, self._touched, origin, self.grade_rules)
            self._touched = []
        self.db.connection.commit()
        self._writing = False

    def _guarded(self, action: Any, *args: Any) -> None:
        try:
            action(*args)
        except self.db.errors as exc:
            self.rollback()
            if self.db.is_lock_error(exc):
                raise GradebookError(f"the gradebook is locked by another program (waited {self.lock_seconds:g} s)"
                                     ) from None
            raise GradebookError(f"cannot write the gradebook: {database_error(exc)}") from None
        except BaseException:
            self.rollback()
            raise

    def _flush(self) -> None:
        """Send the staged inserts and updates, parents before children."""
        for table in _TABLE_ORDER:
            for kind in ("insert", "update"):
                rows = self._rows.pop((table, kind), None)
                if rows:
                    self._writing = True
                    self.db.write(_statement(table, kind, tuple(rows[0])), rows)

    def _stage(self, table: str, kind: str, row: dict[str, Any]) -> None:
        self._rows.setdefault((table, kind), []).append(row)

    def _structure(self, assignment_name: str) -> "_Assignment":
        if assignment_name not in self._assignments:
            self._assignments[assignment_name] = _Assignment.load(self.db, assignment_name)
        return self._assignments[assignment_name]

    def _existing(self, assignment: "_Assignment") -> tuple[set[str], dict[str, str]]:
        """Which students and which of their submissions of `assignment` the gradebook holds (one query
        each per run; this writer is the only one adding them while it runs)."""
        if self._students is None:
            self._students = {row[0] for row in self.db.rows("SELECT id FROM student")}
        if self._submissions is None or self._submissions[0] != assignment.id:
            rows = self.db.rows("SELECT student_id, id FROM submitted_assignment WHERE assignment_id = :a",
                                {"a": assignment.id})
            self._submissions = (assignment.id, dict(rows))
        return self._students, self._submissions[1]

    def _record(self, result: Any, timestamp: str | None, cells: dict[str, list[Any]]) -> None:
        assignment = self._structure(result.assignment)
        students, submissions = self._existing(assignment)
        self._touched.append((result.assignment, result.student))
        if result.student not in students:
            # A student no roster import named: the formgrader shows "last, first" (and "None, None" for
            # none), so the id stands as the last name until `autograder roster import` gives the real ones.
            self._stage("student", "insert", {"id": result.student, "first_name": "", "last_name": result.student,
                                              "email": None, "lms_user_id": None})
            students.add(result.student)
        stamp = _parse_utc(timestamp) if timestamp else None
        submission_id = submissions.get(result.student)
        first = submission_id is None  # no score before this run
        if submission_id is None:  # as Gradebook.add_submission, without its commit
            submission_id = submissions[result.student] = _new_uuid()
            self._stage("submitted_assignment", "insert", {"id": submission_id, "assignment_id": assignment.id,
                                                           "student_id": result.student,
                                                           "timestamp": self.db.time_value(stamp),
                                                           "extension": None})
            existing = {}
        else:
            existing, stamp = self._load_submission(submission_id, stamp)
        if self.audit is not None:  # the score before, read before this student's rows change
            self.audit.before(self.db, result.assignment, result.student, submission_id, new=first)
        scores = {c.grade_id: c.score for c in result.cells}
        for notebook in assignment.notebooks:
            rows = existing.get(notebook.id)
            if rows is None:  # inserted before its grades and comments (their foreign keys name it)
                rows = existing[notebook.id] = _NotebookRows(_new_uuid(), new=True)
                self._stage("submitted_notebook", "insert", {
                    "id": rows.id, "assignment_id": submission_id, "notebook_id": notebook.id, "flagged": False,
                    "late_submission_penalty": None})
            else:
                self._stage("submitted_notebook", "update", {"b_id": rows.id, "late_submission_penalty": None})
            self._grade_notebook(notebook, rows, scores, cells.get(notebook.name), result.status)

    def _load_submission(self, submission_id: str, stamp: Any) -> tuple[dict[str, "_NotebookRows"], Any]:
        """A submission graded before (or left incomplete): its rows, by notebook; its timestamp is the new
        one when the submission has one, else the stored one."""
        self._flush()
        db = self.db
        ((old_stamp,),) = db.rows("SELECT timestamp FROM submitted_assignment WHERE id = :id", {"id": submission_id})
        if stamp is not None:
            self._writing = True
            db.write("UPDATE submitted_assignment SET timestamp = :t WHERE id = :id",
                     [{"t": db.time_value(stamp), "id": submission_id}])
        else:
            stamp = db.read_time(old_stamp)
        existing = {}
        for nb_id, notebook_id in db.rows("SELECT id, notebook_id FROM submitted_notebook WHERE assignment_id = :id",
                                          {"id": submission_id}):
            rows = existing[notebook_id] = _NotebookRows(nb_id, new=False)
            for cell_id, grade_id, manual in db.rows(
                    "SELECT cell_id, id, manual_score FROM grade WHERE notebook_id = :nb", {"nb": nb_id}):
                rows.grades[cell_id] = (grade_id, manual)
            for cell_id, comment_id in db.rows("SELECT cell_id, id FROM comment WHERE notebook_id = :nb",
                                               {"nb": nb_id}):
                rows.comments[cell_id] = (comment_id,)
        return existing, stamp

    def _grade_notebook(self, notebook: "_Notebook", rows: "_NotebookRows", scores: dict[str, float],
                        cells: list[Any] | None, status: str) -> None:
        by_id = {}
        for cell in cells or []:
            gid = nbgrader_meta(cell).get("grade_id")
            if gid:
                by_id[gid] = cell
        for cell_id in notebook.graded:  # every grade the assignment has, whether new or left incomplete
            rows.grades.setdefault(cell_id, None)
        for cell_id in notebook.commented:
            rows.comments.setdefault(cell_id, None)
        for cell_id, old in rows.grades.items():
            name = notebook.names.get(cell_id)
            cell = by_id.get(name)
            manual = old[1] if old else None
            if name in scores:
                auto = scores[name]
            elif cell is not None and is_grade(cell):
                auto, _ = nbutils().determine_grade(node(cell))  # answers graded by hand, as nbgrader
            else:
                auto = 0.0  # not submitted, or the notebook could not be read
            needs = manual is not None or auto is None or status == "unreadable"
            if old is None:
                self._stage("grade", "insert", {"id": _new_uuid(), "notebook_id": rows.id, "cell_id": cell_id,
                                                "auto_score": auto, "manual_score": None, "extra_credit": None,
                                                "needs_manual_grade": needs})
            else:
                self._stage("grade", "update", {"b_id": old[0], "auto_score": auto, "needs_manual_grade": needs})
        for cell_id, old in rows.comments.items():
            cell = by_id.get(notebook.names.get(cell_id))
            unchanged = cell is not None and nbgrader_meta(cell).get("checksum") == checksum(cell)
            comment = NO_RESPONSE if unchanged and not nbgrader_meta(cell).get("task", False) else None
            if old is None:
                self._stage("comment", "insert", {"id": _new_uuid(), "notebook_id": rows.id, "cell_id": cell_id,
                                                  "auto_comment": comment, "manual_comment": None})
            else:
                self._stage("comment", "update", {"b_id": old[0], "auto_comment": comment})


@dataclasses.dataclass
class _Notebook:
    """One notebook of the assignment, as plain data loaded once per run."""

    id: str
    name: str
    graded: list[str]  # cell ids with a grade row: grade and task cells
    commented: list[str]  # cell ids with a comment row: solution and task cells
    names: dict[str, str]  # cell id -> grade_id


@dataclasses.dataclass
class _Assignment:
    id: str
    duedate: Any
    notebooks: list[_Notebook]

    @classmethod
    def load(cls, db: GradebookDatabase, name: str) -> "_Assignment":
        found = db.rows("SELECT id, duedate FROM assignment WHERE name = :name", {"name": name})
        if not found:
            raise GradebookError(f"the gradebook has no assignment {name!r}")
        assignment_id, duedate = found[0]
        notebooks = []
        for nb_id, nb_name in db.rows("SELECT id, name FROM notebook WHERE assignment_id = :a", {"a": assignment_id}):
            cells: dict[str, list[tuple[str, str]]] = {"GradeCell": [], "SolutionCell": [], "TaskCell": []}
            # nbgrader's cells are one table with a type column (its ORM's polymorphic identity).
            for cell_id, cell_name, kind in db.rows("SELECT id, name, type FROM base_cell WHERE notebook_id = :nb",
                                                    {"nb": nb_id}):
                cells.setdefault(kind, []).append((cell_id, cell_name))
            grade, solution, task = cells["GradeCell"], cells["SolutionCell"], cells["TaskCell"]
            notebooks.append(_Notebook(nb_id, nb_name, [c for c, _ in grade + task], [c for c, _ in solution + task],
                                       dict(grade + solution + task)))
        return cls(assignment_id, db.read_time(duedate), notebooks)


@dataclasses.dataclass
class _NotebookRows:
    """A submitted notebook's rows: its id, and its grade and comment rows by cell id (row id[, manual
    score]); None for a row still to be inserted."""

    id: str
    new: bool
    grades: dict[str, tuple | None] = dataclasses.field(default_factory=dict)
    comments: dict[str, tuple | None] = dataclasses.field(default_factory=dict)


# Parents before children, as the foreign keys need.
_TABLE_ORDER = ("student", "submitted_assignment", "submitted_notebook", "grade", "comment")


def _statement(table: str, kind: str, columns: tuple[str, ...]) -> str:
    """An executemany statement on one of nbgrader's tables: insert whole rows, or update by `b_id`.
    Table and column names are this module's own, never data."""
    if kind == "insert":
        return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(':' + c for c in columns)})"
    sets = ", ".join(f"{c} = :{c}" for c in columns if c != "b_id")
    return f"UPDATE {table} SET {sets} WHERE id = :b_id"


def _new_uuid() -> str:
    return uuid.uuid4().hex  # nbgrader's new_uuid


def _parse_utc(timestamp: str) -> Any:
    from nbgrader.utils import parse_utc  # nbgrader.utils loads after the workers fork (`grading.startup`)

    return parse_utc(timestamp)


# Files --------------------------------------------------------------------------------------------------


