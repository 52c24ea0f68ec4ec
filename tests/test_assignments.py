"""Each assignment end to end through the real nbgrader: release, autograde, feedback, validate."""

import filecmp
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import nbformat
import pytest

from autograder.authoring.release_from_source import generate_release
from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import Answer, catalogue_problems, correct_answers, solution_sources, wrong_answers
from autograder.devtools.repo import ROOT
from autograder.grader_support.exercise import collect, max_score, run_exercise
from autograder.grader_support.student import InProcessStudent
from autograder.nbgrader_glue.notebook import grade_id, is_test_cell, load_namespace, nbgrader_meta
from tests.conftest import ASSIGNMENTS, CATALOGUED
from tests.grading_course import make_course

every = pytest.mark.parametrize("assignment", ASSIGNMENTS)  # every assignment discovered in source/
catalogued = pytest.mark.parametrize("assignment", CATALOGUED)  # those with answers to grade a class of


def source_notebook(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(str(ROOT / "source" / assignment / f"{assignment}.ipynb"), as_version=4)


@every
def test_autograder_check_finds_nothing_missing(assignment):
    """Everything the framework needs of an assignment, as an author would check it (`autograder check`)."""
    done = subprocess.run([str(Path(sys.executable).parent / "autograder"), "check", assignment], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "FAIL" not in done.stdout, done.stdout + done.stderr[-2000:]
    assert done.stdout.count(f"{assignment}: ok") >= 3, done.stdout


@every
def test_release_is_what_nbgrader_generates_from_source(assignment, tmp_path):
    generate_release(tmp_path, (assignment,), ROOT)
    comparison = filecmp.dircmp(tmp_path / assignment, ROOT / "release" / assignment)
    assert not (comparison.left_only or comparison.right_only), "release/ has different files: run make release"
    _, mismatch, errors = filecmp.cmpfiles(tmp_path / assignment, ROOT / "release" / assignment,
                                           comparison.common_files, shallow=False)
    assert not mismatch and not errors, f"release/{assignment} is stale ({mismatch}): run make release"


@every
def test_release_holds_no_solution_hidden_test_or_grader(assignment):
    release = ROOT / "release" / assignment
    text = "\n".join(path.read_text() for path in release.rglob("*") if path.is_file())
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "autograder", "from autograder"):
        assert marker not in text, f"release/{assignment} contains {marker!r}"
    names = {path.name for path in release.rglob("*")}
    assert names == {f"{assignment}.ipynb", "selfcheck.py"}
    # No line of any reference answer survives into the student's notebook (beyond the def and return).
    for answer in solution_sources(assignment).values():
        for line in answer.splitlines():
            body = line.strip()
            if body and not body.startswith(("def ", "return ", "#", '"""', "###")) and "=" in body:
                assert body not in text, f"solution line leaked into release: {body}"


@every
def test_every_exercise_has_a_solution_cell_and_a_grade_cell_worth_its_graders(assignment):
    cells = source_notebook(assignment).cells
    solutions = [grade_id(c) for c in cells if nbgrader_meta(c).get("solution") and c.cell_type == "code"]
    tests = {grade_id(c): nbgrader_meta(c)["points"] for c in cells if is_test_cell(c)}
    assert solutions, "no exercises"
    # A written answer (a markdown solution cell) is graded by hand: a grade cell with points, and no graders.
    for cell in [c for c in cells if nbgrader_meta(c).get("solution") and c.cell_type == "markdown"]:
        assert nbgrader_meta(cell).get("grade") and nbgrader_meta(cell)["points"] > 0, grade_id(cell)
        graders = ROOT / "autograder" / "graders" / assignment / f"test_{grade_id(cell)}.py"
        assert not graders.exists(), f"graders for the written answer {grade_id(cell)}"
    for exercise in solutions:
        assert collect(assignment, exercise), f"no graders for {exercise}"
        assert tests[f"test_{exercise}"] == max_score(assignment, exercise)
    first_code = next(c for c in cells if c.cell_type == "code")
    assert "import numpy as np" in first_code.source


@every
def test_source_notebook_has_no_outputs(assignment):
    for cell in source_notebook(assignment).cells:
        assert not cell.get("outputs") and cell.get("execution_count") is None


@catalogued
def test_catalogue_has_two_correct_answers_per_exercise_and_wrong_ones(assignment):
    """This repository's test corpus (`autograder check` is the same for every course and leaves it out)."""
    assert catalogue_problems(assignment) == []


def test_catalogue_problems_name_a_thin_exercise_a_missing_wrong_answer_and_a_stray_one(monkeypatch):
    from autograder.devtools import catalogue

    assignment = CATALOGUED[0]
    first, *_ = solution_sources(assignment)
    thin = [a for a in correct_answers(assignment) if a.exercise != first][:1] + [Answer("nowhere", "x", "")]
    monkeypatch.setattr(catalogue, "correct_answers", lambda _: thin)
    monkeypatch.setattr(catalogue, "wrong_answers", lambda _: [])
    problems = catalogue_problems(assignment)
    assert f"{first}: 0 correct answers, at least two needed" in problems
    assert "no wrong answers" in problems
    assert "answers to exercises the notebook lacks: nowhere" in problems


@catalogued
def test_solution_scores_full_marks(assignment, graded_classes):
    graded = graded_classes[assignment]
    scores = graded.scores["solution"]
    full = {c: max_score(assignment, c.removeprefix("test_")) for c in scores}
    assert scores == full


@catalogued
def test_unmodified_release_scores_zero(assignment, graded_classes):
    scores = graded_classes[assignment].scores["blank"]
    assert scores and all(score == 0 for score in scores.values())


def answered(graded, wanted) -> list[tuple[str, object]]:
    """Each (student, answer) of the class whose answer is one of `wanted`."""
    labels = {answer.label for answer in wanted}
    return [(student, answer) for student, answers in graded.answers.items() for answer in answers
            if answer.label in labels]


@catalogued
def test_every_correct_alternative_scores_full_marks(assignment, graded_classes):
    graded = graded_classes[assignment]
    answers = correct_answers(assignment)
    assert len(answers) >= 2 * len(solution_sources(assignment)), "at least two alternatives per function"
    found = answered(graded, answers)
    assert {answer.label for _, answer in found} == {answer.label for answer in answers}, "every one graded"
    failures = []
    for student, answer in found:
        cell = f"test_{answer.exercise}"
        if graded.scores[student][cell] != max_score(assignment, answer.exercise):
            failures.append(f"{student} {answer.label}: {graded.cell_output(student, cell)[:600]}")
    assert not failures, "\n\n".join(failures)


@catalogued
def test_every_wrong_answer_loses_points_and_its_feedback_names_the_mistake(assignment, graded_classes):
    graded = graded_classes[assignment]
    answers = wrong_answers(assignment)
    found = answered(graded, answers)
    assert {answer.label for _, answer in found} == {answer.label for answer in answers}, "every one graded"
    failures = []
    for student, answer in found:
        cell = f"test_{answer.exercise}"
        if graded.scores[student][cell] >= max_score(assignment, answer.exercise):
            failures.append(f"{student} {answer.label}: full marks for a wrong answer")
        elif answer.hint and not (f"hint [{answer.hint}]" in graded.cell_output(student, cell)
                                  and f"hint [{answer.hint}]" in graded.feedback_html(student)):
            failures.append(f"{student} {answer.label}: feedback lacks hint [{answer.hint}]:\n"
                            f"{graded.cell_output(student, cell)[:800]}")
    assert not failures, "\n\n".join(failures)


@catalogued
def test_one_mistake_costs_points_once(assignment, graded_classes):
    """Through nbgrader autograde (the equivalence test holds `autograder grade` to the same scores): a
    wrong answer loses points in its own exercise only, whatever else the notebook holds, and a correct answer
    built on a wrong one it calls keeps full marks, its feedback saying it was judged on its own."""
    graded = graded_classes[assignment]
    assert any(student.startswith("x") for student in graded.answers), "the catalogue has combinations"
    wrong_labels = {answer.label for answer in wrong_answers(assignment)}
    failures = []
    for student, answers in graded.answers.items():
        wrong = {answer.exercise for answer in answers if answer.label in wrong_labels}
        for cell, score in graded.scores[student].items():
            exercise = cell.removeprefix("test_")
            full = max_score(assignment, exercise)
            if exercise in wrong and score >= full:
                failures.append(f"{student} {[a.label for a in answers]}: full marks in {exercise}")
            elif exercise not in wrong and answers and score != full:
                failures.append(f"{student} {[a.label for a in answers]}: {exercise} {score}/{full}:\n"
                                f"{graded.cell_output(student, cell)[:600]}")
        if student.startswith("x"):
            dependent = f"test_{answers[1].exercise}"
            if "was judged on its own" not in graded.cell_output(student, dependent) and \
                    graded.scores["solution"] == graded.scores[student]:
                failures.append(f"{student}: no note that {answers[1].exercise} was judged on its own")
    assert not failures, "\n\n".join(failures)


@catalogued
def test_feedback_never_shows_hidden_tests(assignment, graded_classes):
    graded = graded_classes[assignment]
    packed = [student for student in graded.answers if student.startswith("p")]
    for student in ("solution", packed[0], packed[-1]):
        html = graded.feedback_html(student)
        assert "BEGIN HIDDEN TESTS" not in html and "autograder.nbgrader_glue.kernel" not in html


@every
def test_nbgrader_validate_passes_the_solution_and_fails_the_release(assignment, tmp_path):
    course = make_course(tmp_path, assignment=assignment)
    solution = nbgrader(course, "validate", f"source/{assignment}/{assignment}.ipynb", check=False)
    assert "Success! Your notebook passes all the tests." in solution.stdout, solution.stdout[-2000:]
    release = nbgrader(course, "validate", f"release/{assignment}/{assignment}.ipynb", check=False)
    assert "VALIDATION FAILED" in release.stdout, release.stdout[-2000:]


@catalogued
def test_pytest_graders_agree_with_the_fast_runner(assignment, graded_classes, tmp_path):
    """Instructors run the graders with pytest; the engine runs them without: same verdict for every case."""
    graded = graded_classes[assignment]
    wrong = {answer.label for answer in wrong_answers(assignment)}
    mixed = [s for s, answers in graded.answers.items() if {a.label for a in answers} & wrong][:2]
    for student in ("solution", "blank", "p000", *mixed):
        notebook = graded.courses[student] / "submitted" / student / assignment / f"{assignment}.ipynb"
        report = tmp_path / f"{student}.xml"
        # Without the plugins this suite installs for itself (xdist, Hypothesis, anyio), which no grader uses:
        # loading them was more than half of each run (2.6 -> 1.1 CPU-s). Ours loads as an instructor's would.
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p",
             "no:hypothesispytest", "-p", "no:anyio", f"autograder/graders/{assignment}",
             "--notebook", str(notebook), f"--junitxml={report}"],
            cwd=ROOT, capture_output=True, text=True)
        by_pytest = {
            (case.get("classname").rsplit(".test_", 1)[1], case.get("name").removeprefix("test_"),
             case.find("failure") is None and case.find("error") is None)
            for case in ElementTree.parse(report).iter("testcase")
        }
        student_fixture = InProcessStudent(load_namespace(notebook))
        by_runner = {
            (exercise, case.name, case.earned == case.points)
            for exercise in solution_sources(assignment)
            for case in run_exercise(assignment, exercise, student_fixture).cases
        }
        assert by_pytest == by_runner, f"{student}: {sorted(by_pytest ^ by_runner)[:6]}"
