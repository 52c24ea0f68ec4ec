"""The smallest public input a wrong answer differs on (`graders.counterexample`): found in a few calls, on
inputs no scored check uses, and shown in the grader's own values only."""

import numpy as np
import pytest

from autograder.devtools.catalogue import write_submission, wrong_answers
from autograder.devtools.oracle_bound import graded_calls
from autograder.grader_support.counterexample import MAX_CALLS, public_calls
from autograder.grader_support.exercise import exercises, reference_function, run_exercise
from autograder.grader_support.student import InProcessStudent
from autograder.nbgrader_glue.notebook import load_namespace

ASSIGNMENTS = ("hidden_state_activation", "rnn_update_equations")


def arrays_in(value):
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from arrays_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from arrays_in(item)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_exercise_has_public_calls_that_no_scored_check_makes(assignment):
    for exercise in exercises(assignment):
        calls = public_calls(assignment, exercise)
        assert 2 <= len(calls) <= MAX_CALLS, exercise
        graded = [(a.shape, a.tobytes()) for _, args, kwargs in graded_calls(assignment, exercise)
                  for a in arrays_in([args, kwargs])]
        for call in calls:
            reference_function(assignment, exercise)(*call.args.values(), **call.options)  # the contract's call
            for array in arrays_in(call.args):
                assert max(array.shape, default=1) <= 3 and (array.shape, array.tobytes()) not in graded, exercise


class Counting:
    """A student whose calls are counted; `answer` stands for its function."""

    def __init__(self, name, answer):
        self.name, self.answer, self.calls = name, answer, 0

    def __getattr__(self, name):
        def call(*args, **kwargs):
            self.calls += 1
            return self.answer(*args, **kwargs)
        return call


def test_a_wrong_axis_is_shown_on_the_smallest_input_with_the_mistakes_answer():
    (answer,) = [a for a in wrong_answers(ASSIGNMENTS[0]) if a.label == "concat_state_input/axis-1"]
    student = Counting("concat_state_input", lambda h, x: np.concatenate((h, x), axis=1))
    result = run_exercise(ASSIGNMENTS[0], answer.exercise, student)
    assert result.counterexample[1:] == ["  concat_state_input(h_t_prev=[[1]], x_t=[[2]])",
                                         "  expected [[1], [2]]   yours [[1, 2]] (what [wrong_axis] gives)"]
    graded = len(graded_calls(ASSIGNMENTS[0], "concat_state_input"))
    assert student.calls == graded + 1  # the first public call showed it
    assert "smallest input found where yours differs" in result.feedback()


def test_a_right_answer_costs_no_call_and_a_search_at_most_max_calls():
    right = Counting("formula_1", reference_function(ASSIGNMENTS[0], "formula_1"))
    assert run_exercise(ASSIGNMENTS[0], "formula_1", right).counterexample == []
    assert right.calls == len(graded_calls(ASSIGNMENTS[0], "formula_1"))
    # Wrong on the hidden inputs only (a hard-coded table would be): searched, nothing found, bounded.
    public = {id(v) for c in public_calls(ASSIGNMENTS[0], "formula_1") for v in c.args.values()}
    almost = Counting("formula_1", lambda *args: reference_function(ASSIGNMENTS[0], "formula_1")(*args)
                      + (0 if max(a.size for a in args) <= 4 else 1))
    assert run_exercise(ASSIGNMENTS[0], "formula_1", almost).counterexample == [] and public
    assert almost.calls == right.calls + len(public_calls(ASSIGNMENTS[0], "formula_1"))


def test_what_the_code_returns_on_a_public_input_is_never_shown():
    """A function that keeps what the hidden checks passed it and returns it on the public call: the page
    says the shape is right, not the values."""
    seen = []

    def leaky(h, x):
        seen.append(float(h.ravel()[0]))
        return np.full((h.shape[0] + x.shape[0], h.shape[1]), seen[0])

    result = run_exercise(ASSIGNMENTS[0], "concat_state_input", Counting("concat_state_input", leaky))
    text = "\n".join(result.counterexample)
    assert "yours other values of that shape (run this call in your notebook to see them)" in text
    assert repr(seen[0])[:6] not in text and str(seen[0])[:6] not in text


def test_the_catalogues_wrong_answers_mostly_get_one(tmp_path):
    """Where a mistake shows on small inputs, the catalogue's wrong answers find it in-process (both
    assignments' through the sandbox: tests/test_sandbox.py)."""
    assignment = ASSIGNMENTS[0]
    answers = [a for a in wrong_answers(assignment) if "in-place" not in a.label and "modif" not in a.label]
    found = 0
    for index, answer in enumerate(answers):
        namespace = load_namespace(write_submission(assignment, tmp_path / str(index), [answer]))
        found += bool(run_exercise(assignment, answer.exercise, InProcessStudent(namespace)).counterexample)
    assert found >= 0.8 * len(answers), (found, len(answers))


def test_a_list_of_layers_of_other_widths_is_told_in_words():
    """stacked_rnn_forward's answer is a list of arrays of different widths: its shape is compared part by
    part (NumPy cannot make one array of it)."""
    def wrong_widths(xs, layers, h0s=None, phi=None):
        return [np.zeros((2, 1, 1)), np.zeros((2, 3, 1))]

    result = run_exercise(ASSIGNMENTS[1], "stacked_rnn_forward", Counting("stacked_rnn_forward", wrong_widths))
    assert result.counterexample[2].endswith("yours an answer of another shape (run this call in your notebook "
                                             "to see them)")
