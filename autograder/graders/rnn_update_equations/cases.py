"""The shapes every `rnn_update_equations` grader tries, and their inputs.

Square cases (n_h == n_x, and m == n_h) are there so that a swapped order, axis or transpose gives a wrong
value instead of an error the student would see as a crash. Stacks of EQUAL widths (with n_x equal to
them) are there for the same reason: an upper layer fed x_t, weights shared across layers or one state
shared by all layers only run, and give wrong numbers, when every layer has the same width.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from autograder.grader_support.randomdata import fixed, normal, rng_for

# Weights of scale 0.5 keep tanh away from saturation, so a state that was not carried still shows.
WEIGHT_SCALE = 0.5


def _draw(rng: np.random.Generator, integer: bool, *shape: int, weight: bool = False) -> np.ndarray:
    if integer:  # small integers: pre-activations stay well below where tanh rounds to exactly 1.0
        return rng.integers(-2, 3, size=shape)
    return normal(rng, *shape, scale=WEIGHT_SCALE if weight else 1.0)


@dataclass(frozen=True)
class Shape:
    """One layer with its output, and a sequence for it to read."""

    label: str
    n_x: int
    n_h: int
    n_y: int
    m: int
    T: int
    integer: bool = False

    @fixed
    def arrays(self, salt: str = "") -> dict[str, np.ndarray]:
        rng = rng_for(self.label + salt)
        n_x, n_h, n_y, m, T, i = self.n_x, self.n_h, self.n_y, self.m, self.T, self.integer
        return {
            "x_t": _draw(rng, i, n_x, m),
            "h_prev": _draw(rng, i, n_h, m),
            "W_xh": _draw(rng, i, n_h, n_x, weight=True),
            "W_hh": _draw(rng, i, n_h, n_h, weight=True),
            "b_h": _draw(rng, i, n_h, 1),
            "W_hy": _draw(rng, i, n_y, n_h, weight=True),
            "b_y": _draw(rng, i, n_y, 1),
            "xs": _draw(rng, i, T, n_x, m),
            "h0": _draw(rng, i, n_h, m),
        }


SHAPES = [
    Shape("n_x=5 n_h=3 n_y=2 m=1 T=4", 5, 3, 2, 1, 4),
    Shape("n_x=n_h=n_y=4 m=1 T=3", 4, 4, 4, 1, 3),
    Shape("n_x=3 n_h=2 n_y=1 m=6 T=5", 3, 2, 1, 6, 5),
    Shape("n_x=n_h=m=5 n_y=3 T=2", 5, 5, 3, 5, 2),
    Shape("integers n_x=2 n_h=3 n_y=2 m=2 T=3", 2, 3, 2, 2, 3, integer=True),
]
SHAPE_PARAMS = [pytest.param(shape, id=shape.label) for shape in SHAPES]
MINIBATCH = SHAPES[3]


def pick(arrays: dict[str, np.ndarray], *names: str) -> dict[str, np.ndarray]:
    return {name: arrays[name] for name in names}


@dataclass(frozen=True)
class Stack:
    """L stacked layers of the given widths reading a sequence of n_x features."""

    label: str
    n_x: int
    widths: tuple[int, ...]
    m: int
    T: int
    integer: bool = False

    @fixed
    def arrays(self, salt: str = "", initial_states: bool = False) -> dict:
        """xs, layers and h0s (None unless `initial_states`), in the contract's argument order."""
        rng = rng_for(self.label + salt)
        below, layers = self.n_x, []
        for width in self.widths:
            layers.append({
                "W_xh": _draw(rng, self.integer, width, below, weight=True),
                "W_hh": _draw(rng, self.integer, width, width, weight=True),
                "b_h": _draw(rng, self.integer, width, 1),
            })
            below = width
        xs = _draw(rng, self.integer, self.T, self.n_x, self.m)
        h0s = [_draw(rng, self.integer, width, self.m) for width in self.widths] if initial_states else None
        return {"xs": xs, "layers": layers, "h0s": h0s}


STACKS = [
    Stack("n_x=3 widths=4,2 m=2 T=3", 3, (4, 2), 2, 3),
    Stack("n_x=4 widths=4,4,4 m=1 T=3", 4, (4, 4, 4), 1, 3),
    Stack("n_x=2 widths=3,5,2 m=3 T=4", 2, (3, 5, 2), 3, 4),
    Stack("n_x=3 widths=3,3 m=4 T=2", 3, (3, 3), 4, 2),
    Stack("one layer n_x=2 widths=3 m=2 T=3", 2, (3,), 2, 3),
    Stack("integers n_x=2 widths=2,2 m=2 T=3", 2, (2, 2), 2, 3, integer=True),
]
STACK_PARAMS = [pytest.param(stack, id=stack.label) for stack in STACKS]
EQUAL_WIDTHS = STACKS[1]
MIXED_WIDTHS = STACKS[2]


@dataclass(frozen=True)
class Targets:
    """Predictions and targets (T, n_y, m) for the loss. T != n_y, so each averaging mistake differs."""

    label: str
    T: int
    n_y: int
    m: int
    integer: bool = False

    @fixed
    def arrays(self, salt: str = "") -> dict[str, np.ndarray]:
        rng = rng_for(self.label + salt)
        shape = (self.T, self.n_y, self.m)
        return {"y_hat": _draw(rng, self.integer, *shape), "y": _draw(rng, self.integer, *shape)}


TARGETS = [
    Targets("T=4 n_y=3 m=5", 4, 3, 5),
    Targets("T=3 n_y=2 m=1", 3, 2, 1),
    Targets("T=5 n_y=1 m=3", 5, 1, 3),
    Targets("integers T=2 n_y=4 m=2", 2, 4, 2, integer=True),
]
TARGET_PARAMS = [pytest.param(targets, id=targets.label) for targets in TARGETS]

# (n_x, n_h, n_y): all different, so each forgotten term changes the count by a different amount.
SIZES = [(3, 5, 2), (4, 4, 4), (10, 7, 2), (1, 2, 3), (128, 64, 10)]
SIZE_PARAMS = [pytest.param(dict(zip(("n_x", "n_h", "n_y"), s, strict=True)), id=f"n_x={s[0]} n_h={s[1]} n_y={s[2]}")
               for s in SIZES]
