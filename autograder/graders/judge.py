"""Call a student's function on fresh copies of the inputs and judge the answer against the reference."""

import copy
from collections.abc import Callable, Mapping
from typing import Any

from autograder.checks import CheckFailed, call_label, check_array, check_number, check_unmodified
from autograder.student import StudentError

MistakeTable = Mapping[str, Callable[..., Any]]


def _thunks(mistakes: MistakeTable, args: Mapping[str, Any], options: Mapping[str, Any]) -> dict:
    return {hint: (lambda f=f: f(*args.values(), **options)) for hint, f in mistakes.items()}


def _copies(args: Mapping[str, Any]) -> list[Any]:
    return [copy.deepcopy(a) for a in args.values()]


def call(student: Any, function: str, args: Mapping[str, Any], errors: Mapping[str, str] | None = None,
         **options: Any) -> Any:
    """The student's answer on copies of `args`; an error whose text is in `errors` names that hint."""
    try:
        return getattr(student, function)(*_copies(args), **options)
    except StudentError as exc:
        for fragment, hint in (errors or {}).items():
            if fragment in str(exc):
                raise CheckFailed(str(exc), hint) from None
        raise


def judge(student: Any, function: str, args: Mapping[str, Any], reference: Callable[..., Any],
          mistakes: MistakeTable | None = None, errors: Mapping[str, str] | None = None,
          **options: Any) -> None:
    """Positional `args` (copied, so the reference sees the originals), keyword `options` as given."""
    got = call(student, function, args, errors, **options)
    expected = reference(*args.values(), **options)
    check_array(got, expected, what=call_label(function, **args, **options),
                mistakes=_thunks(mistakes or {}, args, options))


def judge_number(student: Any, function: str, args: Mapping[str, Any], reference: Callable[..., Any],
                 mistakes: MistakeTable | None = None, integer: bool = False,
                 errors: Mapping[str, str] | None = None, **options: Any) -> None:
    got = call(student, function, args, errors, **options)
    expected = reference(*args.values(), **options)
    check_number(got, expected, what=call_label(function, **args, **options),
                 mistakes=_thunks(mistakes or {}, args, options), integer=integer)


def judge_unmodified(student: Any, function: str, args: Mapping[str, Any], **options: Any) -> None:
    passed = dict(zip(args, _copies(args), strict=True))
    getattr(student, function)(*passed.values(), **options)
    check_unmodified(args, passed, what=call_label(function, **args, **options))
