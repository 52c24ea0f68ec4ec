"""Judge one answer against the reference, and name the mistake.

A grader computes the reference answer and, lazily, the answers that each known mistake would give. When
the student's answer is wrong, the first mistake that reproduces it names the misconception; shape-based
diagnoses (transpose, (n,) broadcast into (n, n), a lost dimension) cover mistakes no variant spells out.

A mistake's function returns what that mistake gives: a value (an array or a number, compared with the
tolerance the expected value is, nan where it has nan), or, when no single value says it, a `Mistake`
pattern: a value with a tolerance of its own, a shape, or where the answer is nan or infinite.

What a failure says is what a student needs to fix it and nothing a submission could read hidden data out
of (docs, "What the feedback reveals"): the call with its arguments' shapes, which problem it is (wrong
shape, wrong values, nan, not numbers), the expected shape and the returned one, and the hint. Never a
value: the expected values would be a table of answers, and the returned ones are whatever the code chose
to compute from the hidden inputs. Even the returned shape is the code's choice, so it is shown only when
it is made of the sizes the call's own shapes hold (`plausible`), as an honest mistake's are.
"""

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from autograder.grader_support.hints import hint_text

RTOL = 1e-6
ATOL = 1e-8

# Hint id -> what that mistake gives: a value or a `Mistake` (called only when an answer is wrong).
Mistakes = Mapping[str, Callable[[], Any]]
# How a message names the call it judged; a callable is only called when a check fails, so the passing path
# (most checks of most submissions) never formats a label.
Label = str | Callable[[], str]


class CheckFailed(AssertionError):
    """A grader's verdict on a wrong answer: the message a student reads and the misconception, if known."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        self.hint = hint
        self.detail = message
        super().__init__(self.explained(hint_text(hint)) if hint else message)

    def explained(self, hint: str) -> str:
        """The message with the misconception's hint in words (the grading assignment's text for it)."""
        return f"{self.detail}\n  hint [{self.hint}]: {hint}"


Dims = Iterable[int] | Callable[[], Iterable[int]]


def plausible(shape: tuple[int, ...], expected: tuple[int, ...], dims: Dims = ()) -> bool:
    """Whether a returned shape is one an honest mistake gives: at most one more dimension than expected,
    each a size of the expected shape or of the call's arguments (`dims`), a sum of two of them, or 1. Any
    other shape is said to be "another shape": a shape the code makes up would carry what it computed."""
    if len(shape) > max(len(expected), 1) + 1:
        return False
    sizes = {1, *expected, *(dims() if callable(dims) else dims)}
    sizes |= {a + b for a in sizes for b in sizes}
    return all(size in sizes for size in shape)


def shape_text(shape: tuple[int, ...], expected: tuple[int, ...], dims: Dims = ()) -> str:
    return str(shape) if plausible(shape, expected, dims) else "another shape"


def kind_of(value: Any) -> str:
    """What a value that is not an array of numbers is, in a few fixed words (never its content)."""
    if isinstance(value, np.ndarray):
        return f"an array of {_KINDS.get(value.dtype.kind, 'other things')}"
    name = type(value).__name__
    return f"a {name}" if type(value) in _PLAIN else "an object"


_KINDS = {"b": "booleans", "c": "complex numbers", "O": "objects", "U": "text", "S": "bytes", "M": "dates",
          "m": "durations", "V": "records"}
_PLAIN = (str, bytes, list, tuple, dict, set, bool, complex)


def label_text(what: Label) -> str:
    return what if isinstance(what, str) else what()


def as_numeric(value: Any, what: Label) -> np.ndarray:
    """The answer as a numeric array, or a CheckFailed that says what kind of thing came back instead."""
    if value is None:
        raise CheckFailed(f"{label_text(what)} returned None: did you forget `return`?", "not_an_array")
    try:
        array = np.asarray(value)
    except Exception:  # a ragged list or an object NumPy cannot read
        raise CheckFailed(f"{label_text(what)} returned {kind_of(value)} that NumPy cannot read as an array",
                          "not_an_array") from None
    if array.dtype.kind not in "biuf":
        raise CheckFailed(f"{label_text(what)} returned {kind_of(array)}: expected numbers", "not_an_array")
    return array


def close(got: np.ndarray, expected: np.ndarray, rtol: float = RTOL, atol: float = ATOL,
          equal_nan: bool = False) -> bool:
    """Same shape and values within tolerance (np.allclose's); nan matches only nan, and only `equal_nan`."""
    if got.shape != expected.shape:
        return False
    x, y = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    # np.isclose's own formula, without its per-call set-up (this runs for every check). Most right answers
    # are exactly equal, which isclose accepts whatever the tolerance; with a finite expected value its inf
    # and exact-equality terms change nothing; anything else is left to np.allclose itself.
    if (x == y).all():
        return True
    if np.isfinite(y).all():
        return bool((np.abs(x - y) <= atol + rtol * np.abs(y)).all())
    return bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


def close_number(got: float, expected: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """np.isclose for two Python numbers, in plain float arithmetic (the same IEEE operations)."""
    return got == expected or (math.isfinite(expected) and abs(got - expected) <= atol + rtol * abs(expected))


class Mistake:
    """What a known mistake's answer looks like when no single value says it; a mistakes table's function
    returns one of these instead of a value:

    * `Mistake.near(value, rtol=..., atol=...)`: the value, within a tolerance of its own (a mistake whose
      answer the grader can only approximate);
    * `Mistake.shape(shape)`: any answer of that shape, whatever its values (`(n,)` for `(n, 1)`);
    * `Mistake.nan_where(where)`, `Mistake.inf_where(where)`: an answer of the expected shape that is nan
      (or +-inf) exactly where the boolean array `where` is True, whatever its other values; without
      `where`, anywhere the expected value is not (an overflow the grader need not reproduce).
    """

    __slots__ = ("description", "_test")

    def __init__(self, description: str, test: Callable[[np.ndarray, np.ndarray], bool]) -> None:
        self.description = description
        self._test = test

    def __repr__(self) -> str:
        return f"Mistake.{self.description}"

    def matches(self, got: np.ndarray, expected: np.ndarray) -> bool:
        """Whether the numeric answer `got` is this mistake's, where `expected` is the right one."""
        return bool(self._test(got, expected))

    @classmethod
    def near(cls, value: Any, *, rtol: float | None = None, atol: float | None = None) -> "Mistake":
        if rtol is None and atol is None:
            # The default tolerance has one spelling: the value itself, returned as it is.
            raise TypeError("Mistake.near needs rtol= or atol=; with the graders' own tolerance, return the value")
        wrong = np.asarray(value)
        if wrong.dtype.kind not in "biuf":
            raise TypeError(f"Mistake.near needs a numeric value, not a {type(value).__name__} of dtype {wrong.dtype}")
        rtol, atol = RTOL if rtol is None else rtol, ATOL if atol is None else atol
        return cls(f"near(shape {wrong.shape}, rtol={rtol:g}, atol={atol:g})",
                   lambda got, _: close(got, wrong, rtol, atol, equal_nan=True))

    @classmethod
    def shape(cls, shape: int | tuple[int, ...]) -> "Mistake":
        wanted = (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(n) for n in shape)
        return cls(f"shape({wanted})", lambda got, _: got.shape == wanted)

    @classmethod
    def nan_where(cls, where: Any = None) -> "Mistake":
        return cls._nonfinite("nan_where", np.isnan, where)

    @classmethod
    def inf_where(cls, where: Any = None) -> "Mistake":
        return cls._nonfinite("inf_where", np.isinf, where)

    @classmethod
    def _nonfinite(cls, name: str, test: Callable[[np.ndarray], np.ndarray], where: Any) -> "Mistake":
        mask = None if where is None else np.asarray(where, dtype=bool)

        def matches(got: np.ndarray, expected: np.ndarray) -> bool:
            if got.shape != expected.shape:
                return False
            found = test(got.astype(np.float64))
            if mask is None:
                return bool((found & ~test(expected.astype(np.float64))).any())
            return bool(np.array_equal(found, np.broadcast_to(mask, got.shape)))

        return cls(f"{name}({'anywhere' if mask is None else f'mask {mask.shape}'})", matches)


def diagnose(got: np.ndarray, expected: np.ndarray, mistakes: Mistakes | None = None) -> str | None:
    """The id of the misconception that explains `got`, if one does."""
    with np.errstate(all="ignore"):
        for hint, wrong_answer in (mistakes or {}).items():
            try:
                wrong = wrong_answer()
                if isinstance(wrong, Mistake):
                    if wrong.matches(got, expected):
                        return hint
                    continue
                wrong = np.asarray(wrong)
            except Exception:  # that mistake cannot even run on these shapes, so it is not this one
                continue
            if wrong.dtype.kind in "biuf" and close(got, wrong, equal_nan=True):
                return hint
    if expected.ndim == 2 and got.shape == expected.shape[::-1] and close(got.T, expected):
        return "transposed"
    if expected.ndim == 2 and expected.shape[1] == 1 and got.shape == (expected.shape[0],) * 2:
        return "broadcast_1d"
    if got.size == expected.size and got.ndim < expected.ndim:
        return "flattened"
    return None


def check_array(got: Any, expected: np.ndarray, *, what: Label, mistakes: Mistakes | None = None,
                dims: Dims = ()) -> None:
    """Pass silently when `got` matches `expected` in shape and value; otherwise say how it differs, in
    shapes and words. `dims`: the sizes in the call's arguments' shapes (see `plausible`)."""
    expected = np.asarray(expected)
    array = as_numeric(got, what)
    if close(array, expected):
        return
    if array.shape != expected.shape:
        problem = f"wrong shape: expected {expected.shape}, got {shape_text(array.shape, expected.shape, dims)}"
    elif np.isnan(array.astype(np.float64)).any():
        problem = f"the result contains nan (its shape {expected.shape} is right)"
    else:
        problem = f"wrong values (the shape {expected.shape} is right)"
    raise CheckFailed(f"{label_text(what)}: {problem}", diagnose(array, expected, mistakes))


def check_number(got: Any, expected: float, *, what: Label, mistakes: Mistakes | None = None,
                 integer: bool = False, dims: Dims = ()) -> None:
    """Judge a scalar answer (a loss, a count). An integer answer must be a whole number. Its value is never
    shown, nor the expected one: a single number shown is an answer to copy."""
    array = as_numeric(got, what)
    if array.size != 1:
        raise CheckFailed(f"{label_text(what)}: expected a single number, got an array of "
                          f"{shape_text(array.shape, (), dims)}", "not_an_array")
    value = float(array.reshape(()))
    if integer:
        ok = value == float(expected)
    else:
        ok = (close_number(value, float(expected)) if isinstance(expected, float | int)
              else bool(np.isclose(value, expected, rtol=RTOL, atol=ATOL)))
    if ok:
        return
    hint = diagnose(array.reshape(()), np.asarray(expected), mistakes)
    problem = "wrong value" + (" (a whole number was expected)" if integer and not value.is_integer() else "")
    raise CheckFailed(f"{label_text(what)}: {problem}", hint)


def same(a: Any, b: Any) -> bool:
    """Exact equality through nested lists, tuples and dicts of arrays."""
    if isinstance(a, np.ndarray):
        # Equal everywhere (the usual case) settles it without array_equal's set-up; nan needs array_equal.
        return np.shape(b) == a.shape and (bool((a == b).all()) or np.array_equal(a, b, equal_nan=True))
    if isinstance(a, list | tuple):
        return isinstance(b, list | tuple) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return True


def check_unmodified(before: Mapping[str, Any], after: Mapping[str, Any], *, what: Label) -> None:
    """Fail when the call changed any of its array arguments (also inside lists and dicts)."""
    changed = [name for name, original in before.items() if not same(original, after[name])]
    if changed:
        raise CheckFailed(f"{label_text(what)} changed its argument(s) {', '.join(changed)}", "modifies_input")


def call_label(function: str, **arguments: Any) -> str:
    """`f(a (3, 2), b (3, 3), g=relu)`: how a failure message names the call it judged."""
    parts = []
    for name, value in arguments.items():
        if isinstance(value, np.ndarray):
            parts.append(f"{name} {value.shape}")
        elif callable(value):
            parts.append(f"{name}={getattr(value, '__name__', 'function')}")
        elif isinstance(value, list | tuple) and value and not isinstance(value[0], int | float):
            parts.append(f"{name}=<{len(value)} items>")
        else:
            parts.append(f"{name}={value!r}"[:60])
    return f"{function}({', '.join(parts)})"
