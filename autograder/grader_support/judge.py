"""Call a student's function on fresh copies of the inputs and judge the answer against the reference.

A grade runs thousands of submissions on the same inputs, so the passing path is kept bare: the reference
answer is computed once per process (`computed`, kept in `ANSWERS`), and the call's label and the mistakes'
answers are only built when an answer is wrong and its message needs them.
"""

import copy
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from autograder.grader_support.checks import CheckFailed, call_label, check_array, check_number, check_unmodified
from autograder.grader_support.randomdata import SHARED_IDS, read_only
from autograder.grader_support.student import StudentError

MistakeTable = Mapping[str, Callable[..., Any]]

_MISSING = object()


def _key(value: Any) -> Any:
    """A hashable stand-in for a value's content: a shared input by its id, other arrays by their bytes."""
    if isinstance(value, np.ndarray):
        return id(value) if id(value) in SHARED_IDS else (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, list | tuple):
        return (type(value), tuple(map(_key, value)))
    if isinstance(value, dict):
        return (dict, tuple((name, _key(item)) for name, item in value.items()))
    return (type(value), value)  # numbers, None, functions: hashable as they are


class ReferenceAnswers:
    """Results of reference and mistake functions by (function, content of their arguments). The graders'
    inputs are a fixed, small set, so this stays small; `limit` only guards a grader that feeds it ever-new
    values (past it, what was kept is forgotten)."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._results: dict[Any, Any] = {}

    def __len__(self) -> int:
        return len(self._results)

    def get(self, function: Callable[..., Any], args: Mapping[str, Any], options: Mapping[str, Any]) -> Any:
        """`function(*args.values(), **options)`, computed once for the same inputs; read-only."""
        key = (function, tuple(map(_key, args.values())), tuple((name, _key(v)) for name, v in options.items()))
        try:
            result = self._results.get(key, _MISSING)
        except TypeError:  # an unhashable option: nothing to share
            return function(*args.values(), **options)
        if result is _MISSING:
            if len(self._results) >= self.limit:
                self._results.clear()
            result = self._results[key] = read_only(function(*args.values(), **options))
        return result


# The process's one set: the graders call `judge(...)` with nothing but the student, and every submission
# a worker grades shares the answers.
ANSWERS = ReferenceAnswers()


def computed(function: Callable[..., Any], args: Mapping[str, Any], options: Mapping[str, Any]) -> Any:
    """`function(*args.values(), **options)` from the process's answers (`ANSWERS`); read-only."""
    return ANSWERS.get(function, args, options)


def sizes(*values: Any) -> set[int]:
    """Every size in the shapes of the arrays in `values` (also inside lists and dicts): the sizes a
    returned shape may be made of to be shown (`checks.plausible`)."""
    found: set[int] = set()
    for value in values:
        if isinstance(value, np.ndarray):
            found.update(value.shape)
        elif isinstance(value, list | tuple):
            found |= sizes(*value)
        elif isinstance(value, dict):
            found |= sizes(*value.values())
    return found


def _thunks(mistakes: MistakeTable, args: Mapping[str, Any], options: Mapping[str, Any]) -> dict:
    return {hint: (lambda f=f: computed(f, args, options)) for hint, f in mistakes.items()}


def fresh(value: Any) -> Any:
    """A deep copy the student may change: arrays copied (writeable, same layout), containers rebuilt."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return value.copy(order="K")
    if isinstance(value, list | tuple) and type(value) in (list, tuple):
        return type(value)(map(fresh, value))
    if type(value) is dict:
        return {name: fresh(item) for name, item in value.items()}
    return copy.deepcopy(value)


def student_answer(student: Any, function: str, args: Mapping[str, Any], errors: Mapping[str, str] | None = None,
         **options: Any) -> Any:
    """The student's answer on copies of `args`; an exception whose text holds a fragment of `errors` (a
    library's words for a known mistake) names that hint. The text itself is never shown."""
    try:
        return getattr(student, function)(*map(fresh, args.values()), **options)
    except StudentError as exc:
        for fragment, hint in (errors or {}).items():
            if fragment in exc.text:
                raise CheckFailed(str(exc), hint) from None
        raise


def judge(student: Any, function: str, args: Mapping[str, Any], reference: Callable[..., Any],
          mistakes: MistakeTable | None = None, errors: Mapping[str, str] | None = None,
          **options: Any) -> None:
    """Positional `args` (copied, so the reference sees the originals), keyword `options` as given."""
    got = student_answer(student, function, args, errors, **options)
    expected = computed(reference, args, options)
    check_array(got, expected, what=lambda: call_label(function, **args, **options),
                mistakes=_thunks(mistakes or {}, args, options), dims=lambda: sizes(*args.values()))


def judge_number(student: Any, function: str, args: Mapping[str, Any], reference: Callable[..., Any],
                 mistakes: MistakeTable | None = None, integer: bool = False,
                 errors: Mapping[str, str] | None = None, **options: Any) -> None:
    got = student_answer(student, function, args, errors, **options)
    expected = computed(reference, args, options)
    check_number(got, expected, what=lambda: call_label(function, **args, **options),
                 mistakes=_thunks(mistakes or {}, args, options), integer=integer,
                 dims=lambda: sizes(*args.values()))


def judge_unmodified(student: Any, function: str, args: Mapping[str, Any], **options: Any) -> None:
    passed = {name: fresh(value) for name, value in args.items()}
    getattr(student, function)(*passed.values(), **options)
    check_unmodified(args, passed, what=lambda: call_label(function, **args, **options))
