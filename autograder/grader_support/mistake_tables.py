"""Each exercise's known mistakes, as the graders' `reference.py` lists them: `<EXERCISE>_MISTAKES`, a dict or a
list of (hint id, function with the reference's signature that makes that mistake). The self-checks' generated
table (`authoring.selfcheck_mistakes`) and the counterexamples (`graders.counterexample`) read them here."""

from collections.abc import Callable
from typing import Any

from autograder.graders import module_name

MistakePairs = tuple[tuple[str, Callable[..., Any]], ...]


def mistake_tables(assignment: str) -> dict[str, MistakePairs]:
    """Per exercise (a reference function of that name), its (hint id, mistake function) pairs."""
    try:
        reference = __import__(module_name(assignment, "reference"), fromlist=["_"])
    except ModuleNotFoundError:
        return {}
    tables = {}
    for name, table in vars(reference).items():
        exercise = name.removesuffix("_MISTAKES").lower()
        if name.endswith("_MISTAKES") and not name.startswith("_") and callable(getattr(reference, exercise, None)):
            pairs = table.items() if isinstance(table, dict) else table
            tables[exercise] = tuple((hint, f) for hint, f in pairs if callable(f))
    return tables


def mistakes_of(assignment: str, exercise: str) -> MistakePairs:
    return mistake_tables(assignment).get(exercise, ())
