"""Issue 28 end to end: a small class with a due date, a late-credit schedule, two extensions, a label and an
override, set with the commands as an instructor sets them, graded by `autograder grade` and by nbgrader's own
`autograde` (through the course's late-penalty plugin): the same rows and totals, each student's credit as the
schedule says; then an override that a regrade (with --no-decrease) and `nbgrader autograde` both keep; every
change in the audit trail; and every mistake one line that changes nothing."""

import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import wrong_answers
from tests.databases import query
from tests.grading_course import ASSIGNMENT, grade, make_course, submit
from tests.regrading import cli
from tests.test_gradebook_writer import rows, stamp

DUE = datetime(2026, 1, 10, 12, 0)  # naive UTC, as nbgrader keeps it
RULES = """
c.LateCredit.schedule = [["48h", 0.8], ["7d", 0.5]]
c.LateCredit.after = "practice"
c.LateCredit.grace = "10m"
c.LateCredit.labels = {"extra-time": {"extra": "1d", "stretch": 1.5}}
"""
# When each student's work arrived (the exchange's time, as nbgrader's collect records it), and the credit
# the rules give it.
ARRIVED = {
    "late": (DUE + timedelta(days=1), 0.8),
    "practice": (DUE + timedelta(days=8), 0.0),  # past the last step: practice, the score does not count
    "extby": (DUE + timedelta(days=3, minutes=10), 1.0),  # extended by 3 days; the grace's last second
    "extuntil": (DUE + timedelta(days=2), 0.8),  # extended until DUE + 1 day: one day late for them
    "labelled": (DUE + timedelta(days=1, hours=60), 0.8),  # label: due a day later, 48 h x 1.5 = 72 h at 80%
}
WRONG = wrong_answers(ASSIGNMENT)[0]


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """The class, with its exceptions set by the commands, not graded yet."""
    course = make_course(tmp_path_factory.mktemp("deadlines") / "course", RULES)
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
        for student in ARRIVED:
            gb.add_student(student)
    for student, (when, _) in ARRIVED.items():
        stamp(submit(course, student, [WRONG] if student == "late" else []).parent, when)
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        gb.add_student("absent")
    for args in (("extend", ASSIGNMENT, "extby", "absent", "--by", "3d", "--reason", "illness"),
                 ("extend", ASSIGNMENT, "extuntil", "--until", "2026-01-11T13:00:00+01:00", "--reason", "sport"),
                 ("label", "labelled", "--set", "extra-time", "--reason", "accommodation letter")):
        done = cli(course, *args)
        assert done.returncode == 0 and done.stderr == "", done.stderr
    return course


def totals(course: Path) -> dict[str, tuple[float, float]]:
    """Each student's (score, late penalty), as nbgrader's API reads the gradebook."""
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        return {s.student_id: (s.score, s.late_submission_penalty) for s in gb.assignment_submissions(ASSIGNMENT)}


def test_both_graders_apply_the_same_late_credit_and_keep_an_override(course, tmp_path, monkeypatch, capsys):
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    shutil.copytree(course, theirs)
    shutil.copytree(course, ours)
    nbgrader(theirs, "autograde", ASSIGNMENT)
    done = grade(ours)
    assert done.returncode == 0, done.stderr
    assert rows(f"sqlite:///{ours}/gradebook.db") == rows(f"sqlite:///{theirs}/gradebook.db")
    graded = totals(ours)
    assert graded == totals(theirs)
    # The feedback page states the student's own deadline and the credit applied.
    nbgrader(ours, "generate_feedback", ASSIGNMENT, "--student", "labelled")
    page = (ours / "feedback" / "labelled" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    page = re.sub(r"<time [^>]+>|</time>", "", page)  # the words where no script runs: each time in UTC
    assert ("Due for you: 2026-01-11 12:00:00 UTC (1d of extra time, label extra-time). "
            "Handed in: 2026-01-14 00:00:00 UTC, 2d12h late: 80% of the score counts") in page
    # `absent` has an extension and nothing handed in yet: the export sends them no grade.
    from autograder.lms.gradebook import course_rules, open_gradebook, read_gradesheet

    with open_gradebook(ours) as gb:
        sheet = read_gradesheet(gb, [ASSIGNMENT], course_rules(ours))
    assert not sheet.grades[(ASSIGNMENT, "absent")].submitted and sheet.grades[(ASSIGNMENT, "late")].submitted
    full = graded["extby"][0]
    for student, (_, credit) in ARRIVED.items():
        score, late_penalty = graded[student]
        assert score - late_penalty == pytest.approx(score * credit), student
    assert graded["late"][0] < full  # the wrong answer: room for an override

    # The dispute settled: the wrong answer's cell gets its points, by hand, in both courses.
    with Gradebook(f"sqlite:///{ours}/gradebook.db") as gb:
        cell = next(g for g in gb.find_submission(ASSIGNMENT, "late").notebooks[0].grades
                    if g.score < g.max_score and g.cell.cell_type == "code")  # not the written answer: unanswered
        name, points = cell.name, cell.max_score
    for folder in (ours, theirs):
        done = cli(folder, "override", ASSIGNMENT, "late", "--cell", name, "--score", str(points),
                   "--reason", "dispute #12")
        assert done.returncode == 0, done.stderr
    assert totals(ours)["late"] == (full, pytest.approx(full * 0.2))
    done = cli(ours, "regrade", ASSIGNMENT, "--no-decrease", "--student", "late")
    assert done.returncode == 0, done.stderr
    nbgrader(theirs, "autograde", ASSIGNMENT, "--force", "--student", "late")
    assert totals(ours) == totals(theirs)
    assert totals(ours)["late"] == (full, pytest.approx(full * 0.2))
    assert rows(f"sqlite:///{ours}/gradebook.db")["grade"] == rows(f"sqlite:///{theirs}/gradebook.db")["grade"]

    # The class report: who was late and by how much, the points taken, the extensions, label and override.
    from autograder.report.data import collect
    from autograder.report.deadline_section import section

    data = collect(ours, ASSIGNMENT)
    assert "absent" not in {s.student for s in data.submissions}
    by_student = {row.student: row for row in data.deadlines}
    assert sorted(by_student) == ["extby", "extuntil", "labelled", "late", "practice"]
    assert by_student["late"].overrides == (name,) and by_student["late"].penalty == pytest.approx(full * 0.2)
    assert by_student["practice"].late_by == timedelta(days=8) and by_student["practice"].penalty == full
    assert by_student["extby"].extension == timedelta(days=3) and by_student["extby"].penalty == 0
    labelled = by_student["labelled"]  # due a day later for them: as the late rule and their page count it
    assert (labelled.label, labelled.due.day, labelled.late_by) == ("extra-time", 11, timedelta(days=2, hours=12))
    assert '<tr data-deadline="extuntil"><td>extuntil</td><td>2026-01-11 12:00:00 UTC</td>' in section(data)

    from autograder.cli import main

    monkeypatch.chdir(ours)
    capsys.readouterr()
    assert main(["exceptions"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"extension  {ASSIGNMENT}  absent: due 2026-01-13 12:00:00 UTC (+3d)",
        f"extension  {ASSIGNMENT}  extby: due 2026-01-13 12:00:00 UTC (+3d)",
        f"extension  {ASSIGNMENT}  extuntil: due 2026-01-11 12:00:00 UTC (+1d)",
        "label      labelled: extra-time", f"override   {ASSIGNMENT}  late: {name} = {points:g}"]
    assert main(["exceptions", "--history"]) == 0
    history = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[2] for line in history] == ["extension"] * 3 + ["label", "override"]
    assert history[-1].endswith("-- dispute #12")

    # A score typed in the formgrader over the graders' (its REST handler sets the grade's manual score through
    # nbgrader's Gradebook, as here) is recorded as an override the first time a command reads the exceptions.
    with Gradebook(f"sqlite:///{ours}/gradebook.db") as gb:
        typed = gb.find_submission(ASSIGNMENT, "extby").notebooks[0].grades[0]
        typed_name, typed.manual_score = typed.name, 0.5
        gb.db.commit()
    assert [row.overrides for row in collect(ours, ASSIGNMENT).deadlines if row.student == "extby"] == [(typed_name,)]
    assert main(["exceptions"]) == 0
    assert f"override   {ASSIGNMENT}  extby: {typed_name} = 0.5" in capsys.readouterr().out.splitlines()
    assert main(["exceptions", "--history", "extby"]) == 0
    seen = capsys.readouterr().out.splitlines()[-1]
    assert "  formgrader  override  " in seen and "set in the formgrader" in seen and "records no reason" in seen
    assert main(["exceptions", "--history", "extby"]) == 0  # recorded once, not at every reading
    assert sum("formgrader" in line for line in capsys.readouterr().out.splitlines()) == 1
    assert main(["exceptions", "--history", "nobody"]) == 0
    assert capsys.readouterr().out == "no change to extensions, labels or overrides recorded\n"


@pytest.mark.parametrize("args, problem", [
    (("extend", ASSIGNMENT, "practice", "--until", "2026-01-09T12:00:00Z", "--reason", "x"), "is not after"),
    (("extend", ASSIGNMENT, "practice", "--by=-2d", "--reason", "x"), "negative duration"),
    (("extend", ASSIGNMENT, "practice", "--until", "1970-01-01T00:00:00Z", "--reason", "x"), "plausible"),
    (("extend", ASSIGNMENT, "practice", "nobody", "--by", "1d", "--reason", "x"), "unknown student 'nobody'"),
    (("extend", "hw9", "ontime", "--by", "1d", "--reason", "x"), "unknown assignment 'hw9'"),
    (("extend", ASSIGNMENT, "practice", "--by", "1d", "--reason", " "), "say why"),
    (("extend", ASSIGNMENT, "practice", "--revoke", "--reason", "x"), "no extension"),
    (("label", "practice", "--set", "sport", "--reason", "x"), "unknown label 'sport'"),
    (("override", ASSIGNMENT, "practice", "--cell", "test_sigmoid", "--score", "1", "--reason", "x"), "grade it first"),
])
def test_a_mistake_is_one_line_and_changes_nothing(course, args, problem, monkeypatch, capsys):
    from autograder.cli import main

    before = state(course)
    monkeypatch.chdir(course)  # the command run in-process, as the console script runs it, without its start-up
    assert main(list(args)) == 1
    err = capsys.readouterr().err
    assert problem in err and len(err.splitlines()) == 1, err
    assert state(course) == before


def state(course: Path) -> tuple:
    url = f"sqlite:///{course}/gradebook.db"
    return rows(url), [query(url, f"SELECT * FROM {table} ORDER BY 1") for table in
                       ("autograder_exception_event", "autograder_student_label", "autograder_score_override")]
