import pytest

from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.hidden_state_activation import reference as ref
from autograder.graders.hidden_state_activation.cases import MINIBATCH, SHAPE_PARAMS, pick


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    args = pick(shape.arrays(), "w_hh", "w_hx")
    judge(student, "concat_weights", args, ref.concat_weights, ref.CONCAT_WEIGHTS_MISTAKES)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "concat_weights", pick(MINIBATCH.arrays(), "w_hh", "w_hx"))
