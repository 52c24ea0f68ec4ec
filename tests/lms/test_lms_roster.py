"""`autograder roster import`: identities land in the real gradebook; a bad roster imports nothing."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from autograder.lms.identity import IDENTITY_TABLE
from tests.lms.conftest import HSA, Course, run_cli

# Canvas's gradebook export, as Canvas writes it: a Points Possible row, the test student, extra columns.
CANVAS_EXPORT = """\
Student,ID,SIS User ID,SIS Login ID,Section,hidden_state_activation (501),Current Score,Final Score
    Points Possible,,,,,46.00,(read only),(read only)
"Lovelace, Ada",9001,S-0001,ada,Section A,,100.00,100.00
"Babbage, Bob",9002,S-0002,bob,Section A,,,
"Newton, Isaac",9005,S-0005,isaac,Section C,,,
"Student, Test",9999,,,Section A,,,
"""


def gradebook_identity(course: Course, student: str) -> dict[str, str | None]:
    with course.gradebook() as gb:
        s = gb.find_student(student)
        row = gb.db.execute(select(IDENTITY_TABLE).where(IDENTITY_TABLE.c.student_id == student)).first()
        return {"first": s.first_name, "last": s.last_name, "email": s.email, "lms_user_id": s.lms_user_id,
                "sis": row.sis_user_id, "login": row.login_id, "section": row.section}


def test_plain_roster_stored_in_the_gradebook(in_course: Course, capsys) -> None:
    assert gradebook_identity(in_course, "dee") == {
        "first": "Dee", "last": "Dirac", "email": "dee@uni.example", "lms_user_id": "1004",
        "sis": "00042", "login": "dee", "section": "Section B"}
    (in_course.root / "more.csv").write_text(
        "id,first_name,last_name,email,lms_user_id\nada,Ada,King,,1001\nzed,Zed,Zola,zed@uni.example,1009\n")
    assert run_cli("roster", "import", "more.csv") == 0
    out = capsys.readouterr().out
    assert "Imported 2 students from more.csv: 1 new, 1 updated" in out
    assert "not in more.csv (kept): bob, cyd, dee" in out
    ada = gradebook_identity(in_course, "ada")
    assert ada["last"] == "King" and ada["email"] == "ada@uni.example", "an empty field keeps the old value"
    assert ada["sis"] == "S-0001"
    assert gradebook_identity(in_course, "zed")["lms_user_id"] == "1009"


def test_canvas_gradebook_export_as_roster(in_course: Course, capsys) -> None:
    (in_course.root / "canvas.csv").write_text(CANVAS_EXPORT)
    assert run_cli("roster", "import", "canvas.csv", "--format", "canvas") == 0
    assert "Imported 3 students" in capsys.readouterr().out, "Points Possible row and Test Student skipped"
    assert gradebook_identity(in_course, "ada")["lms_user_id"] == "9001"
    isaac = gradebook_identity(in_course, "isaac")
    assert isaac == {"first": "Isaac", "last": "Newton", "email": None, "lms_user_id": "9005", "sis": "S-0005",
                     "login": "isaac", "section": "Section C"}
    # And the Canvas export then carries the imported ids.
    assert run_cli("export", HSA, "--to", "canvas", "--skip-missing") == 0
    rows = list(csv.reader(io.StringIO((in_course.root / "exports" / "canvas.csv").read_text())))
    assert ["Lovelace, Ada", "9001", "S-0001", "ada", "Section A", "40.5"] in rows


def test_reimport_is_idempotent(in_course: Course) -> None:
    before = shutil.copy(in_course.root / "gradebook.db", in_course.root / "before.db")
    assert run_cli("roster", "import", "roster.csv") == 0
    with in_course.gradebook() as gb:
        after = [(s.id, s.first_name, s.last_name, s.email, s.lms_user_id) for s in gb.students]
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{before}", course_id="rnn-test") as gb:
        assert [(s.id, s.first_name, s.last_name, s.email, s.lms_user_id) for s in gb.students] == after


HEAD = b"id,first_name,last_name,email,lms_user_id\n"


@pytest.mark.parametrize("content, message", [
    (b"", "empty file"),
    (b"id,first_name,last_name,email\nada,A,L,a@x\n", "missing column(s) lms_user_id"),
    (HEAD + b"ada,A,L,a@x,1\nbob,B,B,b@x\n", "line 3: 4 fields, the header has 5"),
    (HEAD + b"ada,A,L,a@x,1\nada,A,L,a@x,2\n", "line 3: student id 'ada' appears twice"),
    (HEAD + b"ada,A,L,a@x,7\nbob,B,B,b@x,7\n", "line 3: LMS user id '7' is also given"),
    (HEAD + b",A,L,a@x,7\n", "line 2: no student id"),
    (HEAD + b"ad\xe9,A,L,a@x,7\n", "not UTF-8"),
    (HEAD, "no students in the file"),
])
def test_bad_roster_one_line_and_nothing_written(in_course: Course, capsys, content: bytes, message: str) -> None:
    bad = in_course.root / "bad.csv"
    bad.write_bytes(content)
    with in_course.gradebook() as gb:
        before = [(s.id, s.lms_user_id, s.first_name) for s in gb.students]
    assert run_cli("roster", "import", "bad.csv") == 1
    err = capsys.readouterr().err
    assert message in err and "bad.csv" in err and err.count("\n") == 1 and "Traceback" not in err
    with in_course.gradebook() as gb:
        assert [(s.id, s.lms_user_id, s.first_name) for s in gb.students] == before


def test_lms_id_taken_by_another_student(in_course: Course, capsys) -> None:
    (in_course.root / "steal.csv").write_text("id,first_name,last_name,email,lms_user_id\nzed,Z,Z,,1001\n")
    assert run_cli("roster", "import", "steal.csv") == 1
    assert "already belongs to 'ada'" in capsys.readouterr().err


def test_canvas_roster_without_login_column_values(in_course: Course, capsys) -> None:
    (in_course.root / "c.csv").write_text("Student,ID,SIS User ID,SIS Login ID,Section\n\"Doe, Jo\",5,,,S\n")
    assert run_cli("roster", "import", "c.csv", "--format", "canvas") == 1
    assert "line 2: no student id (its SIS Login ID column is empty)" in capsys.readouterr().err


def test_missing_file(in_course: Course, capsys) -> None:
    assert run_cli("roster", "import", "nope.csv") == 1
    assert "nope.csv: no such file" in capsys.readouterr().err


def test_roster_creates_the_gradebook_if_needed(tmp_path: Path, monkeypatch, capsys) -> None:
    from tests.lms.conftest import ROSTER, write_config

    write_config(tmp_path)
    (tmp_path / "roster.csv").write_text(ROSTER)
    monkeypatch.chdir(tmp_path)
    assert run_cli("roster", "import", "roster.csv") == 0
    assert "4 new" in capsys.readouterr().out
    assert (tmp_path / "gradebook.db").is_file()
