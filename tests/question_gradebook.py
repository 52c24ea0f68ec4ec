"""A real nbgrader gradebook for grading one written question: nbgrader's ORM makes the assignment, its notebook
and two grade cells (an autograded one and the written answer); each student's submission rows are inserted as
nbgrader's writer leaves a graded submission with an answer waiting for a person (the ORM's add_submission is a
tenth of a second a student; this is milliseconds for a class)."""

import contextlib
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

from nbgrader.api import Gradebook

ASSIGNMENT, NOTEBOOK, CELL, CODE_CELL = "hsa", "hsa", "explain_formulas", "test_sigmoid"


def question_gradebook(folder: Path, students: list[str]) -> str:
    """The gradebook's URL: `students` each with 7 of 7 autograded and the written answer (2 points) waiting."""
    url = f"sqlite:///{folder / 'gradebook.db'}"
    with Gradebook(url) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(NOTEBOOK, ASSIGNMENT)
        gb.add_grade_cell(CODE_CELL, NOTEBOOK, ASSIGNMENT, max_score=7, cell_type="code")
        gb.add_grade_cell(CELL, NOTEBOOK, ASSIGNMENT, max_score=2, cell_type="markdown")
        gb.add_solution_cell(CELL, NOTEBOOK, ASSIGNMENT)  # an answer cell too, as nbgrader records one graded by hand
    db = sqlite3.connect(folder / "gradebook.db")
    try:
        ((assignment_id,),) = db.execute("SELECT id FROM assignment")
        ((notebook_id,),) = db.execute("SELECT id FROM notebook")
        cells = dict(db.execute("SELECT b.name, b.id FROM base_cell b JOIN grade_cells g ON g.id = b.id"))
        for student in students:
            sub, nb = uuid.uuid4().hex, uuid.uuid4().hex
            db.execute("INSERT INTO student (id, first_name, last_name) VALUES (?, '', ?)", (student, student))
            db.execute("INSERT INTO submitted_assignment (id, assignment_id, student_id) VALUES (?, ?, ?)",
                       (sub, assignment_id, student))
            db.execute("INSERT INTO submitted_notebook (id, assignment_id, notebook_id, flagged) VALUES (?, ?, ?, 0)",
                       (nb, sub, notebook_id))
            db.execute("INSERT INTO grade (id, cell_id, notebook_id, auto_score, needs_manual_grade) VALUES "
                       "(?, ?, ?, 7.0, 0)", (uuid.uuid4().hex, cells[CODE_CELL], nb))
            db.execute("INSERT INTO grade (id, cell_id, notebook_id, auto_score, needs_manual_grade) VALUES "
                       "(?, ?, ?, NULL, 1)", (uuid.uuid4().hex, cells[CELL], nb))
        db.commit()
    finally:
        db.close()
    return url


def made_once(folder: Path, students: list[str]) -> Path:
    """The gradebook file of `question_gradebook` with our tables too, for a module to copy for each test (a new
    gradebook runs nbgrader's alembic and ours: seconds)."""
    from autograder.migrations import upgrade

    upgrade(question_gradebook(folder, students))
    return folder / "gradebook.db"


@contextlib.contextmanager
def copy_opened(made: Path, folder: Path) -> Iterator[Gradebook]:
    """A copy of the gradebook `made` in `folder`, open with nbgrader's `Gradebook` while the block runs."""
    shutil.copy(made, folder / "gradebook.db")
    gb = Gradebook(f"sqlite:///{folder / 'gradebook.db'}")
    try:
        yield gb
    finally:
        gb.close()
