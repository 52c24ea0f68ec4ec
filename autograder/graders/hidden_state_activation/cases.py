"""The shapes every `hidden_state_activation` grader tries, and their inputs.

Square cases (n_h == n_x, and m == n_h) are there so that a swapped block, axis or transpose gives a
wrong value instead of an error that the student would see as a crash.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from autograder.grader_support.randomdata import fixed, integers, normal, rng_for


@dataclass(frozen=True)
class Shape:
    label: str
    n_h: int
    n_x: int
    m: int
    integer: bool = False

    @fixed
    def arrays(self, salt: str = "") -> dict[str, np.ndarray]:
        """w_hh, w_hx, h_t_prev, x_t and b_h for this shape, in the contract's argument order."""
        rng = rng_for(self.label + salt)
        draw = integers if self.integer else normal
        return {
            "w_hh": draw(rng, self.n_h, self.n_h),
            "w_hx": draw(rng, self.n_h, self.n_x),
            "h_t_prev": draw(rng, self.n_h, self.m),
            "x_t": draw(rng, self.n_x, self.m),
            "b_h": draw(rng, self.n_h, 1),
        }


SHAPES = [
    Shape("n_h=3 n_x=5 m=1", 3, 5, 1),
    Shape("n_h=n_x=4 m=1", 4, 4, 1),
    Shape("n_h=2 n_x=3 m=6", 2, 3, 6),
    Shape("n_h=n_x=m=5", 5, 5, 5),
    Shape("integers n_h=3 n_x=2 m=2", 3, 2, 2, integer=True),
]

SHAPE_PARAMS = [pytest.param(shape, id=shape.label) for shape in SHAPES]
MINIBATCH = SHAPES[3]


def pick(arrays: dict[str, np.ndarray], *names: str) -> dict[str, np.ndarray]:
    return {name: arrays[name] for name in names}
