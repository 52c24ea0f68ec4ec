"""The visible self-check's verdict comes from the trusted side: a submission that fakes the check in its own
process (patched NumPy, a patched or replaced `selfcheck`, a swallowed AssertionError, a function that lies
only to the check) still scores 0 in every cell whose check its answers fail, while the hidden graders gave
those answers some points; honest answers score as before, and their checks are planned calls."""

import json
import time
from pathlib import Path

import numpy as np
import pytest

from autograder.course.settings import read_course
from autograder.devtools.catalogue import Answer, write_submission, wrong_answers
from autograder.devtools.repo import ROOT
from autograder.grading import instructor, prepare
from autograder.grading.self_check.stage import TrustedSelfCheck
from autograder.grading.self_check.trustedcheck import CheckCall, Name, TrustedChecks, parse
from autograder.grading.submission import grade_submission
from autograder.grading.writer import GradebookWriter
from autograder.sandbox.limits import Limits
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.planned import planned_call
from autograder.sandbox.sandbox_errors import BoundaryError
from autograder.sandbox.sandboxed_student import SandboxedStudent
from autograder.sandbox.zygote_handle import Zygote
from tests.conftest import CATALOGUED
from tests.grading_course import ASSIGNMENT, grade, make_course, outputs_text, result, scores, submit

FULL = {"test_concat_weights": 6.0, "test_concat_state_input": 6.0, "test_formula_1": 6.0,
        "test_formula_2": 6.0, "test_sigmoid": 7.0, "test_hidden_state": 15.0}
# One wrong answer per exercise whose self-check fails, and to which the hidden graders still give a point
# or two (the "inputs unmodified" checks): a faked self-check would let the cell keep them.
ALL_WRONG = ["concat_weights/axis-0", "concat_state_input/axis-1", "formula_1/blocks-swapped",
             "formula_2/inputs-swapped", "sigmoid/sign-flipped", "hidden_state/no-activation"]

RIGHT_WHEN_CHECKED = '''
import sys
class Liar:
    """Right when the self-check in this process calls it, wrong otherwise."""
    def __init__(self, wrong, right):
        self.wrong, self.right = wrong, right
    def __call__(self, *args, **kwargs):
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename.endswith("selfcheck.py"):
                return self.right(*args, **kwargs)
            frame = frame.f_back
        return self.wrong(*args, **kwargs)
'''

ATTACKS = {
    "patches_allclose": "import numpy as np\nnp.allclose = lambda *a, **k: True\n",
    "patches_selfcheck": "import selfcheck\nselfcheck._call = lambda f, *a, **k: None\n"
                         "selfcheck._expect = lambda *a, **k: None\n"
                         "for name in selfcheck.__all__:\n    setattr(selfcheck, name, lambda f: None)\n",
    # The runtime runs each cell with the builtin exec: wrapped, it swallows the check's AssertionError.
    "swallows_assertion": "import builtins\n_exec = builtins.exec\n"
                          "def _quiet(*a, **k):\n    try:\n        return _exec(*a, **k)\n"
                          "    except Exception:\n        return None\nbuiltins.exec = _quiet\n",
    "replaces_selfcheck": "import sys, types\nselfcheck = types.ModuleType('selfcheck')\n"
                          "selfcheck.__getattr__ = lambda name: (lambda *a, **k: None)\n"
                          "sys.modules['selfcheck'] = selfcheck\n",
}


# Real code that returns an array of Python objects (np.frompyfunc), which cannot cross back to the grader.
OBJECT_DTYPE = ("import numpy as np\n"
                "def concat_weights(w_hh, w_hx):\n"
                "    return np.frompyfunc(lambda v: v, 1, 1)(np.hstack((w_hh, w_hx)))\n")


def wrong(label: str) -> Answer:
    return next(a for a in wrong_answers(ASSIGNMENT) if a.label == label)


def all_wrong(attack: str = "") -> list[Answer]:
    answers = [wrong(label) for label in ALL_WRONG]
    first = answers[0]
    return [Answer(first.exercise, "attack", f"{attack}\n{first.code}"), *answers[1:]]


def lying() -> list[Answer]:
    """All wrong, concat_weights and formula_1 lying to the check (right only when it calls them)."""
    answers = all_wrong(RIGHT_WHEN_CHECKED)
    answers[0] = Answer("concat_weights", "liar", answers[0].code + "\nconcat_weights = Liar(concat_weights, "
                        "lambda w_hh, w_hx: np.hstack((w_hh, w_hx)))")
    answers[2] = Answer("formula_1", "liar", answers[2].code + "\nformula_1 = Liar(formula_1, lambda w_hh, w_hx, "
                        "h, x: np.hstack((w_hh, w_hx)) @ np.vstack((h, x)))")
    return answers


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("trusted") / "course")
    submit(course, "solution")
    submit(course, "all_wrong", all_wrong())
    for name, code in ATTACKS.items():
        submit(course, name, all_wrong(code))
    submit(course, "lies_to_the_check", lying())
    submit(course, "object_dtype", [Answer("concat_weights", "object-dtype", OBJECT_DTYPE)])
    done = grade(course)
    assert done.returncode == 0, done.stderr[-2000:]
    return course


def tracebacks(course: Path, student: str) -> str:
    """The error tracebacks of the autograded notebook: what the feedback shows for a failed cell."""
    nb = json.loads((course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    return "\n".join(line for cell in nb["cells"] for out in cell.get("outputs", [])
                     for line in out.get("traceback", []))


def hidden_points(course: Path, student: str, cells: set[str] | None = None) -> float:
    """What the hidden graders gave the answers: the points the cells keep if their self-checks pass."""
    return sum(case["earned"] for c in result(course, student)["cells"] if cells is None or c["grade_id"] in cells
               for case in c["exercise"]["cases"])


def test_honest_answers_keep_full_marks_and_their_output_shows_once(graded):
    assert scores(graded)["solution"] == FULL
    text = outputs_text(graded, "solution")
    assert text.count("passes the self-check") == len(FULL)
    assert "outside your notebook's process" not in tracebacks(graded, "solution")


def test_all_wrong_answers_score_zero(graded):
    assert set(scores(graded)["all_wrong"].values()) == {0.0}
    assert hidden_points(graded, "all_wrong") >= len(FULL)  # the graders' points that the checks take away


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_faking_the_self_check_in_the_process_still_scores_zero(graded, attack):
    got = scores(graded)[attack]
    assert got == dict.fromkeys(FULL, 0.0), got
    assert hidden_points(graded, attack) >= len(FULL)
    # Its own run of a check passed; the feedback says the grader's run failed.
    assert "outside your notebook's process" in tracebacks(graded, attack)


def test_a_function_that_lies_only_to_the_check_scores_zero(graded):
    got = scores(graded)["lies_to_the_check"]
    assert got["test_concat_weights"] == 0.0 and got["test_formula_1"] == 0.0
    assert hidden_points(graded, "lies_to_the_check", {"test_concat_weights", "test_formula_1"}) >= 2


def test_an_unsendable_answer_is_explained_by_its_dtype_not_by_a_line_of_the_grader(graded):
    text = tracebacks(graded, "object_dtype")
    assert "concat_weights returned an array of dtype object" in text and ".astype(float)" in text
    assert "_send_call" not in text and "StudentError" not in text and "in your code" not in text


def test_parse_takes_only_plain_calls_of_module_functions_on_names():
    assert parse("selfcheck.check_formula_1(formula_1)") == (
        CheckCall("selfcheck", "check_formula_1", (Name("formula_1"),), ()),)
    assert parse("m.check(f, 3, g=h)\nm.other(f)") == (
        CheckCall("m", "check", (Name("f"), 3), (("g", Name("h")),)), CheckCall("m", "other", (Name("f"),), ()))
    for text in ["check(f)", "m._private(f)", "m.check(f(1))", "m.check(*fs)", "m.check(**kw)", "x = m.check(f)",
                 "m.check(f)\nprint(1)", "a.b.check(f)", "m.check(lambda: 1)", "", "m.check(f"]:
        assert parse(text) is None, text


@pytest.mark.parametrize("assignment", CATALOGUED)
def test_every_grade_cell_of_the_course_is_checked_on_the_trusted_side_as_planned(assignment, tmp_path, zygote):
    course = make_course(tmp_path / "course", assignment=assignment)
    write_submission(assignment, course / "submitted" / "solution" / assignment, [],
                     release=course / "release" / assignment)
    settings = read_course(course, rooted=True)
    writer = GradebookWriter(settings.db_url, settings.course_id)
    sources = writer.source_notebooks(assignment)
    modules, preload = instructor.instructor_files(settings, sources, assignment)
    writer.close()
    job = prepare.prepare(settings, sources, modules, assignment, "solution", preload).job
    cells = [c for nb in job.notebooks for c in nb.cells if c.kind == "test"]
    self_check = TrustedSelfCheck(job)
    assert cells and all(self_check.check_calls(cell) for cell in cells)  # a lambda in a check would drop it
    outcome = grade_submission(job, zygote)
    assert outcome.regraded == 0 and outcome.result.score == outcome.result.max_score


@pytest.fixture(scope="module")
def zygote():
    with Zygote() as z:
        yield z


def test_an_instructor_function_crosses_by_name_and_resolves_in_the_sandbox_copy(zygote):
    source = (ROOT / "source" / ASSIGNMENT / "selfcheck.py").read_text()
    checks = TrustedChecks({"selfcheck": source})
    identity = checks.module("selfcheck").identity
    sandbox = zygote.spawn(Limits())
    try:
        sandbox.send_modules({"selfcheck": source})
        sandbox.run_cell("import selfcheck\ndef f(z, g):\n    return [g(z), g is selfcheck.identity]", 10,
                         OutputBudget(10**5))
        student = SandboxedStudent(sandbox, time.monotonic() + 10, None, checks.functions)
        value, same = student.f(np.arange(3.0), g=identity)
        assert np.array_equal(value, np.arange(3.0)) and same is True
        with pytest.raises(BoundaryError):
            student.f(np.arange(3.0), g=lambda z: z)
    finally:
        sandbox.close()
    # A zygote decodes the calls it holds knowing only the activations: such a call is sent in full.
    planned = planned_call("f", (np.arange(3.0),), {"g": identity}, "g", functions=checks.functions)
    plain = planned_call("f", (np.arange(3.0),), {}, "g", functions=checks.functions)
    assert planned.key is None and plain.key is not None
