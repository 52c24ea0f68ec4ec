import numpy as np
import pytest

from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.checks import CheckFailed, check_array, close
from autograder.grader_support.judge import judge, judge_unmodified, student_answer
from autograder.grader_support.randomdata import fixed
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import MINIBATCH, SHAPE_PARAMS, SHAPES


@fixed
def _args(shape, salt=""):
    a = shape.arrays(salt)
    return {"I": ref.stack_inputs(a["x_t"], a["h_prev"]), "W": ref.stack_params(a["W_xh"], a["W_hh"]),
            "b_h": a["b_h"]}


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPE_PARAMS)
def test_value(student, shape):
    judge(student, "rnn_step_stacked", _args(shape), ref.rnn_step_stacked, ref.RNN_STEP_STACKED_MISTAKES,
          errors=ref.PRODUCT_ERRORS, phi=ACTIVATIONS["tanh"])


@pytest.mark.points(1)
@pytest.mark.parametrize("phi", [pytest.param(name, id=name) for name in ("relu", "identity", "sigmoid")])
def test_uses_the_given_phi(student, phi):
    judge(student, "rnn_step_stacked", _args(SHAPES[2], phi), ref.rnn_step_stacked,
          ref.RNN_STEP_STACKED_MISTAKES, errors=ref.PRODUCT_ERRORS, phi=ACTIVATIONS[phi])


@pytest.mark.points(1)
def test_default_phi_is_tanh(student):
    judge(student, "rnn_step_stacked", _args(SHAPES[0], "default"), ref.rnn_step_stacked,
          ref.RNN_STEP_STACKED_MISTAKES, errors=ref.PRODUCT_ERRORS)


def _order(value, x_first, h_first):
    array = np.asarray(value)
    if array.dtype.kind in "biuf" and close(array, x_first):
        return "x"
    if array.dtype.kind in "biuf" and close(array, h_first):
        return "h"
    return None


@pytest.mark.points(1)
def test_your_stack_functions_and_step_give_rnn_step(student):
    """stack_params, stack_inputs and rnn_step_stacked together must give the h_t of the update equation."""
    a = SHAPES[2].arrays("composed")
    x, h, W_xh, W_hh, b_h = a["x_t"], a["h_prev"], a["W_xh"], a["W_hh"], a["b_h"]
    tanh = ACTIVATIONS["tanh"]
    W = student_answer(student, "stack_params", {"W_xh": W_xh, "W_hh": W_hh})
    I = student_answer(student, "stack_inputs", {"x_t": x, "h_prev": h})  # noqa: E741
    got = student_answer(student, "rnn_step_stacked", {"I": I, "W": W, "b_h": b_h}, ref.PRODUCT_ERRORS, phi=tanh)
    expected = ref.rnn_step(x, h, W_xh, W_hh, b_h, tanh)
    what = (f"rnn_step_stacked(stack_inputs(x_t {x.shape}, h_prev {h.shape}), "
            f"stack_params(W_xh {W_xh.shape}, W_hh {W_hh.shape}), b_h {b_h.shape}, phi=tanh)")
    weights_order = _order(W, np.hstack((W_xh, W_hh)), np.hstack((W_hh, W_xh)))
    inputs_order = _order(I, np.vstack((x, h)), np.vstack((h, x)))
    if weights_order and inputs_order and weights_order != inputs_order:
        raise CheckFailed(
            f"{what}: your stack_params puts the weights for {weights_order} first but your stack_inputs puts "
            f"{inputs_order} on top, so the product pairs the wrong blocks", "mixed_stack_order")
    check_array(got, expected, what=what, dims=(x.shape + h.shape + W_xh.shape), mistakes={
        "mixed_stack_order": lambda: tanh(np.hstack((W_xh, W_hh)) @ np.vstack((h, x)) + b_h)})


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "rnn_step_stacked", _args(MINIBATCH), phi=ACTIVATIONS["tanh"])

