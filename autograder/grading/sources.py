"""An assignment's source notebooks as the gradebook stores them: the cells `nbgrader autograde` restores
(locked, deleted grade cells) and the points of each grade cell.

Read with plain SQL over nbgrader's tables, so that the grade command can read them at once, without
nbgrader's ORM and SQLAlchemy, and have the first submissions running while the rest of it loads. The
queries take no parameters and the rows are filtered here, so they run as written on any DB-API
connection: sqlite3 for the embedded gradebook, the driver under SQLAlchemy for the others. They return
what nbgrader's relationships (`Notebook.source_cells`, `.grade_cells`, ...) return, in the same order:
those queries have no ORDER BY either, and scan the table as these do.
"""

import sqlite3
from typing import Any
from urllib.parse import quote

from autograder.course.settings import sqlite_path
from autograder.grading.model import SourceCell, SourceNotebook

EARLY_LOCK_SECONDS = 0.2


def read_sources(connection: Any, assignment: str) -> list[SourceNotebook] | None:
    """The assignment's notebooks, by name; None when the gradebook has no such assignment."""
    cursor = connection.cursor()

    def rows(sql: str) -> list[tuple]:
        cursor.execute(sql)
        return cursor.fetchall()

    ids = [row_id for row_id, name in rows("SELECT id, name FROM assignment") if name == assignment]
    if not ids:
        return None
    notebooks = {nb_id: SourceNotebook(name)
                 for nb_id, name, owner in rows("SELECT id, name, assignment_id FROM notebook") if owner == ids[0]}
    for nb_id, name, cell_type, locked, source, checksum in rows(
            "SELECT notebook_id, name, cell_type, locked, source, checksum FROM source_cell"):
        if nb_id in notebooks:
            notebooks[nb_id].cells.append(SourceCell(name, cell_type, bool(locked), source, checksum))
    grade_points = dict(rows("SELECT id, max_score FROM grade_cells"))
    task_points = dict(rows("SELECT id, max_score FROM task_cells"))
    # nbgrader's cells are one table (base_cell) with a type column; the kinds' own tables hold the points.
    for cell_id, name, nb_id, kind in rows("SELECT id, name, notebook_id, type FROM base_cell"):
        notebook = notebooks.get(nb_id)
        if notebook is None:
            continue
        if kind == "GradeCell":
            notebook.grade_cells[name] = float(grade_points[cell_id])
        elif kind == "SolutionCell":
            notebook.solution_cells.add(name)
        elif kind == "TaskCell":
            notebook.task_cells[name] = float(task_points[cell_id])
    return sorted(notebooks.values(), key=lambda n: n.name)


def read_sources_early(db_url: str, assignment: str) -> list[SourceNotebook] | None:
    """`read_sources` on an embedded (SQLite) gradebook, opened read-only with the standard library. None
    when that cannot answer at once (another database, no gradebook yet, no such assignment, another
    program's lock, a schema it does not know): the caller then asks the gradebook writer, which waits for
    locks as long as the user said and reports such problems in its own words."""
    path = sqlite_path(db_url)
    if path is None:
        return None
    try:
        # mode=ro: a missing gradebook is an error here, never an empty file left behind.
        connection = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=EARLY_LOCK_SECONDS)
    except sqlite3.Error:
        return None
    try:
        return read_sources(connection, assignment)
    except (sqlite3.Error, KeyError):
        return None
    finally:
        connection.close()
