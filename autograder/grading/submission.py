"""Grade one submission: a job of plain data in, a `SubmissionResult` (and the cells' outputs) out.

The job holds everything needed (cell sources, the instructor's modules, limits), so it can run anywhere
a zygote can start: in a worker process of `autograder grade` (`grading.pool`), or in the formgrader's.
The student's code runs in a sandboxed process; the hidden graders run here and reach it only through
`SandboxedStudent`, and so does a grade cell's visible self-check, run here a second time (`trustedcheck`).
Nothing here touches the gradebook or the course folder: `grading.recording` applies the result.
"""

import time
from typing import Any

from autograder.grading.alone import judge_alone
from autograder.grading.model import CellResult, Job, NotebookJob, Outcome, SubmissionResult
from autograder.grading.notebook_run import run_notebook
from autograder.sandbox import syntax
from autograder.sandbox.limits import Limits
from autograder.sandbox.planned import PlanMismatch, PlannedCall, PlannedSandbox
from autograder.sandbox.sandbox_errors import SandboxError
from autograder.sandbox.submission_process import Sandbox
from autograder.sandbox.zygote_handle import Zygote

LIMIT_NOTES = {
    "output": "output limit: it printed more than {limits.output_chars} characters; the rest was dropped",
    "memory": "memory limit: it asked for more than {limits.memory_mb} MB",
    "processes": "process limit: it tried to start more than {limits.processes} processes",
}


def grade_submission(job: Job, zygote: Zygote, plan: bool = True) -> Outcome:
    """`plan=False` sends each request only when it is asked for (what a plan that fails falls back to)."""
    started = time.monotonic()
    deadline = started + job.limits.total_seconds
    result = SubmissionResult(job.student, job.assignment)
    outcome = Outcome(result)
    limits_hit: set[str] = set()
    notes: list[str] = []
    output_left = job.limits.output_chars  # printed text kept is counted per submission, on this side
    for notebook in job.notebooks:
        if notebook.missing:
            result.cells += [CellResult(c.grade_id, c.points, 0.0, "no such notebook was submitted")
                             for c in notebook.cells if c.kind == "test"]
            outcome.outputs[notebook.name] = [[] for _ in notebook.cells]
            notes.append(f"{notebook.name}.ipynb was not submitted")
            continue
        # First with every request sent ahead; if the graders ask for a call that was not planned, the
        # notebook is graded again from the start in a fresh process, each request sent when asked for.
        for planned in (True, False) if plan else (False,):
            sandbox = _open(zygote, job, notebook, planned)
            sandbox.output_left = output_left
            sandbox.cells = numbered_cells(notebook)
            try:
                run = run_notebook(job, notebook, sandbox, deadline)
                sandbox.finish()
            except PlanMismatch:
                sandbox.close()
                outcome.regraded += 1
                continue
            except BaseException:
                sandbox.close()
                raise
            break
        limits_hit |= sandbox.limits_hit
        output_left = sandbox.output_left
        try:
            # The finished process judges exercises on their own only if nothing stopped or cut it short.
            usable = not (sandbox.dead or sandbox.limits_hit or sandbox.in_flight)
            judged = judge_alone(job, notebook, run, zygote, deadline, sandbox if usable else None)
        finally:
            sandbox.close()
        notes += [f"{grade_id}: judged on its own" for grade_id in judged]
        result.cells += run.cells
        notes += run.notes
        outcome.outputs[notebook.name] = run.outputs
    result.limits_hit = sorted(limits_hit)
    for limit in result.limits_hit:
        if limit in LIMIT_NOTES:
            notes.append(LIMIT_NOTES[limit].format(limits=job.limits))
    result.message = "; ".join(dict.fromkeys(notes))[:2000]
    result.seconds = round(time.monotonic() - started, 4)
    outcome.sandbox_level = result.sandbox_level = zygote.info.level if zygote.info else ""
    outcome.protections_off = zygote.info.missing if zygote.info else []
    return outcome


def numbered_cells(notebook: NotebookJob) -> dict[int, str]:
    """The code cells' text by the number the sandboxed process compiles each under (`<cell 7>`): every cell
    but markdown counts, as the kernel counts them."""
    code = [cell.source for cell in notebook.cells if cell.kind != "skip"]
    return dict(enumerate(code, start=1))


def _open(zygote: Zygote, job: Job, notebook: NotebookJob, planned: bool) -> Sandbox:
    """The process that grades this notebook; the one place the call plan is switched on. `planned`: a
    `PlannedSandbox`, sent at once every request grading the notebook makes when the answers are right,
    whose zygote holds the planned calls' inputs; else a plain `Sandbox`, sent each request when asked."""
    if not planned:
        return _spawn(zygote, job.limits, _warm(job, notebook), Sandbox)
    # The plan loads in the worker that grades, not in the main process that imports this module for the pool.
    from autograder.grading.callplan import notebook_requests

    requests = notebook_requests(job, notebook)
    warm = {**_warm(job, notebook), "calls": [r for r in requests if isinstance(r, PlannedCall)]}
    sandbox = _spawn(zygote, job.limits, warm, PlannedSandbox)
    sandbox.announce(requests)
    return sandbox


def _spawn(zygote: Zygote, limits: Limits, warm: dict[str, Any], kind: type[Sandbox]) -> Sandbox:
    try:
        return zygote.spawn(limits, warm, kind)
    except SandboxError:
        zygote.close()  # one fresh start; a second failure is the machine's problem, not the student's
        return zygote.spawn(limits, warm, kind)


def _warm(job: Job, notebook: NotebookJob) -> dict[str, Any]:
    """The instructor's code in this notebook, for the zygote to compile or import once for all children:
    test and locked cells (restored from the gradebook, never the student's text), modules, imports."""
    cells, count = [], 0
    for cell in notebook.cells:
        if cell.kind != "skip":
            count += 1
            if cell.kind == "test" or cell.instructors:
                cells.append([cell.source, cell.display, f"<cell {count}>"])
    # Students' cells are transformed in the sandbox: its transformer is imported once, in the zygote.
    transformed = any(c.ipython and syntax.needs_transform(c.source) for c in notebook.cells)
    imports = job.preload + [syntax.MODULE] * transformed
    return {"cells": cells, "modules": job.modules, "imports": imports}
