"""Recording outcomes: each one staged in the gradebook writer's open transaction with its autograded folder
built beside its place, and committed in batches (see `Batch`)."""

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.course.settings import CourseSettings
from autograder.grading.autograded import InstructorFiles, stage_autograded, swap_in, with_outputs
from autograder.grading.model import Outcome
from autograder.grading.prepare import Prepared
from autograder.grading.score_policy import AS_GRADED, ScorePolicy

if TYPE_CHECKING:  # the writer loads after the workers have started (see `grading.startup`)
    from autograder.grading.writer import GradebookWriter

# Graded submissions are committed to the gradebook together, at most this many or this old: one
# transaction (and one sync of the journal to disk) per batch instead of per student. A crash loses at
# most the batch in progress, which the next run grades again; earlier batches stay committed.
BATCH_SIZE = 50
BATCH_SECONDS = 0.5


class Batch:
    """Submissions staged in the writer's open transaction, with their autograded folders built but not
    yet in place. `commit` writes the transaction, then swaps the folders in: a folder never shows a
    grade the gradebook does not hold. `discard` rolls both back."""

    def __init__(self, writer: "GradebookWriter") -> None:
        self.writer = writer
        self.folders: list[tuple[Path, Path]] = []  # (staged, destination)
        self.students: set[str] = set()
        self.started = 0.0
        self.instructor: InstructorFiles | None = None  # the assignment's files, read once per run

    def add(self, student: str, staged: Path, dest: Path) -> None:
        if not self.folders:
            self.started = time.monotonic()
        self.folders.append((staged, dest))
        self.students.add(student)

    def due(self) -> bool:
        return bool(self.folders) and (len(self.folders) >= BATCH_SIZE
                                       or time.monotonic() - self.started >= BATCH_SECONDS)

    def wait_seconds(self) -> float | None:
        return max(self.started + BATCH_SECONDS - time.monotonic(), 0.0) if self.folders else None

    def commit(self) -> None:
        try:
            self.writer.commit()
        except BaseException:
            self.discard()
            raise
        folders, self.folders = self.folders, []
        self.students.clear()
        for staged, dest in folders:
            swap_in(staged, dest)

    def discard(self) -> None:
        if self.folders:
            self.writer.rollback()
        for staged, _ in self.folders:
            shutil.rmtree(staged, ignore_errors=True)
        self.folders = []
        self.students.clear()


def record(batch: Batch, settings: CourseSettings, assignment: str, prepared: Prepared, outcome: Outcome,
           policy: ScorePolicy = AS_GRADED) -> None:
    """Stage one outcome in the batch: the student's gradebook rows and their autograded folder, with the
    scores `policy` leaves (it acts before the writer, so the late penalty and the result file hold them too)."""
    result = outcome.result
    result.ignored = list(prepared.ignored)
    executed = {name: with_outputs(nb, outcome.outputs.get(name, [])) for name, nb in prepared.notebooks.items()}
    if prepared.student in batch.students:  # one student's rows (queried by id) are never staged twice
        batch.commit()
    try:
        cells = {name: nb["cells"] for name, nb in executed.items()}
        policy.apply(result, cells)
        batch.writer.add(outcome, prepared.timestamp, cells)
        dest = settings.path("autograded", prepared.student, assignment)
        if batch.instructor is None or batch.instructor.source != settings.path("source", ".", assignment):
            batch.instructor = InstructorFiles(settings.path("source", ".", assignment),
                                               list(settings.coursedir.ignore))
        staged = stage_autograded(dest, settings.path("submitted", prepared.student, assignment), batch.instructor,
                                  settings.exclude_overwriting(assignment), prepared.files, executed, outcome)
    except BaseException:
        batch.discard()  # the writer rolled back the whole open transaction: the batch's folders go too
        raise
    batch.add(prepared.student, staged, dest)
