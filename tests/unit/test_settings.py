"""The one reader of a course's settings (`autograder.course.settings`): nbgrader's reading of the config
files (the framework's defaults, then the course's own), the course folder as root wherever the command runs,
what grading reads from it, and a broken file said in one line (no nbgrader run, no database server)."""

import sys
from pathlib import Path

import pytest

from autograder.course.defaults import FEEDBACK
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


def test_every_course_starts_from_the_framework_s_defaults_installed_with_it(tmp_path):
    settings = read_course(config(tmp_path, ""))
    installed = Path(sys.prefix) / "etc" / "jupyter" / "nbgrader_config.py"  # pip put it there, -e included
    assert settings.set_in("GenerateFeedback", "preprocessors") == installed
    assert settings.config.GenerateFeedback.preprocessors == FEEDBACK
    assert settings.limits == Limits(cell_seconds=30.0)
    assert settings.ignore_pattern == "Warning: " and settings.add_missing is True
    assert settings.exclude_overwriting("hw1") == []


def test_without_the_framework_s_defaults_what_grading_reads_is_nbgrader_s(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_NO_CONFIG", "1")  # Jupyter reads no config folder then
    settings = read_course(config(tmp_path, ""))
    assert settings.limits == Limits(cell_seconds=30.0)
    assert settings.ignore_pattern is None and settings.add_missing is False
    assert settings.exclude_overwriting("hw1") == [] and settings.section("Execute") == {}
    assert settings.set_in("GenerateFeedback", "preprocessors") is None


def test_the_course_s_file_overrides_a_default_and_a_list_it_sets_replaces_the_default(tmp_path):
    settings = read_course(config(tmp_path, "c.Execute.timeout = 7\n"
                                  "c.GenerateFeedback.preprocessors = ['nbgrader.preprocessors.GetGrades']\n"))
    assert settings.limits == Limits(cell_seconds=7.0)
    assert settings.config.GenerateFeedback.preprocessors == ["nbgrader.preprocessors.GetGrades"]
    assert settings.ignore_pattern == "Warning: "  # what the course does not set stays the framework's
    assert settings.set_in("Execute", "timeout") == tmp_path / "nbgrader_config.py"
    assert settings.set_in("IgnorePattern", "pattern") == Path(sys.prefix) / "etc" / "jupyter" / "nbgrader_config.py"


def test_config_folders_are_read_in_jupyter_s_order_and_a_broken_one_is_named(tmp_path, monkeypatch):
    site = tmp_path / "site"  # JUPYTER_CONFIG_PATH's folders come before the environment's
    config(site, "c.Execute.timeout = 11\nc.Autograder.graders = 'not-this-course-s'\n")
    (site / "nbgrader_config.json").write_text('{"IgnorePattern": {"pattern": "NOISE"}}')
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(site))
    settings = read_course(config(tmp_path / "course", ""))
    assert settings.limits == Limits(cell_seconds=11.0) and settings.ignore_pattern == "NOISE"
    assert settings.graders is None  # a course's graders folder is its own file's (as grading reads it early)
    assert read_course(config(tmp_path / "other", "c.Execute.timeout = 7\n")).limits == Limits(cell_seconds=7.0)
    config(site, "c.Execute.timeout = (\n")
    with pytest.raises(SettingsError, match=rf"^cannot read {site / 'nbgrader_config.py'}: SyntaxError"):
        read_course(tmp_path / "course")


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
    settings = read_course(config(tmp_path, "c.IgnorePattern.enabled = False\nc.IgnorePattern.pattern = 'WARNING'\n"))
    assert settings.ignore_pattern is None


def test_urls_are_shown_without_their_password():
    assert shown_url("postgresql://grader:s3cret@db.example/rnn") == "postgresql://grader:***@db.example/rnn"
    assert shown_url("postgresql://grader@/rnn?host=/run/pg") == "postgresql://grader@/rnn?host=/run/pg"
    assert shown_url("sqlite:////srv/course/gradebook.db") == "sqlite:////srv/course/gradebook.db"


@pytest.mark.parametrize("value, seconds", [("None", None), ("-1", None), ("0", None), ("45", 45.0), ("2.5", 2.5),
                                            ("10**9", None), ("float('inf')", None)])
def test_execute_timeout_is_read_as_nbclient_reads_it(tmp_path, value, seconds):
    # nbclient takes None, 0 and negative timeouts as "no limit for a cell"; the sandbox keeps the submission's
    # own wall time as the bound, so no value lets one cell run past it (nor stop every cell at once, as -1 did).
    whole = Limits().total_seconds
    limits = read_course(config(tmp_path, f"c.Execute.timeout = {value}\n")).limits
    assert limits == Limits(cell_seconds=whole if seconds is None else seconds)


@pytest.mark.parametrize("value", ["'60'", "True", "[30]", "float('nan')"])
def test_a_timeout_that_is_not_a_number_is_one_line_naming_the_file(tmp_path, value):
    with pytest.raises(SettingsError, match=r"nbgrader_config.py: c\.Execute\.timeout is .* number of seconds"):
        read_course(config(tmp_path, f"c.Execute.timeout = {value}\n"))  # refused as the course is read
