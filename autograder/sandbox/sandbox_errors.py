"""The ways the sandbox fails, as the trusted side raises them: its machinery, a grader's value that cannot
cross, and a submission's process that is gone."""


class SandboxError(Exception):
    """The sandbox machinery itself failed (not the submission): the zygote could not start."""



class BoundaryError(BaseException):
    """A grader passed a value that cannot cross into the sandbox: a bug in the grader, not the answer.
    A BaseException so `graders.exercise`'s per-case `except Exception` cannot blame the student for it."""


class SandboxDied(Exception):
    """The submission's process is gone or was stopped; `limit` says why, in `grading.model`'s vocabulary."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit

