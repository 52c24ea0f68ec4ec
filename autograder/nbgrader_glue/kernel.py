"""The hidden half of a notebook's grade cell, for `nbgrader autograde` (graders run in the kernel).

    from autograder.nbgrader_glue.kernel import grade
    grade("hidden_state_activation", "concat_weights", globals())

shows the graders' verdict (a display output marked as theirs: `autograder.grader_support.verdict`) and evaluates to a
plain float in [0, points]: the cell's partial credit.

Each exercise is judged on its own (`autograder.grader_support.dependencies`): when it loses points and an
exercise graded above it lost points too, it is graded again with those earlier functions answering as the
reference does, and keeps the better score (shown as a score: the checks listed are those of its run with the
student's own functions); the stand-ins stay in place for the rest of the cell, so the visible self-check after the
graders sees what they saw.

A course that keeps its graders in its own folder (`c.Autograder.graders`) is found from the kernel's
folder (nbgrader runs a notebook in its folder: `autograded/<student>/<assignment>/`): the nearest folder
above it with an nbgrader_config.py. The notebook's own folder is not searched, as it holds what the
student handed in.
"""

import functools
import os
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from autograder.grader_support.dependencies import Answers, alone_note, lost
from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.student import InProcessStudent
from autograder.grader_support.verdict import show_in_kernel
from autograder.sandbox.standins import Replaced

GRADED = "_autograder_graded"  # in the kernel's namespace: (exercise, score, points) of each cell graded


def grade(assignment: str, exercise: str, namespace: MutableMapping[str, Any]) -> float:
    _use_course_graders(os.getcwd())
    graded = namespace.setdefault(GRADED, [])
    result = run_exercise(assignment, exercise, InProcessStudent(namespace))
    broken = [name for name in lost(graded) if name != exercise and callable(namespace.get(name))]
    kept, note = result, ""
    if result.score < result.max_score and broken and callable(namespace.get(exercise)):
        answers = Answers(assignment)
        swap = Replaced(namespace, {name: answers.stand_in(name) for name in broken})
        alone = run_exercise(assignment, exercise, InProcessStudent(namespace))
        if alone.score > result.score:
            # Its score only: the verdict shown is the run with the student's own functions (`alone_note`).
            kept, note = alone, alone_note(exercise, broken, alone.score, alone.max_score) + "\n"
            _undo_after_cell(swap)
        else:
            swap.undo()
    graded.append((exercise, kept.score, kept.max_score))
    show_in_kernel(note + result.feedback())  # marked as the graders': the feedback shows it (`verdict`)
    # nbgrader reads the cell's value with float(); numpy 2's np.float64 repr would not parse as one.
    return float(min(max(kept.score, 0.0), kept.max_score))


@functools.cache
def _use_course_graders(folder: str) -> None:
    from autograder.course.settings import CONFIG_FILE, early_settings
    from autograder.graders import use_folder

    for course in Path(folder).resolve().parents:
        if (course / CONFIG_FILE).is_file():
            use_folder(early_settings(course).graders)
            return


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _undo_after_cell(swap: Replaced) -> None:
    """Keep the stand-ins until this cell has run (its visible self-check comes after the graders)."""
    shell = _shell()
    if shell is None:
        swap.undo()
        return

    def undo(*_: Any) -> None:
        swap.undo()
        shell.events.unregister("post_run_cell", undo)

    shell.events.register("post_run_cell", undo)
