"""Self-checks for the `hidden_state_activation` notebook.

Each check runs your function on the notebook's worked example and a couple of small shapes, prints a
line when it looks right and raises an AssertionError that says what is wrong when it does not. Passing
here is a good sign, not a grade: the graders try other shapes and values.
"""

import contextlib
import copy
import sys
import traceback
import warnings

import numpy as np

__all__ = [
    "check_concat_weights", "check_concat_state_input", "check_formula_1", "check_formula_2",
    "check_sigmoid", "check_hidden_state",
]

# The worked example: W_hh is 3x2 of ones, W_hx is 3x3 of nines, h is 2x1 of ones, x is 3x1 of nines.
W_HH = np.ones((3, 2), dtype=int)
W_HX = np.full((3, 3), 9)
H_PREV = np.ones((2, 1), dtype=int)
X_T = np.full((3, 1), 9)


def identity(z):
    # A named function, not a lambda: the grader runs these checks again outside your notebook, and a
    # function reaches your code from there only by its name in this module.
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
    got_array = np.asarray(got) if got is not None else None
    if got_array is None:
        raise SelfCheckFailed(f"{name} returned None: did you forget `return`?")
    if got_array.shape != np.shape(expected):
        raise SelfCheckFailed(f"{name}: expected shape {np.shape(expected)}, got {got_array.shape}. {advice}"
                              f"{_known_answer(name, got_array)}")
    if not np.allclose(got_array, expected):
        raise SelfCheckFailed(f"{name}: wrong values.\nexpected:\n{np.asarray(expected)}\ngot:\n{got_array}\n{advice}"
                              f"{_known_answer(name, got_array)}")


def _passed(name):
    print(f"\u2714 {name} passes the self-check. The graders will try more shapes and values.")


def check_concat_weights(concat_weights):
    got = _call(concat_weights, W_HH, W_HX)
    expected = np.array([[1, 1, 9, 9, 9]] * 3)
    _expect("concat_weights(w_hh 3x2, w_hx 3x3)", got, expected,
            "Put the weights side by side, w_hh's columns first.")
    got = _call(concat_weights, np.eye(2), np.zeros((2, 2)))
    _expect("concat_weights(eye(2), zeros((2, 2)))", got, np.array([[1.0, 0, 0, 0], [0, 1, 0, 0]]),
            "Columns of w_hh come first, then those of w_hx.")
    _passed("concat_weights")


def check_concat_state_input(concat_state_input):
    got = _call(concat_state_input, H_PREV, X_T)
    _expect("concat_state_input(h 2x1, x 3x1)", got, np.array([[1], [1], [9], [9], [9]]),
            "Stack h_t_prev on top of x_t.")
    h, x = np.arange(6).reshape(2, 3), 10 + np.arange(3).reshape(1, 3)
    _expect("concat_state_input(h 2x3, x 1x3)", _call(concat_state_input, h, x), np.vstack((h, x)),
            "With m examples, one per column, the result has m columns.")
    _passed("concat_state_input")


def check_formula_1(formula_1):
    _expect("formula_1 on the worked example", _call(formula_1, W_HH, W_HX, H_PREV, X_T),
            np.full((3, 1), 245), "Multiply [W_hh | W_hx] by [h; x] with a matrix product.")
    _passed("formula_1")


def check_formula_2(formula_2):
    _expect("formula_2 on the worked example", _call(formula_2, W_HH, W_HX, H_PREV, X_T),
            np.full((3, 1), 245), "Add W_hh @ h and W_hx @ x.")
    _passed("formula_2")


def check_sigmoid(sigmoid):
    _expect("sigmoid(0)", _call(sigmoid, np.zeros((2, 1))), np.full((2, 1), 0.5))
    z = np.array([[-2.0, 0.0, 2.0]])
    _expect("sigmoid([[-2, 0, 2]])", _call(sigmoid, z), np.array([[0.11920292, 0.5, 0.88079708]]),
            "sigmoid(z) = 1 / (1 + e^(-z)).")
    extreme = np.asarray(_call(sigmoid, np.array([-1000.0, 1000.0])), dtype=float)
    if not np.isfinite(extreme).all():
        raise SelfCheckFailed(f"sigmoid([-1000, 1000]) gave {extreme}: it must stay finite (0 and 1).")
    _passed("sigmoid")


def check_hidden_state(hidden_state):
    b_h = np.zeros((3, 1))
    for formula in (1, 2):
        got = _call(hidden_state, W_HH, W_HX, H_PREV, X_T, b_h, formula=formula, g=identity)
        _expect(f"hidden_state(..., formula={formula}, g=identity)", got, np.full((3, 1), 245.0),
                "With b_h = 0 and g(z) = z you should get formula 1 or 2 unchanged.")
    got = _call(hidden_state, W_HH, W_HX, H_PREV, X_T, np.full((3, 1), -245.0))
    _expect("hidden_state(..., b_h = -245) with the default g", got, np.full((3, 1), 0.5),
            "The bias goes inside the activation, and the default g is sigmoid.")
    _passed("hidden_state")


# BEGIN GENERATED: the graders' known mistakes on these checks' own inputs: `make release` writes
# them from the graders' hints and mistake tables (do not edit). A wrong answer or an exception
# equal to one of these names its mistake.
_KNOWN_ANSWERS = {
    'concat_state_input(h 2x1, x 3x1)': [('block_order', [[9.0], [9.0], [9.0], [1.0], [1.0]])],
    'concat_weights(w_hh 3x2, w_hx 3x3)': [('block_order', [[9.0, 9.0, 9.0, 1.0, 1.0], [9.0, 9.0, 9.0, 1.0, 1.0], [9.0, 9.0, 9.0, 1.0, 1.0]])],  # noqa: E501
    'formula_1 on the worked example': [('block_order', [[117.0], [117.0], [117.0]]), ('mixed_stack_order', [[117.0], [117.0], [117.0]])],  # noqa: E501
    'formula_2 on the worked example': [('mixed_stack_order', [[117.0], [117.0], [117.0]])],
    'hidden_state(..., b_h = -245) with the default g': [('bias_after_activation', [[-244.0], [-244.0], [-244.0]]), ('bias_missing', [[1.0], [1.0], [1.0]]), ('activation_missing', [[0.0], [0.0], [0.0]])],  # noqa: E501
    'hidden_state(..., formula=1, g=identity)': [('ignores_activation', [[1.0], [1.0], [1.0]]), ('sigmoid_sign', [[3.961429521341682e-107], [3.961429521341682e-107], [3.961429521341682e-107]]), ('broadcast_1d', [[245.0, 245.0, 245.0], [245.0, 245.0, 245.0], [245.0, 245.0, 245.0]])],  # noqa: E501
    'sigmoid(0)': [('tanh_for_sigmoid', [[0.0], [0.0]])],
    'sigmoid([[-2, 0, 2]])': [('sigmoid_sign', [[0.8807970779778823, 0.5, 0.11920292202211755]])],
}
_KNOWN_RAISES = {
    'concat_state_input': [('ValueError', 'all the input array dimensions except for the concatenation axis must match exactly, but along dimension 0, the array at index 0 has size 2 and the array at index 1 has size 3', 'wrong_axis')],  # noqa: E501
    'concat_weights': [('ValueError', 'all the input array dimensions except for the concatenation axis must match exactly, but along dimension 1, the array at index 0 has size 2 and the array at index 1 has size 3', 'wrong_axis')],  # noqa: E501
    'formula_1': [('ValueError', 'operands could not be broadcast together with shapes (3,5) (5,1) ', 'elementwise_product')],  # noqa: E501
    'formula_2': [('ValueError', 'matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 3 is different from 2)', 'block_order'), ('ValueError', 'operands could not be broadcast together with shapes (3,2) (2,1) ', 'elementwise_product')],  # noqa: E501
    'hidden_state': [('ValueError', 'operands could not be broadcast together with shapes (3,2) (2,1) ', 'elementwise_product')],  # noqa: E501
}
_HINTS = {
    'activation_missing': 'no activation was applied: the hidden state is phi(...) of the pre-activation.',
    'bias_after_activation': 'the bias was added after the activation: it belongs inside, g(W x + b).',
    'bias_missing': 'the bias is missing: add b before applying the activation.',
    'block_order': "the blocks are in the wrong order: this function's contract fixes which block comes first (assignment 1: [W_hh | W_hx] and [h; x]; assignment 2: [W_xh  W_hh] and [x; h]).",  # noqa: E501
    'broadcast_1d': 'a 1-D array of shape (n,) was broadcast against an (n, 1) column into an (n, n) matrix: keep vectors as columns of shape (n, 1).',  # noqa: E501
    'elementwise_product': 'elementwise `*` was used where a matrix product was meant: use `@`, `np.dot` or `np.matmul`.',  # noqa: E501
    'ignores_activation': 'the activation function passed in (g / phi) was ignored: call the function you are given instead of a fixed one.',  # noqa: E501
    'mixed_stack_order': "the weights and the inputs are stacked in different orders: [W_xh  W_hh] must multiply [x; h] (or [W_hh | W_hx] with [h; x]); mixing the two lectures' orders multiplies the wrong blocks.",  # noqa: E501
    'sigmoid_sign': 'the sign of the exponent is flipped: sigmoid(z) = 1 / (1 + e^(-z)).',
    'tanh_for_sigmoid': 'this is tanh, not the sigmoid: sigmoid(z) = 1 / (1 + e^(-z)) has values in (0, 1).',
    'wrong_axis': 'joined along the wrong axis: weight blocks go side by side (axis=1, along columns, hstack), state and input go one on top of the other (axis=0, along rows, vstack).',  # noqa: E501
}
# END GENERATED
