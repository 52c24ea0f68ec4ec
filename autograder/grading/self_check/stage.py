"""The trusted side of one notebook run, as the submission's stages see it: the one object that plans the
requests sent ahead (`requests`: the cells, the hidden graders' calls and the self-checks' calls on a correct
answer, from `callplan`), says for which grade cells the visible self-check is run again here (`trustedcheck`),
and what that run decides for a submission (`verdict`). The call plan (`grading.sandbox_run`), the cell running
(`grading.notebook_run`) and judging on its own (`grading.alone`) all go through it, and nothing else here."""

from autograder.grading.model import CellJob, Job, NotebookJob
from autograder.grading.self_check.callplan import planned_calls, planned_check_calls
from autograder.grading.self_check.trustedcheck import TrustedChecks, Verdict, parse
from autograder.sandbox.planned import PlannedCall
from autograder.sandbox.request_builders import Request, cell_request, modules_request
from autograder.sandbox.sandboxed_student import SandboxedStudent
from autograder.sandbox.submission_process import Sandbox


class TrustedSelfCheck:
    """One notebook run's trusted self-checks: the instructor's modules are loaded afresh for it, as nbgrader
    runs every notebook in its own kernel (see `TrustedChecks`)."""

    def __init__(self, job: Job, on: bool = True) -> None:
        """`on=False`: no self-check is run here, and none of their calls planned (`make bench-costs`)."""
        self.job, self.on = job, on
        self.modules = tuple(job.modules.items())
        self.checks = TrustedChecks(job.modules)

    def fresh(self) -> "TrustedSelfCheck":
        """The same stage for another run, with the modules loaded again."""
        return TrustedSelfCheck(self.job, self.on)

    def requests(self, notebook: NotebookJob) -> list[Request]:
        """Every request grading this notebook makes when the answers are right, in order: what a
        `PlannedSandbox` is sent ahead."""
        requests = [modules_request(self.job.modules)]
        for cell in notebook.cells:
            if cell.kind == "skip":
                continue
            run = cell_request(cell.source, cell.display, cell.grade_id, cell.ipython)
            if cell.kind != "test" or cell.exercise is None:
                requests.append(run)
                continue
            calls = list(planned_calls(cell.assignment, cell.exercise, cell.grade_id))
            # The trusted self-check's calls: right after the cell, as in the kernel.
            checks = self.check_calls(cell) or ()
            requests += [*calls, run, *checks] if cell.graders_first else [run, *checks, *calls]
        return requests

    def check_calls(self, cell: CellJob) -> tuple[PlannedCall, ...] | None:
        """The calls of the test cell's self-check run on the trusted side, on a correct answer; None when it is
        not run there (see `callplan.planned_check_calls`): then the sandbox's run of it alone decides."""
        if not self.on or cell.kind != "test" or cell.exercise is None:
            return None
        return planned_check_calls(cell.source, self.modules, cell.assignment, cell.grade_id)

    def verdict(self, cell: CellJob, sandbox: Sandbox, deadline: float) -> Verdict | None:
        """The self-check's verdict when run here, the student's functions called in `sandbox`; None when it is
        not run here."""
        if self.check_calls(cell) is None:
            return None
        student = SandboxedStudent(sandbox, deadline, cell.grade_id, self.checks.functions)
        return self.checks.run(parse(cell.source), student)
