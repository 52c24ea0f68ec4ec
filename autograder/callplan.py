"""The calls the hidden graders make, known before any submission is graded.

The graders draw their inputs from fixed seeds, so on a correct answer they make the same calls for every
submission. Recorded once per process against the reference answers, those calls are sent to a
submission's process together with its cells (`Sandbox.announce`): it runs a whole notebook without
waiting for the grader between calls, and the graders then find each answer already there. A grader that
asks for a call not in the plan (one built from a wrong answer's output) makes the engine grade that
notebook again, asking for each call when it is made.
"""

import functools
import importlib
import pkgutil
from typing import Any

from autograder.runner import run_exercise
from autograder.sandbox.client import Request, call_request
from autograder.student import NamespaceStudent


class _Recorder:
    """A `student` whose functions are the reference answers, noting each call's arguments."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._student = NamespaceStudent(namespace)
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            # The graders hand each call fresh copies, and the reference leaves them as they are.
            self.calls.append((name, args, kwargs))
            return getattr(self._student, name)(*args, **kwargs)

        return call


@functools.cache
def _recorded(assignment: str, exercise: str) -> tuple[tuple[str, tuple, dict], ...]:
    reference = importlib.import_module(f"autograder.graders.{assignment}.reference")
    recorder = _Recorder(vars(reference))
    run_exercise(assignment, exercise, recorder)
    return tuple(recorder.calls)


@functools.cache
def planned_calls(assignment: str, exercise: str, group: str | None) -> tuple[Request, ...]:
    """The calls `run_exercise(assignment, exercise, ...)` makes on a correct answer, tagged with `group`
    (the grade cell), each packed once."""
    return tuple(call_request(name, args, kwargs, group, planned=True)
                 for name, args, kwargs in _recorded(assignment, exercise))


def prepare(assignment: str) -> None:
    """Load an assignment's graders and record their plans ahead of the first submission (a worker does
    this while the main process is still starting)."""
    package = importlib.import_module(f"autograder.graders.{assignment}")
    for module in pkgutil.iter_modules(package.__path__):
        if module.name.startswith("test_"):
            _recorded(assignment, module.name.removeprefix("test_"))
