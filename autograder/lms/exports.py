"""The export formats by name, and the one function `autograder export` and the plugins both call."""

from __future__ import annotations

import importlib
from pathlib import Path

from .gradebook import open_gradebook, read_gradesheet
from .settings import Settings, load
from .table import Table, write_atomic

MODULES = {
    "canvas": "autograder.lms.canvas",
    "moodle": "autograder.lms.moodle",
    "blackboard": "autograder.lms.blackboard",
    "brightspace": "autograder.lms.brightspace",
    "csv": "autograder.lms.breakdown",
}
DEFAULT_NAMES = {name: f"exports/{name}.csv" for name in MODULES}


def build_table(fmt: str, gradebook, settings: Settings, assignments: list[str], skip_missing: bool,
                students: set[str] | None = None) -> Table:
    sheet = read_gradesheet(gradebook, assignments)
    if students is not None:
        sheet = type(sheet)(sheet.assignments, tuple(p for p in sheet.people if p.id in students), sheet.grades)
    return importlib.import_module(MODULES[fmt]).table(sheet, settings, skip_missing)


def export(course: Path, fmt: str, assignments: list[str], output: Path | None = None,
           skip_missing: bool = False) -> tuple[Path, Table]:
    """Write the `fmt` export of `assignments` for the course; returns the file and what it holds."""
    settings = load(course)
    destination = output if output is not None else course / DEFAULT_NAMES[fmt]
    with open_gradebook(course) as gradebook:
        table = build_table(fmt, gradebook, settings, assignments, skip_missing)
    write_atomic(destination, table.to_csv())
    return destination, table
