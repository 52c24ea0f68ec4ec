"""Public inputs for the counterexamples (`graders.counterexample`): sizes of 1 and 2 only (T = 2), entries
counting 1, 2, 3, ..., mostly with the identity as phi so the numbers stay readable; no scored check uses
them (`cases`: random entries, other sizes), and they tell no more than the worked examples do. Smallest
first, at most `MAX_CALLS` an exercise."""

import numpy as np

from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.counterexample import PublicCall, counting

IDENTITY, TANH = ACTIVATIONS["identity"], ACTIVATIONS["tanh"]
SIZES = [(1, 1, 1, 1), (2, 1, 1, 2), (1, 2, 2, 1)]  # (n_x, n_h, n_y, m)
NAMES = ("x_t", "h_prev", "W_xh", "W_hh", "b_h", "W_hy", "b_y")


SHAPES = {"x_t": lambda n_x, n_h, n_y, m: (n_x, m), "h_prev": lambda n_x, n_h, n_y, m: (n_h, m),
          "W_xh": lambda n_x, n_h, n_y, m: (n_h, n_x), "W_hh": lambda n_x, n_h, n_y, m: (n_h, n_h),
          "b_h": lambda n_x, n_h, n_y, m: (n_h, 1), "W_hy": lambda n_x, n_h, n_y, m: (n_y, n_h),
          "b_y": lambda n_x, n_h, n_y, m: (n_y, 1)}


def _arrays(n_x: int, n_h: int, n_y: int, m: int, names: tuple[str, ...] = NAMES) -> dict[str, np.ndarray]:
    """The named arguments at these sizes, counting 1, 2, 3, ... across them in the contract's order."""
    return dict(zip(names, counting(*(SHAPES[name](n_x, n_h, n_y, m) for name in names)), strict=True))


def _pick(*names: str, **options: object) -> list[PublicCall]:
    return [PublicCall(_arrays(*size, names=names), dict(options)) for size in SIZES]


def _step(size: tuple[int, int, int, int], phi: object) -> PublicCall:
    return PublicCall(_arrays(*size, names=NAMES[:5]), {"phi": phi})


def _stacked(n_x: int, n_h: int, m: int) -> dict[str, np.ndarray]:
    a = _arrays(n_x, n_h, 1, m, names=("x_t", "h_prev", "W_xh", "W_hh", "b_h"))
    return {"I": np.vstack((a["x_t"], a["h_prev"])), "W": np.hstack((a["W_xh"], a["W_hh"])), "b_h": a["b_h"]}


def _sequence(n_x: int, n_h: int, n_y: int, m: int, T: int = 2) -> dict[str, np.ndarray]:  # noqa: N803
    xs, h0, W_xh, W_hh, b_h, W_hy, b_y = counting((T, n_x, m), (n_h, m), (n_h, n_x), (n_h, n_h), (n_h, 1),  # noqa: N806
                                                  (n_y, n_h), (n_y, 1))
    return {"xs": xs, "h0": h0, "W_xh": W_xh, "W_hh": W_hh, "b_h": b_h, "W_hy": W_hy, "b_y": b_y}


def _layers(n_x: int, widths: tuple[int, ...], m: int, T: int = 2) -> dict:  # noqa: N803
    xs, below, layers, start = counting((T, n_x, m))[0], n_x, [], T * n_x * m + 1
    for width in widths:
        W_xh, W_hh, b_h = counting((width, below), (width, width), (width, 1), start=start)  # noqa: N806
        layers.append({"W_xh": W_xh, "W_hh": W_hh, "b_h": b_h})
        start, below = start + W_xh.size + W_hh.size + b_h.size, width
    return {"xs": xs, "layers": layers}


def _targets(T: int, n_y: int, m: int) -> dict[str, np.ndarray]:  # noqa: N803
    """Errors 1, -2, 3, -4, ...: every averaging, sign or step mistake gives another loss."""
    (y_hat,) = counting((T, n_y, m))
    errors = y_hat * (-1) ** (y_hat + 1)
    return {"y_hat": y_hat, "y": y_hat - errors}


PUBLIC_CALLS = {
    "rnn_step": [_step((1, 1, 1, 1), IDENTITY), _step((1, 1, 1, 1), TANH), _step(SIZES[1], IDENTITY),
                 _step(SIZES[2], IDENTITY)],
    "rnn_output": [PublicCall({"h_t": a["h_prev"], "W_hy": a["W_hy"], "b_y": a["b_y"]})
                   for a in (_arrays(*size, names=("h_prev", "W_hy", "b_y")) for size in SIZES)],
    "stack_params": _pick("W_xh", "W_hh"),
    "stack_inputs": _pick("x_t", "h_prev"),
    "rnn_step_stacked": [PublicCall(_stacked(1, 1, 1), {"phi": IDENTITY}), PublicCall(_stacked(1, 1, 1), {"phi": TANH}),
                         PublicCall(_stacked(2, 1, 2), {"phi": IDENTITY})],
    "rnn_forward": [PublicCall(_sequence(1, 1, 1, 1), {"phi": IDENTITY}),
                    PublicCall(_sequence(2, 1, 1, 2), {"phi": IDENTITY}),
                    PublicCall(_sequence(1, 2, 2, 1), {"phi": IDENTITY})],
    "stacked_rnn_forward": [PublicCall(_layers(1, (1, 1), 1), {"phi": IDENTITY}),
                            PublicCall({**_layers(1, (1, 1), 1), "h0s": [np.ones((1, 1), dtype=int)] * 2},
                                       {"phi": IDENTITY}),
                            PublicCall(_layers(1, (2, 1), 2), {"phi": IDENTITY})],
    "sequence_loss": [PublicCall(_targets(2, 1, 1)), PublicCall(_targets(2, 1, 1), {"many_to_many": False}),
                      PublicCall(_targets(2, 2, 2)), PublicCall(_targets(2, 2, 2), {"many_to_many": False})],
    "count_parameters": [PublicCall({"n_x": 1, "n_h": 1, "n_y": 1}), PublicCall({"n_x": 2, "n_h": 1, "n_y": 1}),
                         PublicCall({"n_x": 1, "n_h": 2, "n_y": 1})],
}
