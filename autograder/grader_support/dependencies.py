"""Each exercise judged on its own: one mistake costs points once.

A graded function may call another one (`formula_1` on the student's own `concat_state_input`,
`hidden_state` on their `sigmoid` as its default `g`). When such a function loses points and an exercise
above it in the notebook lost points too, it is graded again with the functions of those earlier exercises
answering as the reference answers do, and keeps the better of the two results. Its own code is still the
student's: only what it asks of the broken earlier functions is answered for it.

The answers are computed on the trusted side by the reference function of that name (`Answers`): no
reference code enters the student's process. What the student's code receives is the reference's result
on arguments it chose; so of that second run only its score is shown (when it is better), never what its
checks said or what its process printed (docs, "What the feedback reveals").

Both grading paths use it: `autograder.nbgrader_glue.kernel.grade` (in the kernel, `nbgrader autograde`) and the engine
(`autograder.grading.alone`, through the sandbox's callbacks).
"""

import copy
from collections.abc import Iterable
from typing import Any


class Answers:
    """The reference answers of an assignment, answering calls of the student's functions they replace."""

    def __init__(self, assignment: str, modules: Any = None) -> None:
        """`modules`: the instructor's modules as the trusted self-checks load them (`TrustedChecks`), for
        their functions that the student's code passes along (`g=selfcheck.identity`)."""
        from autograder.grader_support.exercise import reference

        self.reference = reference(assignment)
        self.modules = modules

    def function(self, name: str) -> Any:
        """A function that crossed by name: an activation, or "module:function" of an instructor's module."""
        from autograder.grader_support.activations import ACTIVATIONS

        if name in ACTIVATIONS:
            return ACTIVATIONS[name]
        module_name, _, attribute = name.partition(":")
        module = self.modules.module(module_name) if self.modules is not None and attribute else None
        if module is None or not callable(getattr(module, attribute, None)):
            raise LookupError(f"unknown function {name!r}")
        return getattr(module, attribute)

    def answer(self, name: str, args: tuple, kwargs: dict) -> Any:
        function = getattr(self.reference, name, None)
        if not callable(function):
            raise LookupError(f"{name} has no reference answer")
        try:  # copies: the student's code keeps what it passed, as with its own function
            return function(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        except Exception as exc:
            raise LookupError(f"{name} (answering as the reference does) raised {type(exc).__name__}: "
                              f"{str(exc)[:300]}") from None

    def stand_in(self, name: str) -> Any:
        """A function of that name answering as the reference does (for the kernel's namespace)."""
        def answered(*args: Any, **kwargs: Any) -> Any:
            return self.answer(name, args, kwargs)
        answered.__name__ = answered.__qualname__ = name
        return answered


def alone_note(exercise: str, broken: list[str], score: float, points: float) -> str:
    """What the student reads above the verdict of an exercise judged on its own: the score it keeps. The
    checks listed below it are its own run's, with the student's functions; the run on its own is told by
    its score alone (its checks could carry out the reference's answers: docs, "What the feedback
    reveals")."""
    return (f"{exercise} was judged on its own: {', '.join(broken)} lost points above, so while {exercise} was "
            f"graded again they answered as the reference answers do (one mistake costs points once). On its "
            f"own it scores {score:g} / {points:g}, and keeps that; below are its checks with your functions.")


def lost(results: Iterable[tuple[str, float, float]]) -> list[str]:
    """The exercises, of (exercise, score, points) graded so far, that lost points."""
    return [exercise for exercise, score, points in results if score < points]
