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
    Change,
    Exceptions,
    awaiting_work,
    course_exceptions,
    instructor_scores,
)
from autograder.deadlines.rules import rules_from
from autograder.deadlines.schedule import DeadlineError

# nbgrader's ORM warns of its own way of adding a submission's rows (SAWarning "not in session"): nothing is wrong.
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")

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
        gb.update_or_create_assignment("hw2", duedate=DUE)
        gb.update_or_create_assignment("undated")
        gb.update_or_create_notebook("nb", "hw")
        gb.update_or_create_grade_cell("test_a", "nb", "hw", max_score=5.0, cell_type="code")
        gb.update_or_create_grade_cell("test_b", "nb", "hw", max_score=3.0, cell_type="code")
        gb.update_or_create_notebook("nb", "undated")
        gb.update_or_create_grade_cell("test_u", "nb", "undated", max_score=2.0, cell_type="code")
        for student in ("ada", "bob", "cyd"):
            gb.add_student(student)
        # ada: a day late, one wrong answer; cyd: on time, test_a scored 0 and test_b not scored at all.
        gb.update_or_create_submission("hw", "ada", timestamp=DUE + timedelta(days=1))
        for cell, score in (("test_a", 5.0), ("test_b", 1.0)):
            gb.find_grade(cell, "nb", "hw", "ada").auto_score = score
        gb.update_or_create_submission("hw", "cyd", timestamp=DUE - timedelta(hours=1))
        gb.find_grade("test_a", "nb", "hw", "cyd").auto_score = 0.0
        gb.update_or_create_submission("undated", "ada", timestamp=DUE)
        gb.find_grade("test_u", "nb", "undated", "ada").auto_score = 2.0
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
    (("extend", "hw9", "ada", "--by", "1d"), "unknown assignment 'hw9' (the gradebook has: hw, hw2, undated)"),
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
    marked = []  # what each committed block hands to the pages' marker (the commands pass watch.stale_pages')
    with course_exceptions(course, lambda settings, grades, kind: marked.append(kind)) as exceptions:
        with pytest.raises(DeadlineError, match="^an extension needs --until DATE or --by DURATION$"):
            exceptions.extend("hw", ["ada"], "x")
        with pytest.raises(DeadlineError, match="^name at least one student$"):
            exceptions.extend("hw", [], "x", by=timedelta(days=1))
        with pytest.raises(DeadlineError, match=r"^say why with --reason \"...\" \(it goes into the audit trail\)$"):
            exceptions.label(None, ["ada"], "")
        assert exceptions.extensions() == [] and exceptions.events() == []
        assert exceptions.extend("hw", ["cyd"], "x", by=timedelta(hours=5))[0].text == \
            "due 2026-01-10 17:00:00 UTC (+5h)"
    assert "extension" in marked
    marked.clear()
    # What the block did is kept; a mistake inside one is rolled back whole, and no page is marked for it.
    with pytest.raises(RuntimeError), course_exceptions(course, lambda *_: marked.append("rolled back")) as exceptions:
        assert exceptions.extensions("hw")[0][1:] == ("cyd", datetime(2026, 1, 10, 17, tzinfo=exceptions.extensions(
            "hw")[0][2].tzinfo), timedelta(hours=5))
        exceptions.gradebook.find_submission("hw", "cyd").extension = timedelta(days=9)
        raise RuntimeError("stop")
    assert extension(course, "cyd") == timedelta(hours=5) and marked == []


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


def sql_of(gb: Gradebook):
    from sqlalchemy import text

    return lambda statement, **params: gb.db.execute(text(statement), params)


def test_each_command_lists_one_assignment_when_asked(course):
    ok(course, "extend", "hw2", "ada", "--by", "1d", "--reason", "x")
    ok(course, "extend", "hw", "bob", "--by", "2d", "--reason", "x")
    ok(course, "override", "undated", "ada", "--cell", "test_u", "--score", "1", "--reason", "x")  # no due date needed
    ok(course, "override", "hw", "ada", "--cell", "test_a", "--score", "4", "--reason", "x")
    assert ok(course, "exceptions", "hw") == ["extension  hw  bob: due 2026-01-12 12:00:00 UTC (+2d)",
                                              "override   hw  ada: test_a = 4"]
    assert ok(course, "exceptions", "undated") == ["override   undated  ada: test_u = 1"]
    assert ok(course, "exceptions", "hw2") == ["extension  hw2  ada: due 2026-01-11 12:00:00 UTC (+1d)"]
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        assert instructor_scores(sql_of(gb), "undated") == [("undated", "ada", "nb", "test_u", 1.0, 2.0)]
        assert [row[:4] for row in instructor_scores(sql_of(gb))] == [("hw", "ada", "nb", "test_a"),
                                                                     ("undated", "ada", "nb", "test_u")]


def test_an_override_at_either_end_of_the_cell_and_over_a_zero(course):
    assert ok(course, "override", "hw", "cyd", "--cell", "test_a", "--score", "0.5", "--reason", "x") == [
        "hw: cyd: test_a: 0.5 of 5 (graders gave 0)"]
    assert ok(course, "override", "hw", "cyd", "--cell", "test_a", "--score", "5", "--reason", "x") == [
        "hw: cyd: test_a: 5 of 5 (graders gave 0)"]
    assert ok(course, "override", "hw", "ada", "--cell", "test_b", "--score", "0", "--reason", "x") == [
        "hw: ada: test_b: 0 of 3 (graders gave 1)"]
    assert ok(course, "override", "hw", "cyd", "--cell", "test_a", "--remove", "--reason", "x") == [
        "hw: cyd: test_a: graders' score 0 counts again"]


def test_a_label_settles_every_grade_of_the_student_at_once(course):
    # ada handed hw in a day late (50%): a label's day of extra time makes it on time, no penalty, and the LMS told.
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        store = Exceptions(gb, rules_from(RULES), user="me")
        assert store.settled == []
        store.label("extra-time", ["ada"], "letter")
        assert gb.find_submission("hw", "ada").late_submission_penalty == 0
        assert [kind for _, kind in store.settled] == ["label"] and store.settled[0][0]
        store.extend("hw", ["ada"], "x", by=timedelta(hours=1))  # replaces the label's day: late again
        assert gb.find_submission("hw", "ada").late_submission_penalty == pytest.approx(3.0)
        assert [kind for _, kind in store.settled] == ["label", "extension"]
        queued = sql_of(gb)("SELECT student_id, origin FROM autograder_lms_outbox ORDER BY seq").fetchall()
    assert [tuple(row) for row in queued][-2:] == [("ada", "label"), ("ada", "extension")]


def test_a_schedule_changed_since_grading_is_applied_by_the_next_command(course):
    with open(course / "nbgrader_config.py", "a") as config:
        config.write('\nc.LateCredit.schedule = [["48h", 0.25]]\n')
    ok(course, "exceptions")
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        assert gb.find_submission("hw", "ada").late_submission_penalty == pytest.approx(4.5)
        store = Exceptions(gb, rules_from({**RULES, "schedule": [["48h", 0.75]]}))
        store.settle_stale()
        assert gb.find_submission("hw", "ada").late_submission_penalty == pytest.approx(1.5)
        assert store.settled[0][1] == "rederived" and [g.facts.student for g in store.settled[0][0]] == ["ada"]


def test_an_assignments_own_schedule_is_checked_against_its_due_date(course):
    with open(course / "nbgrader_config.py", "a") as config:
        config.write('\nc.LateCredit.assignments = {"hw2": {"schedule": [["2026-01-01T00:00:00Z", 0.5]]}}\n')
    ok(course, "extend", "hw", "ada", "--by", "1d", "--reason", "x")  # the course's own schedule is fine
    code, _, err = run(course, "extend", "hw2", "ada", "--by", "1d", "--reason", "x")
    assert (code, err) == (1, "autograder extend: a step ends at 2026-01-01 00:00:00 UTC, not after 2026-01-10 "
                              "12:00:00 UTC\n")


def test_the_store_by_hand_zero_extension_typed_scores_and_long_words(course):
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        store = Exceptions(gb, rules_from({"labels": {"x" * 1100: {"extra": "1h"}}}), user="u" * 200)
        with pytest.raises(DeadlineError, match="^an extension needs --until DATE or --by DURATION$"):
            store.extend("hw", ["ada"], "x", by=timedelta(0))
        gb.find_grade("test_b", "nb", "hw", "ada").manual_score = 2.0
        assert store.adopt_formgrader_scores() == [Change("ada", "test_b: 2 (graders gave 1), set in the formgrader")]
        gb.find_grade("test_b", "nb", "hw", "ada").manual_score = None
        assert store.adopt_formgrader_scores() == [Change("ada", "test_b: the instructor's score cleared in the "
                                                                 "formgrader, the graders' counts again")]
        assert store.adopt_formgrader_scores() == []
        store.label("x" * 1100, ["bob"], "r" * 2000)
        rows = sql_of(gb)("SELECT id, os_user, detail, reason FROM autograder_exception_event").fetchall()
    assert len({row[0] for row in rows}) == len(rows) == 3 and all(row[0] for row in rows)
    assert (rows[-1][1], rows[-1][2], rows[-1][3]) == ("u" * 128, "x" * 1024, "r" * 1024)


def test_a_submission_is_awaiting_work_only_when_it_holds_nothing_but_an_extension(course):
    ok(course, "extend", "hw", "bob", "cyd", "--by", "1d", "--reason", "x")
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        assert awaiting_work(gb.find_submission("hw", "bob"))
        assert not awaiting_work(gb.find_submission("hw", "cyd"))  # handed in, on time
        gb.find_grade("test_b", "nb", "hw", "bob").manual_score = 1.0  # graded by hand, nothing handed in
        assert not awaiting_work(gb.find_submission("hw", "bob"))
        gb.find_submission("hw", "cyd").extension = None
        assert not awaiting_work(gb.find_submission("hw", "cyd"))


def test_our_tables_at_an_unknown_revision_are_one_line(course):
    with sqlite3.connect(course / "gradebook.db") as db:
        db.execute("UPDATE autograder_alembic_version SET version_num = 'f00dfeed'")
    code, _, err = run(course, "exceptions")
    assert code == 1 and len(err.splitlines()) == 1 and "f00dfeed" in err, err


def test_a_students_deadline_and_arrival_as_the_gradebook_holds_them(course):
    from sqlalchemy import text

    from autograder.deadlines.schedule import as_utc
    from autograder.deadlines.student_deadline import StudentDeadline, read_arrival, read_deadline

    ok(course, "extend", "hw", "bob", "--by", "5h", "--reason", "x")
    ok(course, "label", "ada", "--set", "extra-time", "--reason", "x")
    rules = rules_from(RULES)
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        def rows(sql, params):
            return [tuple(r) for r in gb.db.execute(text(sql), params)]

        due = as_utc(DUE)
        assert read_deadline(rows, "hw", "ada") == StudentDeadline(due, None, "extra-time")
        assert read_deadline(rows, "hw", "ada", labels=False) == StudentDeadline(due, None, None)
        assert read_deadline(rows, "hw", "bob") == StudentDeadline(due, timedelta(hours=5), None)
        assert read_deadline(rows, "undated", "ada") is None and read_deadline(rows, "hw9", "ada") is None
        assert read_deadline(rows, "hw", "ada").due_for(rules) == due + timedelta(days=1)
        assert read_deadline(rows, "hw", "bob").due_for(rules) == due + timedelta(hours=5)
        assert StudentDeadline(due, None, "dropped").due_for(rules) == due
        assert read_arrival(rows, "hw", "ada") == due + timedelta(days=1)
        assert read_arrival(rows, "hw", "bob") is None  # an extension's row: nothing handed in
        assert read_arrival(rows, "hw", "nobody") is None and read_arrival(rows, "hw2", "ada") is None
