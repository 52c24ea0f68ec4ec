"""One graded submission as plain data: what the engine hands on to the gradebook, feedback and reports.

A result is JSON-serialisable and knows nothing about where it was computed, so a worker on another
machine (Dask) can produce it and the gradebook writer can consume it anywhere.
"""

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autograder.runner import ExerciseResult

RESULT_FILE = "autograder-result.json"  # written next to the autograded notebook


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

    @property
    def score(self) -> float:
        return round(sum(cell.score for cell in self.cells), 6)

    @property
    def max_score(self) -> float:
        return round(sum(cell.max_score for cell in self.cells), 6)

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
        path = folder / RESULT_FILE
        path.write_text(json.dumps(self.to_dict(), indent=1))
        return path

    @classmethod
    def load(cls, folder: Path) -> "SubmissionResult":
        return cls.from_dict(json.loads((folder / RESULT_FILE).read_text()))
