"""Naming mistakes that are not one exact value: nan and inf patterns, a wrong shape, a value known only
up to a tolerance of its own (`autograder.grader_support.checks.Mistake`),
and plain values compared as the expected one is."""

from pathlib import Path

import numpy as np
import pytest

from autograder.grader_support.checks import CheckFailed, Mistake, check_array, check_number, diagnose
from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.student import InProcessStudent
from autograder.graders import use_folder

ASSIGNMENT = "unit_softmax_mistakes"  # a name no other test's graders use: the mount lasts for the process
HINT = "softmax_no_shift"
HINT_TEXT = "exp overflowed: subtract each column's maximum before taking exp."

# Large inputs: exp(1000) overflows, so a softmax without the max shift gives inf / inf = nan there.
X = np.array([[1000.0, 1.0, -3.0], [999.0, 2.0, 0.5], [10.0, 3.0, 700.0]])

GRADER = f'''import numpy as np
import pytest

from autograder.grader_support.checks import check_array

from . import reference as ref

X = np.array({X.tolist()})


@pytest.mark.points(2)
def test_large_inputs(student):
    check_array(student.softmax(X.copy()), ref.softmax(X), what="softmax(x of large values)",
                mistakes={{hint: (lambda wrong=wrong: wrong(X)) for hint, wrong in ref.MISTAKES.items()}})
'''

REFERENCE = '''import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def unshifted(x):
    e = np.exp(x)
    return e / e.sum(axis=0, keepdims=True)


MISTAKES = {"softmax_no_shift": unshifted}
'''


def failure(got, expected, **kwargs) -> CheckFailed:
    with pytest.raises(CheckFailed) as caught:
        check_array(got, expected, what="f(x)", **kwargs)
    return caught.value


def unshifted(x: np.ndarray) -> np.ndarray:
    e = np.exp(x)
    return e / e.sum(axis=0, keepdims=True)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def test_a_softmax_without_the_max_shift_is_named_and_its_hint_printed(tmp_path: Path):
    package = tmp_path / "graders" / ASSIGNMENT
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "reference.py").write_text(REFERENCE)
    (package / "hints.py").write_text(f"HINTS = {{{HINT!r}: {HINT_TEXT!r}}}\n")
    (package / "test_softmax.py").write_text(GRADER)
    use_folder(tmp_path / "graders")

    # The student's version multiplies by the reciprocal: nan where the grader's version is, and finite
    # entries that differ from it in the last bits (so not equal, only close).
    def student_softmax(x):
        e = np.exp(x)
        return e * (1.0 / e.sum(axis=0, keepdims=True))

    with np.errstate(all="ignore"):
        assert np.isnan(student_softmax(X)).any()
    result = run_exercise(ASSIGNMENT, "softmax", InProcessStudent({"softmax": student_softmax}))
    assert result.score == 0 and result.hints == [HINT]
    feedback = result.feedback()
    assert "the result contains nan" in feedback and f"hint [{HINT}]: {HINT_TEXT}" in feedback
    right = run_exercise(ASSIGNMENT, "softmax", InProcessStudent({"softmax": softmax}))
    assert right.score == right.max_score == 2


def test_a_value_mistake_matches_nan_only_where_the_answer_has_nan():
    with np.errstate(all="ignore"):
        wrong = unshifted(X)
        other = wrong.copy()
        other[0, 1] = np.nan  # one more nan than the mistake gives: another answer
    mistakes = {HINT: lambda: wrong}
    assert failure(wrong.copy(), softmax(X), mistakes=mistakes).hint == HINT
    assert failure(other, softmax(X), mistakes=mistakes).hint is None


def test_nan_where_names_the_positions_whatever_the_other_values():
    expected = softmax(X)
    overflow = X > np.log(np.finfo(np.float64).max)  # the entries whose exp overflows
    mistakes = {HINT: lambda: Mistake.nan_where(overflow)}
    got = np.where(overflow, np.nan, 0.25)
    assert failure(got, expected, mistakes=mistakes).hint == HINT
    assert failure(np.where(overflow, np.inf, 0.25), expected, mistakes=mistakes).hint is None
    assert failure(np.full_like(expected, np.nan), expected, mistakes=mistakes).hint is None


def test_nan_where_and_inf_where_without_positions_mean_anywhere_the_expected_value_is_finite():
    expected = np.ones((2, 3))
    nan_somewhere, inf_somewhere = expected.copy(), expected.copy()
    nan_somewhere[1, 2], inf_somewhere[0, 0] = np.nan, -np.inf
    mistakes = {"overflow_nan": lambda: Mistake.nan_where(), "overflow_inf": lambda: Mistake.inf_where()}
    assert failure(nan_somewhere, expected, mistakes=mistakes).hint == "overflow_nan"
    assert failure(inf_somewhere, expected, mistakes=mistakes).hint == "overflow_inf"
    assert failure(expected + 1, expected, mistakes=mistakes).hint is None
    # The wrong shape is not this pattern, even with a nan in it.
    assert diagnose(np.full((3, 2), np.nan), expected, {"overflow_nan": lambda: Mistake.nan_where()}) is None
    with pytest.raises(CheckFailed) as caught:
        check_number(float("nan"), 2.5, what="loss", mistakes={"loss_nan": lambda: Mistake.nan_where()})
    assert caught.value.hint == "loss_nan"


def test_a_shape_mistake_matches_any_answer_of_that_shape_before_the_built_in_diagnoses():
    expected = np.arange(4.0).reshape(4, 1)
    mistakes = {"one_d": lambda: Mistake.shape(4), "row": lambda: Mistake.shape((1, 4))}
    assert failure(np.array([9.0, 8.0, 7.0, 6.0]), expected, mistakes=mistakes).hint == "one_d"
    assert failure(np.zeros((1, 4)), expected, mistakes=mistakes).hint == "row"
    assert failure(np.array([9.0, 8.0, 7.0, 6.0]), expected).hint == "flattened"  # without it: the built-in one


def test_near_uses_its_own_tolerance_and_a_plain_value_the_graders():
    expected = np.linspace(-2.0, 2.0, 6).reshape(2, 3)
    approximation = expected - expected**3 / 3  # a two-term series for tanh, say
    got = approximation * (1 + 1e-3)  # what the student's loop gives: within 1e-2, not within 1e-6
    assert failure(got, np.tanh(expected), mistakes={"series": lambda: approximation}).hint is None
    named = failure(got, np.tanh(expected), mistakes={"series": lambda: Mistake.near(approximation, rtol=1e-2)})
    assert named.hint == "series"
    with pytest.raises(TypeError, match="return the value"):
        Mistake.near(approximation)


def test_a_pattern_that_cannot_apply_is_not_the_mistake():
    expected = np.ones((2, 3))
    got = np.where(np.eye(2, 3, dtype=bool), np.nan, 1.0)
    wrong_mask = {"m": lambda: Mistake.nan_where(np.ones((4, 4), dtype=bool))}  # does not broadcast
    assert failure(got, expected, mistakes=wrong_mask).hint is None
