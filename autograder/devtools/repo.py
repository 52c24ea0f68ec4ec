"""This repository's own course: its checkout, its assignments (discovered in source/), and scratch courses made
from them (demo, bench, tests)."""

from pathlib import Path

from autograder.course.assignments import discover
from autograder.course.course_copy import copy_course

ROOT = Path(__file__).resolve().parents[2]


def available_assignments() -> tuple[str, ...]:
    """Every `source/<name>/<name>.ipynb` of this repository."""
    return discover(ROOT / "source")


def new_course(destination: Path, assignments: tuple[str, ...] | None = None) -> Path:
    """A fresh course folder with the config and the given assignments' sources (default: all; no gradebook yet)."""
    return copy_course(ROOT, destination, available_assignments() if assignments is None else assignments)
