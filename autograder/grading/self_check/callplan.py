"""The calls the hidden graders make, known before any submission is graded.

The graders draw their inputs from fixed seeds, so on a correct answer they make the same calls for every
submission. Recorded once per process against the reference answers, those calls are sent to a
submission's process together with its cells (`PlannedSandbox.announce`): it runs a whole notebook without
waiting for the grader between calls, and the graders then find each answer already there. A grader that
asks for a call not in the plan (one built from a wrong answer's output) makes the engine grade that
notebook again, asking for each call when it is made. The same holds for the calls of a grade cell's
self-check run on the trusted side (`trustedcheck`), recorded against the same reference answers. The stage
(`stage.TrustedSelfCheck.requests`) puts a notebook's plan together from these: it imports this module, never
the reverse.
"""

import functools
from collections.abc import Callable
from typing import Any

from autograder.grader_support.counterexample import public_calls
from autograder.grader_support.exercise import exercises, reference_function, run_exercise
from autograder.grader_support.exercise import reference as graders_reference
from autograder.grader_support.judge import fresh
from autograder.grader_support.student import InProcessStudent
from autograder.grading.self_check.trustedcheck import TrustedChecks, parse
from autograder.sandbox.planned import PlannedCall, planned_call


class _Recorder:
    """A `student` whose functions are the reference answers, noting each call (`note` says how)."""

    def __init__(self, namespace: dict[str, Any], note: Callable[[str, tuple, dict], Any] | None = None) -> None:
        self._student = InProcessStudent(namespace)
        self._note = note or (lambda name, args, kwargs: (name, args, kwargs))
        self.calls: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def recorded_call(*args: Any, **kwargs: Any) -> Any:
            # The graders hand each call fresh copies, and the reference leaves them as they are.
            self.calls.append(self._note(name, args, kwargs))
            return getattr(self._student, name)(*args, **kwargs)

        return recorded_call


@functools.cache
def _recorded(assignment: str, exercise: str) -> tuple[tuple[str, tuple, dict], ...]:
    reference_function(assignment, exercise)  # the plan is the exercise's own reference answering
    reference = graders_reference(assignment)
    recorder = _Recorder(vars(reference))
    run_exercise(assignment, exercise, recorder)
    # The counterexample's calls come after the checks, and only when one failed: sent ahead all the same,
    # so a wrong answer is not graded again call by call for them (passed over when not asked for).
    for call in public_calls(assignment, exercise):
        getattr(recorder, exercise)(*map(fresh, call.args.values()), **call.options)
    return tuple(recorder.calls)


@functools.cache
def planned_calls(assignment: str, exercise: str, group: str | None) -> tuple[PlannedCall, ...]:
    """The calls `run_exercise(assignment, exercise, ...)` makes on a correct answer, tagged with `group`
    (the grade cell), each packed once."""
    return tuple(planned_call(name, args, kwargs, group)
                 for name, args, kwargs in _recorded(assignment, exercise))


@functools.lru_cache(maxsize=256)
def planned_check_calls(visible: str, modules: tuple[tuple[str, str], ...], assignment: str, group: str | None
                        ) -> tuple[PlannedCall, ...] | None:
    """The calls the trusted run of a grade cell's visible part makes on a correct answer, tagged with `group`;
    None when that part is not run on the trusted side: it is not a plain call of the instructor's modules
    (`modules`: name, source) on names the reference answers define as functions, or it does not run there."""
    calls = parse(visible)
    sources = dict(modules)
    if calls is None or any(call.module not in sources for call in calls):
        return None
    reference = graders_reference(assignment)
    if not all(callable(getattr(reference, name, None)) for call in calls for name in call.names()):
        return None
    checks = TrustedChecks(sources)
    # Encoded as each call is made, in case the check changes its arrays between calls.
    recorder = _Recorder(vars(reference), lambda name, args, kwargs: planned_call(
        name, args, kwargs, group, functions=checks.functions))
    if checks.run(calls, recorder) is None:
        return None
    return tuple(recorder.calls)


def prepare(assignment: str) -> None:
    """Load an assignment's graders and record their plans ahead of the first submission (a worker does
    this while the main process is still starting)."""
    for exercise in exercises(assignment):
        _recorded(assignment, exercise)
