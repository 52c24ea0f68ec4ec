"""Regrade requests: a student asks about one graded question of theirs in a sentence, an instructor answers.

A question is a grade cell of the student's own graded submission, autograded or graded by hand; who asks is the
hub's user of the request, never a form's field. At most one request per (question, student) is open at a time:
the check says so in one line, and the table's partial unique index holds it when two requests arrive at once. A
student who has had an answer may ask again (a new request).

An answer closes the request. When it changes the score, the change is an override (`deadlines.exception_store`'s
`Exceptions.override`, the one path an instructor's score takes: recorded with who, when and why, settled by
`grades.settle` so the pages, the exports and the LMS outbox follow), its reason the request itself; the answer
and the override are committed together, or neither is.

The student's text is kept as written but for what only hides or disguises it: control characters other than line
breaks and tabs, and the bidirectional overrides that reorder what a reader sees. It is escaped wherever shown.

`sql` is any `grades.outbox.Sql` (rows and writes with named parameters, in the caller's open transaction).
Nothing here commits but `answer_request`, through the exception store.
"""

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from autograder.deadlines.tables import OVERRIDE_TABLE, REGRADE_TABLE
from autograder.grades.stamps import now_text

MAX_TEXT = 600  # a student's request: a sentence or two (and the override's reason, which holds it, stays short)
MAX_ANSWER = 2000
_HIDING = {*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}  # bidirectional overrides
_COLUMNS = ("id, assignment, notebook, cell, student_id, text, asked_at, score_asked, answer, answered_at, "
            "answered_by, score_before, score_after")


class RequestError(Exception):
    """A request or an answer refused, in one line; nothing was written."""


class AlreadyAnswered(RequestError):
    """Another instructor answered the request since this one loaded it."""


@dataclass(frozen=True)
class QuestionScore:
    """One graded question of a student's submission, as the one arithmetic (`grades.arithmetic`) scores it."""

    assignment: str
    notebook: str
    cell: str
    score: float
    max_score: float
    by_hand: bool  # no autograded score: an answer graded by a person
    pending: bool  # graded by hand, not graded yet


@dataclass(frozen=True)
class Request:
    id: int
    assignment: str
    notebook: str
    cell: str
    student: str
    text: str
    asked_at: str
    score_asked: float | None
    answer: str | None  # None while open
    answered_at: str | None
    answered_by: str | None
    score_before: float | None  # set when the answer changed the score
    score_after: float | None

    @property
    def open(self) -> bool:
        return self.answered_at is None

    @property
    def question(self) -> tuple[str, str, str]:
        return self.assignment, self.notebook, self.cell


def clean_text(text: Any, limit: int = MAX_TEXT, what: str = "your request") -> str:
    """`text` as kept: line breaks made `\\n`, characters that hide or disguise text taken out, trimmed; a
    RequestError when nothing is left or it is longer than `limit`."""
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    text = "".join(c for c in text if c in "\n\t" or (unicodedata.category(c) != "Cc" and c not in _HIDING)).strip()
    if not text:
        raise RequestError(f"{what} is empty: say in a sentence what you are asking about")
    if len(text) > limit:
        raise RequestError(f"{what} is {len(text)} characters long, more than {limit}: say it in a sentence or two")
    return text


def student_questions(sql: Any, student: str, assignment: str) -> list[QuestionScore]:
    """Every graded question (grade cell) of `student`'s submission of `assignment`, in the notebooks' order, with
    its score as the grade's arithmetic gives it; none without a submission."""
    from autograder.grades.exercise_order import cell_order
    from autograder.grades.facts import read_facts

    facts = read_facts(lambda q, p: sql.rows(q, p), assignment, [student], labels=False).get(student)
    if facts is None:
        return []
    order = cell_order(lambda q, p: sql.rows(q, p), assignment)
    cells = order.sorted((c for c in facts.cells if c.exercise), lambda c: (c.notebook, c.cell))
    return [QuestionScore(assignment, c.notebook, c.cell, c.score, c.max_score, c.auto is None, c.pending)
            for c in cells]


def open_request(sql: Any, student: str, assignment: str, notebook: str, cell: str, text: Any) -> Request:
    """`student`'s request about the question; RequestError (one line) when it is not a graded question of
    theirs, the text is empty or too long, or they already have an open request about it."""
    text = clean_text(text)
    found = next((q for q in student_questions(sql, student, assignment)
                  if (q.notebook, q.cell) == (notebook, cell)), None)
    if found is None:
        raise RequestError(f"{assignment} has no graded question {cell!r} of yours in {notebook!r}")
    if found.pending:
        raise RequestError(f"{cell} is not graded yet: ask about it once your instructor has graded it")
    key = {"a": assignment, "n": notebook, "c": cell, "s": student}
    if _open_of(sql, key):
        raise RequestError(f"you already have an open request about {cell} in {assignment}: your instructor will "
                           "answer it, then you may ask again")
    try:
        sql.write(f"INSERT INTO {REGRADE_TABLE} (assignment, notebook, cell, student_id, text, asked_at, "
                  "score_asked) VALUES (:a, :n, :c, :s, :t, :at, :score)",
                  [{**key, "t": text, "at": now_text(), "score": found.score}])
    except Exception as error:  # the partial unique index: another request of theirs arrived first
        if "UNIQUE" in str(error).upper() or "DUPLICATE" in str(error).upper():
            raise RequestError(f"you already have an open request about {cell} in {assignment}") from None
        raise
    return _open_of(sql, key)[0]


def requests_of(sql: Any, student: str) -> list[Request]:
    """`student`'s requests, newest first."""
    return _read(sql, "student_id = :s ORDER BY asked_at DESC, id DESC", {"s": student})


def requests_about(sql: Any, assignment: str, notebook: str, cell: str) -> list[Request]:
    """Every request about one question: the open ones first (oldest first, as they wait), then the answered."""
    return _read(sql, "assignment = :a AND notebook = :n AND cell = :c ORDER BY answered_at IS NOT NULL, "
                 "answered_at DESC, asked_at, id", {"a": assignment, "n": notebook, "c": cell})


def question_scores(sql: Any, assignment: str, notebook: str, cell: str,
                    students: Iterable[str] | None) -> dict[str, float | None]:
    """Each student's score of the question now, as the grade's arithmetic gives it (None: not graded yet), of
    every student with a submission when `students` is None."""
    from autograder.grades.facts import read_facts

    found = {}
    for student, facts in read_facts(lambda q, p: sql.rows(q, p), assignment, students, labels=False).items():
        for c in facts.cells:
            if (c.notebook, c.cell) == (notebook, cell):
                found[student] = None if c.pending else c.score
    return found


def question_points(sql: Any, assignment: str, notebook: str, cell: str) -> tuple[float, bool] | None:
    """The question's points and whether it is graded by hand (a markdown grade cell); None: no such grade cell."""
    found = sql.rows("SELECT gc.max_score, gc.cell_type FROM grade_cells gc JOIN base_cell bc ON gc.id = bc.id "
                     "JOIN notebook n ON bc.notebook_id = n.id JOIN assignment a ON n.assignment_id = a.id "
                     "WHERE a.name = :a AND n.name = :n AND bc.name = :c", {"a": assignment, "n": notebook, "c": cell})
    return (float(found[0][0] or 0.0), found[0][1] == "markdown") if found else None


def open_counts(sql: Any) -> dict[tuple[str, str, str], int]:
    """How many requests are open, by question (assignment, notebook, cell)."""
    return {(a, n, c): int(k) for a, n, c, k in sql.rows(
        f"SELECT assignment, notebook, cell, COUNT(*) FROM {REGRADE_TABLE} WHERE answered_at IS NULL "
        "GROUP BY assignment, notebook, cell")}


def answer_request(exceptions: Any, request_id: int, answer: Any, score: float | None = None) -> Request:
    """Close request `request_id` with `answer`, as `exceptions.user` (an `Exceptions` on the course's gradebook);
    a `score` that differs from the question's score now is set as an override whose reason is the request. The
    answer and any override are committed together. RequestError (one line) for an answer refused."""
    from autograder.grades.outbox import SessionSql

    sql = SessionSql(exceptions.gradebook.db)
    found = _read(sql, "id = :i", {"i": request_id})
    if not found:
        raise RequestError(f"no regrade request {request_id}")
    request = found[0]
    if not request.open:
        raise AlreadyAnswered(f"request {request_id} was already answered by {request.answered_by} at "
                           f"{request.answered_at}: reload the page to see their answer")
    answer = clean_text(answer, MAX_ANSWER, "the answer")
    question = next((q for q in student_questions(sql, request.student, request.assignment)
                     if (q.notebook, q.cell) == (request.notebook, request.cell)), None)
    if question is None:
        raise RequestError(f"{request.student} no longer has a graded {request.cell} in {request.assignment}")
    changed = score is not None and abs(float(score) - question.score) > 1e-9
    if changed and not 0 <= float(score) <= question.max_score:
        raise RequestError(f"a score of {float(score):g} is not between 0 and {request.cell}'s "
                           f"{question.max_score:g} points")
    # Conditional on still being open: of two instructors answering at once, exactly one closes it.
    closed = sql.rows(
        f"UPDATE {REGRADE_TABLE} SET answer = :t, answered_at = :at, answered_by = :by, score_before = :before, "
        "score_after = :after WHERE id = :i AND answered_at IS NULL RETURNING id",
        {"t": answer, "at": now_text(), "by": exceptions.user[:128], "i": request_id,
         "before": question.score if changed else None, "after": float(score) if changed else None})
    if not closed:
        exceptions.gradebook.db.rollback()
        raise AlreadyAnswered(f"request {request_id} was answered by someone else meanwhile: reload the page")
    if changed:
        # The override commits the answer with it (the exception store's one commit, after settling the grade).
        exceptions.override(request.assignment, request.student, request.cell, float(score),
                            f"regrade request {request.id} from {request.student}: {request.text}")
    else:
        exceptions.gradebook.db.commit()
    return _read(sql, "id = :i", {"i": request_id})[0]


def overridden(sql: Any, assignment: str, notebook: str, cell: str) -> set[str]:
    """The students whose score of the question is an instructor's override (a rubric no longer scores them)."""
    return {s for (s,) in sql.rows(f"SELECT student_id FROM {OVERRIDE_TABLE} WHERE assignment = :a AND "
                                   "notebook = :n AND cell = :c", {"a": assignment, "n": notebook, "c": cell})}


def _open_of(sql: Any, key: dict[str, str]) -> list[Request]:
    return _read(sql, "assignment = :a AND notebook = :n AND cell = :c AND student_id = :s AND answered_at IS NULL",
                 key)


def _read(sql: Any, where: str, params: dict[str, Any]) -> list[Request]:
    return [Request(int(i), a, n, c, s, t, at, _number(asked), ans, ans_at, by, _number(before), _number(after))
            for i, a, n, c, s, t, at, asked, ans, ans_at, by, before, after in sql.rows(
                f"SELECT {_COLUMNS} FROM {REGRADE_TABLE} WHERE {where}", params)]


def _number(value: Any) -> float | None:
    return None if value is None else float(value)
