"""The trusted self-check as one stage of a notebook's grading: the one object that says for which grade cells
the visible self-check is run again on the trusted side (`trustedcheck`), which calls that run makes on a
correct answer (for the call plan, `callplan.notebook_requests`), and what it decides for a submission. The cell
running (`notebook_run`), the call plan and judging on its own (`alone`) all go through it."""

from autograder.grading.callplan import planned_check_calls
from autograder.grading.model import CellJob, Job
from autograder.grading.trustedcheck import TrustedChecks, Verdict, parse
from autograder.sandbox.planned import PlannedCall
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

    def planned_calls(self, cell: CellJob) -> tuple[PlannedCall, ...] | None:
        """The calls of the test cell's self-check run on the trusted side, on a correct answer; None when it is
        not run there (see `callplan.planned_check_calls`): then the sandbox's run of it alone decides."""
        if not self.on or cell.kind != "test" or cell.exercise is None:
            return None
        return planned_check_calls(cell.source, self.modules, cell.assignment, cell.grade_id)

    def verdict(self, cell: CellJob, sandbox: Sandbox, deadline: float) -> Verdict | None:
        """The self-check's verdict when run here, the student's functions called in `sandbox`; None when it is
        not run here."""
        if self.planned_calls(cell) is None:
            return None
        student = SandboxedStudent(sandbox, deadline, cell.grade_id, self.checks.functions)
        return self.checks.run(parse(cell.source), student)
