"""Judge answers made of several arrays: `rnn_forward`'s (hs, ys) and `stacked_rnn_forward`'s list of layers.

Each part is checked like any array (shape, values, named mistakes); a mistake is a (hint id, function)
pair with the reference's signature whose result has the same parts. Its result is computed once per
process, and only when an answer is wrong.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from autograder.grader_support.checks import CheckFailed, call_label, check_array, kind_of
from autograder.grader_support.judge import computed, sizes, student_answer

MistakeList = Sequence[tuple[str, Callable[..., Any]]]


class _Parts:
    """The mistakes' thunks for part `index` of the answer, in the form `checks.diagnose` reads."""

    def __init__(self, thunks: list[tuple[str, Callable[[], Any]]], index: int) -> None:
        self._thunks, self._index = thunks, index

    def items(self):
        return [(hint, lambda thunk=thunk: thunk()[self._index]) for hint, thunk in self._thunks]


def _thunks(mistakes: MistakeList, args: Mapping[str, Any], options: Mapping[str, Any]):
    return [(hint, lambda f=f: computed(f, args, options)) for hint, f in mistakes]


def _parts(value: Any) -> list[Any] | None:
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, np.ndarray) and value.ndim >= 1 and value.dtype.kind in "biuf":
        return list(value)
    return None


def judge_parts(student: Any, function: str, args: Mapping[str, Any], reference: Callable[..., Any],
                mistakes: MistakeList = (), names: Sequence[str] | None = None,
                errors: Mapping[str, str] | None = None, **options: Any) -> None:
    """The answer must have as many parts as the reference's, each matching in shape and value.

    `names` labels the parts (("hs", "ys")); without it they are the layers 1..L.
    """
    got = student_answer(student, function, args, errors, **options)
    expected = computed(reference, args, options)

    def what() -> str:
        return call_label(function, **args, **options)

    labels = list(names) if names else [f"layer {index + 1}" for index in range(len(expected))]
    parts = _parts(got)
    if parts is None or len(parts) != len(expected):
        shape = "a tuple (" + ", ".join(labels) + ")" if names else f"a list of {len(expected)} arrays"
        count = f"{len(parts)} parts" if parts is not None and len(parts) <= 2 * len(expected) else None
        raise CheckFailed(f"{what()}: expected {shape}, got {count or kind_of(got)}", "not_a_sequence")
    thunks = _thunks(mistakes, args, options)
    for index, (label, part) in enumerate(zip(labels, parts, strict=True)):
        check_array(part, expected[index], what=lambda label=label: f"{what()}, {label}",
                    mistakes=_Parts(thunks, index), dims=lambda: sizes(*args.values()))
