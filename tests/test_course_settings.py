"""The course's settings on a database server (`autograder.course.settings`; the file's reading is in
tests/unit/test_settings.py): a gradebook looked at without being made, and each command's one line when
the configured database is not a gradebook or cannot be reached."""

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.settings import read_course
from tests.databases import connect, point_course_at
from tests.unit.test_settings import config


def autograder(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).parent / "autograder"), *args], cwd=course,
                          capture_output=True, text=True, timeout=300)


def test_an_empty_server_database_is_read_not_made_into_a_gradebook(postgres, tmp_path):
    course = config(tmp_path / "course", "")
    url = postgres.url(postgres.create_database())
    point_course_at(course, url)
    assert read_course(course).gradebook_tables() == set()
    report = autograder(course, "report", "hw1")
    assert report.returncode == 1 and report.stderr.strip().splitlines() == [
        f"autograder report: {url} is not an nbgrader gradebook (no grade tables)"]
    export = autograder(course, "export", "hw1", "--to", "csv")
    assert export.returncode == 1 and len(export.stderr.strip().splitlines()) == 1
    assert "no gradebook yet" in export.stderr
    with connect(url) as connection:  # neither made nbgrader's tables
        assert connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
    assert not (course / "gradebook.db").exists()


@pytest.mark.parametrize("command", [["grade", "hw1"], ["report", "hw1"], ["export", "hw1", "--to", "csv"],
                                     ["roster", "import", "roster.csv"]])
def test_an_unreachable_database_is_one_line_without_the_password(postgres, tmp_path, command):
    course = config(tmp_path / "course", "")
    point_course_at(course, f"postgresql://postgres:s3cret@/no_such_database?host={postgres.folder}")
    (course / "roster.csv").write_text("id,first_name,last_name,email\nada,Ada,L,ada@example.org\n")
    done = autograder(course, *command)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].endswith('FATAL: database "no_such_database" does not exist')  # the server's reason, whole
    assert "s3cret" not in done.stderr + done.stdout
