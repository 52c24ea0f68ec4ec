import pytest

from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import MINIBATCH, SHAPE_PARAMS, pick


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    judge(student, "stack_inputs", pick(shape.arrays(), "x_t", "h_prev"), ref.stack_inputs,
          ref.STACK_INPUTS_MISTAKES, errors=ref.JOIN_ERRORS)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "stack_inputs", pick(MINIBATCH.arrays(), "x_t", "h_prev"))
