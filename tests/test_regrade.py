"""`autograder regrade` and the audit trail, end to end: the catalogue class graded by buggy graders, then
regraded after the bug is fixed, after a points value changes (with --no-decrease) and after a new check is
added. The students each diff lists are computed from the catalogue (the answers each change touches),
never written down; a dry run leaves the gradebook byte for byte as it was."""

import csv
import io
import re
import sqlite3
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import wrong_answers
from autograder.display.terminal import make_console, visible
from autograder.grades.stamps import os_user
from autograder.regrade import audit
from autograder.regrade.diff import Diff, ExerciseChange, StudentChange, csv_text, table
from tests.databases import query
from tests.grading_course import ASSIGNMENT, make_course, result, scores, submit, tree_digest
from tests.regrading import (
    BUG,
    MODIFIES_INPUT,
    NEW_CHECK,
    POINTS,
    catalogue_class,
    changed_graders,
    cli,
    with_misconception,
)

MANUAL = 5.0  # the instructor's score for the reference student's sigmoid cell


def table_rows(course: Path, done) -> dict[str, dict[str, str]]:
    assert done.returncode == 0, done.stderr
    path = course / re.search(r"table saved to (\S+)", done.stdout).group(1)
    with path.open(newline="") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def totals(graded: dict[str, dict[str, float]]) -> dict[str, float]:
    return {student: sum(cells.values()) for student, cells in graded.items()}


def sigmoid_counted(course: Path, student: str) -> bool:
    """Whether the student's sigmoid cell counted: its visible self-check passed (else nbgrader scores 0)."""
    cell = next(c for c in result(course, student)["cells"] if c["grade_id"] == "test_sigmoid")
    return not cell["visible_error"]


def test_regrade_lists_exactly_who_each_grader_change_affects(tmp_path):
    course = make_course(tmp_path / "course")
    plan = catalogue_class(course)
    first = cli(course, "grade", ASSIGNMENT, env=changed_graders(tmp_path / "buggy", BUG))
    assert first.returncode == 0 and f"graded {len(plan)}," in first.stdout, first.stderr
    graded = first_scores = scores(course)
    assert set(graded) == set(plan)

    # The bug costs the integer-input point to every sigmoid cell that counts: every answer that gets sigmoid
    # right (the catalogue's wrong sigmoid answers aside, and the blank notebook) and any other that passes
    # its self-check.
    wrong_sigmoid = {s for s, answers in plan.items() if any(a.exercise == "sigmoid" for a in answers)
                     and answers[0] in wrong_answers(ASSIGNMENT)}
    affected = {s for s in plan if sigmoid_counted(course, s)}
    assert set(plan) - wrong_sigmoid - {"blank"} <= affected and "blank" not in affected
    assert all(graded[s]["test_sigmoid"] == 6.0 for s in set(plan) - wrong_sigmoid - {"blank"})

    # The instructor graded one cell by hand and commented on an answer: both outlive every regrade.
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.find_grade("test_sigmoid", ASSIGNMENT, ASSIGNMENT, "reference").manual_score = MANUAL
        gb.find_comment("sigmoid", ASSIGNMENT, ASSIGNMENT, "reference").manual_comment = "see me"
        gb.db.commit()
    graded = scores(course)

    # --dry-run: the whole regrade, shown; the gradebook byte for byte and autograded/ as they were.
    database, autograded = course / "gradebook.db", course / "autograded"
    before_bytes, before_tree = database.read_bytes(), tree_digest(autograded)
    dry = cli(course, "regrade", ASSIGNMENT, "--dry-run")
    assert database.read_bytes() == before_bytes and tree_digest(autograded) == before_tree
    assert set(table_rows(course, dry)) == affected and "dry run: nothing was written" in dry.stdout

    # The fixed bug: exactly those students move, each by the integer-input check, and no one else.
    fixed = cli(course, "regrade", ASSIGNMENT)
    rows = table_rows(course, fixed)
    assert set(rows) == affected
    assert rows == table_rows(course, dry)  # the dry run showed what the real one did
    after = scores(course)
    for student in plan:
        gain = 1.0 if student in affected and student != "reference" else 0.0
        assert after[student] == {**graded[student], "test_sigmoid": graded[student]["test_sigmoid"] + gain}
    assert "sigmoid 6 → 7: integer_input 0/1 → 1/1" in rows["s23"]["exercises_and_checks"]
    assert rows["s23"]["score_before"] == "45" and rows["s23"]["score_after"] == "46"
    # The manual score stands (the total does not move) and is flagged: it disagrees with the graders now.
    assert rows["reference"]["change"] == "0" and "manual 5 ≠ new auto 7" in rows["reference"]["notes"]
    with Gradebook(f"sqlite:///{database}") as gb:
        grade = gb.find_grade("test_sigmoid", ASSIGNMENT, ASSIGNMENT, "reference")
        assert (grade.manual_score, grade.auto_score) == (MANUAL, 7.0)
        assert gb.find_comment("sigmoid", ASSIGNMENT, ASSIGNMENT, "reference").manual_comment == "see me"
    gained = len(affected) - 1
    assert f"{len(affected)} changed ({gained} gained, 0 lost), {len(plan) - len(affected)} unchanged" in fixed.stdout

    # A points value (--no-decrease): only the answers that modify their input lose, and keep their score.
    in_place = with_misconception(plan, "sigmoid", MODIFIES_INPUT)
    assert in_place
    kept = cli(course, "regrade", ASSIGNMENT, "--no-decrease", env=changed_graders(tmp_path / "points", POINTS))
    rows = table_rows(course, kept)
    assert set(rows) == in_place
    assert f"--no-decrease kept the higher score for {len(in_place)} student(s): {', '.join(sorted(in_place))}" \
        in kept.stdout
    assert all("kept 6, graders now 5" in rows[s]["notes"] for s in in_place)
    assert scores(course) == after  # no cell lowered (and none raised: this change only takes points)

    # A new check: the same answers fail it, and this time lose the point.
    added = cli(course, "regrade", ASSIGNMENT, env=changed_graders(tmp_path / "new-check", NEW_CHECK))
    rows = table_rows(course, added)
    assert set(rows) == in_place
    assert all("integer_valued_input_unmodified — → 0/1" in rows[s]["exercises_and_checks"] for s in in_place)
    final = scores(course)
    assert all(final[s]["test_sigmoid"] == after[s]["test_sigmoid"] - 1 for s in in_place)
    assert {s: final[s] for s in set(plan) - in_place} == {s: after[s] for s in set(plan) - in_place}

    # The audit trail: four runs (the dry run left none), who ran them, with which graders, and per
    # student the score before and after each.
    with sqlite3.connect(database) as db:
        runs = db.execute(f"SELECT id, kind, grader_version, options, os_user FROM {audit.RUN_TABLE} "
                          "ORDER BY started_at").fetchall()
        assert [r[1] for r in runs] == ["grade", "regrade", "regrade", "regrade"]
        assert len({r[2] for r in runs}) == 4  # the buggy, fixed, reweighted and extended graders
        assert runs[1][2] == audit.grader_version(ASSIGNMENT, course / "source" / ASSIGNMENT)  # this package's
        assert runs[2][3] == "--no-decrease" and {r[4] for r in runs} == {os_user()}
        trail = {(run, student): (before, after) for run, student, before, after in db.execute(
            f"SELECT run_id, student_id, score_before, score_after FROM {audit.SCORE_TABLE}")}
    assert {s: trail[(runs[0][0], s)] for s in plan} == {s: (None, t) for s, t in totals(first_scores).items()}
    assert {s: trail[(runs[1][0], s)] for s in plan} == {s: (totals(graded)[s], t) for s, t in totals(after).items()}
    assert {s: trail[(runs[3][0], s)] for s in plan} == {s: (totals(after)[s], t) for s, t in totals(final).items()}

    history = cli(course, "history", ASSIGNMENT)
    assert history.returncode == 0 and len(re.findall(r"UTC\s+regrade", history.stdout)) == 3
    assert "current scores come from 1 grader version(s)" in history.stdout
    student = sorted(in_place)[0]
    one = cli(course, "history", ASSIGNMENT, "--student", student)
    was, now = totals(after)[student], totals(final)[student]
    assert one.returncode == 0 and "first grade" in one.stdout and now == was - 1
    assert re.search(rf"UTC\s+regrade\s+\S+\s+{runs[3][2][:12]}\s+{was:g}\s+{now:g}\s+-1\n", one.stdout)

    # nbgrader's own commands still work on the gradebook the trail lives in.
    nbgrader(course, "export")
    with (course / "grades.csv").open() as file:
        exported = {row["student_id"]: float(row["score"]) for row in csv.DictReader(file)}
    assert exported == totals(final)


def test_no_decrease_keeps_the_better_of_two_gradings_of_the_same_notebook_only(tmp_path):
    """A notebook collected after the last grading is not the one its scores were given to: --no-decrease
    grades it afresh (the per-cell maximum of the two notebooks would beat both), and says so for that
    student; a student whose notebook is the same keeps the higher score, as before."""
    course = make_course(tmp_path / "course")
    wrong = {a.label: a for a in wrong_answers(ASSIGNMENT)}
    in_place = [a for a in wrong_answers(ASSIGNMENT) if a.exercise == "sigmoid" and a.hint == MODIFIES_INPUT]
    submit(course, "ada", [wrong["concat_weights/axis-0"]])  # concat_weights wrong, sigmoid right
    submit(course, "bob", in_place)
    assert cli(course, "grade", ASSIGNMENT).returncode == 0
    graded = scores(course)
    assert graded["ada"]["test_concat_weights"] == 0.0 and graded["ada"]["test_sigmoid"] == 7.0

    submit(course, "ada", in_place)  # collected later: concat_weights right, sigmoid modifies its input
    done = cli(course, "regrade", ASSIGNMENT, "--no-decrease", env=changed_graders(tmp_path / "points", POINTS))
    rows = table_rows(course, done)
    after = scores(course)
    # The second notebook's own grading: concat_weights full, sigmoid 5 under the reweighted graders ...
    assert after["ada"]["test_concat_weights"] == 6.0 and after["ada"]["test_sigmoid"] == 5.0
    # ... not the cell-by-cell maximum of both notebooks, which neither earned.
    mixed = {cell: max(graded["ada"][cell], after["ada"][cell]) for cell in graded["ada"]}
    assert sum(mixed.values()) > max(sum(graded["ada"].values()), sum(after["ada"].values()))
    assert "not the notebook graded before, new grading stands" in rows["ada"]["notes"]
    assert "kept" not in rows["ada"]["notes"].replace("new grading stands", "")
    assert ("--no-decrease kept nothing for 1 student(s) whose notebook is not the one graded before "
            "(the new grading stands): ada") in done.stdout
    # bob's notebook is the one graded: the regrade only ever helps it.
    assert after["bob"] == graded["bob"] and "kept 6, graders now 5" in rows["bob"]["notes"]
    assert "--no-decrease kept the higher score for 1 student(s): bob" in done.stdout


def test_regrade_user_mistakes_are_one_line(tmp_path):
    course = make_course(tmp_path / "course")
    submit(course, "ada")
    assert cli(course, "grade", ASSIGNMENT).returncode == 0
    for args, message in ((["regrade", ASSIGNMENT, "--student", "zed"], "not graded yet in"),
                          (["regrade", "no_such_assignment"], "no assignment"),
                          (["regrade", ASSIGNMENT, "--student", "../ada"], "not a valid student id")):
        done = cli(course, *args)
        assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert message in done.stderr


def test_grade_says_regrade_when_the_graders_changed_since_the_skipped_students_were_graded(tmp_path):
    course = make_course(tmp_path / "course")
    submit(course, "ada")
    submit(course, "bob")
    assert cli(course, "grade", ASSIGNMENT).returncode == 0
    unchanged = cli(course, "grade", ASSIGNMENT)
    assert "skipped 2 (already graded)" in unchanged.stdout and "graders changed" not in unchanged.stdout

    submit(course, "cyd")  # a first submission, graded by the changed graders: not one of those to regrade
    changed = cli(course, "grade", ASSIGNMENT, env=changed_graders(tmp_path / "changed", BUG))
    assert changed.returncode == 0, changed.stderr
    assert "graded 1, " in changed.stdout and "skipped 2 (already graded)" in changed.stdout
    note = f"graders changed since these were graded (2 of the 2 skipped): `autograder regrade {ASSIGNMENT}`"
    assert note in changed.stdout, changed.stdout


HOSTILE = "\x1b[2J\x1b[31mevil\r=HYPERLINK(\"http://x\")\u202e"


def test_the_diff_shows_student_ids_as_text_and_keeps_formulas_out_of_the_csv():
    change = ExerciseChange("sigmoid", 6.0, 7.0, 7.0, None)
    diff = Diff([StudentChange(HOSTILE, 45.0, 46.0, (change,)), StudentChange("=1+2", 40.0, 46.0, (change,))],
                unchanged=3)
    out = io.StringIO()
    make_console(out).print(table(diff, f"regrade of {HOSTILE}"))
    printed = out.getvalue()
    assert "\x1b" not in printed and "\r" not in printed and "\u202e" not in printed
    assert "\\x1b[2J\\x1b[31mevil\\r=HYPERLINK" in printed and "\\u202e" in printed
    rows = list(csv.reader(io.StringIO(csv_text(diff))))
    # Control characters written out as the terminal shows them; a cell a spreadsheet would run, kept as text.
    assert [row[0] for row in rows[1:]] == [visible(HOSTILE), "'=1+2"]


def test_regrade_on_a_server_gradebook_and_a_class_of_mixed_graders(tmp_path, postgres):
    url = postgres.url(postgres.create_database())
    course = make_course(tmp_path / "course", f"c.CourseDirectory.db_url = {url!r}")
    in_place = [a for a in wrong_answers(ASSIGNMENT) if a.exercise == "sigmoid" and a.hint == MODIFIES_INPUT]
    submit(course, "ada")
    submit(course, "bob", in_place)
    submit(course, "cyd", [wrong_answers(ASSIGNMENT)[0]])
    assert cli(course, "grade", ASSIGNMENT).returncode == 0
    points = changed_graders(tmp_path / "points", POINTS)

    tables = [name for (name,) in query(url, "SELECT table_name FROM information_schema.tables "
                                             "WHERE table_schema = 'public'")]
    assert audit.RUN_TABLE in tables and audit.SCORE_TABLE in tables

    def everything() -> dict[str, list[str]]:
        return {name: sorted(map(repr, query(url, f"SELECT * FROM {name}"))) for name in tables}

    before, tree = everything(), tree_digest(course / "autograded")
    dry = cli(course, "regrade", ASSIGNMENT, "--dry-run", env=points)
    assert set(table_rows(course, dry)) == {"bob"}
    assert everything() == before and tree_digest(course / "autograded") == tree
    assert not (course / "gradebook.db").exists()

    done = cli(course, "regrade", ASSIGNMENT, "--student", "bob", env=points)
    assert set(table_rows(course, done)) == {"bob"} and scores(course)["bob"]["test_sigmoid"] == 5.0
    runs = query(url, f"SELECT kind, options FROM {audit.RUN_TABLE} ORDER BY started_at")
    assert runs == [("grade", ""), ("regrade", "--student bob")]

    # bob is scored by the changed graders, ada and cyd by this package's: the report says so.
    report = cli(course, "report", ASSIGNMENT)
    assert report.returncode == 0, report.stderr
    assert "2 (MIXED); 1 students scored by other graders than the current ones" in report.stdout
    page = (course / "reports" / f"{ASSIGNMENT}.html").read_text()
    assert 'data-metric="mixed-versions">Mixed: this class was scored by 2 different grader versions.' in page
    nbgrader(course, "export")
    with (course / "grades.csv").open() as file:
        assert {row["student_id"]: float(row["score"]) for row in csv.DictReader(file)} == totals(scores(course))


def test_push_after_a_regrade_sends_only_the_grades_that_changed(tmp_path):
    from tests.lms.canvas_fixture import FakeCanvas

    course = make_course(tmp_path / "course")
    in_place = [a for a in wrong_answers(ASSIGNMENT) if a.exercise == "sigmoid" and a.hint == MODIFIES_INPUT]
    submit(course, "ada")
    submit(course, "bob", in_place)
    submit(course, "cyd", [wrong_answers(ASSIGNMENT)[0]])
    assert cli(course, "grade", ASSIGNMENT).returncode == 0
    (course / "roster.csv").write_text("id,first_name,last_name,email,lms_user_id\n"
                                       "ada,Ada,Lovelace,ada@uni.example,1001\nbob,Bob,Babbage,bob@uni.example,1002\n"
                                       "cyd,Cyd,Charisse,cyd@uni.example,1003\n")
    assert cli(course, "roster", "import", "roster.csv").returncode == 0
    token = "canvas-test-token-Rg18"
    with FakeCanvas(token, 77, {501: 46}, ["1001", "1002", "1003"]) as canvas:
        (course / "lms.toml").write_text(f'[canvas]\nurl = "{canvas.base}"\ncourse_id = 77\n'
                                         f"[canvas.assignments]\n{ASSIGNMENT} = 501\n")
        env = {"CANVAS_API_TOKEN": token}
        push = cli(course, "push", ASSIGNMENT, "--to", "canvas", env=env)
        assert push.returncode == 0, push.stderr
        assert set(canvas.bulk_posts[0]) == {"1001", "1002", "1003"}
        regraded = cli(course, "regrade", ASSIGNMENT, env=changed_graders(tmp_path / "points", POINTS))
        assert set(table_rows(course, regraded)) == {"bob"}
        push = cli(course, "push", ASSIGNMENT, "--to", "canvas", env=env)
        assert push.returncode == 0, push.stderr
        assert len(canvas.bulk_posts) == 2 and list(canvas.bulk_posts[1]) == ["1002"]
        assert canvas.bulk_posts[1]["1002"]["posted_grade"] == f"{totals(scores(course))['bob']:g}"
        again = cli(course, "push", ASSIGNMENT, "--to", "canvas", env=env)
        assert again.returncode == 0 and len(canvas.bulk_posts) == 2  # nothing left to send
        assert canvas.violations == []
