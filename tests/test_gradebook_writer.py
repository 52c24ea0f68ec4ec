"""The gradebook writer leaves nbgrader's tables as `nbgrader autograde` leaves them: the same rows, the same
stored times, the same late penalties from the course's configured plugin, manual scores kept on a regrade;
and it writes the same rows whether it opened an SQLite gradebook itself or through nbgrader's `Gradebook`
(the way it opens every other database). Each test runs on an SQLite gradebook and on a PostgreSQL one."""

import shutil
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import wrong_answers
from autograder.grading.gradebook_db import GradebookDatabase, GradebookError
from autograder.grading.model import CellResult, Outcome, SubmissionResult
from autograder.grading.writer import GradebookWriter
from tests.databases import DATABASES, connect, point_course_at, query
from tests.grading_course import ASSIGNMENT, grade, make_course, submit

DUE = datetime(2026, 1, 10, 12, 0)
LATE_PENALTY_CONFIG = "c.LateSubmissionPlugin.penalty_method = 'zero'"


def set_due_date_and_extension(db_url: str) -> None:
    """A due date, and an extension of two days for `ext` (given before grading, as instructors do)."""
    with Gradebook(db_url) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
        gb.add_student("ext")
        gb.add_submission(ASSIGNMENT, "ext")
        gb.update_or_create_submission(ASSIGNMENT, "ext", extension=timedelta(days=2))


def stamp(folder: Path, when: datetime) -> None:
    (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))


def rows(db_url: str) -> dict[str, list[tuple]]:
    """What the writer touches, with nbgrader's random ids replaced by the student and cell they stand for;
    times as SQLite stores them (text)."""
    sub = ("JOIN submitted_notebook sn ON x.notebook_id = sn.id "
           "JOIN submitted_assignment sa ON sn.assignment_id = sa.id")
    return {
        "student": sorted(query(db_url, "SELECT id, first_name, last_name, email, lms_user_id FROM student")),
        "submitted_assignment": sorted(query(db_url,
            "SELECT student_id, timestamp, extension FROM submitted_assignment")),
        "submitted_notebook": sorted(query(db_url,
            "SELECT sa.student_id, n.name, sn.flagged, sn.late_submission_penalty FROM submitted_notebook sn "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN notebook n ON sn.notebook_id = n.id")),
        "grade": sorted(query(db_url,
            f"SELECT sa.student_id, c.name, x.auto_score, x.manual_score, x.extra_credit, x.needs_manual_grade "
            f"FROM grade x {sub} JOIN base_cell c ON x.cell_id = c.id")),
        "comment": sorted(query(db_url,
            f"SELECT sa.student_id, c.name, x.auto_comment, x.manual_comment "
            f"FROM comment x {sub} JOIN base_cell c ON x.cell_id = c.id"), key=repr),
    }


@dataclass
class Submitted:
    """A course with submissions, its gradebook on `database`, not graded yet."""

    course: Path
    database: str
    db_url: str
    server: object | None = None  # the PostgreSQL server, for a postgresql gradebook
    name: str = ""  # the database's name on the server

    def copy(self, destination: Path) -> str:
        """The course copied to `destination`, with a copy of its gradebook of its own; that gradebook's URL."""
        shutil.copytree(self.course, destination)
        if self.server is None:
            return f"sqlite:///{destination}/gradebook.db"
        url = self.server.url(self.server.create_database(template=self.name))
        point_course_at(destination, url)
        return url


@pytest.fixture(scope="module", params=DATABASES)
def submitted(request, tmp_path_factory) -> Submitted:
    """On time, late (a wrong answer), late but within an extension, and no timestamp at all."""
    server = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    course = tmp_path_factory.mktemp("writer") / "course"
    name = server.create_database() if server else ""
    db_url = server.url(name) if server else f"sqlite:///{course}/gradebook.db"
    extra = f"c.CourseDirectory.db_url = {db_url!r}" if server else ""
    made = Submitted(make_course(course, f"{LATE_PENALTY_CONFIG}\n{extra}"), request.param, db_url, server, name)
    set_due_date_and_extension(made.db_url)
    stamp(submit(course, "ontime").parent, DUE - timedelta(hours=1))
    stamp(submit(course, "late", [wrong_answers(ASSIGNMENT)[0]]).parent, DUE + timedelta(days=1))
    stamp(submit(course, "ext").parent, DUE + timedelta(days=1))
    submit(course, "nostamp", [wrong_answers(ASSIGNMENT)[1]])
    return made


@pytest.mark.slow
def test_rows_are_those_nbgrader_autograde_writes(submitted, tmp_path):
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    their_url, our_url = submitted.copy(theirs), submitted.copy(ours)
    nbgrader(theirs, "autograde", ASSIGNMENT)
    done = grade(ours)
    assert done.returncode == 0, done.stderr
    assert (ours / "gradebook.db").exists() == (submitted.database == "sqlite")  # a server's course has no file
    expected, got = rows(their_url), rows(our_url)
    # One difference on purpose: a student the writer adds is named by their id (the formgrader shows
    # "None, None" for nbgrader's nameless students); "ext" was in the gradebook before, as nbgrader left it.
    expected["student"] = [(i, "", i, *rest) if i != "ext" and (first, last) == (None, None)
                           else (i, first, last, *rest) for i, first, last, *rest in expected["student"]]
    assert ("ontime", "", "ontime", None, None) in got["student"]
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
        writer.db = GradebookDatabase._open_with_nbgrader(db_url, "course", 30.0)
    try:
        late = (DUE + timedelta(days=3)).isoformat()
        writer.add(outcome("ontime", {"test_concat_weights": 6.0, "test_sigmoid": 7.0}), DUE.isoformat(), {})
        writer.add(outcome("late", {"test_concat_weights": 3.0, "test_sigmoid": 7.0}), late, {})
        writer.add(outcome("ext", {"test_concat_weights": 6.0}), (DUE + timedelta(days=1)).isoformat(), {})
        writer.commit()
        # The instructor grades one cell by hand; a regrade keeps that score and still needs a look.
        con = connect(db_url)
        con.execute("UPDATE grade SET manual_score = 1.5 WHERE notebook_id IN (SELECT sn.id FROM submitted_notebook sn "
                    "JOIN submitted_assignment sa ON sn.assignment_id = sa.id WHERE sa.student_id = 'ontime')")
        con.commit()
        con.close()
        writer.add(outcome("ontime", {"test_concat_weights": 5.0, "test_sigmoid": 7.0}), None, {})
        writer.commit()
    finally:
        writer.close()


def test_both_ways_of_opening_write_the_same_rows(submitted, tmp_path):
    """SQLite is opened both ways and must give the same rows; PostgreSQL only by nbgrader's `Gradebook`."""
    from traitlets.config import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(submitted.course)).load_config()
    dumps = {}
    for opened_by in ("sqlite3", "nbgrader") if submitted.database == "sqlite" else ("nbgrader",):
        db_url = submitted.copy(tmp_path / opened_by)
        record_class(db_url, opened_by, config)
        dumps[opened_by] = rows(db_url)
        with Gradebook(db_url) as gb:
            late = gb.find_submission(ASSIGNMENT, "late")
            assert late.timestamp == DUE + timedelta(days=3) and late.total_seconds_late == 3 * 86400
            assert late.notebooks[0].late_submission_penalty == late.notebooks[0].score == 10.0
            assert gb.find_submission(ASSIGNMENT, "ext").total_seconds_late == 0  # within its extension
            ontime = gb.find_submission(ASSIGNMENT, "ontime")
            assert ontime.timestamp == DUE  # kept: the regrade had no timestamp of its own
            concat = next(g for g in ontime.notebooks[0].grades if g.name == "test_concat_weights")
            assert concat.auto_score == 5.0 and concat.manual_score == 1.5 and concat.needs_manual_grade
    assert all(dump == dumps["nbgrader"] for dump in dumps.values())
    assert any(row[1] for row in dumps["nbgrader"]["submitted_assignment"])  # times were written


def hold_lock(db_url: str, table: str):
    """Another program's connection, holding a lock that keeps the writer out of `table` until rolled back."""
    holder = connect(db_url)
    if db_url.startswith("sqlite:///"):
        holder.execute("BEGIN EXCLUSIVE")  # SQLite locks the whole file
    else:
        holder.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE NOWAIT")
    return holder


def test_a_lock_held_too_long_is_one_line_and_writes_nothing(submitted, tmp_path):
    db_url = submitted.copy(tmp_path / "locked")
    writer = GradebookWriter(db_url, "course", lock_seconds=0.5)
    try:
        holder = hold_lock(db_url, "student")
        started = time.monotonic()
        try:
            with pytest.raises(GradebookError, match=r"^the gradebook is locked by another program \(waited 0.5 s\)$"):
                writer.add(outcome("newcomer", {"test_concat_weights": 6.0}), DUE.isoformat(), {})
                writer.commit()
        finally:
            holder.rollback()
            holder.close()
        assert time.monotonic() - started < 10  # it gave up, as told, instead of waiting for the lock
        assert "newcomer" not in {row[0] for row in rows(db_url)["student"]}
        # The lock gone, the same writer goes on.
        writer.add(outcome("newcomer", {"test_concat_weights": 6.0}), DUE.isoformat(), {})
        writer.commit()
    finally:
        writer.close()
    assert [row[0] for row in rows(db_url)["student"]].count("newcomer") == 1


def test_reading_leaves_no_transaction_open(submitted, tmp_path):
    """Before grading the writer reads the assignment; it must not keep the tables it read locked meanwhile
    (a server keeps a read's transaction open, and its locks, until it ends)."""
    db_url = submitted.copy(tmp_path / "read")
    writer = GradebookWriter(db_url, "course")
    try:
        assert writer.has_assignment(ASSIGNMENT)
        assert writer.source_notebooks(ASSIGNMENT)
        holder = hold_lock(db_url, "assignment")  # NOWAIT: fails at once if the writer still holds a lock
        holder.rollback()
        holder.close()
    finally:
        writer.close()


@pytest.mark.parametrize("submitted", ["postgresql"], indirect=True)
def test_a_server_that_goes_away_is_one_line_and_keeps_what_was_committed(submitted, tmp_path):
    db_url = submitted.copy(tmp_path / "gone")
    writer = GradebookWriter(db_url, "course")
    try:
        writer.add(outcome("first", {"test_concat_weights": 6.0}), DUE.isoformat(), {})
        writer.commit()
        with connect(db_url) as admin:  # the server ends the writer's session, as a restart would
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        with pytest.raises(GradebookError, match=r"^cannot write the gradebook: .*terminat") as caught:
            writer.add(outcome("second", {"test_concat_weights": 6.0}), DUE.isoformat(), {})
            writer.commit()
        assert "\n" not in str(caught.value)
    finally:
        writer.close()
    students = {row[0] for row in rows(db_url)["student"]}
    assert "first" in students and "second" not in students
