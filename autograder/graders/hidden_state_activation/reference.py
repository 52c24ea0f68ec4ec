"""The reference answers for `hidden_state_activation`, and what each known mistake computes instead.

Each MISTAKES table maps a hint id (autograder.grader_support.hints) to a function with the reference's signature that
makes exactly that mistake; a wrong answer that one of them reproduces gets that hint.
"""

import numpy as np

from autograder.grader_support.activations import sigmoid


def concat_weights(w_hh, w_hx):
    return np.concatenate((w_hh, w_hx), axis=1)


def concat_state_input(h_t_prev, x_t):
    return np.concatenate((h_t_prev, x_t), axis=0)


def formula_1(w_hh, w_hx, h_t_prev, x_t):
    return concat_weights(w_hh, w_hx) @ concat_state_input(h_t_prev, x_t)


def formula_2(w_hh, w_hx, h_t_prev, x_t):
    return w_hh @ h_t_prev + w_hx @ x_t


def hidden_state(w_hh, w_hx, h_t_prev, x_t, b_h, formula=1, g=sigmoid):
    product = formula_1 if formula == 1 else formula_2
    return g(product(w_hh, w_hx, h_t_prev, x_t) + b_h)


CONCAT_WEIGHTS_MISTAKES = {
    "wrong_axis": lambda w_hh, w_hx: np.concatenate((w_hh, w_hx), axis=0),
    "block_order": lambda w_hh, w_hx: np.concatenate((w_hx, w_hh), axis=1),
}

CONCAT_STATE_INPUT_MISTAKES = {
    "wrong_axis": lambda h, x: np.concatenate((h, x), axis=1),
    "block_order": lambda h, x: np.concatenate((x, h), axis=0),
}

_PRODUCT_MISTAKES = {
    "block_order": lambda w_hh, w_hx, h, x: np.hstack((w_hx, w_hh)) @ np.vstack((x, h)),
    "mixed_stack_order": lambda w_hh, w_hx, h, x: np.hstack((w_hh, w_hx)) @ np.vstack((x, h)),
    "elementwise_product": lambda w_hh, w_hx, h, x: w_hh * h + w_hx * x,
}
FORMULA_1_MISTAKES = {
    **_PRODUCT_MISTAKES,
    "block_order": lambda w_hh, w_hx, h, x: np.hstack((w_hx, w_hh)) @ np.vstack((h, x)),
    "elementwise_product": lambda w_hh, w_hx, h, x: np.hstack((w_hh, w_hx)) * np.vstack((h, x)),
}
FORMULA_2_MISTAKES = {
    **_PRODUCT_MISTAKES,
    "block_order": lambda w_hh, w_hx, h, x: w_hh @ x + w_hx @ h,
}

SIGMOID_MISTAKES = {
    "sigmoid_sign": lambda z: 1.0 / (1.0 + np.exp(np.asarray(z, dtype=float))),
    "tanh_for_sigmoid": lambda z: np.tanh(z),
}


def _pre(w_hh, w_hx, h, x, formula):
    return (formula_1 if formula == 1 else formula_2)(w_hh, w_hx, h, x)


HIDDEN_STATE_MISTAKES = {
    "bias_after_activation": lambda w_hh, w_hx, h, x, b, formula=1, g=sigmoid: g(_pre(w_hh, w_hx, h, x, formula)) + b,
    "bias_missing": lambda w_hh, w_hx, h, x, b, formula=1, g=sigmoid: g(_pre(w_hh, w_hx, h, x, formula)),
    "ignores_activation": lambda w_hh, w_hx, h, x, b, formula=1, g=sigmoid: sigmoid(
        _pre(w_hh, w_hx, h, x, formula) + b),
    "activation_missing": lambda w_hh, w_hx, h, x, b, formula=1, g=sigmoid: _pre(w_hh, w_hx, h, x, formula) + b,
    "elementwise_product": lambda w_hh, w_hx, h, x, b, formula=1, g=sigmoid: g(w_hh * h + w_hx * x + b),
    "sigmoid_sign": lambda w_hh, w_hx, h, x, b, formula=1, g=sigmoid: SIGMOID_MISTAKES["sigmoid_sign"](
        _pre(w_hh, w_hx, h, x, formula) + b),
    "broadcast_1d": lambda w_hh, w_hx, h, x, b, formula=1, g=sigmoid: g(_pre(w_hh, w_hx, h, x, formula) + b.ravel()),
}

# A broadcast error from a product almost always means `*` stood where `@` was meant.
PRODUCT_ERRORS = {"could not be broadcast together": "elementwise_product"}
