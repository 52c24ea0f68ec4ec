"""The last stage of a submission's grading: each notebook's scored cells, outputs and notes gathered into the
`SubmissionResult` (and `Outcome`), with the budgets the notebooks share (the time, the printed text kept: owned
here, handed to each notebook's run)."""

import time

from autograder.grading.model import CellResult, Job, NotebookJob, Outcome, SubmissionResult
from autograder.grading.sandbox_run import SandboxRun
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.zygote_handle import Zygote

LIMIT_NOTES = {
    "output": "output limit: it printed more than {limits.output_chars} characters; the rest was dropped",
    "memory": "memory limit: it asked for more than {limits.memory_mb} MB",
    "processes": "process limit: it tried to start more than {limits.processes} processes",
}


class SubmissionTally:
    """One submission's result as its notebooks are graded, one after another."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.started = time.monotonic()
        self.deadline = self.started + job.limits.total_seconds
        self.result = SubmissionResult(job.student, job.assignment)
        self.outcome = Outcome(self.result)
        self.limits_hit: set[str] = set()
        self.notes: list[str] = []
        self.output = OutputBudget(job.limits.output_chars)  # printed text kept, per submission, on this side

    def not_submitted(self, notebook: NotebookJob) -> None:
        self.result.cells += [CellResult(c.grade_id, c.points, 0.0, "no such notebook was submitted")
                              for c in notebook.cells if c.kind == "test"]
        self.outcome.outputs[notebook.name] = [[] for _ in notebook.cells]
        self.notes.append(f"{notebook.name}.ipynb was not submitted")

    def add(self, notebook: NotebookJob, graded: SandboxRun, judged_alone: list[str]) -> None:
        """A notebook graded in `graded`'s process (now closed), with the grade ids judged on their own."""
        self.outcome.regraded += graded.regraded
        self.limits_hit |= graded.limits_hit
        self.notes += [f"{grade_id}: judged on its own" for grade_id in judged_alone]
        self.result.cells += graded.run.cells
        self.notes += graded.run.notes
        self.outcome.outputs[notebook.name] = graded.run.outputs

    def finish(self, zygote: Zygote) -> Outcome:
        result = self.result
        result.limits_hit = sorted(self.limits_hit)
        notes = self.notes + [LIMIT_NOTES[limit].format(limits=self.job.limits)
                              for limit in result.limits_hit if limit in LIMIT_NOTES]
        result.message = "; ".join(dict.fromkeys(notes))[:2000]
        result.seconds = round(time.monotonic() - self.started, 4)
        self.outcome.sandbox_level = result.sandbox_level = zygote.info.level if zygote.info else ""
        self.outcome.protections_off = zygote.info.missing if zygote.info else []
        return self.outcome
