"""Per-student exceptions, each recorded with who, when and why (`autograder_exception_event`):

- extensions, on nbgrader's own column (`SubmittedAssignment.extension`, set as `Gradebook.grant_extension`
  does), which every grading path reads: ours (`grading.writer`) and nbgrader's `autograde`;
- labels, a group accommodation set once per student for the whole course (`autograder_student_label`);
- overrides of a cell's score (a settled dispute): nbgrader's manual score of that cell, which no grading
  path overwrites (ours and nbgrader's only write the auto score) and which counts over the auto score,
  also under `regrade --no-decrease`; `autograder_score_override` says which manual scores are overrides.

Every function here checks all its input before it changes anything, and commits once: a mistake changes
nothing. They take nbgrader's `Gradebook` (the commands open it with `CourseSettings.open_gradebook`).
"""

import contextlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from autograder.deadlines.rules import LateRules
from autograder.deadlines.schedule import DeadlineError, as_utc, moved_due, show, show_duration
from autograder.deadlines.tables import (
    EVENT_TABLE,
    LABEL_TABLE,
    OVERRIDE_TABLE,
    RUBRIC_APPLIED_TABLE,
    RUBRIC_ITEM_TABLE,
)


@dataclass(frozen=True)
class Event:
    at: str
    user: str
    kind: str  # extension, revoke, label, unlabel, override, unoverride
    assignment: str | None
    student: str
    detail: str
    reason: str


@dataclass(frozen=True)
class Change:
    """What one student's exception is now, in a line."""

    student: str
    text: str


class Exceptions:
    """The exceptions of a course's gradebook (nbgrader's `Gradebook`, open), changed and read as one user."""

    def __init__(self, gradebook: Any, rules: LateRules, config: Any = None, user: str | None = None) -> None:
        """`config`: the course's nbgrader settings, for its late-penalty plugin (every change here is settled by
        `grades.settle`: the late penalties derived again, the LMS told)."""
        from autograder.grades.stamps import os_user
        from autograder.migrations import MigrationError, upgrade

        try:
            upgrade(gradebook.engine)
        except MigrationError as exc:
            raise DeadlineError(str(exc)) from None
        self.gradebook, self.rules, self.config = gradebook, rules, config
        self.user = user if user is not None else os_user()
        # The (assignment, student) pairs changed since the last commit, with what changed them, and the students
        # whose label changed (every assignment of theirs): settled in the commit's transaction.
        self._touched: dict[tuple[str, str], str] = {}
        self._labelled: set[str] = set()
        # What each commit settled, with what changed it: the pages of those grades are marked out of date.
        self.settled: list[tuple[list[Any], str]] = []

    # Extensions -------------------------------------------------------------------------------------
    def extend(self, assignment: str, students: list[str], reason: str, until: datetime | None = None,
               by: timedelta | None = None) -> list[Change]:
        """Each student's due date for `assignment` moved to `until`, or `by` after the assignment's due date
        (replacing any extension they had: extensions do not stack, as in nbgrader)."""
        due = self._due(assignment)
        self._students(students)
        _reason(reason)
        if until is not None:
            if as_utc(until) <= due:
                raise DeadlineError(f"--until {show(until)} is not after {assignment}'s due date {show(due)}")
            by = as_utc(until) - due
        if by is None or by <= timedelta(0):
            raise DeadlineError("an extension needs --until DATE or --by DURATION")
        moved = moved_due(due, by)  # past the plausible years: refused as --until's date is, nothing changed
        changes = []
        for student in students:
            submission = self._submission(assignment, student)
            submission.extension = by
            text = f"due {show(moved)} (+{show_duration(by)})"
            self._event("extension", assignment, student, text, reason)
            changes.append(Change(student, text))
        self._commit()
        return changes

    def revoke(self, assignment: str, students: list[str], reason: str) -> list[Change]:
        due = self._due(assignment)
        self._students(students)
        _reason(reason)
        submissions = {s: self._submission(assignment, s, create=False) for s in students}
        without = [s for s, sub in submissions.items() if sub is None or sub.extension is None]
        if without:
            raise DeadlineError(f"no extension of {assignment} to revoke for {', '.join(without)}")
        for student, submission in submissions.items():
            submission.extension = None
            self._event("revoke", assignment, student, f"due {show(due)} again", reason)
        self._commit()
        return [Change(s, f"due {show(due)}") for s in students]

    # Labels -----------------------------------------------------------------------------------------
    def label(self, name: str | None, students: list[str], reason: str) -> list[Change]:
        """Set (or with None remove) each student's label for the whole course."""
        self.rules.label(name)  # an unknown label is refused
        self._students(students)
        _reason(reason)
        for student in students:
            self._sql(f"DELETE FROM {LABEL_TABLE} WHERE student_id = :s", s=student)
            if name:
                self._sql(f"INSERT INTO {LABEL_TABLE} (student_id, label) VALUES (:s, :l)", s=student, l=name)
            self._event("label" if name else "unlabel", None, student, name or "no label", reason)
            self._labelled.add(student)
        self._commit()
        return [Change(s, f"label {name}" if name else "no label") for s in students]

    def labels(self) -> dict[str, str]:
        return dict(self._sql(f"SELECT student_id, label FROM {LABEL_TABLE}").fetchall())

    # Overrides --------------------------------------------------------------------------------------
    def override(self, assignment: str, student: str, cell: str, score: float | None, reason: str) -> Change:
        """A cell's score set by the instructor (None: the override removed, the graders' score counts again)."""
        self._due(assignment, need_date=False)
        self._students([student])
        _reason(reason)
        grade = self._grade(assignment, student, cell)
        notebook = grade.notebook.name
        key = {"a": assignment, "s": student, "n": notebook, "c": cell}
        by_hand = grade.auto_score is None  # an answer graded by a person: no graders' score beneath
        if score is None:
            if not self._sql(f"SELECT 1 FROM {OVERRIDE_TABLE} WHERE assignment = :a AND student_id = :s "
                             "AND notebook = :n AND cell = :c", **key).fetchall():
                raise DeadlineError(f"no override of {cell} for {student} in {assignment} to remove")
            if by_hand:  # what its rubric items give it again, else to be graded (never a 0 no one gave)
                grade.manual_score = self._rubric_score(assignment, notebook, cell, student, grade.max_score)
                grade.needs_manual_grade = grade.manual_score is None
                text = (f"{cell}: to be graded by hand again" if grade.manual_score is None else
                        f"{cell}: its rubric items' {grade.manual_score:g} of {grade.max_score:g} counts again")
            else:
                grade.manual_score = None
                text = f"{cell}: graders' score {grade.auto_score or 0:g} counts again"
        else:
            if not 0 <= score <= grade.max_score:
                raise DeadlineError(f"--score {score:g} is not between 0 and {cell}'s {grade.max_score:g} points")
            before = grade.manual_score
            grade.manual_score = score
            grade.needs_manual_grade = False
            if by_hand:
                text = (f"{cell}: {score:g} of {grade.max_score:g} (graded by hand: "
                        f"{'not graded before' if before is None else f'{before:g} before'})")
            else:
                text = f"{cell}: {score:g} of {grade.max_score:g} (graders gave {grade.auto_score:g})"
        self._store_override((assignment, student, notebook, cell), score)
        self._event("override" if score is not None else "unoverride", assignment, student, text, reason)
        self._commit()
        return Change(student, text)

    def overrides(self, assignment: str | None = None) -> list[tuple[str, str, str, str, float]]:
        """(assignment, student, notebook, cell, score) of every override, or of one assignment's."""
        where = " WHERE assignment = :a" if assignment else ""
        return [tuple(r) for r in self._sql(f"SELECT assignment, student_id, notebook, cell, score FROM "
                                            f"{OVERRIDE_TABLE}{where} ORDER BY 1, 2, 3, 4", a=assignment)]

    def adopt_formgrader_scores(self) -> list[Change]:
        """A score an instructor typed over the graders' in the formgrader (nbgrader's manual score of an
        autograded cell, as `override` sets it) becomes an override like `override`'s, recorded once with the
        formgrader as who (it keeps neither who nor why) and the moment it was first seen as when; one cleared
        there is recorded as removed. Run before the exceptions are read or changed."""
        recorded = {(a, s, n, c): score for a, s, n, c, score in self.overrides()}
        given = {(a, s, n, c): (manual, auto) for a, s, n, c, manual, auto in instructor_scores(self._sql)}
        changes = []
        for key, (manual, auto) in sorted(given.items()):
            if recorded.get(key) != manual:
                assignment, student, notebook, cell = key
                self._store_override(key, manual)
                text = f"{cell}: {manual:g} (graders gave {auto:g}), set in the formgrader"
                self._event("override", assignment, student, text, FORMGRADER_REASON, user="formgrader")
                changes.append(Change(student, text))
        for key in sorted(set(recorded) - set(given) - self._written_overrides()):
            assignment, student, notebook, cell = key
            self._store_override(key, None)
            text = f"{cell}: the instructor's score cleared in the formgrader, the graders' counts again"
            self._event("unoverride", assignment, student, text, FORMGRADER_REASON, user="formgrader")
            changes.append(Change(student, text))
        if changes:
            self._commit()
        return changes

    def _written_overrides(self) -> set[tuple[str, str, str, str]]:
        # An override of an answer graded by hand (a regrade request's answer) has no graders' score beside it:
        # `instructor_scores` never lists it, and only `override --remove` takes it away.
        return {tuple(row) for row in self._sql(
            f"SELECT o.assignment, o.student_id, o.notebook, o.cell FROM {OVERRIDE_TABLE} o JOIN assignment a ON "
            "a.name = o.assignment JOIN submitted_assignment sa ON sa.assignment_id = a.id AND sa.student_id = "
            "o.student_id JOIN notebook n ON n.assignment_id = a.id AND n.name = o.notebook JOIN submitted_notebook "
            "sn ON sn.assignment_id = sa.id AND sn.notebook_id = n.id JOIN base_cell bc ON bc.notebook_id = n.id "
            "AND bc.name = o.cell JOIN grade g ON g.notebook_id = sn.id AND g.cell_id = bc.id "
            "WHERE g.auto_score IS NULL").fetchall()}

    def settle_stale(self) -> None:
        """Grades whose stored penalties their facts no longer give (a due date or the rules changed since)
        settled (`grades.settle.settle_stale`), before anything is read or changed."""
        from autograder.grades.outbox import SessionSql
        from autograder.grades.settle import GradeRules, settle_stale

        try:
            changed = settle_stale(SessionSql(self.gradebook.db), GradeRules(self.rules, self.config))
            self.gradebook.db.commit()
            self.settled.append((changed, "rederived"))
        except Exception:
            self.gradebook.db.rollback()
            raise

    def _store_override(self, key: tuple[str, str, str, str], score: float | None) -> None:
        params = dict(zip(("a", "s", "n", "c"), key, strict=True))
        self._sql(f"DELETE FROM {OVERRIDE_TABLE} WHERE assignment = :a AND student_id = :s AND notebook = :n "
                  "AND cell = :c", **params)
        if score is not None:
            self._sql(f"INSERT INTO {OVERRIDE_TABLE} (assignment, student_id, notebook, cell, score) "
                      "VALUES (:a, :s, :n, :c, :score)", score=score, **params)

    # Reading ----------------------------------------------------------------------------------------
    def extensions(self, assignment: str | None = None) -> list[tuple[str, str, datetime, timedelta]]:
        """(assignment, student, due for them (UTC), extension) of every extension granted."""
        found = []
        names = [assignment] if assignment else [a.name for a in self.gradebook.assignments]
        for name in names:
            found_assignment = self.gradebook.find_assignment(name)
            for submission in found_assignment.submissions:
                if submission.extension is not None and found_assignment.duedate is not None:
                    found.append((name, submission.student_id,
                                  as_utc(found_assignment.duedate) + submission.extension, submission.extension))
        return sorted(found)

    def events(self, student: str | None = None) -> list[Event]:
        where = " WHERE student_id = :s" if student else ""
        return [Event(*row) for row in self._sql(
            f"SELECT at, os_user, kind, assignment, student_id, detail, reason FROM {EVENT_TABLE}{where} "
            "ORDER BY at", s=student)]

    # Helpers ----------------------------------------------------------------------------------------
    def _due(self, assignment: str, need_date: bool = True) -> datetime:
        from nbgrader.api import MissingEntry

        try:
            found = self.gradebook.find_assignment(assignment)
        except MissingEntry:
            known = ", ".join(sorted(a.name for a in self.gradebook.assignments)) or "none"
            raise DeadlineError(f"unknown assignment {assignment!r} (the gradebook has: {known})") from None
        if found.duedate is None and need_date:
            raise DeadlineError(f"{assignment} has no due date: set it with "
                                f"`nbgrader db assignment add {assignment} --duedate=...`")
        if found.duedate is not None:
            self.rules.schedule(assignment).check_dates(as_utc(found.duedate))
        return as_utc(found.duedate) if found.duedate is not None else None

    def _students(self, students: list[str]) -> None:
        if not students:
            raise DeadlineError("name at least one student")
        known = {s.id for s in self.gradebook.students}
        unknown = [s for s in students if s not in known]
        if unknown:
            raise DeadlineError(f"unknown student{'s' * (len(unknown) > 1)} {', '.join(map(repr, unknown))} "
                                "(not in the gradebook: `autograder roster import` or `nbgrader db student add`)")

    def _submission(self, assignment: str, student: str, create: bool = True) -> Any:
        from nbgrader.api import MissingEntry

        try:
            return self.gradebook.find_submission(assignment, student)
        except MissingEntry:
            if not create:
                return None
        # nbgrader keeps an extension on the submission's row: one not handed in yet gets its row now, made by
        # nbgrader as `nbgrader autograde` would make it (everything was checked before: its commit is harmless).
        # Its ORM warns of its own way of adding rows (SAWarning "not in session"): nothing is wrong.
        import warnings

        from sqlalchemy.exc import SAWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SAWarning)
            return self.gradebook.update_or_create_submission(assignment, student)

    def _rubric_score(self, assignment: str, notebook: str, cell: str, student: str, max_score: float) -> float | None:
        """What the question's rubric items given to `student` score (`by_question.rubric` gives them); None: none
        given."""
        from autograder.grades.arithmetic import rubric_score

        given = self._sql(f"SELECT i.points FROM {RUBRIC_ITEM_TABLE} i JOIN {RUBRIC_APPLIED_TABLE} g ON "
                          "g.item_id = i.id WHERE i.assignment = :a AND i.notebook = :n AND i.cell = :c AND "
                          "g.student_id = :s AND i.removed = :no", a=assignment, n=notebook, c=cell, s=student,
                          no=False).fetchall()
        return rubric_score((float(points) for (points,) in given), max_score)

    def _grade(self, assignment: str, student: str, cell: str) -> Any:
        from nbgrader.api import MissingEntry

        try:
            submission = self.gradebook.find_submission(assignment, student)
        except MissingEntry:
            raise DeadlineError(f"{student} has no graded submission of {assignment}: grade it first") from None
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                if grade.name == cell:
                    return grade
        cells = sorted(g.name for n in submission.notebooks for g in n.grades)
        raise DeadlineError(f"{assignment} has no graded cell {cell!r} (its cells: {', '.join(cells)})")

    def _event(self, kind: str, assignment: str | None, student: str, detail: str, reason: str,
               user: str | None = None) -> None:
        from autograder.grades.stamps import now_text

        if assignment is not None:
            self._touched[(assignment, student)] = kind

        self._sql(f"INSERT INTO {EVENT_TABLE} (id, at, os_user, kind, assignment, student_id, detail, reason) "
                  "VALUES (:id, :at, :user, :kind, :a, :s, :detail, :reason)", id=uuid.uuid4().hex, at=now_text(),
                  user=(user or self.user)[:128], kind=kind, a=assignment, s=student, detail=detail[:1024],
                  reason=reason[:1024])

    def _sql(self, sql: str, **params: Any) -> Any:
        from sqlalchemy import text

        return self.gradebook.db.execute(text(sql), params)

    def _commit(self) -> None:
        from autograder.grades.outbox import SessionSql
        from autograder.grades.settle import GradeRules, settle, settle_student

        touched, self._touched = self._touched, {}
        labelled, self._labelled = self._labelled, set()
        try:
            self.gradebook.db.flush()
            sql, rules = SessionSql(self.gradebook.db), GradeRules(self.rules, self.config)
            settled = [(settle(sql, [p for p, k in touched.items() if k == kind], kind, rules), kind)
                       for kind in sorted(set(touched.values()))]
            settled += [(settle_student(sql, student, "label", rules), "label") for student in sorted(labelled)]
            self.gradebook.db.commit()
            self.settled += settled
        except Exception:
            self.gradebook.db.rollback()
            raise


FORMGRADER_REASON = "a score given in the formgrader (it records no reason)"


def instructor_scores(sql: Any, assignment: str | None = None) -> list[tuple[str, str, str, str, float, float]]:
    """(assignment, student, notebook, cell, instructor's score, graders' score) of every autograded cell an
    instructor scored by hand: nbgrader's manual score, which counts over the graders' everywhere, whether
    `override` or the formgrader set it. A manual score of a cell only people grade is grading, not listed.
    `sql(statement, **params)` runs a statement on the gradebook."""
    where = " AND a.name = :a" if assignment else ""
    return [tuple(row) for row in sql(
        "SELECT a.name, sa.student_id, n.name, bc.name, g.manual_score, g.auto_score FROM grade g "
        "JOIN base_cell bc ON g.cell_id = bc.id JOIN submitted_notebook sn ON g.notebook_id = sn.id "
        "JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
        "JOIN assignment a ON sa.assignment_id = a.id "
        f"WHERE g.auto_score IS NOT NULL AND g.manual_score IS NOT NULL{where} ORDER BY 1, 2, 3, 4",
        a=assignment).fetchall()]


def _reason(reason: str) -> None:
    if not reason or not reason.strip():
        raise DeadlineError("say why with --reason \"...\" (it goes into the audit trail)")



@contextlib.contextmanager
def course_exceptions(folder: Path, mark_pages: Callable[[Any, list[Any], str], Any],
                      user: str | None = None) -> Iterator[Exceptions]:
    """The exceptions of the course in `folder`, for one command; every problem is a DeadlineError (one line).
    `mark_pages(settings, grades, kind)` is called for what each commit settled, once it is committed, so the
    students' pages say they are out of date (`watch.stale_pages.mark_stale`, which lives above this floor).
    `user`: who changes them (the hub's user of a page); the OS user by default."""
    from autograder.course.settings import SettingsError, read_course

    try:
        settings = read_course(folder)
        rules = settings.late_rules
        if settings.gradebook_tables() is None:
            raise DeadlineError("no gradebook yet: add the assignment and its students first")
        gradebook = settings.open_gradebook()
    except SettingsError as exc:
        raise DeadlineError(str(exc)) from None
    try:
        exceptions = Exceptions(gradebook, rules, settings.config, user)
        exceptions.adopt_formgrader_scores()
        exceptions.settle_stale()
        yield exceptions
    except BaseException:
        gradebook.db.rollback()
        raise
    finally:
        gradebook.close()
    for grades, kind in exceptions.settled:  # committed: the students' pages now say they are out of date
        mark_pages(settings, grades, kind)


def awaiting_work(submission: Any) -> bool:
    """Whether nbgrader's submission row (ORM) only holds an extension: made by `extend` before the student
    handed anything in, none of its grades scored. Exports and the report count it as not submitted."""
    return submission.extension is not None and submission.timestamp is None and not any(
        grade.auto_score is not None or grade.manual_score is not None
        for notebook in submission.notebooks for grade in notebook.grades)
