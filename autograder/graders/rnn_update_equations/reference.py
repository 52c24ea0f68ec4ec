"""The reference answers for `rnn_update_equations`, and what each known mistake computes instead.

Each MISTAKES table maps a hint id (autograder.grader_support.hints) to a function with the reference's signature that
makes exactly that mistake; a wrong answer that one of them reproduces gets that hint. The tables of the
two sequence functions are lists of (hint id, function) pairs, because one mistake can be made in more
than one way (an off-by-one that drops the last state, or one that adds h0 in front).
"""

from functools import partial

import numpy as np

from autograder.grader_support.activations import tanh


def rnn_step(x_t, h_prev, W_xh, W_hh, b_h, phi=tanh):
    return phi(W_xh @ x_t + W_hh @ h_prev + b_h)


def rnn_output(h_t, W_hy, b_y):
    return W_hy @ h_t + b_y


def stack_params(W_xh, W_hh):
    return np.concatenate((W_xh, W_hh), axis=1)


def stack_inputs(x_t, h_prev):
    return np.concatenate((x_t, h_prev), axis=0)


def rnn_step_stacked(I, W, b_h, phi=tanh):  # noqa: E741 - the contract's name for the stacked input
    return phi(W @ I + b_h)


def rnn_forward(xs, h0, W_xh, W_hh, b_h, W_hy, b_y, phi=tanh, *, step=rnn_step, output=rnn_output,
                start="h0", carry=True, record="after"):
    """The reference unrolling; the keyword-only options reproduce the known sequence mistakes.

    start: "h0" or "zeros" (the state before the first step); carry: True, or "h0" / "zeros" for what
    each step reads instead of the previous state; record: "after" (right), "before" (hs[t] is the state
    before reading xs[t]) or "with_h0" (h0 put in front of the T states).
    """
    h = h0 if start == "h0" else np.zeros_like(h0, dtype=float)
    before, after = [], []
    for x_t in xs:
        before.append(h)
        h_new = step(x_t, h, W_xh, W_hh, b_h, phi)
        after.append(h_new)
        h = h_new if carry is True else (h0 if carry == "h0" else np.zeros_like(h0, dtype=float))
    hs = {"after": after, "before": before, "with_h0": [h0, *after]}[record]
    ys = [output(h_t, W_hy, b_y) for h_t in (after if record == "with_h0" else hs)]
    return np.stack(hs), np.stack(ys)


def stacked_rnn_forward(xs, layers, h0s=None, phi=tanh, *, step=rnn_step, feed="below", weights="own",
                        start="h0s", carry=True):
    """Layer by layer; the keyword-only options reproduce the known stacking mistakes.

    feed: "below" (right) or "x" (every layer reads xs); weights: "own" or "first" (every layer uses
    layers[0]); start: "h0s" or "zeros" (given initial states ignored); carry as in `rnn_forward`.
    """
    m = xs.shape[2]
    below, result = xs, []
    for index, layer in enumerate(layers):
        p = layers[0] if weights == "first" else layer
        n_h = p["W_hh"].shape[0]
        h0 = h0s[index] if h0s is not None and start == "h0s" else np.zeros((n_h, m))
        inputs = xs if feed == "x" else below
        hs, _ = rnn_forward(inputs, h0, p["W_xh"], p["W_hh"], p["b_h"], np.zeros((1, n_h)), np.zeros((1, 1)),
                            phi, step=step, carry=carry)
        result.append(hs)
        below = hs
    return result


def _one_shared_state(xs, layers, h0s=None, phi=tanh):
    """Step by step with a single `h` for all layers: each layer reads the last state anyone wrote."""
    m = xs.shape[2]
    h = h0s[0] if h0s is not None else np.zeros((layers[0]["W_hh"].shape[0], m))
    result = [[] for _ in layers]
    for x_t in xs:
        below = x_t
        for index, layer in enumerate(layers):
            h = rnn_step(below, h, layer["W_xh"], layer["W_hh"], layer["b_h"], phi)
            result[index].append(h)
            below = h
    return [np.stack(hs) for hs in result]


def sequence_loss(y_hat, y, many_to_many=True):
    per_step = ((np.asarray(y_hat, dtype=float) - y) ** 2).sum(axis=1)  # (T, m)
    per_example = per_step.sum(axis=0) if many_to_many else per_step[-1]
    return float(per_example.mean())


def count_parameters(n_x, n_h, n_y):
    return n_h * n_x + n_h * n_h + n_h + n_y * n_h + n_y


# --- one step ---------------------------------------------------------------------------------------------

def _z(x, h, W_xh, W_hh):
    return W_xh @ x + W_hh @ h


RNN_STEP_MISTAKES = {
    "block_order": lambda x, h, W_xh, W_hh, b, phi=tanh: phi(W_xh @ h + W_hh @ x + b),
    "mixed_stack_order": lambda x, h, W_xh, W_hh, b, phi=tanh: phi(np.hstack((W_xh, W_hh)) @ np.vstack((h, x)) + b),
    "elementwise_product": lambda x, h, W_xh, W_hh, b, phi=tanh: phi(W_xh * x + W_hh * h + b),
    "bias_after_activation": lambda x, h, W_xh, W_hh, b, phi=tanh: phi(_z(x, h, W_xh, W_hh)) + b,
    "bias_missing": lambda x, h, W_xh, W_hh, b, phi=tanh: phi(_z(x, h, W_xh, W_hh)),
    "ignores_activation": lambda x, h, W_xh, W_hh, b, phi=tanh: np.tanh(_z(x, h, W_xh, W_hh) + b),
    "activation_missing": lambda x, h, W_xh, W_hh, b, phi=tanh: _z(x, h, W_xh, W_hh) + b,
    "broadcast_1d": lambda x, h, W_xh, W_hh, b, phi=tanh: phi(_z(x, h, W_xh, W_hh) + b.ravel()),
}

RNN_OUTPUT_MISTAKES = {
    "output_activation": lambda h, W_hy, b_y: np.tanh(W_hy @ h + b_y),
    "output_bias_missing": lambda h, W_hy, b_y: W_hy @ h,
    "elementwise_product": lambda h, W_hy, b_y: W_hy * h + b_y,
    "broadcast_1d": lambda h, W_hy, b_y: W_hy @ h + b_y.ravel(),
}

# NumPy's words for the usual crashes: a (n,) operand in a broadcast, `*` for `@`, a join on the wrong axis.
PRODUCT_ERRORS = {
    ",) ": "broadcast_1d",
    "could not be broadcast together": "elementwise_product",
}
JOIN_ERRORS = {"except for the concatenation axis must match": "wrong_axis"}

# --- the pseudo-matrix form ---------------------------------------------------------------------------------

STACK_PARAMS_MISTAKES = {
    "wrong_axis": lambda W_xh, W_hh: np.concatenate((W_xh, W_hh), axis=0),
    "block_order": lambda W_xh, W_hh: np.concatenate((W_hh, W_xh), axis=1),
}

STACK_INPUTS_MISTAKES = {
    "wrong_axis": lambda x, h: np.concatenate((x, h), axis=1),
    "block_order": lambda x, h: np.concatenate((h, x), axis=0),
}

RNN_STEP_STACKED_MISTAKES = {
    "elementwise_product": lambda I, W, b, phi=tanh: phi(W * I + b),  # noqa: E741
    "bias_after_activation": lambda I, W, b, phi=tanh: phi(W @ I) + b,  # noqa: E741
    "bias_missing": lambda I, W, b, phi=tanh: phi(W @ I),  # noqa: E741
    "ignores_activation": lambda I, W, b, phi=tanh: np.tanh(W @ I + b),  # noqa: E741
    "activation_missing": lambda I, W, b, phi=tanh: W @ I + b,  # noqa: E741
    "broadcast_1d": lambda I, W, b, phi=tanh: phi(W @ I + b.ravel()),  # noqa: E741
}

# --- sequences --------------------------------------------------------------------------------------------

def _step_variant(hint):
    return lambda x, h, W_xh, W_hh, b, phi: RNN_STEP_MISTAKES[hint](x, h, W_xh, W_hh, b, phi)


_STEP_HINTS = ("block_order", "elementwise_product", "bias_after_activation", "bias_missing",
               "ignores_activation", "activation_missing", "broadcast_1d")

RNN_FORWARD_MISTAKES = [
    ("state_not_carried", partial(rnn_forward, carry="h0")),
    ("state_reset", partial(rnn_forward, start="zeros", carry="zeros")),
    ("h0_ignored", partial(rnn_forward, start="zeros")),
    ("states_off_by_one", partial(rnn_forward, record="before")),
    ("states_off_by_one", partial(rnn_forward, record="with_h0")),
    *[(hint, partial(rnn_forward, step=_step_variant(hint))) for hint in _STEP_HINTS],
    ("output_activation", partial(rnn_forward, output=RNN_OUTPUT_MISTAKES["output_activation"])),
    ("output_bias_missing", partial(rnn_forward, output=RNN_OUTPUT_MISTAKES["output_bias_missing"])),
]

STACKED_RNN_FORWARD_MISTAKES = [
    ("upper_layer_fed_x", partial(stacked_rnn_forward, feed="x")),
    ("shared_weights", partial(stacked_rnn_forward, weights="first")),
    ("layer_state_shared", _one_shared_state),
    ("state_not_carried", partial(stacked_rnn_forward, carry="h0")),
    ("state_reset", partial(stacked_rnn_forward, start="zeros", carry="zeros")),
    ("h0_ignored", partial(stacked_rnn_forward, start="zeros")),
    *[(hint, partial(stacked_rnn_forward, step=_step_variant(hint))) for hint in _STEP_HINTS],
]

# --- loss and size ------------------------------------------------------------------------------------------

def _loss(y_hat, y, many_to_many=True, *, error=np.square, units=np.sum, time=np.sum, examples=np.mean,
          last=-1, flag=True):
    per_step = units(error(np.asarray(y_hat, dtype=float) - y), axis=1)  # (T, m)
    per_example = time(per_step, axis=0) if (many_to_many or not flag) else per_step[last]
    return float(examples(per_example))


SEQUENCE_LOSS_MISTAKES = {
    "mean_over_time": partial(_loss, time=np.mean),
    "sum_over_examples": partial(_loss, examples=np.sum),
    "mean_over_units": partial(_loss, units=np.mean),
    "mean_over_all": lambda y_hat, y, many_to_many=True: float(
        np.mean(np.square(np.asarray(y_hat, dtype=float) - y)[slice(None) if many_to_many else -1])),
    "not_squared": partial(_loss, error=lambda d: d),
    "absolute_error": partial(_loss, error=np.abs),
    "last_step_ignored": partial(_loss, flag=False),
    "first_step_instead_of_last": partial(_loss, last=0),
}

COUNT_PARAMETERS_MISTAKES = {
    "count_missing_bias": lambda n_x, n_h, n_y: n_h * n_x + n_h * n_h + n_y * n_h,
    "count_missing_recurrent": lambda n_x, n_h, n_y: n_h * n_x + n_h + n_y * n_h + n_y,
    "count_missing_output": lambda n_x, n_h, n_y: n_h * n_x + n_h * n_h + n_h,
}
