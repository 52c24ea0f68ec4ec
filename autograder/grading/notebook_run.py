"""A notebook's cells run in a submission's sandbox, in order, and each test cell scored as nbgrader scores
it: the hidden graders called (`graders.exercise`), the visible self-check run again here (`self_check.stage`).
`grading.sandbox_run` runs it per notebook; `grading.alone` runs one cell again, on its own.
"""

import time
from dataclasses import dataclass, field
from typing import Any

from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.verdict import TRUSTED_RUN_NOTE, verdict_output
from autograder.grading.model import CellJob, CellResult, Job, NotebookJob
from autograder.grading.scoring import graders_score, kept_streams, stderr_problem, visible_test_score
from autograder.grading.self_check.stage import TrustedSelfCheck, Verdict
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.sandbox_errors import SandboxDied
from autograder.sandbox.sandboxed_student import SandboxedStudent
from autograder.sandbox.submission_process import Sandbox


@dataclass
class NotebookRun:
    """What running a notebook's cells gave: each cell's outputs, the test cells' results, notes."""

    self_check: TrustedSelfCheck  # this run's trusted self-checks, the instructor's modules loaded for it
    output: OutputBudget  # the printed text the submission may still keep, taken from by every cell
    outputs: list[list[dict[str, Any]]] = field(default_factory=list)
    cells: list[CellResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def run_notebook(job: Job, notebook: NotebookJob, sandbox: Sandbox, deadline: float,
                 self_check: TrustedSelfCheck, output: OutputBudget) -> NotebookRun:
    """Every cell of the notebook in order, in `sandbox`, each test cell scored, until `deadline`."""
    run = NotebookRun(self_check, output)
    count = 0
    stopped = False  # the note saying where the run stopped is made once, at the first cell not run
    try:
        sandbox.send_modules(job.modules)
    except SandboxDied as died:
        run.notes.append(str(died))
    for cell in notebook.cells:
        if cell.kind == "skip":
            run.outputs.append([])
            continue
        count += 1
        if sandbox.dead or time.monotonic() >= deadline:
            reason = (str(sandbox.dead) if sandbox.dead
                      else f"the submission's {job.limits.total_seconds:g} s were used up")
            if not sandbox.dead:
                sandbox.limits_hit.add("time")
            if not stopped:
                run.notes.append(f"cells from {cell.grade_id or f'number {count}'} on were not run: {reason}")
                stopped = True
            if cell.kind == "test":
                run.cells.append(CellResult(cell.grade_id, cell.points, 0.0, f"not run: {reason}"))
            run.outputs.append([_error("NotRun", reason)] if cell.kind == "test" else [])
            continue
        cell_deadline = min(time.monotonic() + job.limits.cell_seconds, deadline)
        with sandbox.cell(cell.grade_id, cell_deadline):
            _run_cell(job, cell, sandbox, cell_deadline, count, run)
    return run


def run_one_cell(job: Job, cell: CellJob, sandbox: Sandbox, cell_deadline: float, count: int,
                 self_check: TrustedSelfCheck, output: OutputBudget) -> tuple[CellResult | None, list[dict[str, Any]]]:
    """One cell run as `run_notebook` runs it, on its own: its result (a test cell's) and its outputs."""
    run = NotebookRun(self_check, output)
    _run_cell(job, cell, sandbox, cell_deadline, count, run)
    return (run.cells[0] if run.cells else None), run.outputs[0]


def _run_cell(job: Job, cell: CellJob, sandbox: Sandbox, cell_deadline: float, count: int, run: NotebookRun
              ) -> None:
    early, first_out = None, []
    if cell.kind == "test" and cell.exercise and cell.graders_first:
        # The cell calls the hidden graders before its visible check: same order here, so the
        # feedback is printed above the check's output or error, as in the kernel.
        early = run_exercise(cell.assignment, cell.exercise, SandboxedStudent(sandbox, cell_deadline, cell.grade_id))
        first_out = [verdict_output(early.feedback() + "\n")]
    try:
        reply = sandbox.run_cell(cell.source, cell_deadline - time.monotonic(), run.output, display=cell.display,
                                 group=cell.grade_id, ipython=cell.ipython)
    except SandboxDied as died:
        run.notes.append(f"{cell.grade_id or f'cell {count}'}: {died}")
        if cell.kind == "test":
            run.cells.append(CellResult(cell.grade_id, cell.points, 0.0, str(died), early))
        run.outputs.append(first_out + [_error("SandboxStopped", str(died))])
        return
    cell_out = first_out + kept_streams(reply["outputs"], job.ignore_pattern)
    if reply["error"]:
        cell_out.append({"output_type": "error", **reply["error"]})
        if reply["error"]["ename"] == "TimeoutError":
            run.notes.append(f"{cell.grade_id or f'cell {count}'}: ran longer than {job.limits.cell_seconds:g} s "
                             "and was interrupted")
    run.outputs.append(cell_out)
    if cell.kind == "code":
        if reply["result"] is not None and not reply["error"]:
            cell_out.append(_result(reply["result"], count))
        return
    run.cells.append(_grade_test_cell(cell, reply, cell_out, sandbox, cell_deadline, count, run.self_check, early))


def _grade_test_cell(cell: CellJob, reply: dict, cell_out: list, sandbox: Sandbox, cell_deadline: float,
                     count: int, self_check: TrustedSelfCheck, exercise: Any = None) -> CellResult:
    # Run on the trusted side whatever the sandbox's run said: its calls were sent ahead, and calls passed
    # over in a cell that hit a limit (a check that hung) would make the notebook regrade.
    verdict = self_check.verdict(cell, sandbox, cell_deadline)
    if reply["error"]:  # the student's run of the check failed: that error is the one shown
        error = reply["error"]
        return CellResult(cell.grade_id, cell.points, 0.0, f"{error['ename']}: {error['evalue']}"[:2000], exercise)
    stderr = stderr_problem(cell_out)
    if cell.exercise is None:  # a visible-only test: full marks, or the value it ends with (nbgrader's rule)
        score = visible_test_score(reply["result"], cell.points)
        if reply["result"] is not None:
            cell_out.append(_result(reply["result"], count))
        return CellResult(cell.grade_id, cell.points, 0.0 if stderr else score, stderr)
    if verdict is not None and not verdict.passed:
        # Failed here, passed in the sandbox: the score is 0, as when it fails there; in the visible-first
        # order the kernel would have stopped at the check, so the graders do not run.
        cell_out += _trusted_failure(verdict, cell_out)
        ename, evalue = verdict.error or ("Error", "")
        return CellResult(cell.grade_id, cell.points, 0.0, f"{ename}: {evalue}"[:2000], exercise)
    if exercise is None:
        exercise = run_exercise(cell.assignment, cell.exercise, SandboxedStudent(sandbox, cell_deadline, cell.grade_id))
        cell_out.append(verdict_output(exercise.feedback() + "\n"))
    score = graders_score(exercise.score, exercise.max_score, cell.points)
    problem = None
    if sandbox.dead:  # the kernel died in the cell: nbgrader records an error, so no points
        score, problem = 0.0, str(sandbox.dead)
        cell_out.append(_error("SandboxStopped", problem))
    elif stderr:
        score, problem = 0.0, stderr
    if not sandbox.dead:
        cell_out.append(_result(repr(score), count))
    return CellResult(cell.grade_id, cell.points, score, problem, exercise)


def _trusted_failure(verdict: Verdict, cell_out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the trusted run printed that the student's run of the check did not, and its error, said to
    come from the grader's run (the student's run of the same check passed)."""
    shown = "".join(o.get("text", "") for o in cell_out if o.get("output_type") == "stream")
    printed = verdict.printed if verdict.printed.strip() and verdict.printed not in shown else ""
    ename, evalue = verdict.error or ("Error", "")
    return ([{"output_type": "stream", "name": "stdout", "text": printed}] if printed else []) + [
        {"output_type": "error", "ename": ename, "evalue": evalue,
         "traceback": [TRUSTED_RUN_NOTE, f"{ename}: {evalue}"]}]


def _result(text: str, count: int) -> dict[str, Any]:
    return {"output_type": "execute_result", "execution_count": count, "data": {"text/plain": text},
            "metadata": {}}


def _error(name: str, message: str) -> dict[str, Any]:
    return {"output_type": "error", "ename": name, "evalue": message, "traceback": [f"{name}: {message}"]}
