"""A small class end to end with its gradebook in SQLite and on a PostgreSQL server: `autograder grade`,
`autograder report`, and nbgrader's own `generate_feedback`, `export` and formgrader data on the result.
On the server, no command may read or leave a `gradebook.db` in the course folder."""

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.nbgrader_cli import nbgrader
from autograder.course.settings import read_course
from autograder.devtools.catalogue import wrong_answers
from tests.databases import DATABASES
from tests.grading_course import ASSIGNMENT, grade, make_course, scores, submit

FULL = {"test_concat_weights": 6.0, "test_concat_state_input": 6.0, "test_formula_1": 6.0,
        "test_formula_2": 6.0, "test_sigmoid": 7.0, "test_hidden_state": 15.0}


@pytest.fixture(scope="module", params=DATABASES)
def course(request, tmp_path_factory) -> Path:
    """Graded by `autograder grade`: a solution, a wrong answer, and a notebook that is not one."""
    extra = ""
    if request.param == "postgresql":
        server = request.getfixturevalue("postgres")
        extra = f"c.CourseDirectory.db_url = {server.url(server.create_database())!r}"
    course = make_course(tmp_path_factory.mktemp(f"class-{request.param}") / "course", extra)
    submit(course, "solution")
    submit(course, "wrong", [wrong_answers(ASSIGNMENT)[0]])
    folder = course / "submitted" / "corrupt" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / f"{ASSIGNMENT}.ipynb").write_text('{"cells": [ this is not json')
    done = grade(course)
    assert done.returncode == 0, done.stderr
    assert "graded 2, failed 1" in done.stdout
    return course


def autograder(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).parent / "autograder"), *args], cwd=course,
                          capture_output=True, text=True, timeout=300)


def test_grades_land_in_the_configured_gradebook(course):
    got = scores(course)
    assert got["solution"] == FULL
    assert got["wrong"]["test_concat_weights"] < 6.0 and got["wrong"]["test_sigmoid"] == 7.0
    assert got["corrupt"] == dict.fromkeys(FULL, 0.0)
    regraded = grade(course, "--student", "wrong", "--force")  # a regrade updates the rows in place
    assert regraded.returncode == 0 and "graded 1" in regraded.stdout, regraded.stderr
    assert scores(course) == got


def test_report_reads_the_configured_gradebook(course):
    done = autograder(course, "report", ASSIGNMENT)
    assert done.returncode == 0, done.stderr
    assert (course / "reports" / f"{ASSIGNMENT}.html").is_file()
    assert "3 of 3 students" in done.stdout


def test_nbgrader_feedback_export_and_formgrader_read_the_results(course):
    nbgrader(course, "generate_feedback", ASSIGNMENT)
    for student in ("solution", "wrong"):
        assert (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").is_file()
    nbgrader(course, "export")
    exported = {row["student_id"]: float(row["score"]) for row in csv.DictReader((course / "grades.csv").open())}
    expected = {student: sum(cells.values()) for student, cells in scores(course).items()}
    assert exported == expected and exported["solution"] == sum(FULL.values())

    from nbgrader.apps.api import NbGraderAPI  # what the formgrader's pages are made of

    settings = read_course(course)
    api = NbGraderAPI(settings.coursedir, config=settings.config)
    listed = {s["student"]: s["score"] for s in api.get_submissions(ASSIGNMENT)}
    assert listed == expected


def test_no_gradebook_file_beside_a_server_gradebook(course):
    on_server = not read_course(course).db_url.startswith("sqlite")
    assert (course / "gradebook.db").exists() is not on_server
