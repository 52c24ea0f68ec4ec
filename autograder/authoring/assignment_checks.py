"""`autograder check ASSIGNMENT`: everything the framework needs of an assignment, one finding a line, the same
for every course (this repository's answer catalogues are checked by its own tests). A failing finding says which
file to change and how."""

import contextlib
import filecmp
import io
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.course.settings import CourseSettings


@dataclass(frozen=True)
class Finding:
    status: str  # "ok", "FAIL", or "note" (worth knowing, not wrong)
    text: str

    def __str__(self) -> str:
        return f"{self.status:<4} {self.text}"


def check_sandbox(settings: CourseSettings) -> Finding:
    """Whether this machine can grade the course: the sandbox started as grading starts it, and the level
    reached (a refusal where the host refuses namespaces and the course does not accept the bare level)."""
    from autograder.grading.startup import hidden_paths
    from autograder.sandbox.isolation import BARE_WARNING
    from autograder.sandbox.sandbox_errors import SandboxError
    from autograder.sandbox.zygote_handle import Zygote

    try:
        with Zygote(settings.sandbox_level, hidden_paths(settings.root, settings.graders)) as zygote:
            info = zygote.info
    except SandboxError as exc:
        return Finding("FAIL", str(exc))
    if info.level == "bare":
        return Finding("note", f"sandbox: {BARE_WARNING}")
    off = f" (off here: {', '.join(info.missing)})" if info.missing else ""
    return Finding("ok", f"sandbox: {info.level} isolation on this machine, the course hidden from student code{off}")


def check_assignment(settings: CourseSettings, assignment: str) -> list[Finding]:
    """Every finding for one assignment of the course (the graders folder already in use: `read_course`)."""
    from autograder.grader_support.exercise import assignment_folder
    from autograder.nbgrader_glue.notebook import NotebookError, read_notebook

    notebook_path = settings.path("source", ".", assignment) / f"{assignment}.ipynb"
    if not notebook_path.is_file():
        return [Finding("FAIL", f"{notebook_path}: no such notebook (an assignment is source/<name>/<name>.ipynb)")]
    try:
        notebook = read_notebook(notebook_path)
    except NotebookError as exc:
        return [Finding("FAIL", f"{notebook_path}: {exc}")]
    folder = assignment_folder(assignment)
    if folder is None:
        where = settings.graders or "autograder/graders"
        return [Finding("FAIL", f"no graders for {assignment}: no folder {assignment}/ in {where} "
                                f"(c.Autograder.graders in {settings.folder / 'nbgrader_config.py'})")]
    findings = _cells_and_graders(notebook_path, notebook, assignment, folder)
    if not any(f.status == "FAIL" for f in findings):
        findings += _solution(notebook_path, notebook, assignment)
    findings.append(_release(settings, assignment))
    return findings


def _cells_and_graders(path: Path, notebook: Any, assignment: str, folder: Path) -> list[Finding]:
    from autograder.grader_support.exercise import GradersError, exercises, max_score, reference_function
    from autograder.grading.prepare import AssemblyError, grade_call
    from autograder.nbgrader_glue.notebook import grade_id, hidden_part, is_solution, is_test_cell, nbgrader_meta

    findings = []
    solutions = [grade_id(c) for c in notebook.cells if is_solution(c) and c.get("cell_type") == "code"]
    tests = {grade_id(c): c for c in notebook.cells if is_test_cell(c)}
    graded = set(exercises(assignment))
    if not solutions:
        return [Finding("FAIL", f"{path.name}: no solution cell (nbgrader metadata solution: true)")]
    for exercise in solutions:
        cell = tests.get(f"test_{exercise}")
        if cell is None:
            findings.append(Finding("FAIL", f"{path.name}: solution cell {exercise} has no grade cell test_{exercise}"))
            continue
        if exercise not in graded:
            findings.append(Finding("FAIL", f"{folder / f'test_{exercise}.py'}: missing (the graders of {exercise})"))
            continue
        try:
            called = grade_call(hidden_part(cell.source), f"test_{exercise}")
        except AssemblyError as exc:
            findings.append(Finding("FAIL", f"{path.name}: {exc}"))
            continue
        if called != (assignment, exercise):
            findings.append(Finding("FAIL", f"{path.name} test_{exercise}: its hidden part calls grade{called}, "
                                            f"not grade({assignment!r}, {exercise!r}, globals())"))
            continue
        try:
            total = max_score(assignment, exercise)
            reference_function(assignment, exercise)
        except (GradersError, ImportError, ValueError) as exc:
            findings.append(Finding("FAIL", str(exc).splitlines()[0]))
            continue
        points = nbgrader_meta(cell).get("points")
        if points is None or abs(float(points) - total) > 1e-9:
            findings.append(Finding("FAIL", f"{path.name} test_{exercise} is worth {points} points but its graders "
                                            f"add up to {total:g}"))
            continue
        findings.append(Finding("ok", f"{exercise}: grade cell test_{exercise}, graders worth {total:g} points, "
                                      f"reference {exercise}()"))
    for extra in sorted(graded - set(solutions)):
        findings.append(Finding("FAIL", f"{folder / f'test_{extra}.py'}: graders of {extra}, which has no solution "
                                        f"cell in {path.name}"))
    return findings


def _solution(path: Path, notebook: Any, assignment: str) -> list[Finding]:
    """The solution, run here (the instructor's own notebook): full marks from the graders, and each grade
    cell's visible self-check passes."""
    from autograder.grader_support.exercise import run_exercise
    from autograder.grader_support.student import InProcessStudent
    from autograder.nbgrader_glue.notebook import grade_id, is_solution, is_test_cell, load_namespace, visible_part

    # Each assignment's own selfcheck.py: not the module of that name an earlier assignment left loaded.
    for module in path.parent.glob("*.py"):
        sys.modules.pop(module.stem, None)
    namespace = load_namespace(path)
    findings = []
    for exercise in [grade_id(c) for c in notebook.cells if is_solution(c) and c.get("cell_type") == "code"]:
        result = run_exercise(assignment, exercise, InProcessStudent(namespace))
        if result.score != result.max_score:
            failed = next(case for case in result.cases if case.earned < case.points)
            findings.append(Finding("FAIL", f"{path.name}: the solution of {exercise} scores {result.score:g}/"
                                            f"{result.max_score:g} ({failed.name}: "
                                            f"{' '.join(failed.message.split())[:160]})"))
    sys.path.insert(0, str(path.parent))
    try:
        for cell in (c for c in notebook.cells if is_test_cell(c)):
            visible = visible_part(cell.source)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(visible, f"<{path.name} {grade_id(cell)}>", "exec"), dict(namespace))
            except Exception as exc:
                findings.append(Finding("FAIL", f"{path.name} {grade_id(cell)}: the self-check fails the solution: "
                                                f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"))
    finally:
        sys.path.remove(str(path.parent))
    if not findings:
        findings.append(Finding("ok", "the solution scores full marks and passes every self-check"))
    return findings


def _release(settings: CourseSettings, assignment: str) -> Finding:
    from autograder.authoring.release_from_source import generate_release
    from autograder.course.nbgrader_cli import CourseError

    released = settings.path("release", ".", assignment).resolve()
    if not released.is_dir():
        return Finding("FAIL", f"{released}: not released yet (autograder release {assignment})")
    with tempfile.TemporaryDirectory(prefix="autograder-check-") as scratch:
        try:
            generate_release(Path(scratch), (assignment,), settings.root)
        except CourseError as exc:
            return Finding("FAIL", f"nbgrader generate_assignment {assignment}: {str(exc).splitlines()[0]}")
        comparison = filecmp.dircmp(Path(scratch) / assignment, released)
        _, mismatch, errors = filecmp.cmpfiles(Path(scratch) / assignment, released, comparison.common_files,
                                               shallow=False)
        stale = sorted(comparison.left_only + comparison.right_only + mismatch + errors)
    if stale:
        return Finding("FAIL", f"{released}: out of date with source/ ({', '.join(stale)}): "
                               f"autograder release {assignment}")
    return Finding("ok", f"release/{assignment} is what nbgrader generates from source/")

