"""Build the list of cells a submission runs, the way `nbgrader autograde` builds it, and turn it into a
job of plain data for the engine.

nbgrader's sanitising steps, reproduced on plain data from the gradebook (no database per cell):
ClearOutput; DeduplicateIds (the last cell with a grade_id keeps it, earlier copies become plain cells);
OverwriteCells (cell type, locked flag, points and checksum from the gradebook; a locked cell whose
checksum changed gets the gradebook's source back; a grade_id the gradebook does not know is dropped, so
the cell runs as a plain cell); add_missing_cells (a deleted grade cell comes back after the cell that
preceded it in the source notebook).
"""

import ast
import copy as _copy
from dataclasses import dataclass, field
from typing import Any

from autograder.engine import CellJob, NotebookJob
from autograder.notebook import (
    HIDDEN_BEGIN,
    HIDDEN_END,
    checksum,
    hidden_part,
    is_grade,
    is_locked,
    is_solution,
    visible_part,
)
from autograder.sandbox.syntax import python_source

# Notebooks here are plain dicts as json.loads gives them (what nbformat reads, without NotebookNode's
# conversion of every nested dict, which cost milliseconds a submission).



class AssemblyError(Exception):
    """The instructor's notebook has a test cell this engine cannot run (a one-line message)."""


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
    # What every submission would compute again from the same cell source (see `notebook_job`).
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def cell(self, name: str) -> SourceCell | None:
        by_name = self.memo.get("cells")
        if by_name is None or len(by_name[1]) != len(self.cells):
            by_name = self.memo["cells"] = ({}, list(self.cells))
            for cell in reversed(self.cells):  # the first cell of a name wins, as in a scan
                by_name[0][cell.name] = cell
        return by_name[0].get(name)


def sanitise(submitted: dict[str, Any], source: SourceNotebook, add_missing: bool,
             copy: bool = True) -> dict[str, Any]:
    nb = _copy.deepcopy(submitted) if copy else submitted
    for cell in nb["cells"]:  # ClearOutput
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    seen: set[str] = set()
    for cell in reversed(nb["cells"]):  # DeduplicateIds
        if is_grade(cell) or is_solution(cell) or is_locked(cell):
            gid = cell["metadata"]["nbgrader"].get("grade_id")
            if not isinstance(gid, str):
                continue  # not an id the gradebook can know: `_overwrite` makes it a plain cell
            if gid in seen:
                cell["metadata"]["nbgrader"] = {}
            else:
                seen.add(gid)
    for cell in nb["cells"]:
        _overwrite(cell, source)
    if add_missing:
        _add_missing(nb, source)
    return nb


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


def _add_missing(nb: dict[str, Any], source: SourceNotebook) -> None:
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


def grade_call(hidden: str, cell_name: str) -> tuple[str, str]:
    """(assignment, exercise) from a hidden part `grade("assignment", "exercise", globals())`."""
    try:
        tree = ast.parse(python_source(hidden))
    except SyntaxError:
        tree = None
    for node in ast.walk(tree) if tree else []:
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "grade" \
                and len(node.args) >= 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                                for a in node.args[:2]):
            return node.args[0].value, node.args[1].value
    raise AssemblyError(f"test cell {cell_name}: its hidden part has no `grade(\"assignment\", \"exercise\", "
                        "globals())` call, so `autograder grade` cannot run it")


def _graders_first(source: str) -> bool:
    """Does the hidden grade call come before the first visible statement of the cell?"""
    hidden = False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped in (HIDDEN_BEGIN, HIDDEN_END):
            hidden = stripped == HIDDEN_BEGIN
        elif hidden and "grade(" in stripped:
            return True
        elif not hidden and stripped and not stripped.startswith("#"):
            return False
    return False


def notebook_job(name: str, nb: dict[str, Any], source: SourceNotebook) -> NotebookJob:
    """What the engine runs, cell by cell, aligned with `nb["cells"]`."""
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            cells.append(CellJob("skip"))
            continue
        meta = is_grade(cell) and cell["metadata"]["nbgrader"]
        gid = meta.get("grade_id") if meta else None
        if meta and gid in source.grade_cells and not is_solution(cell):
            cells.append(_test_job(cell["source"], gid, float(source.grade_cells[gid]), source.memo))
        elif cell["source"] in _locked_code(source):
            code = source.memo.get(("code", cell["source"]))
            if code is None:
                code = source.memo["code", cell["source"]] = python_source(cell["source"])
            cells.append(CellJob("code", code, instructors=True))
        else:
            # The student's text, as written: turning IPython syntax into Python can take a minute on a
            # crafted cell, so it happens in the sandbox, on that cell's time.
            cells.append(CellJob("code", cell["source"], ipython=True))
    return NotebookJob(name, cells)


def _locked_code(source: SourceNotebook) -> set[str]:
    """The texts of the instructor's code cells: locked ones (`sanitise` restored each from the gradebook),
    and any other non-solution cell as released (`classgrade` reads those from the instructor's notebook)."""
    if "locked code" not in source.memo:
        source.memo["locked code"] = ({c.source for c in source.cells if c.locked and c.cell_type == "code"}
                                      | source.memo.get("instructor code", set()))
    return source.memo["locked code"]


def _test_job(text: str, gid: str, points: float, memo: dict[Any, Any]) -> CellJob:
    """A test cell's job; parsed once per source (a test cell is locked: nearly every submission has the
    instructor's text)."""
    key = ("test", text, gid)
    if key not in memo:
        if HIDDEN_BEGIN in text:
            assignment, exercise = grade_call(hidden_part(text), gid)
            memo[key] = (python_source(visible_part(text)), assignment, exercise, _graders_first(text))
        else:  # a plain visible test: all its code runs in the sandbox, as in nbgrader
            memo[key] = (python_source(text), None, None, None)
    code, assignment, exercise, graders_first = memo[key]
    if assignment is None:
        return CellJob("test", code, gid, points)
    return CellJob("test", code, gid, points, assignment, exercise, graders_first=graders_first)
