import pytest

from autograder.grader_support.activations import ACTIVATIONS, sigmoid
from autograder.grader_support.judge import judge, judge_unmodified
from autograder.graders.hidden_state_activation import reference as ref
from autograder.graders.hidden_state_activation.cases import MINIBATCH, SHAPE_PARAMS, SHAPES


@pytest.mark.points(1)
@pytest.mark.parametrize("formula", [1, 2], ids=["formula=1", "formula=2"])
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape, formula):
    judge(student, "hidden_state", shape.arrays(), ref.hidden_state, ref.HIDDEN_STATE_MISTAKES,
          formula=formula, g=sigmoid)


@pytest.mark.points(1)
@pytest.mark.parametrize("g", ["tanh", "relu", "identity"])
def test_uses_the_given_g(student, g):
    judge(student, "hidden_state", SHAPES[2].arrays(g), ref.hidden_state, ref.HIDDEN_STATE_MISTAKES,
          formula=1, g=ACTIVATIONS[g])


@pytest.mark.points(1)
def test_default_is_formula_1_with_sigmoid(student):
    judge(student, "hidden_state", SHAPES[0].arrays("default"), ref.hidden_state, ref.HIDDEN_STATE_MISTAKES)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "hidden_state", MINIBATCH.arrays(), formula=2, g=sigmoid)
