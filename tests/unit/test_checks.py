"""The comparison and diagnosis core every grader relies on."""

import numpy as np
import pytest

from autograder.grader_support.checks import (
    CheckFailed,
    call_label,
    check_array,
    check_number,
    check_unmodified,
    diagnose,
)
from autograder.grader_support.exercise import collect, run_exercise
from autograder.grader_support.student import InProcessStudent, StudentError

A = np.arange(6.0).reshape(2, 3)


def failure(got, expected=A, **kwargs) -> CheckFailed:
    with pytest.raises(CheckFailed) as caught:
        check_array(got, expected, what="f(x)", **kwargs)
    return caught.value


def test_equal_within_tolerance_passes_and_integer_results_count():
    check_array(A + 1e-9, A, what="f(x)")
    check_array(A.astype(int), A, what="f(x)")


def test_shape_must_match_exactly_even_when_values_broadcast():
    assert "wrong shape: expected (2, 3), got (1, 2, 3)" in str(failure(A[None]))


def test_transpose_is_named():
    assert failure(A.T).hint == "transposed"


def test_a_column_broadcast_into_a_square_is_named():
    column = np.arange(3.0).reshape(3, 1)
    assert failure(column + column.ravel(), column).hint == "broadcast_1d"


def test_a_lost_dimension_is_named():
    assert failure(A.ravel()).hint == "flattened"


def test_the_first_mistake_that_reproduces_the_answer_names_it():
    mistakes = {"sign": lambda: -A, "double": lambda: 2 * A, "broken": lambda: 1 / 0}
    assert diagnose(2 * A, A, mistakes) == "double"
    assert failure(A + 5, mistakes=mistakes).hint is None


def test_nan_and_non_numbers_fail_with_a_reason():
    assert "contains nan" in str(failure(np.full((2, 3), np.nan)))
    assert failure(None).hint == "not_an_array"
    assert failure(np.array(["a"] * 6).reshape(2, 3)).hint == "not_an_array"


def test_the_message_says_the_problem_in_shapes_and_never_a_value():
    expected = A + 0.123456
    message = str(failure(expected + 7.654321, expected))
    assert message == "f(x): wrong values (the shape (2, 3) is right)"
    assert "wrong shape: expected (2, 3), got (3, 2)" in str(failure(expected.T.copy() + 1, expected))


def test_numbers_accept_numpy_scalars_and_zero_d_arrays():
    check_number(np.float64(2.5), 2.5, what="loss")
    check_number(np.array(2.5), 2.5, what="loss")
    check_number(np.int64(7), 7, what="count", integer=True)
    with pytest.raises(CheckFailed):
        check_number(7.5, 7, what="count", integer=True)


def test_modified_arguments_are_found_inside_lists_and_dicts():
    before = {"layers": [{"W": A.copy()}], "x": A.copy()}
    after = {"layers": [{"W": A + 1}], "x": A.copy()}
    with pytest.raises(CheckFailed) as caught:
        check_unmodified(before, after, what="f")
    assert caught.value.hint == "modifies_input" and "layers" in str(caught.value)
    check_unmodified(before, {"layers": [{"W": A.copy()}], "x": A.copy()}, what="f")


def test_call_label_names_shapes_functions_and_values():
    assert call_label("f", x=A, g=np.tanh, formula=2) == "f(x (2, 3), g=tanh, formula=2)"


def test_student_errors_are_reported_not_raised_into_the_grader():
    def concat_weights(w_hh, w_hx):
        raise NotImplementedError

    with pytest.raises(StudentError, match="not implemented yet"):
        InProcessStudent({"concat_weights": concat_weights}).concat_weights(A, A)
    with pytest.raises(StudentError, match="is not defined"):
        InProcessStudent({}).concat_weights(A, A)


def test_runner_gives_partial_credit_case_by_case():
    def sigmoid(z):  # right except for 3-D input
        z = np.asarray(z, dtype=float)
        if z.ndim == 3:
            raise ValueError("no 3-D")
        return 1 / (1 + np.exp(-z))

    result = run_exercise("hidden_state_activation", "sigmoid", InProcessStudent({"sigmoid": sigmoid}))
    failed = [case.name for case in result.cases if case.earned == 0]
    assert failed == ["value[3-D (2, 3, 4)]"]
    assert result.score == result.max_score - 1
    shown = result.feedback()
    # The type and the line of the code that raised (static text, here this file's), not what it raised.
    assert 'sigmoid raised ValueError, at line ' in shown and ': raise ValueError("no 3-D")' in shown


def test_every_grader_declares_points():
    for exercise in ("concat_weights", "sigmoid", "hidden_state"):
        assert all(case.points > 0 for case in collect("hidden_state_activation", exercise))
