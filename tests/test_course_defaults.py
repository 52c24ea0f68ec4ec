"""The framework's defaults are any course's: a course outside this repository, with nothing but the docs' minimal
nbgrader_config.py (docs/instructors/setup.md), gets feedback from plain `nbgrader generate_feedback` without a
hidden line, a grade call or a traceback, and with the table of points; a course that overrides the feedback's
steps to show the hidden tests is refused by `autograder check`, `grade`, `regrade` and `watch` in one line."""

import json
import re
import shutil
from pathlib import Path

import pytest

from autograder.course.result_file import RESULT_FILE
from autograder.devtools.repo import ROOT
from tests.test_feedback import HIDDEN_MARKERS, as_text, grade_cell
from tests.test_outside_course import ASSIGNMENT, CLI, run, submit

MARKERS = (*HIDDEN_MARKERS[:-3], f'grade("{ASSIGNMENT}"', "grade(")  # test_feedback's, for this assignment
FORGED_RESULT = json.dumps({"student": "wrong", "assignment": ASSIGNMENT, "status": "graded", "cells": []})


SETUP_PAGE = ROOT / "docs" / "instructors" / "setup.md"


def docs_config() -> str:
    """The minimal course config of the instructors' set-up page, as an instructor copies it."""
    block = re.search(r"```python\n(# nbgrader_config\.py of your course\n.*?)```", SETUP_PAGE.read_text(), re.S)
    assert block, f"{SETUP_PAGE.relative_to(ROOT)} lost its minimal nbgrader_config.py"
    return block.group(1)


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    """A course of its own: the docs' config, a scaffolded assignment released by nbgrader, and a student whose
    answer fails the visible self-check (so the grade cell ends in an error, with its traceback)."""
    course = tmp_path_factory.mktemp("outside") / "my-course"
    course.mkdir()
    assert not course.resolve().is_relative_to(ROOT)
    (course / "nbgrader_config.py").write_text(docs_config())
    assert "GenerateFeedback" not in (course / "nbgrader_config.py").read_text()
    (course / "graders").mkdir()  # the folder the config names (`autograder new` wants it there)
    run(course, CLI, "new", ASSIGNMENT, "tanh_step")
    run(course, "nbgrader", "generate_assignment", ASSIGNMENT)
    submit(course, "wrong", "x")  # the scaffold's reference is 2 x
    return course


def test_plain_nbgrader_feedback_shows_no_hidden_line_and_the_points_table(released, tmp_path):
    course = tmp_path / "my-course"
    shutil.copytree(released, course)
    # The student hands in a result file of their own, all correct: nbgrader must not copy it where the report
    # and similarity read the grader's.
    (course / "submitted" / "wrong" / ASSIGNMENT / RESULT_FILE).write_text(FORGED_RESULT)
    run(course, "nbgrader", "autograde", ASSIGNMENT)
    autograded = course / "autograded" / "wrong" / ASSIGNMENT
    assert (autograded / f"{ASSIGNMENT}.ipynb").is_file() and not (autograded / RESULT_FILE).exists()
    # Nor is the grader's own copied into the folder of pages for students (`autograder grade` writes it there).
    (autograded / RESULT_FILE).write_text(FORGED_RESULT)
    run(course, "nbgrader", "generate_feedback", ASSIGNMENT)
    assert sorted(p.name for p in (course / "feedback" / "wrong" / ASSIGNMENT).iterdir()) == sorted([
        f"{ASSIGNMENT}.html", "selfcheck.py"])
    page = (course / "feedback" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    text = as_text(page)
    for marker in MARKERS:
        assert marker not in page and marker not in text, f"the feedback shows {marker!r}"
    cell = grade_cell(page, f"test_{ASSIGNMENT}")
    assert f"{ASSIGNMENT}: 0 / 3 points" in cell and "[FAIL] value[" in cell  # graded, the graders' explanation kept
    # The self-check's own message (what the student's code gave) stays in their notebook; the page says where.
    assert "gave [[1.0], [2.0]]" not in cell and "run this cell in your notebook to read its message" in cell
    assert "Traceback" not in cell and "---->" not in cell and "selfcheck.py" not in cell  # ... alone
    table = re.search(r'<table class="autograder-scores">.*?</table>', page, re.S)
    assert table, "no table of points"
    cells = [as_text(cell).strip() for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", table.group(0), re.S)]
    assert cells[:6] == ["Exercise", "Points", "What happened", ASSIGNMENT, "0 / 3", "self-check failed"]
    assert page.index("autograder-scores") < page.index(f'id="test_{ASSIGNMENT}"')  # first on the page
    assert "<script" not in page and "mathjax" not in page.lower()  # our template, not nbgrader's


def test_a_course_that_shows_hidden_tests_in_feedback_is_refused(released, tmp_path):
    course = tmp_path / "my-course"
    shutil.copytree(released, course)
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text() + 'c.GenerateFeedback.preprocessors = ["nbgrader.preprocessors.GetGrades", '
                                           '"autograder.feedback.preprocessors.ClearGradeCellTracebacks"]\n')
    expected = (f"{config}: c.GenerateFeedback.preprocessors has no step that removes hidden tests, so students' "
                "feedback would show them: add 'autograder.feedback.preprocessors.ClearHiddenTestsQuietly' to it, "
                "or delete the "
                "setting")
    for command in (["check"], ["grade", ASSIGNMENT], ["regrade", ASSIGNMENT], ["watch"]):
        done = run(course, CLI, *command, check=False)
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        assert done.stderr.splitlines() == [f"autograder {command[0]}: {expected}"], done.stderr
        assert done.stdout == ""
    assert not (course / "autograded").exists()  # refused before anyone was graded
