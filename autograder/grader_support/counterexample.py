"""The smallest public input on which a student's function differs from the reference: shown beside the
failure a grader explains, expected and received side by side.

Where it is looked for: each assignment's `public.py` lists, per exercise, a few calls on inputs no scored
check uses (sizes of 1 and 2, the entries counting 1, 2, 3, ... so that every block, axis and order shows),
smallest first; the first on which the answer differs is the smallest there is in that list, so the search
is its own shrinking. At most `MAX_CALLS` calls an exercise, made only when a check failed, through the
same `student` as the checks (the sandbox's process in `autograder grade`, the kernel in nbgrader).

What it shows, so that it tells no more than the worked example does (docs, "What the feedback reveals"):
the public input and the reference's answer on it; for the student's answer, the value a known mistake
(the graders' tables) gives there when the answer is that, computed here, else only whether its shape is
right. Never a value the student's code returned: a function could have kept the hidden inputs of earlier
checks and return them here. An answer that raises is passed over (the explained failure says where).
"""

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autograder.grader_support.checks import close
from autograder.grader_support.judge import student_answer
from autograder.grader_support.mistake_tables import mistakes_of
from autograder.grader_support.student import StudentError
from autograder.graders import module_name

MAX_CALLS = 4  # calls into the student's process per failing exercise, at most
PRECISION = 4  # significant digits of a shown value


@dataclass(frozen=True)
class PublicCall:
    """One call on public inputs: positional `args` by the contract's names, keyword `options`."""

    args: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)


def counting(*shapes: tuple[int, ...], start: int = 1) -> list[np.ndarray]:
    """Integer arrays of these shapes whose entries count up from `start` across all of them: every entry
    differs, so a swapped block, axis or order gives other numbers."""
    arrays, next_value = [], start
    for shape in shapes:
        size = int(np.prod(shape))
        arrays.append(np.arange(next_value, next_value + size).reshape(shape))
        next_value += size
    return arrays


def public_calls(assignment: str, exercise: str) -> tuple[PublicCall, ...]:
    """The exercise's public calls (the assignment's `public.py`, `PUBLIC_CALLS`), at most `MAX_CALLS`."""
    try:
        module = importlib.import_module(module_name(assignment, "public"))
    except ModuleNotFoundError as exc:
        if exc.name != module_name(assignment, "public"):
            raise
        return ()
    return tuple(getattr(module, "PUBLIC_CALLS", {}).get(exercise, ()))[:MAX_CALLS]


@dataclass(frozen=True)
class Counterexample:
    call: str  # `concat_state_input(h_t_prev=[[1]], x_t=[[2]])`
    expected: str
    received: str  # what the mistake gives, or words

    def lines(self) -> list[str]:
        return ["smallest input found where yours differs (a public one, not a graded input):",
                f"  {self.call}",
                f"  expected {self.expected}   yours {self.received}"]


def find(assignment: str, exercise: str, student: Any, reference: Callable[..., Any], named: str | None = None
         ) -> Counterexample | None:
    """The first public call on which the student's answer is not the reference's, or None. `named`: the
    mistake the explained failure names, tried first when saying what the answer is."""
    for call in public_calls(assignment, exercise):
        expected = reference(*call.args.values(), **call.options)
        try:
            got = student_answer(student, exercise, call.args, **call.options)
        except StudentError:
            continue
        if agrees(got, expected):
            continue
        mistakes = sorted(mistakes_of(assignment, exercise), key=lambda pair: pair[0] != named)
        return Counterexample(call_text(exercise, call), shown(expected), _received(got, expected, call, mistakes))
    return None


def _received(got: Any, expected: Any, call: PublicCall, mistakes: Iterable[tuple[str, Callable[..., Any]]]) -> str:
    """What the student's answer is, in the grader's own values: a mistake's answer it equals, or words."""
    for hint, mistake in mistakes:
        try:
            with np.errstate(all="ignore"):
                wrong = mistake(*call.args.values(), **call.options)
        except Exception:  # noqa: S112 - that mistake does not run on these inputs: not this one
            continue
        if agrees(got, wrong):
            return f"{shown(wrong)} (what [{hint}] gives)"
    return ("other values of that shape" if same_shapes(got, expected) else "an answer of another shape") + \
        " (run this call in your notebook to see them)"


def same_shapes(got: Any, expected: Any) -> bool:
    """The same structure, part by part (a list of layers of different widths included), and shapes."""
    if isinstance(expected, list | tuple):
        return (isinstance(got, list | tuple) and len(got) == len(expected)
                and all(same_shapes(g, e) for g, e in zip(got, expected, strict=True)))
    try:
        return np.asarray(got).shape == np.asarray(expected).shape
    except Exception:  # an answer NumPy cannot read (ragged, or made to fail): not the expected shape
        return False


def agrees(got: Any, expected: Any) -> bool:
    """Same structure (tuples and lists of arrays), shapes and values within the graders' tolerance."""
    if isinstance(expected, list | tuple):
        return (isinstance(got, list | tuple) and len(got) == len(expected)
                and all(agrees(g, e) for g, e in zip(got, expected, strict=True)))
    try:
        array = np.asarray(got)
    except Exception:  # an object NumPy cannot read
        return False
    if array.dtype.kind not in "biuf":
        return False
    return close(array, np.asarray(expected), equal_nan=True)


def shown(value: Any) -> str:
    """A value of the grader's as the feedback prints it: nested lists on one line, numbers short."""
    if isinstance(value, list | tuple):
        inner = ", ".join(shown(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {shown(v)}" for k, v in value.items()) + "}"
    if callable(value):
        return getattr(value, "__name__", "function")
    if value is None or isinstance(value, bool | str):
        return repr(value)
    array = np.asarray(value)
    if array.dtype.kind not in "iubf":
        return "?"
    return repr(_numbers(array.tolist())).replace("'", "")


def _numbers(value: Any) -> Any:
    """Nested lists with each float written short ('0.5', '16', '0.8808'), as text to print bare."""
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, float):
        return f"{value:.{PRECISION}g}"
    return value


def call_text(exercise: str, call: PublicCall) -> str:
    parts = [f"{name}={shown(value)}" for name, value in {**call.args, **call.options}.items()]
    return f"{exercise}({', '.join(parts)})"
