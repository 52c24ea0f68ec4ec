import pytest

from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import MINIBATCH, SHAPE_PARAMS, pick


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    judge(student, "stack_params", pick(shape.arrays(), "W_xh", "W_hh"), ref.stack_params,
          ref.STACK_PARAMS_MISTAKES, errors=ref.JOIN_ERRORS)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "stack_params", pick(MINIBATCH.arrays(), "W_xh", "W_hh"))
