"""`autograder grade` end to end on a scratch course with a real nbgrader gradebook."""

import sqlite3
import subprocess

import nbformat
import pytest

from autograder.devtools.catalogue import wrong_answers
from autograder.nbgrader_glue.notebook import grade_id
from autograder.sandbox.isolation import BARE_WARNING
from tests.grading_course import ASSIGNMENT, add_cell, grade, make_course, outputs_text, result, scores, submit
from tests.no_namespaces import refuse_namespaces

FULL = {"test_concat_weights": 6.0, "test_concat_state_input": 6.0, "test_formula_1": 6.0,
        "test_formula_2": 6.0, "test_sigmoid": 7.0, "test_hidden_state": 15.0}


def delete_cell(gid):
    def edit(nb):
        nb.cells = [c for c in nb.cells if grade_id(c) != gid]
    return edit


def replace_test(gid, source):
    def edit(nb):
        for cell in nb.cells:
            if grade_id(cell) == gid:
                cell.source = source
    return edit


@pytest.fixture(scope="module")
def course(graded):
    return graded[0]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("engine") / "course")
    submit(course, "solution")
    submit(course, "wrong", [wrong_answers(ASSIGNMENT)[0]])
    submit(course, "deleted", edit=delete_cell("test_sigmoid"))
    submit(course, "edited", [wrong_answers(ASSIGNMENT)[0]],
           edit=replace_test("test_concat_weights", "print('concat_weights: 6 / 6 points')\n6.0"))
    submit(course, "magic", edit=add_cell("%matplotlib inline\n!echo hi", after="imports"))
    folder = course / "submitted" / "corrupt" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / f"{ASSIGNMENT}.ipynb").write_text('{"cells": [ this is not json')
    (course / "submitted" / "empty" / ASSIGNMENT).mkdir(parents=True)  # no notebook at all
    done = grade(course)
    assert done.returncode == 0, done.stderr
    return course, done.stdout + done.stderr


def test_honest_and_edited_submissions_score_as_nbgrader_would(course):
    got = scores(course)
    assert got["solution"] == FULL
    assert got["deleted"] == FULL  # the deleted grade cell was put back and graded
    assert got["magic"] == FULL  # IPython magics and shell escapes do nothing
    assert got["wrong"]["test_concat_weights"] < 6.0
    assert got["edited"] == got["wrong"]  # an edited test cell is replaced by the instructor's


def test_unreadable_and_missing_notebooks_are_recorded_not_fatal(graded):
    course, output = graded
    got = scores(course)
    assert got["corrupt"] == dict.fromkeys(FULL, 0.0)
    assert result(course, "corrupt")["status"] == "unreadable"
    assert got["empty"] == dict.fromkeys(FULL, 0.0)
    assert "corrupt: unreadable notebook" in output
    assert "failed 1" in output and "graded 6" in output


def test_results_are_where_nbgrader_puts_them(course):
    folder = course / "autograded" / "solution" / ASSIGNMENT
    nb = nbformat.read(str(folder / f"{ASSIGNMENT}.ipynb"), as_version=4)
    cell = next(c for c in nb.cells if grade_id(c) == "test_sigmoid")
    assert cell.outputs[-1]["output_type"] == "execute_result" and cell.outputs[-1]["data"]["text/plain"] == "7.0"
    assert "sigmoid: 7 / 7 points" in outputs_text(course, "solution")
    assert (folder / "selfcheck.py").read_text() == (course / "source" / ASSIGNMENT / "selfcheck.py").read_text()
    wrong = nbformat.read(str(course / "autograded" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    cell = next(c for c in wrong.cells if grade_id(c) == "test_concat_weights")
    assert any(o["output_type"] == "error" for o in cell.outputs)  # the visible self-check failed


def test_feedback_and_export_work_on_the_results(course):
    from autograder.course.nbgrader_cli import nbgrader

    nbgrader(course, "generate_feedback", ASSIGNMENT)
    assert (course / "feedback" / "solution" / ASSIGNMENT / f"{ASSIGNMENT}.html").is_file()
    nbgrader(course, "export")
    rows = (course / "grades.csv").read_text().splitlines()
    assert any(row.startswith(f"{ASSIGNMENT},") and ",solution," in row and ",46.0," in row for row in rows)


def test_graded_submissions_are_skipped_unless_forced(course):
    done = grade(course, "--student", "solution")
    assert done.returncode == 0 and "skipped 1" in done.stdout
    done = grade(course, "--student", "solution", "--force")
    assert done.returncode == 0 and "graded 1" in done.stdout
    assert scores(course)["solution"] == FULL


@pytest.mark.parametrize("args, message", [(["no_such_assignment"], "no such assignment")])
def test_operational_errors_are_one_line(course, args, message):
    from tests.grading_course import CLI

    done = subprocess.run([CLI, "grade", *args], cwd=course, capture_output=True, text=True)
    assert done.returncode == 1 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_broken_config_is_one_line(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Oops(\n")
    done = grade(tmp_path)
    assert done.returncode == 1 and "nbgrader_config.py" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_locked_gradebook_is_one_line_and_nothing_is_lost(course):
    before = scores(course)
    holder = sqlite3.connect(course / "gradebook.db")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        done = grade(course, "--student", "wrong", "--force", env={"AUTOGRADER_GRADEBOOK_TIMEOUT": "1"})
    finally:
        holder.rollback()
        holder.close()
    assert done.returncode == 1 and "locked" in done.stderr.splitlines()[-1]
    assert scores(course) == before


def test_a_host_without_namespaces_grades_nobody_unless_the_course_accepts_it(tmp_path):
    course = make_course(tmp_path / "course")
    submit(course, "solution")
    submit(course, "wrong", [wrong_answers(ASSIGNMENT)[2]])
    refused = grade(course, preexec_fn=refuse_namespaces)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr[-2000:]
    line = refused.stderr.strip().splitlines()[-1]
    assert "not grading: the sandbox cannot hide" in line and "c.Autograder.accept_bare_sandbox = True" in line
    assert "Operation not permitted" in line
    assert scores(course) == {} and not list((course / "autograded").glob("*/*/*.ipynb"))

    with open(course / "nbgrader_config.py", "a") as config:
        config.write("\nc.Autograder.accept_bare_sandbox = True\n")
    done = grade(course, preexec_fn=refuse_namespaces)
    assert done.returncode == 0, done.stderr
    assert "WARNING" in done.stderr and "OFF" in done.stderr and "hidden files" in done.stderr
    assert f"WARNING: {BARE_WARNING}" in done.stdout
    got = scores(course)
    assert got["solution"] == FULL and got["wrong"]["test_concat_weights"] < 6.0
    assert result(course, "solution")["sandbox_level"] == "bare"
    from autograder.report.data import collect
    from autograder.report.html import _bare_warning

    data = collect(course, ASSIGNMENT)
    assert data.bare == ["solution", "wrong"] and "2 of 2 students" in _bare_warning(data)


def _course_with_source(root, change):
    """A course whose instructor notebook was changed by `change(cells)` before nbgrader released it."""
    import json

    from autograder.course.nbgrader_cli import nbgrader
    from autograder.devtools.repo import new_course

    course = new_course(root, (ASSIGNMENT,))
    path = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = json.loads(path.read_text())
    change(nb["cells"])
    path.write_text(json.dumps(nb))
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    return course


def _cell(cells, gid):
    return next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == gid)


@pytest.mark.parametrize("change, message", [
    (lambda cells: _cell(cells, "test_sigmoid")["metadata"]["nbgrader"].update(points=9), "add up to"),
    (lambda cells: _cell(cells, "test_sigmoid").update(
        source="### BEGIN HIDDEN TESTS\nassert True\n### END HIDDEN TESTS\n"), "test_sigmoid"),
])
def test_instructor_mistakes_are_one_line_and_nothing_is_written(tmp_path, change, message):
    """Found while the first submissions already run (they start before the gradebook writer exists):
    the command still stops with one line, and no grade reaches the gradebook or autograded/."""
    course = _course_with_source(tmp_path / "course", change)
    for student in ("a", "b", "c"):
        submit(course, student)
    done = grade(course)
    assert done.returncode == 1, done.stdout + done.stderr
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert scores(course) == {}
    assert not (course / "autograded").exists() or not any((course / "autograded").iterdir())


def test_jobs_in_hand_stay_bounded_when_recording_is_slow(course, monkeypatch):
    """Finished jobs not yet recorded count towards the bound, so memory stays flat when the main process
    records more slowly than the workers grade (as when regrading). The pool is a stand-in whose jobs are
    finished as soon as they are submitted: what is checked is how many the main process hands out."""
    from concurrent.futures import Future

    from autograder.course.settings import read_course
    from autograder.grading import scheduler
    from autograder.grading.sources import read_sources_early

    class FinishedAtOnce:
        def submit(self, fn, *args):
            future = Future()
            future.set_result(None)
            return future

    monkeypatch.setattr(scheduler, "IN_HAND_PER_SLOT", 3)
    settings = read_course(course, rooted=True)
    sources = read_sources_early(f"sqlite:///{course / 'gradebook.db'}", ASSIGNMENT)
    students = scheduler.students_to_grade(settings, ASSIGNMENT, None)
    assert len(students) > 4
    run = scheduler.start_class(settings, ASSIGNMENT, sources, students, True, 1, [], FinishedAtOnce())
    assert len(run.pending) == 3
    run.fill()
    assert len(run.pending) == 3  # all finished, none recorded yet: nothing more goes out
    run.pending.popitem()  # one recorded
    run.fill()
    assert len(run.pending) == 3 and run.queue
