"""Each exercise judged on its own: one mistake costs points once.

A graded function may call another one (`formula_1` on the student's own `concat_state_input`,
`hidden_state` on their `sigmoid` as its default `g`). When such a function loses points and an exercise
above it in the notebook lost points too, it is graded again with the functions of those earlier exercises
answering as the reference answers do, and keeps the better of the two results. Its own code is still the
student's: only what it asks of the broken earlier functions is answered for it.

The answers are the ones the reference solution of the same exercise got from those functions while the
graders ran it (`recorded_calls`, recorded once per process on the trusted side): a call with the same
arguments (arrays of the same shape, values within the graders' tolerance) gets that result, any other
call an error. No reference code ever enters the student's process, and the student learns nothing the
reference's own run of this exercise did not compute from its inputs.

Both grading paths use it: `autograder.kernel.grade` (in the kernel, `nbgrader autograde`) and the engine
(through the sandbox's callbacks, `Sandbox.answers`).
"""

import copy
import functools
import importlib
import inspect
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.runner import run_exercise
from autograder.sandbox.standins import Replaced
from autograder.student import NamespaceStudent

RTOL, ATOL = 1e-6, 1e-8  # the graders' tolerance: what they would accept as the same array


@dataclass(frozen=True)
class Recorded:
    name: str
    arguments: dict  # bound to the reference function's signature, defaults applied
    result: Any


def exercises(assignment: str) -> list[str]:
    """The assignment's graded functions, by their graders' modules (`test_<exercise>`)."""
    package = importlib.import_module(f"autograder.graders.{assignment}")
    return sorted(m.name.removeprefix("test_") for m in pkgutil.iter_modules(package.__path__)
                  if m.name.startswith("test_"))


@functools.cache
def recorded_calls(assignment: str, exercise: str, visible: str = "", modules: tuple[tuple[str, str], ...] = ()
                   ) -> tuple[Recorded, ...]:
    """What the reference function of `exercise` asks of the other exercises' functions (through the module's
    names or its own default arguments) while the graders run it, and while the grade cell's visible
    self-check runs it (`visible`, with the instructor's `modules`: name, source): each call and its result.
    The self-check's inputs are public (its module is released), so their answers give nothing away."""
    from autograder.trustedcheck import TrustedChecks, parse

    reference = importlib.import_module(f"autograder.graders.{assignment}.reference")
    own = getattr(reference, exercise, None)
    others = {name: getattr(reference, name) for name in exercises(assignment)
              if name != exercise and callable(getattr(reference, name, None))}
    if not callable(own) or not others:
        return ()
    calls: list[Recorded] = []

    def recording(name: str, function: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            arguments = copy.deepcopy(_bound(function, args, kwargs))
            result = function(*args, **kwargs)
            calls.append(Recorded(name, arguments, copy.deepcopy(result)))
            return result
        call.__name__ = call.__qualname__ = name  # a default argument is matched by its name
        return call

    wrappers = {name: recording(name, function) for name, function in others.items()}
    check = parse(visible) if visible else None
    with Replaced(vars(reference), wrappers):
        run_exercise(assignment, exercise, NamespaceStudent(vars(reference)))
        if check and all(call.module in dict(modules) for call in check):
            TrustedChecks(dict(modules)).run(check, NamespaceStudent(vars(reference)))
    return tuple(calls)


class Answers:
    """The recorded calls of one exercise, answering a call of a replaced function."""

    def __init__(self, assignment: str, exercise: str, visible: str = "",
                 modules: tuple[tuple[str, str], ...] = ()) -> None:
        """`visible`, `modules`: the grade cell's visible part and the instructor's modules, whose self-check's
        calls are answered too (see `recorded_calls`)."""
        self.exercise = exercise
        self.calls = recorded_calls(assignment, exercise, visible, modules)
        self.reference = importlib.import_module(f"autograder.graders.{assignment}.reference")

    def answer(self, name: str, args: tuple, kwargs: dict) -> Any:
        try:
            arguments = _bound(getattr(self.reference, name), args, kwargs)
        except (TypeError, AttributeError):
            arguments = None
        for call in self.calls if arguments is not None else ():
            if call.name == name and _alike(call.arguments, arguments):
                return copy.deepcopy(call.result)
        raise LookupError(f"{name} was asked for something the reference {self.exercise} never asks it: "
                          f"it is graded here with {name} answering as the reference does")

    def stand_in(self, name: str) -> Any:
        """A function of that name answering as the reference does (for the kernel's namespace)."""
        def answered(*args: Any, **kwargs: Any) -> Any:
            return self.answer(name, args, kwargs)
        answered.__name__ = answered.__qualname__ = name
        return answered


def _bound(function: Any, args: tuple, kwargs: dict) -> dict:
    """The call's arguments by parameter name, however it was written (positional or keyword)."""
    bound = inspect.signature(function).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def _alike(recorded: Any, given: Any) -> bool:
    if isinstance(recorded, np.ndarray) or isinstance(given, np.ndarray):
        try:
            a, b = np.asarray(recorded), np.asarray(given)
            return (a.shape == b.shape and a.dtype.kind in "biuf" and b.dtype.kind in "biuf"
                    and bool(np.allclose(a, b, rtol=RTOL, atol=ATOL)))
        except (TypeError, ValueError):
            return False
    if isinstance(recorded, tuple | list):
        return (isinstance(given, tuple | list) and len(recorded) == len(given)
                and all(map(_alike, recorded, given)))
    if isinstance(recorded, dict):
        return (isinstance(given, dict) and recorded.keys() == given.keys()
                and all(_alike(recorded[k], given[k]) for k in recorded))
    if callable(recorded):  # an activation passed along: the same function, by name
        return callable(given) and getattr(recorded, "__name__", None) == getattr(given, "__name__", None)
    if isinstance(recorded, bool | int | float) and isinstance(given, bool | int | float | np.number):
        return bool(np.isclose(recorded, given, rtol=RTOL, atol=ATOL))
    return type(recorded) is type(given) and recorded == given


def alone_note(exercise: str, broken: list[str]) -> str:
    """What the student reads under an exercise that was judged on its own."""
    return (f"{exercise} was judged on its own: {', '.join(broken)} lost points above, so while {exercise} was "
            f"graded again they answered as the reference answers do (one mistake costs points once).")


def lost(results: Iterable[tuple[str, float, float]]) -> list[str]:
    """The exercises, of (exercise, score, points) graded so far, that lost points."""
    return [exercise for exercise, score, points in results if score < points]
