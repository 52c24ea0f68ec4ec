"""The source notebooks read with plain SQL (before nbgrader's ORM loads) are what nbgrader's ORM reads.

A real gradebook made by `nbgrader generate_assignment` for both assignments, with a manually graded task
cell and a second notebook added to one of them, so that every kind of cell and the notebooks' order count.
"""

import json
import sqlite3
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.repo import available_assignments, new_course
from autograder.grading.gradebook_db import GradebookError
from autograder.grading.sources import read_sources_early
from autograder.grading.writer import GradebookWriter

ASSIGNMENTS = available_assignments()


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    root = new_course(tmp_path_factory.mktemp("sources"), ASSIGNMENTS)
    folder = root / "source" / ASSIGNMENTS[0]
    nb = json.loads((folder / f"{ASSIGNMENTS[0]}.ipynb").read_text())
    nb["cells"].append({"cell_type": "markdown", "id": "task-cell", "source": "Explain the two formulas.",
                        "metadata": {"nbgrader": {"task": True, "grade": False, "solution": False, "locked": True,
                                                  "points": 3, "grade_id": "explain", "schema_version": 3}}})
    (folder / f"{ASSIGNMENTS[0]}.ipynb").write_text(json.dumps(nb))
    # A second notebook whose name sorts first: the notebooks come back sorted by name.
    (folder / "aa_extra.ipynb").write_text(json.dumps({**nb, "cells": nb["cells"][:3]}))
    for assignment in ASSIGNMENTS:
        nbgrader(root, "generate_assignment", assignment, "--force")
    return root


def orm_view(db_url: str, assignment: str) -> list[tuple]:
    gb = Gradebook(db_url)
    try:
        return sorted(
            (nb.name, [(c.name, c.cell_type, bool(c.locked), c.source, c.checksum) for c in nb.source_cells],
             [(c.name, float(c.max_score)) for c in nb.grade_cells], sorted(c.name for c in nb.solution_cells),
             [(c.name, float(c.max_score)) for c in nb.task_cells])
            for nb in gb.find_assignment(assignment).notebooks)
    finally:
        gb.close()


def view(sources) -> list[tuple]:
    return [(s.name, [(c.name, c.cell_type, c.locked, c.source, c.checksum) for c in s.cells],
             list(s.grade_cells.items()), sorted(s.solution_cells), list(s.task_cells.items())) for s in sources]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_plain_sql_reads_what_the_orm_reads(course, assignment):
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    expected = orm_view(db_url, assignment)
    early = read_sources_early(db_url, assignment)
    writer = GradebookWriter(db_url, "course")
    try:
        late = writer.source_notebooks(assignment)
    finally:
        writer.close()
    assert view(early) == expected
    assert view(late) == expected
    assert [s.name for s in early] == sorted(s.name for s in early)
    if assignment == ASSIGNMENTS[0]:
        assert len(early) == 2 and early[1].task_cells == {"explain": 3.0}


def test_early_read_says_when_it_cannot_answer(course, tmp_path):
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    assert read_sources_early(db_url, "no_such_assignment") is None
    missing = tmp_path / "gradebook.db"
    assert read_sources_early(f"sqlite:///{missing}", ASSIGNMENTS[0]) is None
    assert not missing.exists()  # read-only: no empty gradebook left behind
    assert read_sources_early("postgresql://localhost/gradebook", ASSIGNMENTS[0]) is None
    holder = sqlite3.connect(course / "gradebook.db")
    holder.execute("BEGIN EXCLUSIVE")  # another program writing: the writer, later, waits for it instead
    try:
        assert read_sources_early(db_url, ASSIGNMENTS[0]) is None
    finally:
        holder.rollback()
        holder.close()
    assert read_sources_early(db_url, ASSIGNMENTS[0]) is not None
    writer = GradebookWriter(db_url, "course")
    try:
        with pytest.raises(GradebookError, match="no assignment 'no_such_assignment'"):
            writer.source_notebooks("no_such_assignment")
    finally:
        writer.close()
