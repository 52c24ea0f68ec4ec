"""The stage that runs a notebook's cells in a sandboxed process, with the call plan as its one switch: first in a
`PlannedSandbox`, sent ahead every request grading the notebook makes when the answers are right
(`self_check.stage.TrustedSelfCheck.requests`); if the graders ask for a call that was not planned, the notebook
is graded again from the start in a fresh process, each request sent when it is asked for.

The process is left open for the next stage (judging on its own), which may reuse it: `SandboxRun.close` ends it.
"""

from dataclasses import dataclass
from typing import Any

from autograder.grading.model import Job, NotebookJob
from autograder.grading.notebook_run import NotebookRun, run_notebook
from autograder.grading.self_check.stage import TrustedSelfCheck
from autograder.sandbox import syntax
from autograder.sandbox.limits import Limits
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.planned import PlanMismatch, PlannedCall, PlannedSandbox
from autograder.sandbox.sandbox_errors import SandboxError
from autograder.sandbox.submission_process import Sandbox
from autograder.sandbox.zygote_handle import Zygote


@dataclass
class SandboxRun:
    """A notebook's cells, run and scored, and the process they ran in (still open)."""

    run: NotebookRun
    sandbox: Sandbox
    regraded: int  # times the plan did not hold and the notebook was graded again call by call
    # What the notebook's run hit, as it ended: judging on its own, which may reuse the process, does not count.
    limits_hit: frozenset[str]

    @property
    def reusable(self) -> Sandbox | None:
        """The process, if it can judge exercises on its own: only if nothing stopped or cut it short."""
        usable = not (self.sandbox.dead or self.sandbox.limits_hit or self.sandbox.in_flight)
        return self.sandbox if usable else None

    def close(self) -> None:
        self.sandbox.close()


def run_in_sandbox(job: Job, notebook: NotebookJob, zygote: Zygote, deadline: float, output: OutputBudget,
                   self_check: TrustedSelfCheck, plan: bool) -> SandboxRun:
    """Every cell of `notebook` run and scored; what they print is taken from `output`, the submission's budget.
    `plan=False` sends each request only when it is asked for (what a plan that fails falls back to)."""
    regraded = 0
    left = output.left
    for planned in (True, False) if plan else (False,):
        sandbox = _open(zygote, job, notebook, self_check, planned)
        sandbox.cells = numbered_cells(notebook)
        try:
            run = run_notebook(job, notebook, sandbox, deadline, self_check, output)
            sandbox.finish()
        except PlanMismatch:
            sandbox.close()
            regraded += 1
            self_check = self_check.fresh()  # what the failed run did to the modules' arrays is not kept
            output.rewind(left)  # nor what it printed
            continue
        except BaseException:
            sandbox.close()
            raise
        return SandboxRun(run, sandbox, regraded, frozenset(sandbox.limits_hit))
    raise AssertionError("unreachable: the call-by-call run raises no PlanMismatch")


def numbered_cells(notebook: NotebookJob) -> dict[int, str]:
    """The code cells' text by the number the sandboxed process compiles each under (`<cell 7>`): every cell
    but markdown counts, as the kernel counts them."""
    code = [cell.source for cell in notebook.cells if cell.kind != "skip"]
    return dict(enumerate(code, start=1))


def _open(zygote: Zygote, job: Job, notebook: NotebookJob, self_check: TrustedSelfCheck, planned: bool) -> Sandbox:
    """The process that grades this notebook. `planned`: a `PlannedSandbox`, sent at once every request grading
    the notebook makes when the answers are right, whose zygote holds the planned calls' inputs; else a plain
    `Sandbox`, sent each request when asked."""
    if not planned:
        return _spawn(zygote, job.limits, _warm(job, notebook), Sandbox)
    requests = self_check.requests(notebook)
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
