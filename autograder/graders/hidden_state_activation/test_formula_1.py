import pytest

from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.hidden_state_activation import reference as ref
from autograder.graders.hidden_state_activation.cases import MINIBATCH, SHAPE_PARAMS, pick

ARGS = ("w_hh", "w_hx", "h_t_prev", "x_t")


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    judge(student, "formula_1", pick(shape.arrays(), *ARGS), ref.formula_1, ref.FORMULA_1_MISTAKES,
          errors=ref.PRODUCT_ERRORS)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "formula_1", pick(MINIBATCH.arrays(), *ARGS))
