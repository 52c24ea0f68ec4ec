"""The order every listing gives an assignment's exercises (`autograder scores`, the exports, the LMS comment): the
order of the grade cells in the course's source notebook, `source/<assignment>/<notebook>.ipynb`, as the
student's feedback page shows them. nbgrader's gradebook keeps no cell order, so the source notebook is the
authority; where none is readable (a gradebook without its course, a notebook deleted), cells go by name.

Listings read the gradebook without knowing the course folder (the outbox's comment is built in the grading
run's transaction, from its SQL alone): `read_course` registers each course's source folder under its course id,
and an assignment's course id is in the gradebook. A notebook is parsed once while it is unchanged."""

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Rows = Callable[[str, dict[str, Any]], list[tuple]]
_SOURCES: dict[str, Callable[[str], Path]] = {}  # course id -> where an assignment's source notebooks are
_PARSED: dict[Path, tuple[tuple[int, int], dict[str, int]]] = {}  # notebook -> ((mtime, size), cell -> position)


def use_course(course_id: str, source_folder: Callable[[str], Path]) -> None:
    """Read the exercise order of `course_id`'s assignments from `source_folder(assignment)` in this process."""
    _SOURCES[course_id] = source_folder


@dataclass(frozen=True)
class CellOrder:
    """Where each grade cell of one assignment stands: notebooks by name, cells in each notebook's order, a cell
    the notebook does not hold (or a notebook not readable) after them by name."""

    positions: dict[str, dict[str, int]]  # notebook -> grade id -> position in it

    def key(self, notebook: str, cell: str) -> tuple[str, int, str]:
        return notebook, self.positions.get(notebook, {}).get(cell, 1 << 30), cell

    def sorted(self, cells: Iterable[Any], name: Callable[[Any], tuple[str, str]]) -> list[Any]:
        """`cells` in this order, `name(cell)` giving its (notebook, grade cell)."""
        return sorted(cells, key=lambda c: self.key(*name(c)))


def cell_order(rows: Rows, assignment: str) -> CellOrder:
    """The order of `assignment`'s grade cells, read once for a listing of every student (`rows`: any reader of
    the gradebook, in the caller's transaction)."""
    found = rows("SELECT a.course_id, n.name FROM assignment a JOIN notebook n ON n.assignment_id = a.id "
                 "WHERE a.name = :a", {"a": assignment})
    positions = {}
    for course_id, notebook in found:
        source = _SOURCES.get(course_id)
        if source is not None:
            positions[notebook] = _positions(source(assignment) / f"{notebook}.ipynb")
    return CellOrder(positions)


def _positions(path: Path) -> dict[str, int]:
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if path in _PARSED and _PARSED[path][0] == stamp:
            return _PARSED[path][1]
        cells = json.loads(path.read_bytes())["cells"]
        ids = [cell["metadata"]["nbgrader"]["grade_id"] for cell in cells
               if isinstance(cell, dict) and isinstance(cell.get("metadata", {}).get("nbgrader"), dict)
               and cell["metadata"]["nbgrader"].get("grade")]
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # no readable source notebook: by name
    positions = {grade_id: n for n, grade_id in enumerate(ids) if isinstance(grade_id, str)}
    _PARSED[path] = (stamp, positions)
    return positions
