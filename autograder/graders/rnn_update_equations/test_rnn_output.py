import pytest

from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import MINIBATCH, SHAPE_PARAMS


def _args(shape, salt=""):
    arrays = shape.arrays(salt)
    return {"h_t": arrays["h_prev"], "W_hy": arrays["W_hy"], "b_y": arrays["b_y"]}


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    judge(student, "rnn_output", _args(shape), ref.rnn_output, ref.RNN_OUTPUT_MISTAKES,
          errors=ref.PRODUCT_ERRORS)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "rnn_output", _args(MINIBATCH))
