"""nbgrader's sanitising steps, as `nbgrader autograde` runs them before executing a submission, reproduced
on plain data from the gradebook (no database per cell), in nbgrader's order:

1. ClearOutput: every code cell's outputs and execution count go.
2. DeduplicateIds: the last cell with a grade_id keeps it, earlier copies become plain cells.
3. OverwriteCells: cell type, locked flag, points and checksum come from the gradebook; a locked cell whose
   checksum changed gets the gradebook's source back; a grade_id the gradebook does not know is dropped,
   so the cell runs as a plain cell.
4. add_missing_cells (when the course sets it): a deleted grade cell comes back after the cell that
   preceded it in the source notebook.

Notebooks here are plain dicts as json.loads gives them (what nbformat reads, without NotebookNode's
conversion of every nested dict).
"""

import copy as _copy
from typing import Any

from autograder.grading.model import SourceNotebook
from autograder.nbgrader_glue.notebook import checksum, is_grade, is_locked, is_solution


def sanitise(submitted: dict[str, Any], source: SourceNotebook, add_missing: bool,
             copy: bool = True) -> dict[str, Any]:
    """The submitted notebook as nbgrader would run it: the steps above, in order."""
    nb = _copy.deepcopy(submitted) if copy else submitted
    clear_output(nb)
    deduplicate_ids(nb)
    overwrite_cells(nb, source)
    if add_missing:
        add_missing_cells(nb, source)
    return nb


def clear_output(nb: dict[str, Any]) -> None:
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None


def deduplicate_ids(nb: dict[str, Any]) -> None:
    seen: set[str] = set()
    for cell in reversed(nb["cells"]):
        if is_grade(cell) or is_solution(cell) or is_locked(cell):
            gid = cell["metadata"]["nbgrader"].get("grade_id")
            if not isinstance(gid, str):
                continue  # not an id the gradebook can know: `overwrite_cells` makes it a plain cell
            if gid in seen:
                cell["metadata"]["nbgrader"] = {}
            else:
                seen.add(gid)


def overwrite_cells(nb: dict[str, Any], source: SourceNotebook) -> None:
    for cell in nb["cells"]:
        _overwrite(cell, source)


def _overwrite(cell: Any, source: SourceNotebook) -> None:
    """OverwriteCells, with every nbgrader claim the gradebook can answer taken from the gradebook: whether
    the cell is graded, a solution, locked, its points. A cell whose id the gradebook does not know, or
    whose metadata is not nbgrader's shape, is a plain cell (nbgrader drops an unknown id, then fails on a
    grade cell without one: a student's edited metadata costs at most that cell, never the notebook)."""
    meta = cell.get("metadata", {}).get("nbgrader")
    if meta is None:
        return
    original = source.cell(meta.get("grade_id")) if isinstance(meta.get("grade_id"), str) else None
    if original is None:
        cell["metadata"]["nbgrader"] = {}
        return
    if cell["cell_type"] != original.cell_type:
        cell["cell_type"] = original.cell_type
        if original.cell_type == "code":
            cell["outputs"], cell["execution_count"] = [], None
        else:
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
    name = original.name
    for flag, value in (("grade", name in source.grade_cells), ("solution", name in source.solution_cells),
                        ("task", name in source.task_cells)):
        if bool(meta.get(flag, False)) != value:
            meta[flag] = value
    if is_locked(cell) != original.locked:
        meta["locked"] = original.locked
    if name in source.grade_cells:
        meta["points"] = source.grade_cells[name]
    meta["checksum"] = original.checksum
    if original.locked and checksum(cell) != original.checksum:
        cell["source"] = original.source


def add_missing_cells(nb: dict[str, Any], source: SourceNotebook) -> None:
    def transform(*args: Any, **kwargs: Any) -> dict[str, Any]:
        import nbformat
        from nbgrader.preprocessors import OverwriteCells  # imports nbconvert: only for a deleted cell

        return nbformat.from_dict(OverwriteCells().missing_cell_transform(*args, **kwargs))

    names = [c.name for c in source.cells]
    present = {}
    for index, cell in enumerate(nb["cells"]):
        if is_grade(cell) or is_solution(cell):
            present[cell["metadata"]["nbgrader"]["grade_id"]] = index
    added = 0
    for gid, points in source.grade_cells.items():
        if gid in present:
            continue
        position = names.index(gid)
        new = transform(source.cells[position], points, is_solution=gid in source.solution_cells)
        if position == 0:
            nb["cells"].insert(0, new)
            present[gid] = 0
        else:
            if names[position - 1] not in present:
                # nbgrader fails on this notebook too: there is no cell to put the missing one after.
                raise ValueError(f"grade cell {gid} was deleted and so was the cell before it "
                                 f"({names[position - 1]}): it cannot be put back")
            previous = present[names[position - 1]] + added
            nb["cells"].insert(previous + 1, new)
            present[gid] = present[names[position - 1]]
        added += 1
    submitted_ids = {c["metadata"]["nbgrader"].get("grade_id") for c in nb["cells"] if "nbgrader" in c["metadata"]}
    for gid, points in source.task_cells.items():
        if gid not in submitted_ids:
            nb["cells"].append(transform(source.cells[names.index(gid)], points, is_task=True))


