"""`--no-decrease`: a regrade only ever helps. Each cell keeps the higher of its auto score before the
regrade and the one the graders give now, and the policy remembers for whom it kept one.

The policy acts on each graded submission before the gradebook writer records it, so the gradebook, the late
penalty computed on its score and the result file all hold the kept score. The executed notebook (and the
feedback made from it) shows what the graders say now. Cells no grader scores (answers graded by hand)
follow nbgrader's own rule.
"""

from dataclasses import dataclass
from typing import Any

from autograder.grading.model import CellResult, SubmissionResult
from autograder.grading.writer import GradebookWriter
from autograder.regrade.snapshot import Snapshot


@dataclass(frozen=True)
class Kept:
    grade_id: str
    graders: float  # what the graders give now
    kept: float  # the score before, which stays


class NoDecrease:
    def __init__(self, before: Snapshot, points: dict[str, float]) -> None:
        """`before`: the gradebook before the regrade; `points`: each grade cell's points, by id."""
        self.before = {student: {name: cell.auto for (_, name), cell in cells.items() if cell.auto is not None}
                       for student, cells in before.cells.items()}
        self.points = points
        self.kept: dict[str, list[Kept]] = {}

    def apply(self, result: SubmissionResult) -> None:
        """Raise, in place, each of the result's cells that scored less than before."""
        before = self.before.get(result.student, {})
        cells = {cell.grade_id: cell for cell in result.cells}
        if not cells:
            # Grading failed (a crash): the writer would score every cell 0, so every cell is given its old score.
            for name in before:
                if name in self.points:
                    cells[name] = CellResult(name, self.points[name], 0.0)
                    result.cells.append(cells[name])
        for name, cell in cells.items():
            old = before.get(name)
            if old is not None and cell.score < old - 1e-9:
                self.kept.setdefault(result.student, []).append(Kept(name, cell.score, old))
                cell.score = old


class PolicyWriter(GradebookWriter):
    """The gradebook writer, with an optional policy applied to each submission before it is recorded."""

    policy: NoDecrease | None = None

    def add(self, outcome: Any, timestamp: str | None, cells: dict[str, list[Any]]) -> None:
        if self.policy is not None:
            self.policy.apply(outcome.result)
        super().add(outcome, timestamp, cells)
