"""A question's rubric, applied to students' answers and written as nbgrader's manual scores.

A rubric item is points up or down and a comment the student reads. A student's score for the question is the sum
of the points of the items their answer was given, clamped to [0, the cell's points]; an answer given no item is
not graded yet (nbgrader's `needs_manual_grade`, no manual score: "to be graded", never a 0). Editing an item
re-scores every student it was given to, in the same transaction.

The scores are nbgrader's manual scores of the question's grade cell, so nbgrader's own commands, our regrades
(which write only auto scores) and the LMS keep them; every change is finished by `grades.settle` (the one path
a grade's change takes: the late penalty derived again, the LMS outbox told), in the caller's transaction.

Several graders at once: every change names the version of what it changes as its grader saw it (each student's
grade of the question, each item), and a version that moved since is refused (`Conflict`, naming whom) with
nothing written: the grader reloads and sees the other's change. The version is raised by one conditional UPDATE
(`... AND version = :seen RETURNING`): the database applies it to the row as it is when the write lock is
taken, so of two graders who saw the same version exactly one changes it.

`sql` is any `grades.outbox.Sql` (rows and writes with named parameters, in the caller's open transaction).
Nothing here commits.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from autograder.deadlines.tables import QUESTION_GRADE_TABLE, RUBRIC_APPLIED_TABLE, RUBRIC_ITEM_TABLE
from autograder.grades.stamps import now_text

MAX_COMMENT = 2000
ORIGIN = "rubric"  # what changed the score, as the LMS outbox records it


class RubricError(Exception):
    """A change refused, in one line; nothing was written."""


class Conflict(RubricError):
    """Another grader changed what this change names since its grader loaded it."""


@dataclass(frozen=True)
class Question:
    assignment: str
    notebook: str
    cell: str  # the grade cell's nbgrader id


@dataclass(frozen=True)
class RubricItem:
    id: int
    position: int
    points: float
    comment: str
    version: int


@dataclass(frozen=True)
class StudentAnswer:
    """One submission's grade row of the question, as the gradebook holds it."""

    student: str
    manual: float | None
    version: int  # of the student's grade of this question: 0 before anyone graded it
    items: frozenset[int]  # the rubric items given


class QuestionGrading:
    """One question's rubric and grades, read and changed as one grader (`user`) in `sql`'s transaction."""

    def __init__(self, sql: Any, question: Question, grade_rules: Any, user: str) -> None:
        self.sql, self.question, self.grade_rules, self.user = sql, question, grade_rules, user
        found = sql.rows("SELECT gc.max_score, gc.cell_type FROM grade_cells gc JOIN base_cell bc ON gc.id = bc.id "
                         "JOIN notebook n ON bc.notebook_id = n.id JOIN assignment a ON n.assignment_id = a.id "
                         "WHERE a.name = :a AND n.name = :n AND bc.name = :c",
                         {"a": question.assignment, "n": question.notebook, "c": question.cell})
        if not found:
            raise RubricError(f"{question.assignment} has no grade cell {question.cell!r} in {question.notebook}")
        self.max_score, cell_type = float(found[0][0] or 0.0), found[0][1]
        if cell_type != "markdown":
            # An autograded cell's manual score is an override (`autograder override`), with its reason.
            raise RubricError(f"{question.cell} is autograded: adjust a student's score with `autograder override`")

    # Reading --------------------------------------------------------------------------------------------------
    def items(self, removed: bool = False) -> list[RubricItem]:
        return [RubricItem(int(i), int(p), float(pts), str(c), int(v)) for i, p, pts, c, v in self.sql.rows(
            f"SELECT id, position, points, comment, version FROM {RUBRIC_ITEM_TABLE} WHERE assignment = :a AND "
            "notebook = :n AND cell = :c" + ("" if removed else " AND removed = :no") + " ORDER BY position, id",
            {**self._key(), "no": False})]

    def answers(self) -> dict[str, StudentAnswer]:
        """Every submission's grade of the question, by student."""
        rows = self.sql.rows(
            "SELECT sa.student_id, g.manual_score FROM grade g JOIN base_cell bc ON g.cell_id = bc.id "
            "JOIN submitted_notebook sn ON g.notebook_id = sn.id JOIN notebook n ON sn.notebook_id = n.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id "
            "WHERE a.name = :a AND n.name = :n AND bc.name = :c", self._key())
        versions = dict(self.sql.rows(f"SELECT student_id, version FROM {QUESTION_GRADE_TABLE} WHERE assignment = :a "
                                      "AND notebook = :n AND cell = :c", self._key()))
        given: dict[str, set[int]] = {}
        for item, student in self._applied(i.id for i in self.items()):
            given.setdefault(student, set()).add(item)
        return {s: StudentAnswer(s, None if m is None else float(m), int(versions.get(s, 0)),
                                 frozenset(given.get(s, ()))) for s, m in sorted(rows)}

    def score_of(self, items: Iterable[int]) -> float | None:
        """The question's score for an answer given `items`; None when given none (not graded)."""
        from autograder.grades.arithmetic import rubric_score

        points = {item.id: item.points for item in self.items()}
        return rubric_score((points[i] for i in items if i in points), self.max_score)

    # Changing --------------------------------------------------------------------------------------------------
    def add_item(self, points: float, comment: str) -> RubricItem:
        comment = _comment(comment)
        points = self._points(points)
        position = 1 + max((i.position for i in self.items(removed=True)), default=0)
        self.sql.write(f"INSERT INTO {RUBRIC_ITEM_TABLE} (assignment, notebook, cell, position, points, comment, "
                       "version, removed, changed_at, changed_by) VALUES (:a, :n, :c, :p, :pts, :cm, 1, :no, :at, "
                       ":by)", [{**self._key(), "p": position, "pts": points, "cm": comment, "no": False,
                                 "at": now_text(), "by": self.user}])
        return next(i for i in self.items() if i.position == position)

    def edit_item(self, item_id: int, seen_version: int, points: float, comment: str) -> list[str]:
        """The item changed and every student it was given to re-scored; the students re-scored."""
        comment, points = _comment(comment), self._points(points)
        self._bump_item(item_id, seen_version, {"pts": points, "cm": comment},
                        "points = :pts, comment = :cm")
        return self._rescore(sorted({s for _, s in self._applied([item_id])}))

    def remove_item(self, item_id: int, seen_version: int) -> list[str]:
        """The item no longer counts, for anyone it was given to (kept, so what was said stays traceable)."""
        self._bump_item(item_id, seen_version, {"yes": True}, "removed = :yes")
        return self._rescore(sorted({s for _, s in self._applied([item_id])}))

    def apply(self, item_id: int, seen: Mapping[str, int], given: bool = True) -> list[str]:
        """Give (or with `given` False, take back) the item to each student of `seen` (student -> the version of
        their grade the grader saw). All or nothing: a student another grader changed since refuses the whole
        change (`Conflict`). The students whose score was written."""
        if item_id not in {i.id for i in self.items()}:
            raise RubricError(f"no rubric item {item_id} in {self.question.cell}")
        answers = self.answers()
        unknown = sorted(set(seen) - set(answers))
        if unknown:
            raise RubricError(f"no submission of {self.question.assignment} from {unknown[0]!r}")
        moved = sorted(s for s, v in seen.items() if answers[s].version != v)
        if moved:
            raise Conflict(_moved(moved))
        changing = sorted(s for s in seen if (item_id in answers[s].items) != given)
        for student in changing:
            self._bump_student(student, seen[student])
        now = {"at": now_text(), "by": self.user}
        if given:
            self.sql.write(f"INSERT INTO {RUBRIC_APPLIED_TABLE} (item_id, student_id, applied_at, applied_by) "
                           "VALUES (:i, :s, :at, :by)", [{"i": item_id, "s": s, **now} for s in changing])
        else:
            self.sql.write(f"DELETE FROM {RUBRIC_APPLIED_TABLE} WHERE item_id = :i AND student_id = :s",
                           [{"i": item_id, "s": s} for s in changing])
        return self._rescore(changing)

    # The writes beneath ----------------------------------------------------------------------------------------
    def _rescore(self, students: list[str]) -> list[str]:
        """Each student's manual score from their items, and the change settled (`grades.settle`)."""
        from autograder.by_question.regrade_requests import overridden
        from autograder.grades.settle import settle

        if not students:
            return []
        answers = self.answers()
        # A score an instructor set by override (a regrade request's answer) stays until `override --remove`.
        held = overridden(self.sql, *self._key().values())
        self.sql.write(
            "UPDATE grade SET manual_score = :m, needs_manual_grade = :need WHERE id IN (SELECT g.id FROM grade g "
            "JOIN base_cell bc ON g.cell_id = bc.id JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "JOIN assignment a ON sa.assignment_id = a.id WHERE a.name = :a AND n.name = :n AND bc.name = :c "
            "AND sa.student_id = :s)",
            [{**self._key(), "s": s, "m": score, "need": score is None}
             for s in students if s not in held for score in [self.score_of(answers[s].items)]])
        settle(self.sql, [(self.question.assignment, s) for s in students], ORIGIN, self.grade_rules)
        return students

    def _bump_student(self, student: str, seen: int) -> None:
        key = {**self._key(), "s": student, "v": seen, "at": now_text(), "by": self.user}
        if seen == 0:
            try:
                self.sql.write(f"INSERT INTO {QUESTION_GRADE_TABLE} (assignment, notebook, cell, student_id, version, "
                               "graded_at, graded_by) VALUES (:a, :n, :c, :s, 1, :at, :by)", [key])
            except Exception as error:  # the key is taken: another grader graded them first
                if "UNIQUE" in str(error).upper() or "DUPLICATE" in str(error).upper():
                    raise Conflict(_moved([student])) from None
                raise
            return
        # RETURNING: the row this UPDATE changed, none when the version moved (SQLite 3.35+, PostgreSQL)
        if not self.sql.rows(f"UPDATE {QUESTION_GRADE_TABLE} SET version = version + 1, graded_at = :at, "
                             "graded_by = :by WHERE assignment = :a AND notebook = :n AND cell = :c AND "
                             "student_id = :s AND version = :v RETURNING version", key):
            raise Conflict(_moved([student]))

    def _bump_item(self, item_id: int, seen: int, values: dict[str, Any], assignments: str) -> None:
        mine = {i.id: i for i in self.items()}
        if item_id not in mine:
            raise RubricError(f"no rubric item {item_id} in {self.question.cell}")
        key = {"i": item_id, "v": seen, "at": now_text(), "by": self.user, **values}
        if not self.sql.rows(f"UPDATE {RUBRIC_ITEM_TABLE} SET {assignments}, version = version + 1, changed_at = :at, "
                             "changed_by = :by WHERE id = :i AND version = :v RETURNING version", key):
            raise Conflict(f"rubric item {mine[item_id].position} was changed by another grader since you loaded "
                           "it: reload to see their change")

    def _applied(self, items: Iterable[int]) -> list[tuple[int, str]]:
        ids = sorted(set(items))
        if not ids:
            return []
        marks = ", ".join(f":i{n}" for n in range(len(ids)))
        return [(int(i), str(s)) for i, s in self.sql.rows(
            f"SELECT item_id, student_id FROM {RUBRIC_APPLIED_TABLE} WHERE item_id IN ({marks})",
            {f"i{n}": i for n, i in enumerate(ids)})]

    def _points(self, points: float) -> float:
        try:
            points = float(points)
        except (TypeError, ValueError):
            raise RubricError(f"points {points!r} is not a number") from None
        if not -self.max_score <= points <= self.max_score:
            raise RubricError(f"points {points:g} is not between -{self.max_score:g} and {self.max_score:g} "
                              f"({self.question.cell} is worth {self.max_score:g})")
        return points

    def _key(self) -> dict[str, str]:
        return {"a": self.question.assignment, "n": self.question.notebook, "c": self.question.cell}


def _comment(text: str) -> str:
    text = str(text).strip()
    if not text:
        raise RubricError("a rubric item needs a comment: it is what the student reads")
    if len(text) > MAX_COMMENT:
        raise RubricError(f"a rubric item's comment is {len(text)} characters, more than {MAX_COMMENT}")
    return text


def _moved(students: list[str]) -> str:
    shown = ", ".join(students[:5]) + (f" and {len(students) - 5} more" if len(students) > 5 else "")
    return f"another grader changed {shown} since you loaded the question: reload to see their change"


def given_items(rows: Any, assignment: str, notebook: str, student: str) -> dict[str, list[tuple[float, str]]]:
    """The rubric items given to `student` in `notebook`, by question (cell): (points, comment), in the rubric's
    order. For the student's feedback page. `rows(sql, params)` is any reader of the gradebook."""
    found: dict[str, list[tuple[float, str]]] = {}
    for cell, points, comment in rows(
            f"SELECT r.cell, r.points, r.comment FROM {RUBRIC_ITEM_TABLE} r JOIN {RUBRIC_APPLIED_TABLE} p "
            "ON p.item_id = r.id WHERE r.assignment = :a AND r.notebook = :n AND p.student_id = :s AND "
            "r.removed = :no ORDER BY r.cell, r.position, r.id",
            {"a": assignment, "n": notebook, "s": student, "no": False}):
        found.setdefault(str(cell), []).append((float(points), str(comment)))
    return found
