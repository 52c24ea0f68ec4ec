"""What a grading run does to each graded submission's scores before they are recorded: one stage that
`recording.record` is handed, between the graders' result and the gradebook writer (which records what it is
given, whatever the run). `autograder grade` and the watcher keep the graders' scores (`AS_GRADED`); `autograder
regrade --no-decrease` hands in `regrade.no_decrease.NoDecrease`."""

from typing import Any, Protocol

from autograder.grading.model import SubmissionResult


class ScorePolicy(Protocol):
    def apply(self, result: SubmissionResult, notebooks: dict[str, list[Any]]) -> None:
        """Change, in place, the scores of `result` that are to be recorded otherwise. `notebooks`: the cells of
        each notebook graded now (with their outputs), by name."""


class AsGraded:
    """The graders' scores are the ones recorded."""

    def apply(self, result: SubmissionResult, notebooks: dict[str, list[Any]]) -> None:
        pass


AS_GRADED = AsGraded()
