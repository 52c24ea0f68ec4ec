"""The engine's side of judging each exercise on its own (`autograder.dependencies`): after a notebook is
graded, a test cell that lost points while an exercise above it lost points too is graded again in a fresh
sandboxed process, with those earlier functions replaced by stand-ins that the grader answers, and keeps
the better result (its feedback then says so).

Only submissions with two exercises losing points pay for it: one more process, the notebook's code cells
up to that cell, and that cell's checks, call by call.
"""

import time
from typing import Any

from autograder.dependencies import Answers, alone_note, lost
from autograder.results import CellResult
from autograder.sandbox.client import SandboxDied, SandboxError


def judge_alone(job: Any, notebook: Any, run: Any, zygote: Any, deadline: float) -> list[str]:
    """Replace, in `run` (the notebook's results and outputs), each test cell's result by its result on its
    own where that is better; returns the grade ids judged so."""
    judged, graded = [], []
    tests = [(index, cell) for index, cell in enumerate(notebook.cells) if cell.kind == "test"]
    for position, (index, cell) in enumerate(tests):
        result: CellResult = run.cells[position]
        broken = [name for name in lost(graded) if name != cell.exercise]
        if (cell.exercise and broken and result.score < result.max_score
                and time.monotonic() < deadline):
            alone = _grade_alone(job, notebook, index, cell, broken, zygote, deadline)
            if alone is not None and alone[0].score > result.score:
                result, run.cells[position], run.outputs[index] = alone[0], alone[0], alone[1]
                judged.append(cell.grade_id)
        if cell.exercise:
            graded.append((cell.exercise, result.score, result.max_score))
    return judged


def _grade_alone(job: Any, notebook: Any, index: int, cell: Any, broken: list[str], zygote: Any,
                 deadline: float) -> tuple[CellResult, list[dict]] | None:
    from autograder.engine import run_one_cell  # the engine runs this module's pass

    try:
        sandbox = zygote.spawn(job.limits, {})
    except SandboxError:
        return None
    try:
        sandbox.send_modules(job.modules)
        count = 0
        for earlier in notebook.cells[:index]:  # the functions as the student left them up to this cell
            if earlier.kind == "skip":
                continue
            count += 1
            if earlier.kind == "code":
                sandbox.run_cell(earlier.source, min(job.limits.cell_seconds, deadline - time.monotonic()),
                                 display=False, ipython=earlier.ipython)
        from autograder.trustedcheck import TrustedChecks

        sandbox.replace, sandbox.answers = broken, Answers(cell.assignment, TrustedChecks(job.modules))
        cell_deadline = min(time.monotonic() + job.limits.cell_seconds, deadline)
        result, _ = run_one_cell(job, cell, sandbox, cell_deadline, count + 1)
    except SandboxDied:
        return None
    finally:
        sandbox.close()
    if sandbox.dead or result is None:
        return None
    # Only the grader's verdict is shown of this run: what the student's process printed in it is not (its
    # functions were answered by the reference there).
    verdict = result.exercise.feedback() if result.exercise else f"the self-check failed: {result.visible_error}"
    text = f"{alone_note(cell.exercise, broken)}\n{verdict}\n"
    return result, [{"output_type": "stream", "name": "stdout", "text": text},
                    {"output_type": "execute_result", "execution_count": count + 1,
                     "data": {"text/plain": repr(result.score)}, "metadata": {}}]
