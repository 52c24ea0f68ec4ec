"""The one reader of a course's settings (`autograder.course.settings`): nbgrader's reading of the config
file, the course folder as root wherever the command runs, and a gradebook looked at without being made.
And each command's one line when the configured database is not a gradebook or cannot be reached."""

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.settings import SettingsError, read_course, shown_url
from tests.databases import connect, point_course_at


def config(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n" + text)
    return folder


def test_defaults_and_paths_are_nbgrader_s_rooted_in_the_course(tmp_path, monkeypatch):
    course = config(tmp_path / "course", "c.CourseDirectory.course_id = 'rnn'\n")
    monkeypatch.chdir(tmp_path)  # run from elsewhere: the course folder is still the root
    settings = read_course(course)
    assert settings.course_id == "rnn" and settings.root == course
    assert settings.db_url == f"sqlite:///{course / 'gradebook.db'}"
    assert settings.path("submitted", "ada", "hw1") == course / "submitted" / "ada" / "hw1"


def test_a_relative_root_is_taken_from_the_course_folder(tmp_path, monkeypatch):
    course = config(tmp_path / "course", "c.CourseDirectory.root = 'inner'\n")
    monkeypatch.chdir(tmp_path)
    assert read_course(course).root == course / "inner"
    # The grade command runs where the sandbox hides the course: a root elsewhere is refused, in one line.
    with pytest.raises(SettingsError, match=r"c\.CourseDirectory\.root to .*inner: run this there"):
        read_course(course, rooted=True)


def test_missing_and_broken_config_files(tmp_path):
    with pytest.raises(SettingsError, match="no nbgrader_config.py in"):
        read_course(tmp_path)
    assert read_course(tmp_path, required=False).db_url == f"sqlite:///{tmp_path / 'gradebook.db'}"
    config(tmp_path, "c.Oops(\n")
    with pytest.raises(SettingsError, match=r"^cannot read .*nbgrader_config.py: SyntaxError") as caught:
        read_course(tmp_path)
    assert "\n" not in str(caught.value)


def test_urls_are_shown_without_their_password():
    assert shown_url("postgresql://grader:s3cret@db.example/rnn") == "postgresql://grader:***@db.example/rnn"
    assert shown_url("postgresql://grader@/rnn?host=/run/pg") == "postgresql://grader@/rnn?host=/run/pg"
    assert shown_url("sqlite:////srv/course/gradebook.db") == "sqlite:////srv/course/gradebook.db"


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
