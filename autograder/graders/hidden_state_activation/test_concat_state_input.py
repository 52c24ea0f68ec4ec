import pytest

from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.hidden_state_activation import reference as ref
from autograder.graders.hidden_state_activation.cases import MINIBATCH, SHAPE_PARAMS, pick


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    args = pick(shape.arrays(), "h_t_prev", "x_t")
    judge(student, "concat_state_input", args, ref.concat_state_input, ref.CONCAT_STATE_INPUT_MISTAKES)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "concat_state_input", pick(MINIBATCH.arrays(), "h_t_prev", "x_t"))
