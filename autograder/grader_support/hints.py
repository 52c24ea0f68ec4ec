"""Named misconceptions: the id a grader reports and the hint a student reads.

Ids are stable (reports count them, feedback prints them); the text is what the student sees. These are
shared by every assignment; an assignment's own (`HINTS` in its graders' `hints.py`) are merged over them.
"""

import functools
import importlib
from collections.abc import Mapping

from autograder.graders import module_name

HINTS: dict[str, str] = {
    "wrong_axis": (
        "joined along the wrong axis: weight blocks go side by side (axis=1, along columns, hstack), "
        "state and input go one on top of the other (axis=0, along rows, vstack)."
    ),
    "block_order": (
        "the blocks are in the wrong order: this function's contract fixes which block comes first "
        "(assignment 1: [W_hh | W_hx] and [h; x]; assignment 2: [W_xh  W_hh] and [x; h])."
    ),
    "mixed_stack_order": (
        "the weights and the inputs are stacked in different orders: [W_xh  W_hh] must multiply [x; h] "
        "(or [W_hh | W_hx] with [h; x]); mixing the two lectures' orders multiplies the wrong blocks."
    ),
    "elementwise_product": (
        "elementwise `*` was used where a matrix product was meant: use `@`, `np.dot` or `np.matmul`."
    ),
    "transposed": (
        "the result is the transpose of the right one: check which axis holds units and which holds examples."
    ),
    "broadcast_1d": (
        "a 1-D array of shape (n,) was broadcast against an (n, 1) column into an (n, n) matrix: "
        "keep vectors as columns of shape (n, 1)."
    ),
    "flattened": "the result lost a dimension: vectors are columns (n, 1) and minibatches are (n, m).",
    "bias_after_activation": "the bias was added after the activation: it belongs inside, g(W x + b).",
    "bias_missing": "the bias is missing: add b before applying the activation.",
    "sigmoid_sign": "the sign of the exponent is flipped: sigmoid(z) = 1 / (1 + e^(-z)).",
    "tanh_for_sigmoid": "this is tanh, not the sigmoid: sigmoid(z) = 1 / (1 + e^(-z)) has values in (0, 1).",
    "sigmoid_overflow": (
        "the sigmoid gives nan or inf for large |z|: use a form that stays finite (e.g. split on the sign "
        "of z, or let exp overflow to inf so that 1 / (1 + inf) = 0)."
    ),
    "ignores_activation": (
        "the activation function passed in (g / phi) was ignored: call the function you are given "
        "instead of a fixed one."
    ),
    "activation_missing": "no activation was applied: the hidden state is phi(...) of the pre-activation.",
    "output_activation": "an activation was applied to the output: y_t = W_hy h_t + b_y has none.",
    "modifies_input": (
        "an input array was modified in place: compute into a new array and leave the arguments as they were."
    ),
    "state_not_carried": (
        "the hidden state is not carried from one step to the next: each step must read the h_t that the "
        "previous step produced (starting from h0)."
    ),
    "state_reset": "the hidden state is reset at every step: only h0 starts the sequence, later steps read h_{t-1}.",
    "states_off_by_one": "the states are shifted by one step: hs[t] is the state after reading xs[t], not before.",
    "upper_layer_fed_x": (
        "an upper layer was fed x_t: layer l > 1 reads the current hidden state of the layer below, h_t^[l-1]."
    ),
    "shared_weights": "all layers used the first layer's weights: every layer has its own W_xh, W_hh and b_h.",
    "layer_state_shared": "the layers share one recurrent state: every layer carries its own h_{t-1}^[l].",
    "mean_over_time": "the loss was averaged over time: the per-example loss is the sum over time steps.",
    "sum_over_examples": "the loss was summed over examples: the training loss is the mean over the m examples.",
    "mean_over_units": "the per-step loss averaged the output units: it is the sum of squared errors over units.",
    "not_squared": "the error was not squared: the per-step loss is sum_k (y_hat - y)^2.",
    "last_step_ignored": "many_to_many=False means only the last step's loss counts: L_T for each example.",
    "first_step_instead_of_last": "the first step was used instead of the last: many-to-one reads L_T, the final step.",
    "count_missing_bias": "the biases were not counted: b_h has n_h entries and b_y has n_y.",
    "count_missing_recurrent": "the recurrent weights W_hh (n_h * n_h) were not counted.",
    "count_missing_output": "the output layer (W_hy and b_y) was not counted.",
    "not_an_array": "the function did not return a numeric array.",
    "h0_ignored": "the initial state was ignored: the first step reads h0 (or the given h0s), not zeros.",
    "output_bias_missing": "the output bias is missing: y_t = W_hy h_t + b_y.",
    "mean_over_all": (
        "the loss is the mean of every squared error: sum over output units and over time steps, "
        "then take the mean over the m examples only."
    ),
    "absolute_error": (
        "the absolute error was used: the per-step loss is the squared error, sum_k (y_hat - y)^2."
    ),
    "not_a_sequence": (
        "the result has the wrong structure: rnn_forward returns the tuple (hs, ys) and "
        "stacked_rnn_forward a list with one array of hidden states per layer."
    ),
}


@functools.cache
def assignment_hints(assignment: str) -> Mapping[str, str]:
    """The shared hints with the assignment's own (its graders' `hints.py`, when there is one) over them."""
    name = module_name(assignment, "hints")
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name not in (name, module_name(assignment)):
            raise
        return HINTS
    return {**HINTS, **getattr(module, "HINTS", {})}


def hint_text(hint_id: str, assignment: str | None = None) -> str:
    return (assignment_hints(assignment) if assignment else HINTS).get(hint_id, hint_id)
