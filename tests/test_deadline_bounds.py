"""Issue 39, bad input: every date and duration an instructor types (`extend --by`, `--until`) or a course
declares (`c.LateCredit` grace, steps, a label's extra time and stretch) is held to the same plausible years,
2000 to 2200. A mistake is one line on stderr naming the value, exit code 1, and the gradebook unchanged; never
a traceback (`--by 100000000d` was a 17-line OverflowError, `--by 80000d` a due date in 2245).

The commands run in-process (`autograder.cli.main`, as the console script runs it) on a tiny course: one
assignment with a due date and two students in a gradebook made by nbgrader's API, no release."""

import shutil
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.cli import main
from autograder.deadlines.schedule import LATEST, show_duration
from autograder.devtools.repo import new_course

DUE = datetime(2026, 1, 10, 12, 0)  # naive UTC, as nbgrader keeps it
IMPLAUSIBLE = "is not a plausible date (years 2000 to 2200)"
TOO_LONG = "is longer than any deadline can move (at most 73049d, the years 2000 to 2200)"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """The course, with one extension granted by the command (so our tables exist and there is one to keep)."""
    course = new_course(tmp_path_factory.mktemp("bounds") / "course", ())
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        gb.update_or_create_assignment("hw", duedate=DUE)
        gb.add_student("ada")
        gb.add_student("bob")
    assert run(course, "extend", "hw", "ada", "--by", "2d", "--reason", "illness") == (0, "")
    return course


def run(course: Path, *args: str) -> tuple[int, str]:
    """The command's exit code and what it wrote to stderr."""
    import contextlib
    import io
    import os

    err, here = io.StringIO(), Path.cwd()
    os.chdir(course)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(list(args))
    finally:
        os.chdir(here)
    return code, err.getvalue()


def gradebook(course: Path) -> list[str]:
    """Every row of the gradebook, nbgrader's and ours."""
    with sqlite3.connect(course / "gradebook.db") as db:
        return list(db.iterdump())


# The assignment is due 2026-01-10 12:00 UTC: 2200-01-01 00:00 UTC, the last plausible instant, is this far.
TO_LATEST = show_duration(LATEST.replace(tzinfo=None) - DUE)
ONE_PAST = show_duration(LATEST.replace(tzinfo=None) - DUE + timedelta(seconds=1))


@pytest.mark.parametrize("args, problem", [
    (("--by", "100000000d"), f"'100000000d' {TOO_LONG}"),  # was an OverflowError traceback
    (("--by", "99999999999999999999999w"), f"'99999999999999999999999w' {TOO_LONG}"),  # was another
    (("--by", "80000d"), f"'80000d' {TOO_LONG}"),  # was accepted: due in 2245
    (("--by", "70000d"), f"2026-01-10 12:00:00 UTC + 70000d = 2217-09-06 12:00:00 UTC {IMPLAUSIBLE}"),
    (("--by", ONE_PAST), f"= 2200-01-01 00:00:01 UTC {IMPLAUSIBLE}"),
    (("--until", "2245-01-22T12:00:00Z"), f"'2245-01-22T12:00:00Z' {IMPLAUSIBLE}"),  # as it always was
])
def test_an_extension_past_the_plausible_years_is_one_line_and_changes_nothing(course, args, problem):
    before = gradebook(course)
    code, err = run(course, "extend", "hw", "ada", "bob", *args, "--reason", "x")
    assert (code, len(err.splitlines())) == (1, 1), err
    assert err.startswith("autograder extend: ") and err.rstrip("\n").endswith(problem), err
    assert gradebook(course) == before


def test_an_extension_to_the_last_plausible_second_is_granted(tmp_path, course):
    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    assert run(copy, "extend", "hw", "bob", "--by", TO_LATEST, "--reason", "x") == (0, "")
    with Gradebook(f"sqlite:///{copy}/gradebook.db") as gb:
        assert gb.find_submission("hw", "bob").duedate == LATEST.replace(tzinfo=None)


@pytest.mark.parametrize("setting, problem", [
    ('c.LateCredit.grace = "100000000d"', f"'100000000d' {TOO_LONG}"),
    ('c.LateCredit.schedule = [["999999999999w", 0.5]]\nc.LateCredit.after = "practice"',
     f"'999999999999w' {TOO_LONG}"),
    ('c.LateCredit.schedule = [["2245-01-01T00:00:00Z", 0.5]]\nc.LateCredit.after = "practice"',
     f"'2245-01-01T00:00:00Z' {IMPLAUSIBLE}"),
    ('c.LateCredit.labels = {"extra-time": {"extra": "100000000d"}}', f"'100000000d' {TOO_LONG}"),
    ('c.LateCredit.labels = {"extra-time": {"stretch": 1e300}}', "a window's stretch from 1 to 10"),
    ('c.LateCredit.labels = {"extra-time": {"stretch": float("nan")}}', "a window's stretch from 1 to 10"),
])
def test_a_course_setting_past_the_bounds_is_one_line_naming_the_value(tmp_path, course, setting, problem):
    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    with open(copy / "nbgrader_config.py", "a") as config:
        config.write(f"\n{setting}\n")
    before = gradebook(copy)
    for args in (("extend", "hw", "bob", "--by", "1d"), ("label", "bob", "--set", "extra-time")):
        code, err = run(copy, *args, "--reason", "x")
        assert (code, len(err.splitlines())) == (1, 1), err
        assert "nbgrader_config.py" in err and problem in err, err
    assert gradebook(copy) == before
