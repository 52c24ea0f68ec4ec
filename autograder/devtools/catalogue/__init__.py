"""Catalogues of answers: every reasonable way to be right, every known way to be wrong.

Each assignment has a module here with CORRECT and WRONG lists of `Answer`s. An answer replaces the whole
solution cell of one exercise; the rest of the notebook keeps the reference solution, so each answer is
judged alone. Tests check that correct answers score full marks and wrong ones lose points with their
hint named; the demo and the benchmark build classes from them.
"""

import ast
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.devtools.repo import ROOT
from autograder.nbgrader_glue.notebook import grade_id, nbgrader_meta

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


@dataclass(frozen=True)
class Answer:
    exercise: str
    name: str
    code: str
    hint: str | None = None  # for a wrong answer: the misconception the graders must name, if any

    @property
    def label(self) -> str:
        return f"{self.exercise}/{self.name}"


def has_catalogue(assignment: str) -> bool:
    """Whether the assignment has a catalogue here (`autograder/devtools/catalogue/<assignment>.py`)."""
    return importlib.util.find_spec(f"{__name__}.{assignment}") is not None


def catalogued(assignments: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `assignments` that have a catalogue (the demo, the benchmark and the tests need one)."""
    return tuple(a for a in assignments if has_catalogue(a))


def correct_answers(assignment: str) -> list[Answer]:
    return list(importlib.import_module(f"autograder.devtools.catalogue.{assignment}").CORRECT)


def wrong_answers(assignment: str) -> list[Answer]:
    return list(importlib.import_module(f"autograder.devtools.catalogue.{assignment}").WRONG)


def catalogue_problems(assignment: str) -> list[str]:
    """What the assignment's catalogue lacks for the tests that grade a class of its answers (none: it serves):
    at least two correct answers per exercise of the notebook, at least one wrong answer, and no answer to an
    exercise the notebook lacks."""
    exercises = set(solution_sources(assignment))
    correct, wrong = correct_answers(assignment), wrong_answers(assignment)
    problems = [f"{exercise}: {count} correct answer{'s' * (count != 1)}, at least two needed"
                for exercise in sorted(exercises)
                if (count := sum(a.exercise == exercise for a in correct)) < 2]
    if not wrong:
        problems.append("no wrong answers")
    unknown = sorted({a.exercise for a in correct + wrong} - exercises)
    if unknown:
        problems.append(f"answers to exercises the notebook lacks: {', '.join(unknown)}")
    return problems


def combined_answers(assignment: str) -> list[tuple[Answer, ...]]:
    """Submissions where one mistake could cost twice: each correct answer that calls another exercise's
    function (by name, or as a default argument such as `g=sigmoid`) on top of a wrong answer to that
    function (the first listed). The dependent exercise must keep full marks, the wrong one must not."""
    exercises = set(solution_sources(assignment))
    first_wrong: dict[str, Answer] = {}
    for answer in wrong_answers(assignment):
        first_wrong.setdefault(answer.exercise, answer)
    combined = []
    for answer in correct_answers(assignment):
        for called in sorted(_names_used(answer.code) & (exercises - {answer.exercise})):
            if called in first_wrong:
                combined.append((first_wrong[called], answer))
    return combined


def packed_answers(assignment: str) -> list[tuple[Answer, ...]]:
    """Every correct and wrong answer in as few submissions as the exercises allow, each submission holding at
    most one answer per exercise and never an answer beside another answer to a function it relies on, directly
    or through another (even a correct alternative may differ from the reference where the caller leans on it,
    and a correct answer on a wrong one is `combined_answers`' own test). Exercises that do not call each other
    are graded apart, so each answer scores, with its hint, as it would alone, and a class graded through a
    kernel per submission starts far fewer of them."""
    relies = _relies_on(assignment)
    packed: list[dict[str, Answer]] = []

    def fits(answer: Answer, other: Answer) -> bool:
        return other.exercise not in relies[answer.exercise] and answer.exercise not in relies[other.exercise]

    for answer in correct_answers(assignment) + wrong_answers(assignment):
        for submission in packed:
            if answer.exercise not in submission and all(fits(answer, other) for other in submission.values()):
                submission[answer.exercise] = answer
                break
        else:
            packed.append({answer.exercise: answer})
    return [tuple(submission.values()) for submission in packed]


def _relies_on(assignment: str) -> dict[str, set[str]]:
    """The exercises each exercise's function calls, directly or through others, in the reference answer or
    in any catalogued one."""
    sources = solution_sources(assignment)
    calls = {exercise: _names_used(source) & (set(sources) - {exercise}) for exercise, source in sources.items()}
    for answer in correct_answers(assignment) + wrong_answers(assignment):
        calls[answer.exercise] |= _names_used(answer.code) & (set(sources) - {answer.exercise})
    relies = {}
    for exercise in sources:
        seen, todo = set(), [exercise]
        while todo:
            for called in calls[todo.pop()] - seen:
                seen.add(called)
                todo.append(called)
        relies[exercise] = seen - {exercise}
    return relies


def _names_used(code: str) -> set[str]:
    return {node.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Name)}


def strip_solution_markers(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_MARKERS)


def solution_sources(assignment: str) -> dict[str, str]:
    """The reference answer of each code solution cell (each function), by grade_id, as a student would have typed
    it. A written answer (a markdown solution cell, graded by hand) is no function: the catalogue leaves it out."""
    notebook = nbformat.read(str(ROOT / "source" / assignment / f"{assignment}.ipynb"), as_version=4)
    return {
        grade_id(cell): strip_solution_markers(cell.source)
        for cell in notebook.cells if nbgrader_meta(cell).get("solution") and cell.cell_type == "code"
    }


def write_submission(assignment: str, destination: Path, answers: list[Answer] = (), *,
                     blank: bool = False, release: Path | None = None) -> Path:
    """A filled-in copy of the released notebook, as a student would submit it.

    Every solution cell gets the reference answer (or its stub, when `blank`), except the exercises that
    `answers` replace. Returns the notebook's path, `destination/<assignment>.ipynb`.
    """
    release = release or ROOT / "release" / assignment
    notebook = nbformat.read(str(release / f"{assignment}.ipynb"), as_version=4)
    replacements = solution_sources(assignment)
    for answer in answers:
        if answer.exercise not in replacements:
            raise KeyError(f"{assignment} has no solution cell {answer.exercise!r}")
        replacements[answer.exercise] = answer.code.strip("\n")
    chosen = {a.exercise for a in answers}
    for cell in notebook.cells:
        gid = grade_id(cell)
        if gid in replacements and (not blank or gid in chosen):
            cell.source = replacements[gid]
    destination.mkdir(parents=True, exist_ok=True)
    path = destination / f"{assignment}.ipynb"
    nbformat.write(notebook, str(path))
    return path
