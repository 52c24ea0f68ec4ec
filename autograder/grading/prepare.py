"""A submission folder made into a job of plain data: each notebook read (`reading`), sanitised as nbgrader
would (`sanitise`), and turned cell by cell into what the sandbox runs and the graders judge."""

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.course.settings import CourseSettings
from autograder.course.submitted import (
    MAX_TIMESTAMP_BYTES,
    TIMESTAMP_FILE,
    list_files,
    read_bytes,
    read_timestamp,
    time_refusal,
)
from autograder.grading.model import (
    CellJob,
    CellResult,
    Job,
    NotebookJob,
    Outcome,
    SourceNotebook,
    SubmissionResult,
)
from autograder.grading.reading import read_fast
from autograder.grading.sanitise import sanitise
from autograder.nbgrader_glue.notebook import HIDDEN_BEGIN, HIDDEN_END, hidden_part, is_grade, is_solution, visible_part
from autograder.sandbox.syntax import python_source

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024


class AssemblyError(Exception):
    """The instructor's notebook has a test cell this engine cannot run (a one-line message)."""


@dataclass
class Prepared:
    """A submission read and assembled in the main process: the job, and what the writer needs."""

    student: str
    job: Job | None
    notebooks: dict[str, dict[str, Any]] = field(default_factory=dict)
    timestamp: str | None = None
    unreadable: str | None = None
    refused: str | None = None  # not graded at all (its time is not usable): why, one line
    files: list[tuple[Path, int]] = field(default_factory=list)  # the student's other files, copied as listed
    ignored: list[str] = field(default_factory=list)  # what in the folder was left out or not used, and why


def prepare(settings: CourseSettings, sources: list[SourceNotebook], modules: dict[str, str], assignment: str,
            student: str, preload: list[str] = ()) -> Prepared:
    folder = settings.path("submitted", student, assignment)
    stamp = read_timestamp(folder)
    refused = time_refusal(folder, stamp)
    if refused:  # the grader that starts the class refuses it first; this one changed since, or came another way
        return Prepared(student, None, refused=refused)
    listing = list_files(folder, list(settings.coursedir.ignore) + ["*.ipynb"])
    if stamp.found:
        listing.files.append((Path(TIMESTAMP_FILE), MAX_TIMESTAMP_BYTES))
    prepared = Prepared(student, None, timestamp=stamp.time.isoformat() if stamp.time else None,
                        files=listing.files, ignored=listing.left_out)
    jobs = []
    for source in sources:
        path = folder / f"{source.name}.ipynb"
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):  # what Path.exists() calls missing
            cells = [CellJob("test", "", gid, points) for gid, points in source.grade_cells.items()]
            jobs.append(NotebookJob(source.name, cells, missing=True))
            continue
        try:
            submitted = read_fast(read_bytes(path, MAX_NOTEBOOK_BYTES), path.name)
            assembled = sanitise(submitted, source, settings.add_missing, copy=False)
            prepared.notebooks[source.name] = assembled
            jobs.append(notebook_job(source.name, assembled, source))
        except AssemblyError:
            raise
        except Exception as exc:  # a broken file or odd metadata: this student's problem
            prepared.notebooks = {}
            prepared.unreadable = str(exc)[:300]
            return prepared
    prepared.job = Job(student, assignment, jobs, modules, settings.limits, settings.ignore_pattern, list(preload))
    return prepared


def unreadable_outcome(prepared: Prepared, assignment: str, sources: list[SourceNotebook]) -> Outcome:
    result = SubmissionResult(prepared.student, assignment, status="unreadable", message=prepared.unreadable)
    for source in sources:
        result.cells += [CellResult(gid, points, 0.0, "the notebook could not be read")
                         for gid, points in source.grade_cells.items()]
    return Outcome(result)


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
            cells.append(_test_job(cell["source"], gid, float(source.grade_cells[gid]), source.derived.tests))
        elif cell["source"] in _locked_code(source):
            code = source.derived.code.get(cell["source"])
            if code is None:
                code = source.derived.code[cell["source"]] = python_source(cell["source"])
            cells.append(CellJob("code", code, instructors=True))
        else:
            # The student's text, as written: turning IPython syntax into Python can take a minute on a
            # crafted cell, so it happens in the sandbox, on that cell's time.
            cells.append(CellJob("code", cell["source"], ipython=True))
    return NotebookJob(name, cells)


def _locked_code(source: SourceNotebook) -> set[str]:
    """The texts of the instructor's code cells: locked ones (`sanitise` restored each from the gradebook),
    and any other non-solution cell as released (`instructor.instructor_files` reads those from the instructor's
    notebook)."""
    if source.derived.locked_code is None:
        source.derived.locked_code = ({c.source for c in source.cells if c.locked and c.cell_type == "code"}
                                      | source.instructor_code)
    return source.derived.locked_code


def _test_job(text: str, gid: str, points: float, memo: dict[tuple[str, str], tuple]) -> CellJob:
    """A test cell's job; parsed once per source (a test cell is locked: nearly every submission has the
    instructor's text)."""
    key = (text, gid)
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
