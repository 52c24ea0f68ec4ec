import pytest

from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.judge import judge_unmodified
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import EQUAL_WIDTHS, MIXED_WIDTHS, STACK_PARAMS
from autograder.graders.rnn_update_equations.sequences import judge_parts


def _judge(student, args, **options):
    judge_parts(student, "stacked_rnn_forward", args, ref.stacked_rnn_forward, ref.STACKED_RNN_FORWARD_MISTAKES,
                errors=ref.PRODUCT_ERRORS, **options)


@pytest.mark.points(2)
@pytest.mark.parametrize("stack", STACK_PARAMS)
def test_value(student, stack):
    _judge(student, stack.arrays(), phi=ACTIVATIONS["tanh"])


@pytest.mark.points(1)
@pytest.mark.parametrize("stack", [pytest.param(s, id=s.label) for s in (EQUAL_WIDTHS, MIXED_WIDTHS)])
def test_given_initial_states(student, stack):
    _judge(student, stack.arrays("h0s", initial_states=True), phi=ACTIVATIONS["tanh"])


@pytest.mark.points(1)
@pytest.mark.parametrize("phi", [pytest.param(name, id=name) for name in ("relu", "sigmoid")])
def test_uses_the_given_phi(student, phi):
    _judge(student, EQUAL_WIDTHS.arrays(phi), phi=ACTIVATIONS[phi])


@pytest.mark.points(1)
def test_default_phi_is_tanh(student):
    _judge(student, MIXED_WIDTHS.arrays("default"))


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "stacked_rnn_forward", MIXED_WIDTHS.arrays("unmodified", initial_states=True),
                     phi=ACTIVATIONS["tanh"])
