"""The gradebook writer leaves nbgrader's tables as `nbgrader autograde` leaves them: the same rows, the same
stored times, the same late penalties from the course's configured plugin, manual scores kept on a regrade;
and it writes the same rows whether it opened an SQLite gradebook itself or through nbgrader's `Gradebook`
(the way it opens every other database)."""

import shutil
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.catalogue import wrong_answers
from autograder.course import nbgrader
from autograder.engine import Outcome
from autograder.gradebook import GradebookWriter, _Database
from autograder.results import CellResult, SubmissionResult
from tests.grading_course import ASSIGNMENT, grade, make_course, submit

DUE = datetime(2026, 1, 10, 12, 0)
LATE_PENALTY_CONFIG = "c.LateSubmissionPlugin.penalty_method = 'zero'"


def set_due_date_and_extension(course: Path) -> None:
    """A due date, and an extension of two days for `ext` (given before grading, as instructors do)."""
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
        gb.add_student("ext")
        gb.add_submission(ASSIGNMENT, "ext")
        gb.update_or_create_submission(ASSIGNMENT, "ext", extension=timedelta(days=2))


def stamp(folder: Path, when: datetime) -> None:
    (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))


def rows(db: Path) -> dict[str, list[tuple]]:
    """What the writer touches, with nbgrader's random ids replaced by the student and cell they stand for;
    times as stored (text in SQLite)."""
    con = sqlite3.connect(db)
    try:
        sub = ("JOIN submitted_notebook sn ON x.notebook_id = sn.id "
               "JOIN submitted_assignment sa ON sn.assignment_id = sa.id")
        return {
            "student": sorted(con.execute("SELECT id, first_name, last_name, email, lms_user_id FROM student")),
            "submitted_assignment": sorted(con.execute(
                "SELECT student_id, timestamp, extension FROM submitted_assignment")),
            "submitted_notebook": sorted(con.execute(
                "SELECT sa.student_id, n.name, sn.flagged, sn.late_submission_penalty FROM submitted_notebook sn "
                "JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN notebook n ON sn.notebook_id = n.id")),
            "grade": sorted(con.execute(
                f"SELECT sa.student_id, c.name, x.auto_score, x.manual_score, x.extra_credit, x.needs_manual_grade "
                f"FROM grade x {sub} JOIN base_cell c ON x.cell_id = c.id")),
            "comment": sorted(con.execute(
                f"SELECT sa.student_id, c.name, x.auto_comment, x.manual_comment "
                f"FROM comment x {sub} JOIN base_cell c ON x.cell_id = c.id"), key=repr),
        }
    finally:
        con.close()


@pytest.fixture(scope="module")
def submitted(tmp_path_factory) -> Path:
    """On time, late (a wrong answer), late but within an extension, and no timestamp at all."""
    course = make_course(tmp_path_factory.mktemp("writer") / "course", LATE_PENALTY_CONFIG)
    set_due_date_and_extension(course)
    stamp(submit(course, "ontime").parent, DUE - timedelta(hours=1))
    stamp(submit(course, "late", [wrong_answers(ASSIGNMENT)[0]]).parent, DUE + timedelta(days=1))
    stamp(submit(course, "ext").parent, DUE + timedelta(days=1))
    submit(course, "nostamp", [wrong_answers(ASSIGNMENT)[1]])
    return course


@pytest.mark.slow
def test_rows_are_those_nbgrader_autograde_writes(submitted, tmp_path):
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    shutil.copytree(submitted, theirs)
    shutil.copytree(submitted, ours)
    nbgrader(theirs, "autograde", ASSIGNMENT)
    done = grade(ours)
    assert done.returncode == 0, done.stderr
    expected, got = rows(theirs / "gradebook.db"), rows(ours / "gradebook.db")
    assert got == expected
    # Not vacuous: a late submission was penalised to zero by the configured plugin; the extension spared one.
    penalties = {student: penalty for student, _, _, penalty in got["submitted_notebook"]}
    assert penalties["late"] > 0 and penalties["ontime"] is None and penalties["ext"] is None


def outcome(student: str, scores: dict[str, float]) -> Outcome:
    cells = [CellResult(name, max_score=10.0, score=score) for name, score in scores.items()]
    return Outcome(SubmissionResult(student, ASSIGNMENT, cells=cells))


def record_class(db_url: str, opened_by: str, config) -> None:
    writer = GradebookWriter(db_url, "course", config=config)
    if opened_by == "nbgrader":
        writer.db.close()
        writer.db = _Database._open_with_nbgrader(db_url, "course", 30.0)
    try:
        late = (DUE + timedelta(days=3)).isoformat()
        writer.add(outcome("ontime", {"test_concat_weights": 6.0, "test_sigmoid": 7.0}), DUE.isoformat(), {})
        writer.add(outcome("late", {"test_concat_weights": 3.0, "test_sigmoid": 7.0}), late, {})
        writer.add(outcome("ext", {"test_concat_weights": 6.0}), (DUE + timedelta(days=1)).isoformat(), {})
        writer.commit()
        # The instructor grades one cell by hand; a regrade keeps that score and still needs a look.
        con = sqlite3.connect(db_url.removeprefix("sqlite:///"))
        con.execute("UPDATE grade SET manual_score = 1.5 WHERE notebook_id IN (SELECT sn.id FROM submitted_notebook sn "
                    "JOIN submitted_assignment sa ON sn.assignment_id = sa.id WHERE sa.student_id = 'ontime')")
        con.commit()
        con.close()
        writer.add(outcome("ontime", {"test_concat_weights": 5.0, "test_sigmoid": 7.0}), None, {})
        writer.commit()
    finally:
        writer.close()


def test_both_ways_of_opening_write_the_same_rows(submitted, tmp_path):
    from traitlets.config import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(submitted)).load_config()
    dumps = {}
    for opened_by in ("sqlite3", "nbgrader"):
        db = tmp_path / f"{opened_by}.db"
        shutil.copy(submitted / "gradebook.db", db)
        record_class(f"sqlite:///{db}", opened_by, config)
        dumps[opened_by] = rows(db)
        with Gradebook(f"sqlite:///{db}") as gb:
            late = gb.find_submission(ASSIGNMENT, "late")
            assert late.timestamp == DUE + timedelta(days=3) and late.total_seconds_late == 3 * 86400
            assert late.notebooks[0].late_submission_penalty == late.notebooks[0].score == 10.0
            assert gb.find_submission(ASSIGNMENT, "ext").total_seconds_late == 0  # within its extension
            ontime = gb.find_submission(ASSIGNMENT, "ontime")
            assert ontime.timestamp == DUE  # kept: the regrade had no timestamp of its own
            concat = next(g for g in ontime.notebooks[0].grades if g.name == "test_concat_weights")
            assert concat.auto_score == 5.0 and concat.manual_score == 1.5 and concat.needs_manual_grade
    assert dumps["sqlite3"] == dumps["nbgrader"]
    assert any(row[1] for row in dumps["sqlite3"]["submitted_assignment"])  # times were written
