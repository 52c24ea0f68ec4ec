"""`autograder new ASSIGNMENT EXERCISE...`: a working assignment to start from.

Written into the course: `source/<assignment>/<assignment>.ipynb` (nbgrader metadata, one solution cell and
one grade cell per exercise, each grade cell's points the total of its graders), `selfcheck.py`, and in the
course's graders folder a package with `reference.py` (a reference function and a mistakes table per
exercise), `hints.py` and one `test_<exercise>.py` with two example checks. Every exercise starts as
"return twice x": the author replaces the solution, the reference, the mistakes and the checks together.
"""

import builtins
import keyword
import re
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.authoring import AuthoringError
from autograder.course.settings import CONFIG_FILE, CourseSettings
from autograder.nbgrader_glue.notebook import HIDDEN_BEGIN, HIDDEN_END

GRADERS_FOLDER = "graders"  # where `new` puts a course's graders when nbgrader_config.py names none
NAME = re.compile(r"[a-z_][a-z0-9_]*")  # matched whole: `$` would let a name end in a newline
# The graders' own modules: an assignment of one of these names would shadow it.
TAKEN = {"exercise", "judge", "randomdata", "pytest_plugin", "conftest", "reference", "hints", "cases"}
# Names the scaffolded code gives a meaning where an exercise's function lives (the notebook, its self-check,
# the reference): a function of that name would hide it, or be hidden by it.
OWN_NAMES = {
    "x": "the scaffolded functions and self-checks name their argument x",
    "np": "the notebook, the self-check and the reference import NumPy as np",
    "selfcheck": "the notebook imports its self-check module as selfcheck",
    "grade": "the grade cells import autograder.nbgrader_glue.kernel's grade",
    "display": "IPython gives every notebook a display function",
    "get_ipython": "IPython gives every notebook get_ipython",
}
IMPORTS_CELL = "imports"  # the grade id of the notebook's imports cell: no exercise's solution cell may take it
# nbgrader's gradebook keeps an assignment's, a notebook's and a grade cell's name in 128 characters (nbgrader.api,
# String(128)): PostgreSQL refuses a longer one, and a file name (test_<exercise>.py) has 255 bytes at most.
GRADEBOOK_NAME_LENGTH = 128

GRADER = '''"""Hidden graders of `{exercise}`: each test is a check, worth the points of its mark; `student` answers
calls as the student's notebook does. Replace these two example checks with yours."""

import numpy as np
import pytest

from autograder.grader_support.checks import check_array

from . import reference as ref

SHAPES = {{"column (3, 1)": (3, 1), "batch (4, 5)": (4, 5)}}


def mistakes(x):
    """The answers each known misconception gives on `x` (named in the feedback when one matches)."""
    return {{hint: (lambda wrong=wrong: wrong(x)) for hint, wrong in ref.{upper}_MISTAKES.items()}}


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", list(SHAPES.values()), ids=list(SHAPES))
def test_value(student, shape):
    x = np.random.default_rng(sum(shape)).normal(size=shape)  # a fixed seed: the same inputs for everyone
    check_array(student.{exercise}(x.copy()), ref.{exercise}(x), what=f"{exercise}(x {{shape}})", mistakes=mistakes(x))


@pytest.mark.points(1)
def test_integer_input(student):
    x = np.arange(6).reshape(2, 3)
    check_array(student.{exercise}(x.copy()), ref.{exercise}(x), what="{exercise}(x (2, 3) of integers)",
                mistakes=mistakes(x))
'''

REFERENCE_HEAD = '''"""Reference answers of `{assignment}`: a function named after each exercise (the graders
compare with it, and `autograder grade` answers with it where an exercise is judged on its own), and its
mistakes table: the hint id of each known misconception and what that mistake gives (hints.py says it in
words). What it gives is a value, compared as the reference's is (nan where it has nan), or, when no value
says it, a pattern: Mistake.shape(...), Mistake.nan_where(...), Mistake.inf_where(...), or
Mistake.near(value, rtol=...) for a value known only up to a tolerance of its own."""

import numpy as np

from autograder.grader_support.checks import Mistake
'''

REFERENCE = '''

def {exercise}(x):
    return 2 * np.asarray(x)


{upper}_MISTAKES = {{
    "{exercise}_halved": lambda x: np.asarray(x) / 2,
    "{exercise}_one_row": lambda x: Mistake.shape((1, np.size(x))),
}}
'''

HINTS_HEAD = '''"""Hints of `{assignment}`: what a student reads when a grader names a misconception (merged over
the shared ones of `autograder.grader_support.hints`)."""

HINTS = {{
'''

SELFCHECK_HEAD = '''"""Self-checks for the `{assignment}` notebook: each runs a function on a small example and
says what is wrong. Passing here is a good sign, not a grade: the graders try other shapes and values."""

import numpy as np

__all__ = [{names}]
'''

SELFCHECK = '''

def check_{exercise}({exercise}):
    x = np.array([[1.0], [2.0]])
    got = np.asarray({exercise}(x.copy()))
    expected = np.array([[2.0], [4.0]])
    assert got.shape == expected.shape and np.allclose(got, expected), (
        f"{exercise}(x) for x = [[1], [2]] gave {{got.tolist()}}, expected {{expected.tolist()}}")
    print("{exercise}: looks right")
'''


def graders_folder(settings: CourseSettings) -> Path:
    """The course's graders folder: the one it names, else the package's own when the course's assignments' graders
    are there already (a course that keeps its graders in the package: a new assignment's go beside them), else a
    new `graders/`, written into its config."""
    if settings.graders is not None:
        return settings.graders
    from autograder.graders import FOLDER

    if any((FOLDER / assignment / "__init__.py").is_file() for assignment in settings.assignments):
        return FOLDER
    folder = settings.root / GRADERS_FOLDER
    folder.mkdir(exist_ok=True)
    with (settings.folder / CONFIG_FILE).open("a") as config:
        config.write(f'\n# The hidden graders of this course\'s assignments (autograder new wrote this line).\n'
                     f'c.Autograder.graders = "{GRADERS_FOLDER}"\n')
    from autograder.graders import use_folder

    use_folder(folder)
    return folder


def validate_names(assignment: str, exercises: list[str]) -> None:
    """Refuse, before anything is written, a name the scaffold cannot use, with one line saying why."""
    for name in [assignment, *exercises]:
        if not NAME.fullmatch(name) or keyword.iskeyword(name):
            raise AuthoringError(f"{name!r} is not a name for it: lower-case letters, digits and _, as a Python name")
    if assignment in TAKEN:
        raise AuthoringError(f"{assignment!r} is the name of a graders module: choose another")
    if not exercises:
        raise AuthoringError("name at least one exercise: autograder new ASSIGNMENT EXERCISE...")
    if len(set(exercises)) != len(exercises):
        raise AuthoringError("an exercise is named twice")
    if len(assignment) > GRADEBOOK_NAME_LENGTH:
        raise AuthoringError(f"assignment {assignment[:20]!r}... is {len(assignment)} characters long: nbgrader's "
                             f"gradebook keeps {GRADEBOOK_NAME_LENGTH} at most")
    for name in exercises:
        _refuse_exercise(name, exercises)


def _refuse_exercise(name: str, exercises: list[str]) -> None:
    """One exercise name, among the assignment's others: refused when its scaffold could not work."""
    longest = GRADEBOOK_NAME_LENGTH - len("test_")
    if len(name) > longest:
        raise AuthoringError(f"exercise {name[:20]!r}... is {len(name)} characters long: its grade cell "
                             f"test_<exercise> must fit nbgrader's gradebook ({longest} characters at most)")
    if name == IMPORTS_CELL:
        raise AuthoringError(f"exercise {name!r} would take the grade id of its notebook's imports cell: "
                             "choose another")
    if name.startswith("test_") and name.removeprefix("test_") in exercises:
        raise AuthoringError(f"exercise {name!r} would take the grade id of the grade cell of exercise "
                             f"{name.removeprefix('test_')!r} ({name}): choose another")
    why = OWN_NAMES.get(name) or ("a Python built-in" if hasattr(builtins, name) else
                                  "IPython keeps a notebook's outputs and inputs in names starting with _"
                                  if name.startswith("_") else None)
    if why:
        raise AuthoringError(f"exercise {name!r} would shadow a name its notebook needs ({why}): choose another")


def check_names(settings: CourseSettings, graders: Path, assignment: str, exercises: list[str]) -> None:
    validate_names(assignment, exercises)
    for taken in (settings.path("source", ".", assignment), graders / assignment):
        if taken.exists():
            raise AuthoringError(f"{taken} exists already: autograder new writes a new assignment only")


def scaffold(settings: CourseSettings, assignment: str, exercises: list[str]) -> list[Path]:
    """Write the assignment's files; returns them, in the order an author edits them."""
    validate_names(assignment, exercises)
    graders = graders_folder(settings)
    check_names(settings, graders, assignment, exercises)
    package = graders / assignment
    package.mkdir(parents=True)
    written = [package / "__init__.py", package / "reference.py", package / "hints.py"]
    written[0].write_text(f'"""Hidden graders of `{assignment}`."""\n')
    written[1].write_text(REFERENCE_HEAD.format(assignment=assignment) + "".join(
        REFERENCE.format(exercise=e, upper=e.upper()) for e in exercises))
    written[2].write_text(HINTS_HEAD.format(assignment=assignment) + "".join(
        f'    "{e}_halved": "{e} divided by two where it should multiply by two (an example: replace it).",\n'
        f'    "{e}_one_row": "{e} returned one row: keep the shape of x (an example: replace it).",\n'
        for e in exercises) + "}\n")
    for exercise in exercises:
        path = package / f"test_{exercise}.py"
        path.write_text(GRADER.format(exercise=exercise, upper=exercise.upper()))
        written.append(path)

    from autograder.grader_support.exercise import max_score

    source = settings.path("source", ".", assignment)
    source.mkdir(parents=True)
    notebook = source / f"{assignment}.ipynb"
    nbformat.write(_notebook(assignment, {e: max_score(assignment, e) for e in exercises}), str(notebook))
    selfcheck = source / "selfcheck.py"
    selfcheck.write_text(SELFCHECK_HEAD.format(assignment=assignment, names=", ".join(
        f'"check_{e}"' for e in exercises)) + "".join(SELFCHECK.format(exercise=e) for e in exercises))
    return [notebook, selfcheck, *written]


def _meta(grade_id: str, *, solution: bool = False, points: float | None = None) -> dict:
    meta = {"grade": points is not None, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _notebook(assignment: str, points: dict[str, float]) -> nbformat.NotebookNode:
    cells = [
        new_markdown_cell(f"# {assignment}\n\nWhat this assignment is about, in your words."),
        new_code_cell("import numpy as np\n\nimport selfcheck", metadata=_meta(IMPORTS_CELL)),
    ]
    for number, (exercise, total) in enumerate(points.items(), start=1):
        cells += [
            new_markdown_cell(f"### Exercise {number}: `{exercise}`\n\nWhat `{exercise}(x)` returns."),
            new_code_cell(f"def {exercise}(x):\n    ### START CODE HERE ###\n    ### BEGIN SOLUTION\n"
                          f"    result = 2 * np.asarray(x)\n    ### END SOLUTION\n    ### END CODE HERE ###\n"
                          f"    return result", metadata=_meta(exercise, solution=True)),
            new_code_cell(f"{HIDDEN_BEGIN}\nfrom autograder.nbgrader_glue.kernel import grade\n"
                          f'_autograder_score = grade("{assignment}", "{exercise}", globals())\n{HIDDEN_END}\n'
                          f"selfcheck.check_{exercise}({exercise})\n{HIDDEN_BEGIN}\n_autograder_score\n{HIDDEN_END}",
                          metadata=_meta(f"test_{exercise}", points=total)),
        ]
    notebook = new_notebook(cells=cells)
    notebook.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                        "name": "python3"}, "language_info": {"name": "python"}}
    return notebook
