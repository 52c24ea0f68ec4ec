import pytest

from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.judge import judge_unmodified
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import MINIBATCH, SHAPE_PARAMS, SHAPES, pick
from autograder.graders.rnn_update_equations.sequences import judge_parts

ARGS = ("xs", "h0", "W_xh", "W_hh", "b_h", "W_hy", "b_y")


def _judge(student, args, **options):
    judge_parts(student, "rnn_forward", args, ref.rnn_forward, ref.RNN_FORWARD_MISTAKES, names=("hs", "ys"),
                errors=ref.PRODUCT_ERRORS, **options)


@pytest.mark.points(2)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    _judge(student, pick(shape.arrays("sequence"), *ARGS), phi=ACTIVATIONS["tanh"])


@pytest.mark.points(1)
@pytest.mark.parametrize("phi", [pytest.param(name, id=name) for name in ("relu", "sigmoid")])
def test_uses_the_given_phi(student, phi):
    _judge(student, pick(SHAPES[3].arrays(phi), *ARGS), phi=ACTIVATIONS[phi])


@pytest.mark.points(1)
def test_default_phi_is_tanh(student):
    _judge(student, pick(SHAPES[0].arrays("default"), *ARGS))


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "rnn_forward", pick(MINIBATCH.arrays("sequence"), *ARGS), phi=ACTIVATIONS["tanh"])
