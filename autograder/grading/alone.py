"""The engine's side of judging each exercise on its own (`autograder.grader_support.dependencies`): after a notebook is
graded, a test cell that lost points while an exercise above it lost points too is graded again, with those
earlier functions replaced by stand-ins that the grader answers, and keeps the better result (its feedback
then says so).

Only submissions with two exercises losing points pay for it. Where no later cell can change what the
exercise's function computes (`autograder.grading.unchanged`), it is graded again in the process that graded the
notebook, before that process ends; otherwise in one more process per notebook, which runs the notebook's
code cells in order and grades each such cell where it stands, call by call (as the kernel does in
`nbgrader autograde`, where the regrade happens in the cell itself).
"""

import time
from typing import Any

from autograder.grader_support.dependencies import Answers, alone_note, lost
from autograder.grader_support.verdict import verdict_output
from autograder.grading.model import CellResult
from autograder.grading.notebook_run import run_one_cell
from autograder.grading.self_check.stage import TrustedSelfCheck
from autograder.grading.unchanged import unchanged_after
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.sandbox_errors import SandboxDied, SandboxError
from autograder.sandbox.submission_process import Sandbox


def judge_alone(job: Any, notebook: Any, run: Any, zygote: Any, deadline: float,
                finished: Sandbox | None = None) -> list[str]:
    """Replace, in `run` (the notebook's results and outputs), each test cell's result by its result on its
    own where that is better; returns the grade ids judged so. `finished`: the process that graded the
    notebook, still open, if it hit no limit."""
    judged, graded = [], []
    tests = [(index, cell) for index, cell in enumerate(notebook.cells) if cell.kind == "test"]
    rescue = _Rescue(job, notebook, zygote, deadline, finished, run.self_check)
    try:
        for position, (index, cell) in enumerate(tests):
            result: CellResult = run.cells[position]
            broken = [name for name in lost(graded) if name != cell.exercise]
            if (cell.exercise and broken and result.score < result.max_score
                    and time.monotonic() < deadline):
                alone = rescue.grade(index, cell, broken)
                if alone is not None and alone[0].score > result.score:
                    outputs = _shown(alone[0], result, cell, broken, alone[1])
                    result, run.cells[position], run.outputs[index] = alone[0], alone[0], outputs
                    judged.append(cell.grade_id)
            if cell.exercise:
                graded.append((cell.exercise, result.score, result.max_score))
    finally:
        rescue.close()
    return judged


class _Rescue:
    """Where each cell is judged: the notebook's finished process where that gives the same answer, else one
    sandboxed process that walks the notebook's code cells in order, started on the first cell to judge that
    needs it; started again from the top after a cell that ended it or ran out of its time."""

    def __init__(self, job: Any, notebook: Any, zygote: Any, deadline: float, finished: Sandbox | None,
                 self_check: TrustedSelfCheck) -> None:
        self.job, self.notebook, self.zygote, self.deadline = job, notebook, zygote, deadline
        self.self_check = self_check  # the notebook run's: each cell judged gets a fresh one of its kind
        self.finished = finished
        # What these runs print is never shown (see `_shown`): a budget of their own, apart from the submission's.
        self.output = OutputBudget(job.limits.output_chars)
        self.sources = [cell.source if cell.kind != "skip" else None for cell in notebook.cells]
        self.sandbox: Sandbox | None = None
        self.next_cell = 0  # the first cell the process has not run
        self.count = 0  # cells counted so far, as the kernel numbers them

    def grade(self, index: int, cell: Any, broken: list[str]) -> tuple[CellResult, int] | None:
        """The cell's result on its own, and the number it ran as; None when that run could not finish."""
        if self.finished is not None and not self.finished.dead and \
                unchanged_after(self.sources, index, cell.exercise):
            count = sum(1 for earlier in self.notebook.cells[:index + 1] if earlier.kind != "skip")
            try:
                result, outputs = self._judge(self.finished, cell, broken, count)
            except (SandboxDied, SandboxError):
                self.finished = None
                return None
            if self.finished.dead or _timed_out(outputs):
                result = None if self.finished.dead else result
                self.finished = None  # what that cell left behind is no state to grade the next one in
            return (result, count) if result is not None else None
        try:
            sandbox = self._at(index)
            sandbox.cells[len(sandbox.cells) + 1] = cell.source  # the test cell is run next: numbered too
            result, outputs = self._judge(sandbox, cell, broken, self.count + 1)
        except (SandboxDied, SandboxError):
            self.close()
            return None
        self.count += 1
        self.next_cell = index + 1
        if sandbox.dead:
            result = None
        if sandbox.dead or _timed_out(outputs):
            self.close()  # what that cell left behind is no state to grade the next one in
        return (result, self.count) if result is not None else None

    def _judge(self, sandbox: Sandbox, cell: Any, broken: list[str], count: int
               ) -> tuple[CellResult | None, list[dict]]:
        cell_deadline = min(time.monotonic() + self.job.limits.cell_seconds, self.deadline)
        # The answers resolve the instructor's functions the student's code passes along in modules of their own.
        with sandbox.standing_in(broken, Answers(cell.assignment, self.self_check.fresh().checks)):
            return run_one_cell(self.job, cell, sandbox, cell_deadline, count, self.self_check.fresh(), self.output)

    def _at(self, index: int) -> Sandbox:
        """The process, having run every code cell above `index` (the functions as the student left them)."""
        if self.sandbox is None:
            self.sandbox = self.zygote.spawn(self.job.limits, {})
            self.sandbox.send_modules(self.job.modules)
            self.next_cell, self.count = 0, 0
        for earlier in self.notebook.cells[self.next_cell:index]:
            if earlier.kind == "skip":
                continue
            self.count += 1
            if earlier.kind == "code":
                # Numbered as this process compiles them (it runs code cells only): see `Sandbox.cells`.
                self.sandbox.cells[len(self.sandbox.cells) + 1] = earlier.source
                self.sandbox.run_cell(earlier.source, min(self.job.limits.cell_seconds,
                                                          self.deadline - time.monotonic()),
                                      self.output, display=False, ipython=earlier.ipython)
        self.next_cell = index
        return self.sandbox

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None


def _timed_out(outputs: list[dict]) -> bool:
    return any(out.get("output_type") == "error" and out.get("ename") == "TimeoutError" for out in outputs)


def _shown(alone: CellResult, first: CellResult, cell: Any, broken: list[str], count: int) -> list[dict]:
    """The outputs of a cell judged on its own: the score it keeps, then the verdict of its own run with the
    student's functions (as the kernel shows it: `autograder.nbgrader_glue.kernel.grade`).
    Only the score of the run on its
    own is shown: in that run the student's code obtains the reference's answers on arguments it chooses,
    and checks it passes or fails at will there would carry them out (docs, "What the feedback reveals");
    what its process printed is not shown either."""
    verdict = first.exercise.feedback() if first.exercise else "the graders' checks did not run with your functions"
    text = f"{alone_note(cell.exercise, broken, alone.score, alone.max_score)}\n{verdict}\n"
    return [verdict_output(text),
            {"output_type": "execute_result", "execution_count": count,
             "data": {"text/plain": repr(alone.score)}, "metadata": {}}]
