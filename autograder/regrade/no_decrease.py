"""`--no-decrease`: a regrade only ever helps the notebook that was graded. Each cell keeps the higher of its
auto score before the regrade and the one the graders give now, as long as the notebook graded now is the
one those earlier scores were given to; and the policy remembers for whom it kept one.

"The same notebook" is compared by content checksum (`notebook.content_checksum`: every cell's type and
source) between the executed copy in `autograded/` (what the gradebook's scores came from) and the notebook
being graded. When a different notebook was collected since (a later upload, a new `nbgrader collect`), the
per-cell maximum of the two would be a score neither earned: the new grading then stands for that
notebook's cells, and the policy says so for that student. So does a notebook with no executed copy to
compare with (nothing says what was graded).

The policy is a stage of recording (`grading.score_policy.ScorePolicy`, handed to `scheduler.grade_class`): it
acts on each graded submission before the gradebook writer records it, so the gradebook, the late
penalty computed on its score and the result file all hold the kept score. The executed notebook (and the
feedback made from it) shows what the graders say now. Cells no grader scores (answers graded by hand)
follow nbgrader's own rule.
"""

from dataclasses import dataclass
from typing import Any

from autograder.grading.model import CellResult, SubmissionResult
from autograder.nbgrader_glue.notebook import content_checksum
from autograder.regrade.snapshot import Snapshot


@dataclass(frozen=True)
class Kept:
    grade_id: str
    graders: float  # what the graders give now
    kept: float  # the score before, which stays


class NoDecrease:
    """A `ScorePolicy`: the higher of each cell's score before and now, in the notebooks graded before."""

    def __init__(self, before: Snapshot, points: dict[str, float], notebook_of: dict[str, str],
                 graded: dict[str, dict[str, str]]) -> None:
        """`before`: the gradebook before the regrade; `points`: each grade cell's points, by id;
        `notebook_of`: each grade cell's notebook, by id; `graded`: the content checksum of each notebook
        the scores before were given to, by student and notebook (`snapshot.graded_notebooks`)."""
        self.before = {student: {name: cell.auto for (_, name), cell in cells.items() if cell.auto is not None}
                       for student, cells in before.cells.items()}
        self.points = points
        self.notebook_of = notebook_of
        self.graded = graded
        self.kept: dict[str, list[Kept]] = {}
        self.changed: dict[str, list[str]] = {}  # student -> notebooks not the ones graded before: new grading stands

    def apply(self, result: SubmissionResult, notebooks: dict[str, list[Any]]) -> None:
        """Raise, in place, each of the result's cells that scored less than before, in the notebooks that are
        the ones graded before. `notebooks`: the cells of each notebook graded now, by name."""
        graded = self.graded.get(result.student, {})
        same = {name for name, cells in notebooks.items() if cells and graded.get(name) == content_checksum(cells)}
        changed = sorted(set(self.notebook_of.values()) - same)
        before = {name: score for name, score in self.before.get(result.student, {}).items()
                  if self.notebook_of.get(name) in same}
        if changed and self.before.get(result.student):
            self.changed[result.student] = changed
        cells = {cell.grade_id: cell for cell in result.cells}
        if not cells:
            # Grading failed (a crash): the writer would score every cell 0, so every cell of a notebook that is
            # the one graded before is given its old score.
            for name in before:
                if name in self.points:
                    cells[name] = CellResult(name, self.points[name], 0.0)
                    result.cells.append(cells[name])
        for name, cell in cells.items():
            old = before.get(name)
            if old is not None and cell.score < old - 1e-9:
                self.kept.setdefault(result.student, []).append(Kept(name, cell.score, old))
                cell.score = old

