"""The hidden half of a notebook's grade cell, for `nbgrader autograde` (graders run in the kernel).

    from autograder.kernel import grade
    grade("hidden_state_activation", "concat_weights", globals())

prints the feedback and evaluates to a plain float in [0, points]: the cell's partial credit.
"""

from collections.abc import Mapping
from typing import Any

from autograder.runner import run_exercise
from autograder.student import NamespaceStudent


def grade(assignment: str, exercise: str, namespace: Mapping[str, Any]) -> float:
    result = run_exercise(assignment, exercise, NamespaceStudent(namespace))
    print(result.feedback())
    # nbgrader reads the cell's value with float(); numpy 2's np.float64 repr would not parse as one.
    return float(min(max(result.score, 0.0), result.max_score))
