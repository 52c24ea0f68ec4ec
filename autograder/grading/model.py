"""The data that moves through grading, defined once: the instructor's notebooks as the gradebook stores
them (`SourceNotebook`), a submission's job of plain data (`Job`), and what grading it gives (`Outcome`,
`SubmissionResult`, `CellResult`; an exercise's own result is `graders.exercise.ExerciseResult`).

Jobs and results are plain, JSON-ready data that know nothing about where they were computed: a worker on
another machine can produce an outcome and the gradebook writer consume it anywhere.
"""

import dataclasses
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autograder.course.result_file import RESULT_FILE
from autograder.grader_support.exercise import ExerciseResult, points_total
from autograder.sandbox.limits import Limits

# The instructor's notebooks ------------------------------------------------------------------------------

@dataclass(frozen=True)
class SourceCell:
    """What the gradebook stores about one nbgrader cell of the instructor's notebook."""

    name: str
    cell_type: str
    locked: bool
    source: str
    checksum: str | None


@dataclass
class SourceNotebook:
    name: str
    cells: list[SourceCell] = field(default_factory=list)  # in notebook order
    grade_cells: dict[str, float] = field(default_factory=dict)  # grade_id -> points
    solution_cells: set[str] = field(default_factory=set)
    task_cells: dict[str, float] = field(default_factory=dict)
    # The code cells that are the instructor's text as released (`instructor.instructor_files` reads them).
    instructor_code: set[str] = field(default_factory=set, repr=False, compare=False)
    derived: "Derived" = field(default_factory=lambda: Derived(), repr=False, compare=False)

    def cell(self, name: str) -> SourceCell | None:
        derived = self.derived
        if derived.cells_seen != len(self.cells):
            derived.by_name, derived.cells_seen = {}, len(self.cells)
            for cell in reversed(self.cells):  # the first cell of a name wins, as in a scan
                derived.by_name[cell.name] = cell
        return derived.by_name.get(name)


@dataclass
class Derived:
    """What every submission would compute again from the same source cells, computed once (`prepare`)."""

    by_name: dict[str, SourceCell] = field(default_factory=dict)
    cells_seen: int = -1  # how many cells `by_name` was made from
    locked_code: set[str] | None = None  # the instructor's code cells' texts (`prepare._locked_code`)
    code: dict[str, str] = field(default_factory=dict)  # an instructor's cell text -> its Python source
    tests: dict[tuple[str, str], tuple[str, str | None, str | None, bool | None]] = field(default_factory=dict)


# A submission to grade ------------------------------------------------------------------------------

@dataclass
class CellJob:
    kind: str  # "code" (run it), "test" (run its visible part, then its hidden graders), "skip" (markdown)
    source: str = ""  # Python source; for a test cell, its visible part only
    grade_id: str | None = None
    points: float = 0.0
    assignment: str | None = None  # the hidden graders' `grade(assignment, exercise, ...)`
    exercise: str | None = None
    graders_first: bool = False  # the hidden grade call comes before the visible check in the cell
    instructors: bool = False  # a code cell whose text is the instructor's (locked, or left as released)
    ipython: bool = False  # `source` is the student's text as written: the sandbox turns IPython syntax into Python

    @property
    def display(self) -> bool:
        """Whether the cell's last value is shown, as the kernel shows it: not for a test cell with hidden
        graders, whose shown value is its score."""
        return self.kind == "code" or self.exercise is None


@dataclass
class NotebookJob:
    name: str
    cells: list[CellJob] = field(default_factory=list)
    missing: bool = False  # no such notebook was submitted: every grade cell scores 0, as in nbgrader


@dataclass
class Job:
    student: str
    assignment: str
    notebooks: list[NotebookJob]
    modules: dict[str, str] = field(default_factory=dict)  # the instructor's importable files, by module
    limits: Limits = field(default_factory=Limits)
    ignore_pattern: str | None = None  # nbgrader's IgnorePattern: stderr lines that do not zero a cell
    preload: list[str] = field(default_factory=list)  # modules the instructor's notebook imports

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Job":
        notebooks = [NotebookJob(n["name"], [CellJob(**c) for c in n["cells"]], n["missing"])
                     for n in data["notebooks"]]
        return cls(**{**data, "notebooks": notebooks, "limits": Limits(**data["limits"])})


# What grading gives -----------------------------------------------------------------------------------

@dataclass
class CellResult:
    grade_id: str  # the nbgrader grade cell, e.g. "test_concat_weights"
    max_score: float
    score: float
    visible_error: str | None = None  # the visible self-check failed: the cell scores 0, as in nbgrader
    exercise: ExerciseResult | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["exercise"] = self.exercise.to_dict() if self.exercise else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CellResult":
        exercise = ExerciseResult.from_dict(data["exercise"]) if data.get("exercise") else None
        return cls(**{**data, "exercise": exercise})


@dataclass
class SubmissionResult:
    student: str
    assignment: str
    status: str = "graded"  # "graded" | "unreadable" (the notebook could not be read)
    message: str = ""  # for the student and the instructor: why it was not graded, or which limits hit
    limits_hit: list[str] = field(default_factory=list)  # "time", "memory", "output", "processes", "crash"
    seconds: float = 0.0
    cells: list[CellResult] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # what in the submission folder was left out, and why
    sandbox_level: str = ""  # "full", "userns" or "bare" (`sandbox.isolation`): the class report shows "bare"

    @property
    def score(self) -> float:
        return points_total(cell.score for cell in self.cells)

    @property
    def max_score(self) -> float:
        return points_total(cell.max_score for cell in self.cells)

    @property
    def hints(self) -> list[str]:
        return sorted({h for cell in self.cells if cell.exercise for h in cell.exercise.hints})

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["cells"] = [cell.to_dict() for cell in self.cells]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SubmissionResult":
        return cls(**{**data, "cells": [CellResult.from_dict(c) for c in data["cells"]],
                      "ignored": list(data.get("ignored", []))})

    def save(self, folder: Path) -> Path:
        """`autograder-result.json` in `folder`: the one writer of it (`autograder grade`, the formgrader)."""
        path = folder / RESULT_FILE
        # json.dumps walks the dataclasses itself: dataclasses.asdict's deep copies cost a submission more.
        path.write_text(json.dumps(self, default=_fields))
        return path

    @classmethod
    def load(cls, folder: Path) -> "SubmissionResult":
        return cls.from_dict(json.loads((folder / RESULT_FILE).read_text()))


@dataclass
class Outcome:
    """The unit of work's output: the result, plus each notebook's cell outputs (nbformat JSON) for the
    autograded copy, and which sandbox protections were in force."""

    result: SubmissionResult
    outputs: dict[str, list[list[dict[str, Any]]]] = field(default_factory=dict)
    sandbox_level: str = ""
    protections_off: list[str] = field(default_factory=list)
    regraded: int = 0  # notebooks graded a second time, call by call, because the graders left the plan

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: an outcome can be made in one process or machine and recorded in another."""
        return {"result": self.result.to_dict(), "outputs": self.outputs, "sandbox_level": self.sandbox_level,
                "protections_off": self.protections_off, "regraded": self.regraded}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Outcome":
        return cls(SubmissionResult.from_dict(data["result"]), data["outputs"], data["sandbox_level"],
                   data["protections_off"], data.get("regraded", 0))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(value: Any) -> dict[str, Any]:
    """json.dumps' hook for the result's dataclasses: their fields, as dataclasses.asdict gives them,
    without its deep copies (the encoder walks the values itself)."""
    kind = type(value)
    if kind not in _FIELDS:
        if not dataclasses.is_dataclass(value):
            raise TypeError(f"Object of type {kind.__name__} is not JSON serializable")
        _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    return {name: getattr(value, name) for name in _FIELDS[kind]}
