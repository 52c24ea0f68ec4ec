import numpy as np
import pytest

from autograder.grader_support.activations import sigmoid
from autograder.grader_support.checks import CheckFailed, as_numeric
from autograder.grader_support.judge import judge, judge_unmodified
from autograder.grader_support.randomdata import normal_for
from autograder.graders.hidden_state_activation import reference as ref

SHAPES = {"(4, 3)": (4, 3), "(5, 1)": (5, 1), "1-D (6,)": (6,), "3-D (2, 3, 4)": (2, 3, 4)}


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", list(SHAPES.values()), ids=list(SHAPES))
def test_value(student, shape):
    z = normal_for(f"sigmoid {shape}", *shape, scale=3.0)
    judge(student, "sigmoid", {"z": z}, sigmoid, ref.SIGMOID_MISTAKES)


@pytest.mark.points(1)
def test_integer_input(student):
    z = np.arange(-4, 5).reshape(3, 3)
    judge(student, "sigmoid", {"z": z}, sigmoid, ref.SIGMOID_MISTAKES)


@pytest.mark.points(1)
def test_large_magnitudes_stay_finite(student):
    z = np.array([[-1000.0, -745.0, -50.0, 0.0, 50.0, 745.0, 1000.0]])
    got = as_numeric(student.sigmoid(z.copy()), "sigmoid(z (1, 7))")
    if got.shape == z.shape and not np.isfinite(got.astype(float)).all():
        raise CheckFailed("sigmoid(z (1, 7)): gave inf or nan for large |z| (z up to 1000 in size)",
                          "sigmoid_overflow")
    judge(student, "sigmoid", {"z": z}, sigmoid, ref.SIGMOID_MISTAKES)


@pytest.mark.points(1)
def test_input_unmodified(student):
    judge_unmodified(student, "sigmoid", {"z": normal_for("sigmoid unmodified", 3, 4)})
