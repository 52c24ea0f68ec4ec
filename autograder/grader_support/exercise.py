"""Run one exercise's hidden graders against a student, without pytest's start-up cost.

The graders are ordinary pytest modules (`<graders folder>/<assignment>/test_<exercise>.py`, imported as
`autograder.graders.<assignment>.test_<exercise>`: see `autograder.graders`) that instructors can run with
pytest; beside them `reference.py` holds a reference function named after each exercise and `hints.py`
(optional) the assignment's own hints. This module is the one place that finds them.

Grading thousands of submissions cannot pay pytest's collection for each, so this module collects them once,
the way pytest would (test functions, `parametrize`, the `points` mark, the `student` fixture), and calls
each case directly. `tests/` checks that both agree.
"""

import functools
import importlib
import importlib.util
import inspect
import itertools
import re
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from autograder.grader_support import counterexample
from autograder.grader_support.checks import CheckFailed
from autograder.grader_support.hints import hint_text
from autograder.grader_support.raised import SHOWN_TYPES
from autograder.grader_support.student import StudentError
from autograder.graders import module_name

MAX_MESSAGE = 900


def points_total(points: Iterable[float]) -> float:
    """Points added up, as every score is: to six decimals, so that the same points in another order, or
    read back from the gradebook, give the same total."""
    return round(sum(points), 6)


class GradersError(Exception):
    """An assignment's graders are missing something the framework needs; one line naming the file."""


@dataclass(frozen=True)
class GraderCase:
    name: str
    function: Any
    params: dict[str, Any]
    points: float


@dataclass
class CaseResult:
    name: str
    points: float
    earned: float
    message: str = ""
    hint: str | None = None


@dataclass
class ExerciseResult:
    exercise: str
    cases: list[CaseResult] = field(default_factory=list)
    counterexample: list[str] = field(default_factory=list)  # its lines (`graders.counterexample`), if found

    @property
    def score(self) -> float:
        return points_total(case.earned for case in self.cases)

    @property
    def max_score(self) -> float:
        return points_total(case.points for case in self.cases)

    @property
    def hints(self) -> list[str]:
        return sorted({case.hint for case in self.cases if case.hint})

    def to_dict(self) -> dict[str, Any]:
        return {"exercise": self.exercise, "cases": [asdict(case) for case in self.cases],
                "counterexample": list(self.counterexample)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ExerciseResult":
        return cls(data["exercise"], [CaseResult(**case) for case in data["cases"]],
                   [str(line) for line in data.get("counterexample", [])])

    def feedback(self) -> str:
        """What a student reads under the grade cell: each check and its points; why one failing check
        failed (the first that names a known mistake, with its hint, else the first); and for each other
        failing check whether it is the same problem.

        One explanation an exercise: a mistake usually fails every check alike, and fixing one problem is
        what a student does next. It also bounds what one graded attempt can carry out of the graders,
        whatever a submission does to vary its failures (docs, "What the feedback reveals")."""
        lines = [f"{self.exercise}: {fmt(self.score)} / {fmt(self.max_score)} points"]
        if self.score > 0:
            # nbgrader zeroes a cell whose self-check raises, after these lines were printed.
            lines.append("  (the cell keeps these points if the self-check below passes, and scores 0 if it fails)")
        failing = [case for case in self.cases if case.message]
        explained = next((case for case in failing if case.hint), failing[0] if failing else None)
        for case in self.cases:
            mark = "pass" if case.earned == case.points else "FAIL"
            lines.append(f"  [{mark}] {case.name}  ({fmt(case.earned)}/{fmt(case.points)})")
            if not case.message or explained is None:
                continue
            if case is explained:
                lines.extend("         " + line for line in case.message.splitlines())
                lines.extend("         " + line for line in self.counterexample)
            elif problem(case) == problem(explained):
                lines.append("         (the same problem as the one explained)")
            else:
                lines.append("         (another problem: it is explained here once the one explained is fixed)")
        return "\n".join(lines)


def problem(case: CaseResult) -> tuple[str | None, str]:
    """What a failure is, apart from the call it judged: its hint, and its message without shapes or calls
    (everything in brackets), so one mistake on every shape is one problem."""
    message, previous = case.message, None
    while message != previous:
        previous, message = message, re.sub(r"\([^()]*\)", "", message)
    return case.hint, message


def fmt(points: float) -> str:
    return f"{points:g}"


def grader_module_name(assignment: str, exercise: str) -> str:
    return module_name(assignment, f"test_{exercise}")


def assignment_folder(assignment: str) -> Path | None:
    """Where an assignment's graders are (the first graders folder that has them), None when none has."""
    try:
        spec = importlib.util.find_spec(module_name(assignment))
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def exercises(assignment: str) -> tuple[str, ...]:
    """The exercises that have graders (`test_<exercise>.py`), sorted."""
    folder = assignment_folder(assignment)
    if folder is None:
        return ()
    return tuple(sorted(p.stem.removeprefix("test_") for p in folder.glob("test_*.py")))


def reference(assignment: str) -> ModuleType:
    """The assignment's `reference.py`: the reference answers the call plan and the stand-ins use."""
    folder = assignment_folder(assignment)
    if folder is None:
        raise GradersError(f"no graders for {assignment!r}: no folder {assignment}/ in the graders folder")
    if not (folder / "reference.py").is_file():
        raise GradersError(f"{folder / 'reference.py'}: missing (a reference function named after each exercise)")
    return importlib.import_module(module_name(assignment, "reference"))


def reference_function(assignment: str, exercise: str) -> Any:
    """The reference answer of one exercise: the function of that name in the assignment's `reference.py`."""
    function = getattr(reference(assignment), exercise, None)
    if not callable(function):
        raise GradersError(f"{assignment_folder(assignment) / 'reference.py'}: no function {exercise}() "
                           f"(each exercise needs a reference function of its name)")
    return function


def _parametrizations(function: Any) -> list[list[tuple[str, dict[str, Any]]]]:
    """Each `parametrize` mark as a list of (id, {argname: value}), in pytest's order."""
    marks = [mark for mark in getattr(function, "pytestmark", []) if mark.name == "parametrize"]
    result = []
    for mark in marks:  # nearest the function first, as pytest joins ids
        argnames, argvalues = mark.args[0], mark.args[1]
        names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
        ids = mark.kwargs.get("ids")
        options = []
        for index, value in enumerate(argvalues):
            case_id = None
            if hasattr(value, "values") and hasattr(value, "marks"):  # pytest.param(...)
                case_id, value = value.id, value.values
            elif len(names) == 1:
                value = (value,)
            if case_id is None and ids is not None:
                case_id = ids(value[0]) if callable(ids) else ids[index]
            if case_id is None and all(isinstance(v, str | int | float | bool) for v in value):
                case_id = "-".join(str(v) for v in value)  # pytest shows plain values as they are
            options.append((case_id or f"{names[0]}{index}", dict(zip(names, value, strict=True))))
        result.append(options)
    return result


@functools.cache
def collect(assignment: str, exercise: str) -> tuple[GraderCase, ...]:
    """Every graded case of one exercise, named as pytest names them."""
    module = importlib.import_module(grader_module_name(assignment, exercise))
    cases = []
    for name, function in vars(module).items():
        if not (name.startswith("test") and inspect.isfunction(function)):
            continue
        points = [mark.args[0] for mark in getattr(function, "pytestmark", []) if mark.name == "points"]
        if len(points) != 1:
            raise ValueError(f"{module.__name__}.{name} must declare its points once with @pytest.mark.points(n)")
        for combination in itertools.product(*_parametrizations(function)):
            params = {k: v for _, values in combination for k, v in values.items()}
            case_id = "-".join(case_id for case_id, _ in combination)
            label = name.removeprefix("test_") + (f"[{case_id}]" if case_id else "")
            cases.append(GraderCase(label, function, params, float(points[0])))
    return tuple(cases)


def max_score(assignment: str, exercise: str) -> float:
    return points_total(case.points for case in collect(assignment, exercise))


def run_case(case: GraderCase, student: Any, assignment: str | None = None) -> CaseResult:
    """One case's verdict; a named mistake is explained by the assignment's hints (merged over the shared)."""
    try:
        case.function(student=student, **case.params)
    except CheckFailed as failure:
        message = failure.explained(hint_text(failure.hint, assignment)) if failure.hint else str(failure)
        return CaseResult(case.name, case.points, 0.0, message[:MAX_MESSAGE], failure.hint)
    except (StudentError, AssertionError) as failure:
        return CaseResult(case.name, case.points, 0.0, str(failure)[:MAX_MESSAGE])
    except Exception as exc:  # the answer broke the grader's own arithmetic: still the answer's fault
        # Its type only: the text of an error about the answer quotes the answer (`float('...')`).
        kind = type(exc).__name__ if type(exc).__name__ in SHOWN_TYPES else "an error"
        return CaseResult(case.name, case.points, 0.0, f"the answer could not be checked ({kind})")
    return CaseResult(case.name, case.points, case.points)


def run_exercise(assignment: str, exercise: str, student: Any) -> ExerciseResult:
    """Run every case, and when one failed on the answer's value or shape, look for the smallest public input
    that shows it (`graders.counterexample`); a NumPy warning or a print is never part of the verdict."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        results = [run_case(case, student, assignment) for case in collect(assignment, exercise)]
        result = ExerciseResult(exercise, results)
        failing = [case for case in results if case.message and case.hint != "modifies_input"]
        if failing:
            named = next((case.hint for case in failing if case.hint), None)
            try:
                found = counterexample.find(assignment, exercise, student, reference_function(assignment, exercise),
                                            named)
            except Exception:  # an answer the search cannot read: the verdict and the score stand without one
                found = None
            result.counterexample = found.lines() if found else []
    return result
