"""Public inputs for the counterexamples (`graders.counterexample`): sizes of 1 and 2 only, entries counting
1, 2, 3, ...; no scored check uses them (its sizes are 2 to 6 with random entries, `cases.SHAPES`), and they
tell no more than the worked example does. Smallest first, at most `MAX_CALLS` an exercise."""

import numpy as np

from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.counterexample import PublicCall, counting

IDENTITY = ACTIVATIONS["identity"]
SIZES = [(1, 1, 1), (1, 2, 1), (2, 1, 2), (2, 2, 2)]  # (n_h, n_x, m)


SHAPES = {"w_hh": lambda n_h, n_x, m: (n_h, n_h), "w_hx": lambda n_h, n_x, m: (n_h, n_x),
          "h_t_prev": lambda n_h, n_x, m: (n_h, m), "x_t": lambda n_h, n_x, m: (n_x, m),
          "b_h": lambda n_h, n_x, m: (n_h, 1)}


def _arrays(n_h: int, n_x: int, m: int, names: tuple[str, ...] = tuple(SHAPES)) -> dict[str, np.ndarray]:
    """The named arguments at these sizes, counting 1, 2, 3, ... across them in the contract's order."""
    return dict(zip(names, counting(*(SHAPES[name](n_h, n_x, m) for name in names)), strict=True))


def _pick(*names: str, **options: object) -> list[PublicCall]:
    return [PublicCall(_arrays(*size, names=names), dict(options)) for size in SIZES]


PUBLIC_CALLS = {
    "concat_weights": _pick("w_hh", "w_hx"),
    "concat_state_input": _pick("h_t_prev", "x_t"),
    "formula_1": _pick("w_hh", "w_hx", "h_t_prev", "x_t"),
    "formula_2": _pick("w_hh", "w_hx", "h_t_prev", "x_t"),
    "sigmoid": [PublicCall({"z": np.array([[0.0]])}), PublicCall({"z": np.array([[-1.0, 2.0]])}),
                PublicCall({"z": np.array([[-1000.0, 1000.0]])})],
    "hidden_state": [
        PublicCall(_arrays(1, 1, 1), {"formula": 1, "g": IDENTITY}),
        PublicCall(_arrays(1, 1, 1), {"formula": 2, "g": IDENTITY}),
        PublicCall({**_arrays(1, 1, 1), "b_h": np.array([[-11]])}, {"formula": 1}),
        PublicCall(_arrays(2, 1, 2), {"formula": 1, "g": IDENTITY}),
    ],
}
