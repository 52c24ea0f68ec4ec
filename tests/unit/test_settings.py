"""The one reader of a course's settings (`autograder.course.settings`): nbgrader's reading of the config
file, the course folder as root wherever the command runs, what grading reads from it, and a broken file
said in one line (no nbgrader run, no database server)."""

from pathlib import Path

import pytest

from autograder.course.settings import SettingsError, read_course, shown_url, sqlite_path
from autograder.sandbox.limits import Limits


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


def test_a_config_that_fails_as_it_runs_is_one_line_too(tmp_path):
    config(tmp_path, "raise RuntimeError('first line\\n\\nsecond line')\n")
    with pytest.raises(SettingsError) as caught:
        read_course(tmp_path)
    assert str(caught.value).endswith("RuntimeError: first line second line")
    assert "\n" not in str(caught.value)


def test_the_gradebook_url_is_the_configured_one(tmp_path):
    url = "postgresql://grader:s3cret@db.example/rnn"
    assert read_course(config(tmp_path, f"c.CourseDirectory.db_url = {url!r}\n")).db_url == url
    assert sqlite_path(url) is None
    assert sqlite_path("sqlite:///relative/gradebook.db?timeout=5") == "relative/gradebook.db"
    assert sqlite_path("sqlite:///:memory:") is None


def test_what_grading_reads_defaults_to_nbgrader_s_defaults(tmp_path):
    settings = read_course(config(tmp_path, ""))
    assert settings.limits == Limits(cell_seconds=30.0)
    assert settings.ignore_pattern is None and settings.add_missing is False
    assert settings.exclude_overwriting("hw1") == [] and settings.section("Execute") == {}


def test_what_grading_reads_is_taken_from_nbgrader_s_sections(tmp_path):
    settings = read_course(config(tmp_path, "\n".join([
        "c.Execute.timeout = 7",
        "c.IgnorePattern.enabled = True",
        "c.IgnorePattern.pattern = 'WARNING'",
        "c.OverwriteCells.add_missing_cells = True",
        "c.Autograde.exclude_overwriting = {'hw1': ['helpers.py']}",
    ]) + "\n"))
    assert settings.limits == Limits(cell_seconds=7.0)
    assert settings.ignore_pattern == "WARNING" and settings.add_missing is True
    assert settings.exclude_overwriting("hw1") == ["helpers.py"] and settings.exclude_overwriting("hw2") == []


def test_an_ignore_pattern_counts_only_when_it_is_enabled(tmp_path):
    settings = read_course(config(tmp_path, "c.IgnorePattern.pattern = 'WARNING'\n"))
    assert settings.ignore_pattern is None


def test_urls_are_shown_without_their_password():
    assert shown_url("postgresql://grader:s3cret@db.example/rnn") == "postgresql://grader:***@db.example/rnn"
    assert shown_url("postgresql://grader@/rnn?host=/run/pg") == "postgresql://grader@/rnn?host=/run/pg"
    assert shown_url("sqlite:////srv/course/gradebook.db") == "sqlite:////srv/course/gradebook.db"
