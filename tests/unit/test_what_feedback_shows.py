"""What a hidden check may show (docs, "What the feedback reveals"): shapes, the problem in words, the
hint, an exception's type and the student's static line; never a value of the check, nor text the student's
code computed. And the feedback page keeps the graders' verdict and leaves out the code's own output."""

import linecache

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output
from traitlets.config import Config

from autograder.feedback.preprocessors import (
    GRADERS_ONLY,
    INERT_MARKDOWN,
    OWN_OUTPUT_NOTE,
    GradersOnly,
    with_graders_only,
)
from autograder.grader_support.checks import CheckFailed, check_array, check_number, plausible
from autograder.grader_support.dependencies import alone_note
from autograder.grader_support.exercise import GraderCase, run_case
from autograder.grader_support.raised import MAX_LINE, Raised, from_report
from autograder.grader_support.student import InProcessStudent, StudentError
from autograder.grader_support.verdict import TRUSTED_RUN_NOTE, verdict_output
from autograder.sandbox.replies import call_failure

SECRET = np.array([[0.7315926535897931, -1.2345678901234567], [2.718281828459045, 0.5772156649015329]])


def cell_function(source: str, name: str, number: int = 3):
    """`name` defined by `source` as a kernel defines it: compiled under a cell's name that linecache knows."""
    filename = f"<cell {number}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def raised_message(namespace: dict, name: str, *args) -> StudentError:
    with pytest.raises(StudentError) as caught:
        getattr(InProcessStudent(namespace), name)(*args)
    return caught.value


def test_an_exception_is_told_by_its_type_and_static_line_never_its_text():
    source = "def f(x):\n    y = x * 2\n    raise ValueError(f'the input was {x.tolist()}')\n"
    error = raised_message(cell_function(source, "f"), "f", SECRET)
    assert str(error) == ("f raised ValueError, at line 3 of `f` (cell 3): "
                          "raise ValueError(f'the input was {x.tolist()}')")
    assert "0.7315" not in str(error) and "0.7315" in error.text  # kept to match a library's words, never shown


def test_a_type_of_its_own_or_made_at_run_time_is_not_named():
    source = ("def f(x):\n    kind = type('Leak' + str(int(x[0, 0] * 1e6)), (Exception,), {})\n"
              "    raise kind()\n")
    error = raised_message(cell_function(source, "f"), "f", SECRET)
    assert str(error).startswith("f raised an exception of another type, at line 3")
    assert "731592" not in str(error)


def test_a_line_is_quoted_only_from_the_defining_cell_and_its_first_lines():
    helper = cell_function("def helper(x):\n    raise KeyError(x.tolist())\n", "helper", number=2)
    source = "def f(x):\n    return helper(x)\n"
    namespace = cell_function(source, "f", number=4)
    namespace["helper"] = helper["helper"]
    # The exception came from another cell: the line quoted is the defining cell's call of it.
    told = str(raised_message(namespace, "f", SECRET))
    assert told == "f raised KeyError, at line 2 of `f` (cell 4): return helper(x)"
    far = "def f(x):\n" + "    x = x\n" * MAX_LINE + "    raise IndexError()\n"
    assert str(raised_message(cell_function(far, "f"), "f", SECRET)) == "f raised IndexError"


def test_the_line_is_named_by_the_def_around_it_in_the_cell_as_written():
    """The function is read from the cell's source, never from the running code's names: a helper or an
    inner function defined in the same cell is named, a function renamed at run time is not."""
    source = ("import numpy as np\n\ndef helper(v):\n    def inner(w):\n        return w[7]\n    return inner(v)\n\n"
              "def f(x):\n    stacked = helper(x)\n    return stacked\n\nhelper.__code__ = helper.__code__.replace("
              "co_name='LEAK')\n")
    told = str(raised_message(cell_function(source, "f", number=12), "f", SECRET))
    assert told == "f raised IndexError, at line 5 of `inner` (cell 12): return w[7]"
    # The sandbox's path: the same sentence from the grader's copy of the cell.
    report = {"type": "IndexError", "defined": 12, "frames": [[12, 9], [12, 6], [12, 5]]}
    assert from_report(report, {12: source}).describe("f") == told


def test_a_sandboxed_process_report_is_checked_against_the_graders_copy_of_the_cells():
    cells = {3: "def f(x):\n    return x[7]\n", 4: "other = 1\n"}
    good = {"type": "IndexError", "defined": 3, "frames": [[4, 1], [3, 2]]}
    assert from_report(good, cells) == Raised("IndexError", 2, "return x[7]", "f", 3)
    # Whatever the process claims beyond that is dropped: a line past the cell's end or in another cell,
    # a made-up cell, a type name that is not a name.
    assert from_report({**good, "frames": [[3, 99]]}, cells) == Raised("IndexError")
    assert from_report({**good, "frames": [[4, 1]]}, cells) == Raised("IndexError")
    assert from_report({**good, "defined": 9, "frames": [[9, 1]]}, cells) == Raised("IndexError")
    assert from_report({**good, "type": "0.7315 leaked"}, cells).describe("f").startswith(
        "f raised an exception of another type")
    assert from_report("garbage", cells).describe("f") == "f raised an exception of another type"


def test_a_sandboxed_process_only_names_which_failure_it_was():
    """Whatever text the process sends with a failed call, the grader words the failure itself."""
    cells = {3: "def f(x):\n    return x[7]\n"}

    def said(header: dict) -> str:
        return call_failure("f", {"error": "0.7315926535897931", **header}, cells)

    assert said({"kind": "unsendable"}) == "f returned a value that cannot be sent back to the grader"
    assert said({"kind": ["not", "a", "kind"]}) == said({}) == "f failed when called"
    assert said({"timeout": True}) == "f did not return in time and was stopped"
    assert said({"kind": "raised", "raised": {"type": "IndexError", "defined": 3, "frames": [[3, 2]],
                                              "text": "0.7315926535897931"}}) == \
        "f raised IndexError, at line 2 of `f` (cell 3): return x[7]"


def test_a_wrong_answer_is_told_in_shapes_and_words():
    def failure(got, expected=SECRET, **kwargs) -> str:
        with pytest.raises(CheckFailed) as caught:
            check_array(got, expected, what="f(x (2, 2))", **kwargs)
        return caught.value.detail  # without the hint's words

    assert failure(SECRET + 1) == "f(x (2, 2)): wrong values (the shape (2, 2) is right)"
    assert failure(np.zeros((4, 2))) == "f(x (2, 2)): wrong shape: expected (2, 2), got (4, 2)"
    # A shape made of sizes the call does not hold is what the code chose to say: not repeated.
    assert failure(np.zeros((731, 592))) == "f(x (2, 2)): wrong shape: expected (2, 2), got another shape"
    assert failure(np.zeros((5, 3)), dims=(5, 3)).endswith("got (5, 3)")
    assert failure("0.7315926535897931") == "f(x (2, 2)) returned an array of text: expected numbers"
    assert failure([[1.0], [2.0, 3.0]]).startswith("f(x (2, 2)) returned a list that NumPy cannot read")
    with pytest.raises(CheckFailed) as caught:
        check_number(2.5, 0.7315926535897931, what="loss")
    assert str(caught.value) == "loss: wrong value"


def test_plausible_shapes_are_an_honest_mistakes():
    assert plausible((8, 4), (4, 8)) and plausible((4, 4), (4, 1)) and plausible((2, 4, 1), (4, 1))
    assert plausible((5, 1), (3, 1), dims={2, 3}) and not plausible((7, 1), (3, 1), dims={2})
    assert not plausible((1, 1, 1, 1), (4, 1)) and not plausible((100,), (4, 1))


def test_an_error_in_the_graders_arithmetic_names_its_type_only():
    def check(student):
        float(student.f())

    case = GraderCase("value", check, {}, 1.0)
    result = run_case(case, InProcessStudent({"f": lambda: "0.7315926535897931 leaked"}))
    assert result.message == "the answer could not be checked (ValueError)"


def test_an_exercise_judged_on_its_own_is_told_by_its_score():
    note = alone_note("formula_1", ["concat_weights"], 6.0, 6.0)
    assert "On its own it scores 6 / 6, and keeps that" in note


def graded_notebook():
    verdict = nbformat.from_dict(verdict_output("formula_1: 0 / 6 points\n  [FAIL] value  (0/1)\n"))
    test = new_code_cell("selfcheck.check_formula_1(formula_1)", outputs=[
        verdict,
        new_output("stream", name="stdout", text="printed by the code: 0.7315926535897931"),
        new_output("display_data", data={"text/plain": "formula_1: 6 / 6 points forged"}),
        new_output("error", ename="Leak0_7315", evalue="0.7315926535897931", traceback=["0.7315926535897931"]),
        new_output("execute_result", data={"text/plain": "0.0"}, execution_count=5),
    ])
    test.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "test_formula_1", "points": 6}
    answer = new_code_cell("print(SEEN)", outputs=[new_output("stream", name="stdout", text="[0.7315926535897931]")])
    answer.metadata["nbgrader"] = {"grade": False, "solution": True, "grade_id": "formula_1"}
    stopped = new_code_cell("selfcheck.check_sigmoid(sigmoid)", outputs=[
        new_output("error", ename="SandboxStopped", evalue="killed by signal 9: 0.7315", traceback=[])])
    stopped.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "test_sigmoid", "points": 7}
    again = new_code_cell("selfcheck.check_hidden_state(hidden_state)", outputs=[
        new_output("error", ename="SelfCheckFailed", evalue="got 0.7315", traceback=[TRUSTED_RUN_NOTE, "x"])])
    again.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "test_hidden_state", "points": 15}
    return new_notebook(cells=[answer, test, stopped, again, new_code_cell("1 + 1", outputs=[
        new_output("execute_result", data={"text/plain": "0.7315926535897931"}, execution_count=6)])])


def test_the_page_keeps_the_graders_verdict_and_leaves_out_the_codes_own_output():
    cleaned, _ = GradersOnly().preprocess(graded_notebook(), {})
    assert OWN_OUTPUT_NOTE in cleaned.cells[0].source
    answer, test, stopped, again, plain = cleaned.cells[1:]
    assert answer.outputs == [] and plain.outputs == []
    kinds = [o.output_type for o in test.outputs]
    assert kinds == ["display_data", "error", "execute_result"]  # the verdict, the error said plainly, the score
    assert test.outputs[0].data["text/plain"].startswith("formula_1: 0 / 6 points")
    assert "0.7315" not in nbformat.writes(cleaned)
    assert test.outputs[1].ename == "SelfCheckFailed" and "run this cell in your notebook" in test.outputs[1].evalue
    assert stopped.outputs[0].ename == "SandboxStopped" and "signal" not in stopped.outputs[0].evalue
    assert "outside it" in again.outputs[0].evalue


def test_the_watchers_feedback_always_leaves_out_the_codes_output():
    config = Config()
    summary = "autograder.feedback.preprocessors.ScoreSummary"
    config.GenerateFeedback.preprocessors = ["nbgrader.preprocessors.GetGrades", summary]
    listed = with_graders_only(config).GenerateFeedback.preprocessors
    # and the markdown cells, the student's, made inert last (the page's template shows them as text without it)
    assert listed == ["nbgrader.preprocessors.GetGrades", GRADERS_ONLY, summary, INERT_MARKDOWN]
    assert config.GenerateFeedback.preprocessors[1] == summary  # the course's own untouched
    assert with_graders_only(Config()).GenerateFeedback.preprocessors[-2:] == [GRADERS_ONLY, INERT_MARKDOWN]
    config.GenerateFeedback.preprocessors = [*listed]
    assert with_graders_only(config).GenerateFeedback.preprocessors == listed  # each once
