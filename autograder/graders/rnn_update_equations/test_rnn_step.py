import pytest

from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import MINIBATCH, SHAPE_PARAMS, SHAPES, pick

ARGS = ("x_t", "h_prev", "W_xh", "W_hh", "b_h")


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    judge(student, "rnn_step", pick(shape.arrays(), *ARGS), ref.rnn_step, ref.RNN_STEP_MISTAKES,
          errors=ref.PRODUCT_ERRORS, phi=ACTIVATIONS["tanh"])


@pytest.mark.points(1)
@pytest.mark.parametrize("phi", [pytest.param(name, id=name) for name in ("relu", "identity", "sigmoid")])
def test_uses_the_given_phi(student, phi):
    judge(student, "rnn_step", pick(SHAPES[3].arrays(phi), *ARGS), ref.rnn_step, ref.RNN_STEP_MISTAKES,
          errors=ref.PRODUCT_ERRORS, phi=ACTIVATIONS[phi])


@pytest.mark.points(1)
def test_default_phi_is_tanh(student):
    judge(student, "rnn_step", pick(SHAPES[2].arrays("default"), *ARGS), ref.rnn_step, ref.RNN_STEP_MISTAKES,
          errors=ref.PRODUCT_ERRORS)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "rnn_step", pick(MINIBATCH.arrays(), *ARGS), phi=ACTIVATIONS["tanh"])
