"""The graders' known mistakes as a notebook's self-checks see them: for each check of `selfcheck.py`, what
each mistake of the graders' tables (`<EXERCISE>_MISTAKES` in the assignment's `reference`, with the hints of
`autograder.grader_support.hints`) gives on the check's own inputs,
written into the module between its GENERATED markers.

The self-checks run in the student's notebook, where no grader may be, so the tables cannot be imported
there: `make release` (and `autograder release`) writes what they give on the worked example, which the
notebook shows anyway. Nothing here touches a hidden input: the mistakes are run on the self-checks' inputs.
"""

import contextlib
import copy
import inspect
import io
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from autograder.grader_support.hints import hint_text
from autograder.grader_support.mistake_tables import mistake_tables

BEGIN = "# BEGIN GENERATED: the graders' known mistakes"
END = "# END GENERATED"
LINE_LENGTH = 120  # ruff's, in pyproject.toml
# Nothing in it may name the package: the release is checked to hold no trace of the graders' code.
HEADER = (f"{BEGIN} on these checks' own inputs: `make release` writes\n"
          "# them from the graders' hints and mistake tables (do not edit). A wrong answer or an exception\n"
          "# equal to one of these names its mistake.\n")


@dataclass(frozen=True)
class Seen:
    """What one mistake showed in a check: the label of the first call it got wrong and its answer, or the
    function's name and what it raised."""

    hint: str
    label: str | None = None
    answer: Any = None
    raised: tuple[str, str] | None = None  # (type, text)


class _Stop(Exception):
    """Ends a check at the first call a mistake got wrong (as its SelfCheckFailed would)."""


def seen_in_check(module: types.ModuleType, exercise: str, hint: str, mistake: Callable[..., Any]) -> Seen | None:
    """Run the module's `check_<exercise>` on `mistake` standing for the student's function, and keep what
    the student would be told about first."""
    check = getattr(module, f"check_{exercise}", None)
    if check is None:
        return None
    found: list[Seen] = []

    def call(function: Any, *args: Any, **kwargs: Any) -> Any:
        if function is not stand_in:  # another function the check passes (e.g. an activation)
            return function(*args, **kwargs)
        try:
            inspect.signature(mistake).bind(*args, **kwargs)
        except TypeError:  # the table's function does not take this call: it says nothing here
            raise _Stop from None
        try:
            with np.errstate(all="ignore"):
                return mistake(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        except Exception as exc:
            found.append(Seen(hint, raised=(type(exc).__name__, str(exc))))
            raise _Stop from None

    def expect(name: str, got: Any, expected: Any, advice: str = "") -> None:
        try:
            array = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            raise _Stop from None
        if array.shape != np.shape(expected) or not np.allclose(array, expected):
            found.append(Seen(hint, label=name, answer=array.tolist()))
            raise _Stop

    def stand_in(*args: Any, **kwargs: Any) -> Any:
        return mistake(*args, **kwargs)

    stand_in.__name__ = exercise
    saved = module._call, module._expect
    module._call, module._expect = call, expect
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check(stand_in)
    except Exception:  # noqa: S110 - a check that stops on a mistake's odd answer has shown what it shows
        pass
    finally:
        module._call, module._expect = saved
    return found[0] if found else None


def generated_block(assignment: str, selfcheck_source: str) -> str:
    """The GENERATED block for this module's source: `_KNOWN_ANSWERS` (check label -> [(hint id, wrong
    answer)]), `_KNOWN_RAISES` (function -> [(type, text, hint id)]) and `_HINTS` (hint id -> its words)."""
    module = types.ModuleType("selfcheck_for_generation")
    module.__file__ = "selfcheck.py"
    exec(compile(_without_block(selfcheck_source), "selfcheck.py", "exec"), module.__dict__)
    answers: dict[str, list[tuple[str, Any]]] = {}
    raises: dict[str, list[tuple[str, str, str]]] = {}
    for exercise, pairs in sorted(mistake_tables(assignment).items()):
        for hint, mistake in pairs:
            seen = seen_in_check(module, exercise, hint, mistake)
            if seen is None:
                continue
            if seen.raised:
                if (*seen.raised, hint) not in raises.setdefault(exercise, []):
                    raises[exercise].append((*seen.raised, hint))
            elif seen.label is not None and all(h != hint for h, _ in answers.get(seen.label, [])):
                answers.setdefault(seen.label, []).append((hint, seen.answer))
    used = sorted({h for entries in answers.values() for h, _ in entries}
                  | {h for entries in raises.values() for *_, h in entries})
    return "".join([HEADER, _table("_KNOWN_ANSWERS", answers), _table("_KNOWN_RAISES", raises),
                    _table("_HINTS", {h: hint_text(h, assignment) for h in used}), END, "\n"])


def _table(name: str, table: dict[str, Any]) -> str:
    """`name = {...}`, one entry a line: a table, read by people when at all, so long lines are let be."""
    if not table:
        return f"{name} = {{}}\n"
    lines = [f"    {key!r}: {value!r}," for key, value in sorted(table.items())]
    lines = [line + "  # noqa: E501" if len(line) > LINE_LENGTH else line for line in lines]
    return f"{name} = {{\n" + "\n".join(lines) + "\n}\n"


def _without_block(source: str) -> str:
    start = source.find(BEGIN)
    if start < 0:
        return source
    end = source.index(END, start) + len(END)
    return source[:start] + source[end:].lstrip("\n")


def refreshed(assignment: str, source: str) -> str:
    """`source` with its GENERATED block brought up to date (the same text when it has no markers)."""
    start = source.find(BEGIN)
    if start < 0:
        return source
    end = source.index(END, start) + len(END) + 1
    return source[:start] + generated_block(assignment, source) + source[end:]


def refresh_selfchecks(source_folder: Path, assignments: Iterable[str]) -> list[Path]:
    """Rewrite the GENERATED block of each assignment's `selfcheck.py` in `source_folder`; the files changed."""
    changed = []
    for assignment in assignments:
        path = source_folder / assignment / "selfcheck.py"
        if not path.is_file():
            continue
        before = path.read_text()
        after = refreshed(assignment, before)
        if after != before:
            path.write_text(after)
            changed.append(path)
    return changed
