"""`autograder new` in a course of one's own: the graders folder its config names is made, the line is
added when the config names none, and the scaffold's example mistakes (a value and a pattern) are named."""

from pathlib import Path

import numpy as np
import pytest

from autograder.cli import main
from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.student import InProcessStudent

README_CONFIG = 'c = get_config()\nc.CourseDirectory.course_id = "my-course"\nc.Autograder.graders = "graders"\n'


def new(course: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.chdir(course)
    return main(["new", *args])


def test_new_makes_the_graders_folder_the_readme_config_names(tmp_path, monkeypatch, capsys):
    (tmp_path / "nbgrader_config.py").write_text(README_CONFIG)
    assert new(tmp_path, monkeypatch, "unit_scaffold_named", "double") == 0
    assert "wrote graders/unit_scaffold_named/test_double.py" in capsys.readouterr().out
    assert (tmp_path / "graders" / "unit_scaffold_named" / "reference.py").is_file()
    assert (tmp_path / "nbgrader_config.py").read_text() == README_CONFIG  # named already: nothing added

    # The example mistakes: a value (halved) and a pattern (one row, whatever its values), each with its hint.
    def one_row(x):
        return np.ones((1, np.size(x)))

    result = run_exercise("unit_scaffold_named", "double", InProcessStudent({"double": one_row}))
    assert result.score == 0 and "hint [double_one_row]: double returned one row" in result.feedback()
    halved = run_exercise("unit_scaffold_named", "double", InProcessStudent({"double": lambda x: np.asarray(x) / 2}))
    assert halved.hints == ["double_halved"]
    right = run_exercise("unit_scaffold_named", "double", InProcessStudent({"double": lambda x: 2 * np.asarray(x)}))
    assert right.score == right.max_score


def test_new_adds_the_line_and_the_folder_when_the_config_names_none(tmp_path, monkeypatch):
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "my-course"\n')
    assert new(tmp_path, monkeypatch, "unit_scaffold_unnamed", "double") == 0
    assert 'c.Autograder.graders = "graders"' in (tmp_path / "nbgrader_config.py").read_text()
    assert (tmp_path / "graders" / "unit_scaffold_unnamed" / "test_double.py").is_file()


def test_a_graders_path_that_is_a_file_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "nbgrader_config.py").write_text(README_CONFIG)
    (tmp_path / "graders").write_text("not a folder")
    assert new(tmp_path, monkeypatch, "unit_scaffold_file", "double") == 1
    err = capsys.readouterr().err
    assert err.startswith("autograder new: nbgrader_config.py: c.Autograder.graders = 'graders': no such folder")
    assert err.count("\n") == 1


def test_new_ignores_students_work_and_the_watchers_state_in_git(tmp_path, monkeypatch, capsys):
    (tmp_path / "nbgrader_config.py").write_text(README_CONFIG)
    (tmp_path / ".gitignore").write_text("notes/\nsubmitted")  # the instructor's own, no newline at its end
    assert new(tmp_path, monkeypatch, "unit_scaffold_ignored", "double") == 0
    assert "wrote .gitignore" in capsys.readouterr().out
    lines = (tmp_path / ".gitignore").read_text().splitlines()
    assert lines[:2] == ["notes/", "submitted"]  # kept; "submitted" counts as submitted/
    assert {".autograder-watch/", "gradebook.db", "autograded/"} <= set(lines) and "submitted/" not in lines
    assert new(tmp_path, monkeypatch, "unit_scaffold_ignored_2", "double") == 0
    assert "wrote .gitignore" not in capsys.readouterr().out  # nothing missing: left alone


def test_a_course_whose_graders_are_in_the_package_keeps_new_ones_beside_them(tmp_path):
    """This repository's course names no graders folder and keeps its graders in the package: `new` adds the next
    assignment's there, and neither makes graders/ nor writes the line (the rule is the course's, not the path's)."""
    from autograder.authoring.scaffold import graders_folder
    from autograder.course.settings import read_course
    from autograder.devtools.repo import new_course
    from autograder.graders import FOLDER

    course = new_course(tmp_path / "course")
    config = (course / "nbgrader_config.py").read_text()
    assert graders_folder(read_course(course, rooted=True)) == FOLDER
    assert (course / "nbgrader_config.py").read_text() == config and not (course / "graders").exists()
