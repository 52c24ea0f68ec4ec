"""Grade one submission: a job of plain data in, a `SubmissionResult` (and the cells' outputs) out.

The job holds everything needed (cell sources read and sanitised by `grading.prepare`, the instructor's
modules, limits), so it can run anywhere a zygote can start: in a worker process of `autograder grade`
(`grading.pool`), or in the formgrader's. The student's code runs in a sandboxed process; the hidden graders
run here and reach it only through `SandboxedStudent`, and so does a grade cell's visible self-check, run here
a second time (`self_check`). Nothing here touches the gradebook or the course folder:
`grading.recording` applies the result.

Each notebook goes through the stages in order, each entered once: the trusted self-check made for it, its
cells run in the sandbox (the call plan sent ahead, each test cell scored by the graders and the self-check),
each exercise judged on its own, and its results added to the submission's tally.
"""

from dataclasses import dataclass

from autograder.grading.alone import judge_alone
from autograder.grading.model import Job, Outcome
from autograder.grading.sandbox_run import run_in_sandbox
from autograder.grading.self_check.stage import TrustedSelfCheck
from autograder.grading.submission_tally import SubmissionTally
from autograder.sandbox.zygote_handle import Zygote


@dataclass(frozen=True)
class Stages:
    """The stages that may be left out. `plan=False` sends each request only when it is asked for (what a plan
    that fails falls back to); `make bench-costs` switches the others off to measure what each costs."""

    plan: bool = True
    self_check: bool = True
    judge_alone: bool = True


EVERY_STAGE = Stages()


def grade_submission(job: Job, zygote: Zygote, stages: Stages = EVERY_STAGE) -> Outcome:
    tally = SubmissionTally(job)
    for notebook in job.notebooks:
        if notebook.missing:
            tally.not_submitted(notebook)
            continue
        self_check = TrustedSelfCheck(job, stages.self_check)
        graded = run_in_sandbox(job, notebook, zygote, tally.deadline, tally.output, self_check, stages.plan)
        try:
            judged = (judge_alone(job, notebook, graded.run, zygote, tally.deadline, graded.reusable)
                      if stages.judge_alone else [])
        finally:
            graded.close()
        tally.add(notebook, graded, judged)
    return tally.finish(zygote)
