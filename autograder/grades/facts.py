"""The facts a grade is computed from, read from the gradebook with plain SQL: nbgrader's tables (cells and their
points, each submitted cell's auto and manual score and extra credit, the submission's time and extension, the
assignment's due date, the stored late penalties) and our labels.

`rows(sql, params)` is any reader of the gradebook: the writer's connection (`GradebookDatabase.rows`), nbgrader's
session (`lms.outbox.SessionSql.rows`), or a SQLAlchemy connection; the caller's transaction is the one read.
"""

from collections.abc import Callable, Iterable
from typing import Any

from autograder.deadlines.student_deadline import StudentDeadline, read_interval, read_time
from autograder.deadlines.tables import LABEL_TABLE
from autograder.grades.arithmetic import CellFacts, SubmissionFacts

Rows = Callable[[str, dict[str, Any]], list[tuple]]

def assignment_names(rows: Rows) -> list[str]:
    return [name for (name,) in rows("SELECT name FROM assignment ORDER BY name", {})]


def submitted_assignments(rows: Rows, student: str) -> list[str]:
    """The assignments `student` has a submission row of."""
    return [name for (name,) in rows(
        "SELECT a.name FROM submitted_assignment sa JOIN assignment a ON sa.assignment_id = a.id "
        "WHERE sa.student_id = :s ORDER BY a.name", {"s": student})]


def read_facts(rows: Rows, assignment: str, students: Iterable[str] | None = None,
               labels: bool = True) -> dict[str, SubmissionFacts]:
    """The facts of each submission of `assignment` (of `students` only, when given), by student. A submission
    row holding only an extension (granted before any work arrived) is not a submission: it is left out.
    `labels`: whether our label table can be read (a gradebook our commands never opened has none)."""
    found = rows("SELECT id, duedate FROM assignment WHERE name = :a", {"a": assignment})
    if not found:
        return {}
    assignment_id, duedate = found[0]
    due = read_time(duedate)
    wanted = None if students is None else set(students)
    cells = rows("SELECT n.name, c.name, c.type, COALESCE(gc.max_score, tc.max_score) FROM base_cell c "
                 "JOIN notebook n ON c.notebook_id = n.id LEFT JOIN grade_cells gc ON gc.id = c.id "
                 "LEFT JOIN task_cells tc ON tc.id = c.id "
                 "WHERE n.assignment_id = :a AND c.type IN ('GradeCell', 'TaskCell')", {"a": assignment_id})
    points = {(nb, cell): float(most or 0.0) for nb, cell, _, most in cells}
    max_score = sum(points.values())
    submissions = {student: (stamp, extension) for student, stamp, extension in rows(
        "SELECT student_id, timestamp, extension FROM submitted_assignment WHERE assignment_id = :a",
        {"a": assignment_id}) if wanted is None or student in wanted}
    graded: dict[str, list[CellFacts]] = {}
    for student, nb, cell, kind, auto, manual, extra, needs in rows(
            "SELECT sa.student_id, n.name, bc.name, bc.type, g.auto_score, g.manual_score, g.extra_credit, "
            "g.needs_manual_grade "
            "FROM grade g JOIN base_cell bc ON g.cell_id = bc.id JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "WHERE sa.assignment_id = :a", {"a": assignment_id}):
        if student in submissions:
            graded.setdefault(student, []).append(CellFacts(
                nb, cell, points.get((nb, cell), 0.0), _number(auto), _number(manual), _number(extra),
                kind == "GradeCell", bool(needs)))
    stored: dict[str, dict[str, float | None]] = {}
    for student, nb, penalty in rows(
            "SELECT sa.student_id, n.name, sn.late_submission_penalty FROM submitted_notebook sn "
            "JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "WHERE sa.assignment_id = :a", {"a": assignment_id}):
        stored.setdefault(student, {})[nb] = _number(penalty)
    label_of = dict(rows(f"SELECT student_id, label FROM {LABEL_TABLE}", {})) if labels and due is not None else {}
    result = {}
    for student, (stamp, extension) in sorted(submissions.items()):
        cells_of = tuple(sorted(graded.get(student, ()), key=lambda c: (c.notebook, c.cell)))
        extension = read_interval(extension)
        if stamp is None and extension is not None and not any(
                c.auto is not None or c.manual is not None for c in cells_of):
            continue  # only an extension, granted before any work arrived
        deadline = StudentDeadline(due, extension, label_of.get(student)) if due is not None else None
        result[student] = SubmissionFacts(assignment, student, cells_of, tuple(sorted(stored.get(student, {}))),
                                          read_time(stamp), deadline, max_score, stored.get(student, {}))
    return result


def _number(value: Any) -> float | None:
    return None if value is None else float(value)
