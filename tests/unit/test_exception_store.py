"""The exception store (`autograder.deadlines.exception_store`) through the commands that use it, run in-process on a
tiny course: `extend` (and `--revoke`), `label`, `override`, `exceptions` and the formgrader's typed scores, each
change in nbgrader's gradebook, in our tables and in the audit trail, every mistake one line that changes nothing.

The course is a folder with the framework's config and a gradebook made once per process through nbgrader's API
(one assignment with a due date, one without, three students, one graded submission) and copied for each test: a
new gradebook costs nbgrader an `alembic` process, a copy a millisecond. No grading, no nbgrader command."""

import atexit
import contextlib
import functools
import io
import os
import shutil
import sqlite3
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.cli import main
from autograder.deadlines.exception_store import (
    FORMGRADER_REASON,
    Exceptions,
    awaiting_work,
    course_exceptions,
    instructor_scores,
)
from autograder.deadlines.rules import rules_from
from autograder.deadlines.schedule import DeadlineError

DUE = datetime(2026, 1, 10, 12, 0)  # naive UTC, as nbgrader keeps it
RULES = {"schedule": [["48h", 0.5]], "after": "not-accepted", "labels": {"extra-time": {"extra": "1d"}}}
CONFIG = """
c.LateCredit.schedule = [["48h", 0.5]]
c.LateCredit.after = "not-accepted"
c.LateCredit.labels = {"extra-time": {"extra": "1d"}}
"""


@functools.cache
def _template() -> Path:
    from autograder.devtools.repo import new_course
    from autograder.migrations import upgrade

    scratch = Path(tempfile.mkdtemp(prefix="exception-store-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    course = new_course(scratch / "course", ())
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(CONFIG)
    url = f"sqlite:///{course}/gradebook.db"
    with Gradebook(url) as gb:
        gb.update_or_create_assignment("hw", duedate=DUE)
        gb.update_or_create_assignment("undated")
        gb.update_or_create_notebook("nb", "hw")
        gb.update_or_create_grade_cell("test_a", "nb", "hw", max_score=5.0, cell_type="code")
        gb.update_or_create_grade_cell("test_b", "nb", "hw", max_score=3.0, cell_type="code")
        for student in ("ada", "bob", "cyd"):
            gb.add_student(student)
        gb.update_or_create_submission("hw", "ada", timestamp=DUE + timedelta(days=1))
        for cell, score in (("test_a", 5.0), ("test_b", 1.0)):
            gb.find_grade(cell, "nb", "hw", "ada").auto_score = score
        gb.db.commit()
    upgrade(url)  # our tables, as the first command would make them
    assert run(course, "exceptions")[0] == 0  # and ada's late penalty derived, as any command reading them does
    return course


@pytest.fixture
def course(tmp_path) -> Path:
    copy = tmp_path / "course"
    shutil.copytree(_template(), copy)
    return copy


def run(course: Path, *args: str) -> tuple[int, str, str]:
    """The command run in-process, as the console script runs it: exit code, stdout, stderr."""
    out, err, here = io.StringIO(), io.StringIO(), Path.cwd()
    os.chdir(course)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def ok(course: Path, *args: str) -> list[str]:
    code, out, err = run(course, *args)
    assert (code, err) == (0, ""), err
    return out.splitlines()


def history(course: Path, student: str = "") -> list[tuple[str, ...]]:
    """(user, kind, assignment, student: detail, reason) of each change, oldest first."""
    lines = ok(course, "exceptions", "--history", *([student] if student else []))
    return [tuple(line.split(" UTC  ", 1)[1].split("  ")) for line in lines if " UTC  " in line]


def dump(course: Path) -> list[str]:
    with sqlite3.connect(course / "gradebook.db") as db:
        return list(db.iterdump())


def extension(course: Path, student: str) -> timedelta | None:
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        return gb.find_submission("hw", student).extension


def test_an_extension_replaces_the_last_and_is_listed_and_recorded(course):
    assert ok(course, "extend", "hw", "ada", "bob", "--by", "3d", "--reason", "illness") == [
        "hw: ada: due 2026-01-13 12:00:00 UTC (+3d)", "hw: bob: due 2026-01-13 12:00:00 UTC (+3d)"]
    assert ok(course, "extend", "hw", "ada", "--until", "2026-01-11T13:00:00+01:00", "--reason", "sport") == [
        "hw: ada: due 2026-01-11 12:00:00 UTC (+1d)"]  # replaces, never stacks
    assert (extension(course, "ada"), extension(course, "bob")) == (timedelta(days=1), timedelta(days=3))
    assert ok(course, "exceptions") == ["extension  hw  ada: due 2026-01-11 12:00:00 UTC (+1d)",
                                        "extension  hw  bob: due 2026-01-13 12:00:00 UTC (+3d)"]
    assert ok(course, "exceptions", "hw") == ok(course, "exceptions")
    user = history(course)[0][0]
    assert history(course) == [
        (user, "extension", "hw", "ada: due 2026-01-13 12:00:00 UTC (+3d)", "-- illness"),
        (user, "extension", "hw", "bob: due 2026-01-13 12:00:00 UTC (+3d)", "-- illness"),
        (user, "extension", "hw", "ada: due 2026-01-11 12:00:00 UTC (+1d)", "-- sport")]
    assert [h[3] for h in history(course, "bob")] == ["bob: due 2026-01-13 12:00:00 UTC (+3d)"]
    # bob had handed nothing in: his row holds only the extension, and counts as not submitted.
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        assert awaiting_work(gb.find_submission("hw", "bob")) and not awaiting_work(gb.find_submission("hw", "ada"))
    # A revoke puts the due date back, for those who have an extension only.
    assert ok(course, "extend", "hw", "bob", "--revoke", "--reason", "recovered") == ["hw: bob: due 2026-01-10 "
                                                                                       "12:00:00 UTC"]
    assert extension(course, "bob") is None
    assert history(course, "bob")[-1][1:] == ("revoke", "hw", "bob: due 2026-01-10 12:00:00 UTC again",
                                              "-- recovered")
    assert ok(course, "exceptions") == ["extension  hw  ada: due 2026-01-11 12:00:00 UTC (+1d)"]


def test_a_label_is_set_and_removed_for_the_whole_course(course):
    assert ok(course, "label", "bob", "cyd", "--set", "extra-time", "--reason", "letter") == [
        "bob: label extra-time", "cyd: label extra-time"]
    assert ok(course, "label", "bob", "--set", "extra-time", "--reason", "again") == ["bob: label extra-time"]
    assert ok(course, "exceptions") == ["label      bob: extra-time", "label      cyd: extra-time"]
    assert ok(course, "label", "cyd", "--remove", "--reason", "graduated") == ["cyd: no label"]
    assert ok(course, "exceptions") == ["label      bob: extra-time"]
    assert [h[1:] for h in history(course, "cyd")] == [("label", "(course)", "cyd: extra-time", "-- letter"),
                                                       ("unlabel", "(course)", "cyd: no label", "-- graduated")]


def test_an_override_counts_over_the_graders_and_can_be_removed(course):
    assert ok(course, "override", "hw", "ada", "--cell", "test_b", "--score", "2.5", "--reason", "dispute #1") == [
        "hw: ada: test_b: 2.5 of 3 (graders gave 1)"]
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        grade = gb.find_grade("test_b", "nb", "hw", "ada")
        assert (grade.manual_score, grade.auto_score, grade.score) == (2.5, 1.0, 2.5)
        # One day late: the schedule's 50% taken from the new score (5 + 2.5), not the graders' (5 + 1).
        assert gb.find_submission("hw", "ada").late_submission_penalty == pytest.approx(3.75)
    assert ok(course, "exceptions") == ["override   hw  ada: test_b = 2.5"]
    assert ok(course, "override", "hw", "ada", "--cell", "test_b", "--remove", "--reason", "withdrawn") == [
        "hw: ada: test_b: graders' score 1 counts again"]
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        assert gb.find_grade("test_b", "nb", "hw", "ada").score == 1.0
        assert gb.find_submission("hw", "ada").late_submission_penalty == pytest.approx(3.0)
    assert ok(course, "exceptions") == ["no extensions, labels or overrides"]
    assert [h[1] for h in history(course, "ada")] == ["override", "unoverride"]


def test_a_score_typed_in_the_formgrader_becomes_an_override_once(course):
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        gb.find_grade("test_a", "nb", "hw", "ada").manual_score = 4.0
        gb.db.commit()
    for _ in range(2):  # recorded at the first reading, not at every one
        assert ok(course, "exceptions") == ["override   hw  ada: test_a = 4"]
    assert history(course) == [("formgrader", "override", "hw", "ada: test_a: 4 (graders gave 5), set in the "
                                "formgrader", f"-- {FORMGRADER_REASON}")]
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        assert instructor_scores(lambda sql, **p: gb.db.execute(__import__("sqlalchemy").text(sql), p)) == [
            ("hw", "ada", "nb", "test_a", 4.0, 5.0)]
        gb.find_grade("test_a", "nb", "hw", "ada").manual_score = None
        gb.db.commit()
    assert ok(course, "exceptions") == ["no extensions, labels or overrides"]
    assert history(course)[-1] == ("formgrader", "unoverride", "hw", "ada: test_a: the instructor's score cleared "
                                   "in the formgrader, the graders' counts again", f"-- {FORMGRADER_REASON}")
    assert ok(course, "exceptions", "--history", "nobody") == ["no change to extensions, labels or overrides recorded"]


@pytest.mark.parametrize("args, problem", [
    (("extend", "hw", "ada", "--until", "2026-01-10T12:00:00Z"),
     "--until 2026-01-10 12:00:00 UTC is not after hw's due date 2026-01-10 12:00:00 UTC"),
    (("extend", "hw", "ada", "nobody", "ghost", "--by", "1d"),
     "unknown students 'nobody', 'ghost' (not in the gradebook: `autograder roster import` or "
     "`nbgrader db student add`)"),
    (("extend", "hw", "nobody", "--by", "1d"), "unknown student 'nobody' (not in the gradebook"),
    (("extend", "hw9", "ada", "--by", "1d"), "unknown assignment 'hw9' (the gradebook has: hw, undated)"),
    (("extend", "undated", "ada", "--by", "1d"),
     "undated has no due date: set it with `nbgrader db assignment add undated --duedate=...`"),
    (("extend", "hw", "bob", "cyd", "--revoke"), "no extension of hw to revoke for bob, cyd"),
    (("label", "ada", "--set", "sport"), "unknown label 'sport' (c.LateCredit.labels declares: extra-time)"),
    (("override", "hw", "bob", "--cell", "test_a", "--score", "1"), "bob has no graded submission of hw: grade it "
                                                                    "first"),
    (("override", "hw", "ada", "--cell", "test_z", "--score", "1"), "hw has no graded cell 'test_z' (its cells: "
                                                                    "test_a, test_b)"),
    (("override", "hw", "ada", "--cell", "test_a", "--score", "5.5"),
     "--score 5.5 is not between 0 and test_a's 5 points"),
    (("override", "hw", "ada", "--cell", "test_a", "--score", "-1"),
     "--score -1 is not between 0 and test_a's 5 points"),
    (("override", "hw", "ada", "--cell", "test_a", "--remove"), "no override of test_a for ada in hw to remove"),
])
def test_a_mistake_is_one_line_and_changes_nothing(course, args, problem):
    before = dump(course)
    code, out, err = run(course, *args, "--reason", "x")
    assert (code, out, len(err.splitlines())) == (1, "", 1), err
    assert err.startswith(f"autograder {args[0]}: ") and problem in err, err
    assert dump(course) == before


@pytest.mark.parametrize("args", [("extend", "hw", "ada", "--by", "1d"), ("label", "ada", "--set", "extra-time"),
                                  ("override", "hw", "ada", "--cell", "test_a", "--score", "1")])
def test_a_change_without_a_reason_is_refused(course, args):
    before = dump(course)
    assert run(course, *args, "--reason", " ")[1:] == (
        "", f"autograder {args[0]}: say why with --reason \"...\" (it goes into the audit trail)\n")
    assert dump(course) == before


def test_the_store_refuses_what_no_command_sends(course):
    with course_exceptions(course) as exceptions:
        with pytest.raises(DeadlineError, match="^an extension needs --until DATE or --by DURATION$"):
            exceptions.extend("hw", ["ada"], "x")
        with pytest.raises(DeadlineError, match="^name at least one student$"):
            exceptions.extend("hw", [], "x", by=timedelta(days=1))
        with pytest.raises(DeadlineError, match=r"^say why with --reason \"...\" \(it goes into the audit trail\)$"):
            exceptions.label(None, ["ada"], "")
        assert exceptions.extensions() == [] and exceptions.events() == []
        assert exceptions.extend("hw", ["cyd"], "x", by=timedelta(hours=5))[0].text == \
            "due 2026-01-10 17:00:00 UTC (+5h)"
    # What the block did is kept; a mistake inside one is rolled back whole.
    with pytest.raises(RuntimeError), course_exceptions(course) as exceptions:
        assert exceptions.extensions("hw")[0][1:] == ("cyd", datetime(2026, 1, 10, 17, tzinfo=exceptions.extensions(
            "hw")[0][2].tzinfo), timedelta(hours=5))
        exceptions.gradebook.find_submission("hw", "cyd").extension = timedelta(days=9)
        raise RuntimeError("stop")
    assert extension(course, "cyd") == timedelta(hours=5)


def test_a_course_without_a_gradebook_or_with_bad_rules_is_one_line(tmp_path, course):
    from autograder.devtools.repo import new_course

    bare = new_course(tmp_path / "bare", ())
    code, _, err = run(bare, "exceptions")
    assert (code, err) == (1, "autograder exceptions: no gradebook yet: add the assignment and its students first\n")
    with open(course / "nbgrader_config.py", "a") as config:
        config.write('\nc.LateCredit.grace = "soon"\n')
    code, _, err = run(course, "exceptions")
    assert code == 1 and "nbgrader_config.py" in err and "'soon' is not a duration" in err, err


def test_the_store_opened_by_hand_records_the_user_given(course):
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        store = Exceptions(gb, rules_from(RULES), user="grader7")
        store.label("extra-time", ["ada"], "letter")
        assert store.labels() == {"ada": "extra-time"}
        event = store.events("ada")[0]
        assert (event.user, event.kind, event.assignment, event.student, event.detail, event.reason) == (
            "grader7", "label", None, "ada", "extra-time", "letter")
