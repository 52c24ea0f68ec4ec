"""Self-checks for the `rnn_update_equations` notebook.

Each check runs your function on the notebook's small worked examples, prints a line when it looks right
and raises an AssertionError that says what is wrong when it does not. Passing here is a good sign, not a
grade: the graders try other shapes, values and activation functions.
"""

import contextlib
import copy
import sys
import traceback
import warnings

import numpy as np

__all__ = [
    "check_rnn_step", "check_rnn_output", "check_stack_params", "check_stack_inputs", "check_rnn_step_stacked",
    "check_rnn_forward", "check_stacked_rnn_forward", "check_sequence_loss", "check_count_parameters",
]

# The one-step example: n_x = 2 inputs, n_h = 3 hidden units, one example.
X_T = np.array([[1], [2]])
H_PREV = np.array([[1], [0], [-1]])
W_XH = np.array([[1, 0], [0, 1], [1, 1]])
W_HH = np.eye(3, dtype=int)
B_H = np.array([[0], [-1], [1]])
Z = np.array([[2], [1], [3]])  # W_xh x_t + W_hh h_prev + b_h
W_HY = np.array([[1, 1, 1]])
B_Y = np.array([[0.5]])


def identity(z):
    return z


class SelfCheckFailed(AssertionError):
    """A self-check that did not pass. In Jupyter its message is shown alone, without a traceback through this
    file (IPython's `_render_traceback_`): the sentence says what is wrong and what to try."""

    def _render_traceback_(self) -> list[str]:
        return [f"\u2718 {line}" if index == 0 else line for index, line in enumerate(str(self).splitlines())]


def _call(function, *args, **kwargs):
    # Overflow warnings are not mistakes, and a debug print to stderr must not fail the cell.
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stderr(sys.stdout):
        warnings.simplefilter("ignore")
        try:
            # Copies: a function that writes into its arguments must not change the worked example that
            # the later checks use (it loses its own "inputs unmodified" check, not theirs).
            return function(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        except NotImplementedError:
            raise SelfCheckFailed(f"{function.__name__} is not implemented yet: fill in its code region") from None
        except Exception as exc:  # said in one line, with the line of your code it came from
            if type(exc).__name__ == "StudentError":  # the grader's own words, where it runs this check itself
                raise SelfCheckFailed(str(exc)) from None
            frames = _your_frames(exc)
            # The mistake may be in the function called, or in another of yours that it called.
            known = _known_raise(function.__name__, exc) or (frames and _known_raise(frames[-1].name, exc))
            raise SelfCheckFailed(f"{function.__name__} raised {type(exc).__name__}: {exc}{_where(frames)}"
                                  f"{known or ''}") from None


_THIS_FILE = globals().get("__file__") or f"{__name__}.py"  # loaded without a file by the grader's sandbox


def _your_frames(exc):
    return [frame for frame in traceback.extract_tb(exc.__traceback__)
            if frame.filename != _THIS_FILE and "site-packages" not in frame.filename]


def _where(frames):
    if not frames:
        return ""
    last = frames[-1]
    function = f", in `{last.name}`" if last.name != "<module>" else ""
    return f"\n  in your code, line {last.lineno}{function}: {last.line}"


def _known_raise(name, exc):
    # The graders' known mistakes that raise exactly this on the worked example (generated below).
    for kind, text, hint in _KNOWN_RAISES.get(name, ()):
        if type(exc).__name__ == kind and str(exc) == text:
            return f"\n  known mistake [{hint}]: {_HINTS[hint]}"
    return ""


def _known_answer(name, got_array):
    for hint, answer in _KNOWN_ANSWERS.get(name, ()):
        if got_array.shape == np.shape(answer) and np.allclose(got_array, answer, equal_nan=True):
            return f"\n  known mistake [{hint}]: {_HINTS[hint]}"
    return ""


def _expect(name, got, expected, advice=""):
    if got is None:
        raise SelfCheckFailed(f"{name} returned None: did you forget `return`?")
    got_array = np.asarray(got)
    if got_array.shape != np.shape(expected):
        raise SelfCheckFailed(f"{name}: expected shape {np.shape(expected)}, got {got_array.shape}. {advice}"
                              f"{_known_answer(name, got_array)}")
    if not np.allclose(got_array, expected):
        raise SelfCheckFailed(f"{name}: wrong values.\nexpected:\n{np.asarray(expected)}\ngot:\n{got_array}\n{advice}"
                              f"{_known_answer(name, got_array)}")


def _passed(name):
    print(f"\u2714 {name} passes the self-check. The graders will try more shapes and values.")


def check_rnn_step(rnn_step):
    got = _call(rnn_step, X_T, H_PREV, W_XH, W_HH, B_H, phi=identity)
    _expect("rnn_step(x_t, h_prev, W_xh, W_hh, b_h, phi=identity)", got, Z,
            "With phi(z) = z you should get W_xh @ x_t + W_hh @ h_prev + b_h.")
    got = _call(rnn_step, X_T, H_PREV, W_XH, W_HH, B_H)
    _expect("rnn_step(x_t, h_prev, W_xh, W_hh, b_h) with the default phi", got, np.tanh(Z),
            "The bias goes inside phi, and the default phi is np.tanh.")
    got = _call(rnn_step, np.hstack((X_T, 2 * X_T)), np.hstack((H_PREV, 0 * H_PREV)), W_XH, W_HH, B_H,
                phi=identity)
    _expect("rnn_step on a minibatch of 2 examples, phi=identity", got, np.array([[2, 2], [1, 3], [3, 7]]),
            "Each column is one example; b_h (n_h, 1) is added to every column.")
    _passed("rnn_step")


def check_rnn_output(rnn_output):
    _expect("rnn_output(h_t, W_hy, b_y)", _call(rnn_output, Z, W_HY, B_Y), np.array([[6.5]]),
            "y_t = W_hy @ h_t + b_y, with no activation.")
    got = _call(rnn_output, np.hstack((Z, -Z)), np.vstack((W_HY, [[1, 0, 0]])), np.array([[0.5], [1.0]]))
    _expect("rnn_output with n_y = 2 outputs and 2 examples", got, np.array([[6.5, -5.5], [3.0, -1.0]]))
    _passed("rnn_output")


def check_stack_params(stack_params):
    expected = np.array([[1, 0, 1, 0, 0], [0, 1, 0, 1, 0], [1, 1, 0, 0, 1]])
    _expect("stack_params(W_xh 3x2, W_hh 3x3)", _call(stack_params, W_XH, W_HH), expected,
            "Put W_xh and W_hh side by side, the columns of W_xh first.")
    _passed("stack_params")


def check_stack_inputs(stack_inputs):
    _expect("stack_inputs(x_t 2x1, h_prev 3x1)", _call(stack_inputs, X_T, H_PREV),
            np.array([[1], [2], [1], [0], [-1]]), "Stack x_t on top of h_prev: this lecture puts x first.")
    x, h = np.arange(4).reshape(2, 2), 10 + np.arange(6).reshape(3, 2)
    _expect("stack_inputs(x_t 2x2, h_prev 3x2)", _call(stack_inputs, x, h),
            np.array([[0, 1], [2, 3], [10, 11], [12, 13], [14, 15]]),
            "With m examples, one per column, the result has m columns.")
    _passed("stack_inputs")


def check_rnn_step_stacked(rnn_step_stacked):
    W = np.array([[1, 0, 1, 0, 0], [0, 1, 0, 1, 0], [1, 1, 0, 0, 1]])
    I = np.array([[1], [2], [1], [0], [-1]])  # noqa: E741
    _expect("rnn_step_stacked(I, W, b_h, phi=identity)", _call(rnn_step_stacked, I, W, B_H, phi=identity), Z,
            "phi(W @ I + b_h): one matrix product, then the bias, then phi.")
    _expect("rnn_step_stacked(I, W, b_h) with the default phi", _call(rnn_step_stacked, I, W, B_H), np.tanh(Z),
            "The default phi is np.tanh.")
    _passed("rnn_step_stacked")


# The running-sum RNN: one input, one hidden unit, every weight 1, no bias, phi(z) = z. Its hidden state
# is the sum of the inputs so far. Two examples: inputs 1, 2, 3 from h0 = 0, and 1, 1, 1 from h0 = 100.
XS = np.array([[[1, 1]], [[2, 1]], [[3, 1]]])  # (T=3, n_x=1, m=2)
H0 = np.array([[0, 100]])
ONE = np.ones((1, 1), dtype=int)
NO_BIAS = np.zeros((1, 1), dtype=int)


def check_rnn_forward(rnn_forward):
    result = _call(rnn_forward, XS, H0, ONE, ONE, NO_BIAS, 2 * ONE, ONE, phi=identity)
    if not isinstance(result, tuple | list) or len(result) != 2:
        raise SelfCheckFailed(f"rnn_forward must return the tuple (hs, ys); got {type(result).__name__}")
    hs, ys = result
    _expect("hs of the running-sum RNN", hs, np.array([[[1, 101]], [[3, 102]], [[6, 103]]]),
            "hs[t] is the state after reading xs[t], and each step reads the state the previous step made.")
    _expect("ys of the running-sum RNN (W_hy = 2, b_y = 1)", ys, np.array([[[3, 203]], [[7, 205]], [[13, 207]]]),
            "ys[t] = W_hy @ hs[t] + b_y.")
    _passed("rnn_forward")


def check_stacked_rnn_forward(stacked_rnn_forward):
    layer = {"W_xh": ONE, "W_hh": ONE, "b_h": NO_BIAS}
    result = _call(stacked_rnn_forward, XS[:, :, :1], [dict(layer), dict(layer)], phi=identity)
    if not isinstance(result, list | tuple) or len(result) != 2:
        raise SelfCheckFailed("stacked_rnn_forward must return a list with one array per layer")
    _expect("layer 1 of two running-sum layers", result[0], np.array([[[1]], [[3]], [[6]]]),
            "Layer 1 reads xs and starts from zeros when h0s is None.")
    _expect("layer 2 of two running-sum layers", result[1], np.array([[[1]], [[4]], [[10]]]),
            "Layer 2 reads layer 1's current state, not xs: it sums the running sums.")
    result = _call(stacked_rnn_forward, XS[:, :, :1], [dict(layer), dict(layer)],
                   h0s=[np.zeros((1, 1)), np.full((1, 1), 100)], phi=identity)
    _expect("layer 2 starting from h0 = 100", result[1], np.array([[[101]], [[104]], [[110]]]),
            "Each layer starts from its own initial state h0s[l].")
    rng = np.random.default_rng(7)
    layers = [{"W_xh": rng.normal(size=(2, 1)), "W_hh": rng.normal(size=(2, 2)), "b_h": rng.normal(size=(2, 1))},
              {"W_xh": rng.normal(size=(3, 2)), "W_hh": rng.normal(size=(3, 3)), "b_h": rng.normal(size=(3, 1))}]
    result = _call(stacked_rnn_forward, XS.astype(float), layers)
    shapes = [np.shape(hs) for hs in result]
    if shapes != [(3, 2, 2), (3, 3, 2)]:
        raise SelfCheckFailed(f"widths 2 and 3, T=3, m=2: expected shapes [(3, 2, 2), (3, 3, 2)], got {shapes}")
    _passed("stacked_rnn_forward")


# Two steps, two output units, two examples; the targets are all zero.
Y_HAT = np.array([[[1, 0], [2, 1]], [[0, 1], [1, 3]]])
Y = np.zeros((2, 2, 2))


def check_sequence_loss(sequence_loss):
    loss = _call(sequence_loss, Y_HAT, Y)
    _expect("sequence_loss(y_hat, y)", loss, 8.5,
            "Per example: square the errors, sum over output units and over time (5 + 1 = 6 and 1 + 10 = 11); "
            "then take the mean over the 2 examples.")
    _expect("sequence_loss(y_hat, y, many_to_many=False)", _call(sequence_loss, Y_HAT, Y, many_to_many=False),
            5.5, "Only the last step counts (1 and 10), then the mean over the examples.")
    _passed("sequence_loss")


def check_count_parameters(count_parameters):
    _expect("count_parameters(n_x=3, n_h=4, n_y=2)", _call(count_parameters, 3, 4, 2), 42,
            "W_xh, W_hh, b_h, W_hy and b_y: count every entry.")
    _passed("count_parameters")


# BEGIN GENERATED: the graders' known mistakes on these checks' own inputs: `make release` writes
# them from the graders' hints and mistake tables (do not edit). A wrong answer or an exception
# equal to one of these names its mistake.
_KNOWN_ANSWERS = {
    'count_parameters(n_x=3, n_h=4, n_y=2)': [('count_missing_bias', 36.0), ('count_missing_recurrent', 26.0), ('count_missing_output', 32.0)],  # noqa: E501
    'hs of the running-sum RNN': [('state_not_carried', [[[1.0, 101.0]], [[2.0, 101.0]], [[3.0, 101.0]]]), ('state_reset', [[[1.0, 1.0]], [[2.0, 1.0]], [[3.0, 1.0]]]), ('h0_ignored', [[[1.0, 1.0]], [[3.0, 2.0]], [[6.0, 3.0]]]), ('states_off_by_one', [[[0.0, 100.0]], [[1.0, 101.0]], [[3.0, 102.0]]]), ('ignores_activation', [[[0.7615941559557649, 1.0]], [[0.9920455700292888, 0.9640275800758169]], [[0.9993185480009414, 0.9613959740515259]]])],  # noqa: E501
    'layer 1 of two running-sum layers': [('layer_state_shared', [[[1.0]], [[4.0]], [[11.0]]]), ('state_not_carried', [[[1.0]], [[2.0]], [[3.0]]]), ('state_reset', [[[1.0]], [[2.0]], [[3.0]]]), ('ignores_activation', [[[0.7615941559557649]], [[0.9920455700292888]], [[0.9993185480009414]]])],  # noqa: E501
    'layer 2 of two running-sum layers': [('upper_layer_fed_x', [[[1.0]], [[3.0]], [[6.0]]])],
    'layer 2 starting from h0 = 100': [('h0_ignored', [[[1.0]], [[4.0]], [[10.0]]])],
    'rnn_output with n_y = 2 outputs and 2 examples': [('broadcast_1d', [[6.5, -5.0], [2.5, -1.0]])],
    'rnn_output(h_t, W_hy, b_y)': [('output_activation', [[0.9999954793514042]]), ('output_bias_missing', [[6.0]]), ('elementwise_product', [[2.5, 2.5, 2.5], [1.5, 1.5, 1.5], [3.5, 3.5, 3.5]])],  # noqa: E501
    'rnn_step(x_t, h_prev, W_xh, W_hh, b_h) with the default phi': [('bias_after_activation', [[0.9640275800758169], [-0.0359724199241831], [1.964027580075817]]), ('activation_missing', [[2.0], [1.0], [3.0]])],  # noqa: E501
    'rnn_step(x_t, h_prev, W_xh, W_hh, b_h, phi=identity)': [('mixed_stack_order', [[0.0], [0.0], [4.0]]), ('bias_missing', [[2.0], [2.0], [2.0]]), ('ignores_activation', [[0.9640275800758169], [0.7615941559557649], [0.9950547536867305]]), ('broadcast_1d', [[2.0, 1.0, 3.0], [2.0, 1.0, 3.0], [2.0, 1.0, 3.0]])],  # noqa: E501
    'rnn_step_stacked(I, W, b_h) with the default phi': [('bias_after_activation', [[0.9640275800758169], [-0.0359724199241831], [1.964027580075817]]), ('activation_missing', [[2.0], [1.0], [3.0]])],  # noqa: E501
    'rnn_step_stacked(I, W, b_h, phi=identity)': [('bias_missing', [[2.0], [2.0], [2.0]]), ('ignores_activation', [[0.9640275800758169], [0.7615941559557649], [0.9950547536867305]]), ('broadcast_1d', [[2.0, 1.0, 3.0], [2.0, 1.0, 3.0], [2.0, 1.0, 3.0]])],  # noqa: E501
    'sequence_loss(y_hat, y)': [('mean_over_time', 4.25), ('sum_over_examples', 17.0), ('mean_over_units', 4.25), ('mean_over_all', 2.125), ('not_squared', 4.5), ('absolute_error', 4.5)],  # noqa: E501
    'sequence_loss(y_hat, y, many_to_many=False)': [('last_step_ignored', 8.5), ('first_step_instead_of_last', 3.0)],
    'stack_inputs(x_t 2x1, h_prev 3x1)': [('block_order', [[1.0], [0.0], [-1.0], [1.0], [2.0]])],
    'stack_params(W_xh 3x2, W_hh 3x3)': [('block_order', [[1.0, 0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0, 1.0]])],  # noqa: E501
    'ys of the running-sum RNN (W_hy = 2, b_y = 1)': [('output_activation', [[[0.9950547536867305, 1.0]], [[0.9999983369439447, 1.0]], [[0.9999999999897818, 1.0]]]), ('output_bias_missing', [[[2.0, 202.0]], [[6.0, 204.0]], [[12.0, 206.0]]])],  # noqa: E501
}
_KNOWN_RAISES = {
    'rnn_step': [('ValueError', 'matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 3 is different from 2)', 'block_order'), ('ValueError', 'operands could not be broadcast together with shapes (3,2) (2,1) ', 'elementwise_product')],  # noqa: E501
    'rnn_step_stacked': [('ValueError', 'operands could not be broadcast together with shapes (3,5) (5,1) ', 'elementwise_product')],  # noqa: E501
    'stack_inputs': [('ValueError', 'all the input array dimensions except for the concatenation axis must match exactly, but along dimension 0, the array at index 0 has size 2 and the array at index 1 has size 3', 'wrong_axis')],  # noqa: E501
    'stack_params': [('ValueError', 'all the input array dimensions except for the concatenation axis must match exactly, but along dimension 1, the array at index 0 has size 2 and the array at index 1 has size 3', 'wrong_axis')],  # noqa: E501
    'stacked_rnn_forward': [('ValueError', 'matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 2 is different from 1)', 'shared_weights'), ('ValueError', 'matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 2 is different from 1)', 'block_order'), ('ValueError', 'operands could not be broadcast together with shapes (3,2) (2,2) ', 'elementwise_product'), ('ValueError', 'operands could not be broadcast together with shapes (3,2) (3,) ', 'broadcast_1d')],  # noqa: E501
}
_HINTS = {
    'absolute_error': 'the absolute error was used: the per-step loss is the squared error, sum_k (y_hat - y)^2.',
    'activation_missing': 'no activation was applied: the hidden state is phi(...) of the pre-activation.',
    'bias_after_activation': 'the bias was added after the activation: it belongs inside, g(W x + b).',
    'bias_missing': 'the bias is missing: add b before applying the activation.',
    'block_order': "the blocks are in the wrong order: this function's contract fixes which block comes first (assignment 1: [W_hh | W_hx] and [h; x]; assignment 2: [W_xh  W_hh] and [x; h]).",  # noqa: E501
    'broadcast_1d': 'a 1-D array of shape (n,) was broadcast against an (n, 1) column into an (n, n) matrix: keep vectors as columns of shape (n, 1).',  # noqa: E501
    'count_missing_bias': 'the biases were not counted: b_h has n_h entries and b_y has n_y.',
    'count_missing_output': 'the output layer (W_hy and b_y) was not counted.',
    'count_missing_recurrent': 'the recurrent weights W_hh (n_h * n_h) were not counted.',
    'elementwise_product': 'elementwise `*` was used where a matrix product was meant: use `@`, `np.dot` or `np.matmul`.',  # noqa: E501
    'first_step_instead_of_last': 'the first step was used instead of the last: many-to-one reads L_T, the final step.',
    'h0_ignored': 'the initial state was ignored: the first step reads h0 (or the given h0s), not zeros.',
    'ignores_activation': 'the activation function passed in (g / phi) was ignored: call the function you are given instead of a fixed one.',  # noqa: E501
    'last_step_ignored': "many_to_many=False means only the last step's loss counts: L_T for each example.",
    'layer_state_shared': 'the layers share one recurrent state: every layer carries its own h_{t-1}^[l].',
    'mean_over_all': 'the loss is the mean of every squared error: sum over output units and over time steps, then take the mean over the m examples only.',  # noqa: E501
    'mean_over_time': 'the loss was averaged over time: the per-example loss is the sum over time steps.',
    'mean_over_units': 'the per-step loss averaged the output units: it is the sum of squared errors over units.',
    'mixed_stack_order': "the weights and the inputs are stacked in different orders: [W_xh  W_hh] must multiply [x; h] (or [W_hh | W_hx] with [h; x]); mixing the two lectures' orders multiplies the wrong blocks.",  # noqa: E501
    'not_squared': 'the error was not squared: the per-step loss is sum_k (y_hat - y)^2.',
    'output_activation': 'an activation was applied to the output: y_t = W_hy h_t + b_y has none.',
    'output_bias_missing': 'the output bias is missing: y_t = W_hy h_t + b_y.',
    'shared_weights': "all layers used the first layer's weights: every layer has its own W_xh, W_hh and b_h.",
    'state_not_carried': 'the hidden state is not carried from one step to the next: each step must read the h_t that the previous step produced (starting from h0).',  # noqa: E501
    'state_reset': 'the hidden state is reset at every step: only h0 starts the sequence, later steps read h_{t-1}.',
    'states_off_by_one': 'the states are shifted by one step: hs[t] is the state after reading xs[t], not before.',
    'sum_over_examples': 'the loss was summed over examples: the training loss is the mean over the m examples.',
    'upper_layer_fed_x': 'an upper layer was fed x_t: layer l > 1 reads the current hidden state of the layer below, h_t^[l-1].',  # noqa: E501
    'wrong_axis': 'joined along the wrong axis: weight blocks go side by side (axis=1, along columns, hstack), state and input go one on top of the other (axis=0, along rows, vstack).',  # noqa: E501
}
# END GENERATED
