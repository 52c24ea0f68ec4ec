"""The most any attack can read out of the feedback, in graded submissions: what one graded attempt's
page can carry at the most (`capacity_bound`), and what reading an exercise's hidden inputs and expected
values takes (`needed_bits`). `autograder.devtools.oracle` measures a real attack against it; the docs'
"What the feedback reveals" and `tests/test_oracle.py` quote both.
"""

import math
from collections.abc import Callable
from typing import Any

from autograder.devtools.catalogue import solution_sources
from autograder.grader_support.counterexample import public_calls
from autograder.grader_support.exercise import collect, exercises, reference_function, run_case
from autograder.grader_support.mistake_tables import mistakes_of
from autograder.grader_support.raised import MAX_LINE, SHOWN_TYPES

# Bits a value needs for a lookup table to pass a check (rtol 1e-6: about 20 bits of mantissa, a sign and a
# few of exponent); an integer input or answer here fits in a few bits.
NEEDED_FLOAT_BITS, NEEDED_INT_BITS = 24, 8


class _Recorder:
    """A student whose every function answers as the reference, recording the calls the graders make."""

    def __init__(self, assignment: str) -> None:
        self.assignment, self.calls = assignment, []

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def recorded_call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            return reference_function(self.assignment, name)(*args, **kwargs)
        return recorded_call


def graded_calls(assignment: str, exercise: str) -> list[tuple[str, tuple, dict]]:
    """The calls the exercise's checks make, in order (one a check here)."""
    recorder = _Recorder(assignment)
    for case in collect(assignment, exercise):
        run_case(case, recorder, assignment)
    return recorder.calls


def needed_bits(assignment: str, exercise: str) -> tuple[int, int]:
    """What reading an exercise's hidden inputs and expected values takes, at the precision a lookup table
    needs (`NEEDED_*_BITS` a value): (inputs, expected). Only arrays count as hidden inputs: a check's
    scalar arguments (sizes, options) are in its name and its call, as the feedback shows them."""
    inputs = expected = 0
    for name, args, kwargs in graded_calls(assignment, exercise):
        for value in args:
            if not isinstance(value, int | float):
                inputs += _bits_of(value)
        expected += _bits_of(reference_function(assignment, name)(*args, **kwargs))
    return inputs, expected


def _bits_of(value: Any) -> int:
    floats, ints = _counts(value)
    return NEEDED_FLOAT_BITS * floats + NEEDED_INT_BITS * ints


def _counts(value: Any) -> tuple[int, int]:
    import numpy as np

    if isinstance(value, np.ndarray):
        return (value.size, 0) if value.dtype.kind == "f" else (0, value.size)
    if isinstance(value, list | tuple | dict):
        pairs = [_counts(v) for v in (value.values() if isinstance(value, dict) else value)]
        return sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    if isinstance(value, float):
        return 1, 0
    return (0, 1) if isinstance(value, int) and not isinstance(value, bool) else (0, 0)


FIRST_BITS = math.log2(len(SHOWN_TYPES) + 1) + math.log2(MAX_LINE)  # an exercise's one explained failure
OTHER_BITS = math.log2(3)  # each other check: passed, failed the same way, or failed another way
TIMING_BITS = 5.0  # the feedback's time of arrival: a cell's 30 s at a resolution of 1 s, optimistically


def counterexample_bits(assignment: str, exercise: str) -> float:
    """What an exercise's counterexample (`graders.counterexample`) can carry: which of its public calls is
    the first the answer differs on (or none), and which known mistake's answer it gave there, or neither
    with the right shape or another. Its inputs and expected values are public: they carry nothing."""
    return (math.log2(len(public_calls(assignment, exercise)) + 1)
            + math.log2(len(mistakes_of(assignment, exercise)) + 2))


def capacity_bound() -> dict[str, dict[str, float]]:
    """Per assignment: the bits one graded submission can carry out at most (`_total`), and per exercise
    the graded submissions that reading its hidden inputs and expected values takes at the least.

    Every exercise's feedback explains one failing check of its run with the student's own functions (which
    one, and an exception's type and line, or a shape, or a hint: at most `FIRST_BITS`) and says of each other check
    whether it passed or failed alike (`OTHER_BITS`, as if the attacker could pass any check at will), with
    the smallest public input its answer differs on (`counterexample_bits`); an
    exercise judged on its own adds its score there; each grade cell's score says whether its self-check
    passed; the time the feedback takes says a few bits. A submission's process holds every hidden input
    (the sandbox sends them ahead), so inputs can leave through all of that. An exercise's expected values
    only ever reach it while a later exercise is judged on its own (its stand-in answers as the reference),
    and of that run only the score is shown: they leave through the later exercises' scores on their own,
    and an exercise with none after it never gives them away (bar guessing one value a check)."""
    bounds: dict[str, dict[str, float]] = {}
    for assignment in ("hidden_state_activation", "rnn_update_equations"):
        order = [name for name in solution_sources(assignment) if name in exercises(assignment)]
        checks = {name: len(collect(assignment, name)) for name in order}
        alone = {name: math.log2(count + 1) for name, count in checks.items()}  # a score of 0..count points
        total = sum(FIRST_BITS + math.log2(checks[name]) + OTHER_BITS * (checks[name] - 1) + alone[name] + 1
                    + counterexample_bits(assignment, name) for name in order) + TIMING_BITS
        rows: dict[str, float] = {"_total": total}
        for index, name in enumerate(order):
            inputs, expected = needed_bits(assignment, name)
            later = sum(alone[other] for other in order[index + 1:])
            if expected and not later:
                rows[name] = math.inf
                continue
            rows[name] = max(math.ceil((inputs + expected) / total), math.ceil(expected / later) if later else 0)
        bounds[assignment] = rows
    return bounds
