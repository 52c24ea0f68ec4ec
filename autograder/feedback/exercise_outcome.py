"""What became of one exercise's grade cell, in words: its real score and why, for the feedback page.

nbgrader scores a grade cell from its outputs (`determine_grade`): an error gives 0 whatever the graders
found, else the cell's last value is the score. The graders' verdict is printed before that is settled, so
its own count ("concat_state_input: 1 / 6 points") can differ from the cell's score; the page heads each
exercise with the cell's score and says which rule made it.
"""

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from autograder.nbgrader_glue.notebook import checksum, exercise_label

# the graders' words for a stub's NotImplementedError (autograder.grader_support.raised)
NOT_ANSWERED = "is not implemented yet"
JUDGED_ALONE = "was judged on its own"  # autograder.grader_support.dependencies.alone_note


@dataclass(frozen=True)
class ErrorKind:
    """How a grade cell's error reads on the page: as the table says it, and as the heading explains it."""

    status: str
    why: str


@dataclass(frozen=True)
class ExerciseOutcome:
    grade_id: str
    exercise: str
    score: float
    points: float
    status: str  # a few words for the table: "full marks", "self-check failed", ...
    why: str  # the heading's reason, after the score
    self_check: str | None  # "passed", "failed", or None when the cell did not get that far
    level: int = 3  # the heading's level on the page
    linked: bool = True  # the page heads the cell with this outcome (a code cell's)
    pending: bool = False  # an answer no one has graded yet: no score to show, only "to be graded"
    rubric: tuple[tuple[float, str], ...] = ()  # the rubric items given (points, the comment the student reads)

    @property
    def full(self) -> bool:
        return not self.pending and self.score >= self.points

    @property
    def heading(self) -> str:
        return f"{self.exercise}: {self.score:g} / {self.points:g} points"


def outcome(cell: Any, stopped: dict[str, str], trusted_run_failed: str, level: int = 3) -> ExerciseOutcome:
    """The outcome of a grade cell whose outputs are the feedback's (the verdict, the error said plainly, the
    score): `stopped` maps an error kind that stops a cell to its sentence, `trusted_run_failed` is the
    sentence of a self-check that failed only when run again outside the notebook's process."""
    meta = cell.metadata.nbgrader
    grade_id = str(meta.get("grade_id", ""))
    exercise = exercise_label(grade_id)
    score, points = float(meta.get("score") or 0), float(meta.get("points") or 0)
    verdict = "\n".join(str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", [])
                        if o.get("output_type") == "display_data")
    error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
    gave = graders_gave(cell, exercise, verdict, points)
    kind = _error_kind(error, gave, verdict, stopped, trusted_run_failed) if error is not None else None
    if kind is not None:
        status, why = kind.status, kind.why
        self_check = None if error.get("ename") in stopped else "failed"
    else:
        self_check = "passed"
        alone = re.search(rf"{JUDGED_ALONE}: (.+?) lost points above", verdict)
        judged = (f"judged on its own, with the reference's {alone.group(1)} (which lost points above), as the note "
                  "below says" if alone else "")
        if score >= points:
            status = "full marks"
            why = f"{judged}; the self-check passed" if alone else "every check passed, and so did the self-check"
        else:
            status = "lost points"
            why = f"{judged or f'the graders gave {score:g} of {points:g}'}; the self-check passed"
    return ExerciseOutcome(grade_id, exercise, score, points, status, why, self_check, level)


def set_by_instructor(found: ExerciseOutcome, given: Any) -> ExerciseOutcome:
    """`found` for a cell whose score an instructor set over the graders' (`given`: its `score`, what the `graders`
    gave and the instructor's `reason`): the heading says who set the score and why, and what the graders had
    found (`found.why`, kept beside it)."""
    reason = f" (their reason: \u201c{given.reason.strip()}\u201d)" if given.reason.strip() else ""
    graders = f"without it the cell would score {given.graders:g} of {found.points:g}: {found.why}"
    return dataclasses.replace(found, score=float(given.score), status="set by your instructor",
                               why=f"your instructor set this score{reason}; {graders}")


TO_BE_GRADED = "to be graded by your instructor"


def by_hand(cell: Any, pending: bool = False) -> ExerciseOutcome:
    """A graded markdown cell (a written answer): its score is the instructor's (grading by question, or the
    formgrader); `pending`: no one has graded it yet, so the page says so instead of showing its 0. An answer left
    as released scores 0 by nbgrader's rule (no response), which the page says too."""
    meta = cell.metadata.nbgrader
    grade_id = str(meta.get("grade_id", ""))
    unanswered = meta.get("checksum") is not None and meta.get("checksum") == checksum(cell)
    status = TO_BE_GRADED if pending else "not answered" if unanswered else "scored by your instructor"
    return ExerciseOutcome(grade_id, grade_id, float(meta.get("score") or 0), float(meta.get("points") or 0),
                           status, "", None, linked=False, pending=pending)


def _error_kind(error: Any, gave: float | None, verdict: str, stopped: dict[str, str],
                trusted_run_failed: str) -> ErrorKind:
    name, sentence = error.get("ename"), str(error.get("evalue") or "")
    if name in stopped:
        return ErrorKind("stopped", stopped[name])
    if sentence == trusted_run_failed:
        before = f"the graders gave {gave:g}, but " if gave is not None else ""
        return ErrorKind("self-check failed", f"{before}the self-check failed when the grader ran it again outside "
                                              "your notebook's process, so the cell scores 0")
    if NOT_ANSWERED in verdict and not gave:
        return ErrorKind("not answered", "not answered yet: the function still raises NotImplementedError")
    if gave is None:
        return ErrorKind("self-check failed", "the self-check failed, so the cell scores 0, as nbgrader rules")
    if gave > 0:
        return ErrorKind("self-check failed", f"the graders gave {gave:g}, the self-check failed, so the cell "
                                              "scores 0, as nbgrader rules")
    return ErrorKind("self-check failed", "the graders gave 0, and the self-check failed too")


def graders_gave(cell: Any, exercise: str, verdict: str, points: float) -> float | None:
    """The points the graders gave the cell: the value it ended with (what nbgrader reads), else the count on
    the verdict's score line, in the cell's points; None when neither is there (the graders did not run)."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "execute_result":
            try:
                return float(output.get("data", {}).get("text/plain"))
            except (TypeError, ValueError):
                pass
    found = score_line(exercise).search(verdict)
    if found is None:
        return None
    given, total = float(found.group(1)), float(found.group(2))
    return round(given * points / total, 6) if total and total != points else given


def score_line(exercise: str) -> re.Pattern:
    """The verdict's line with the graders' own count (`autograder.grader_support.exercise.ExerciseResult.feedback`)."""
    return re.compile(rf"^{re.escape(exercise)}: ([0-9.e+-]+) / ([0-9.e+-]+) points[ \t]*$", re.M)


@dataclass(frozen=True)
class PageSummary:
    """Every grade cell's outcome, in the notebook's order, the late penalty and the deadline: the page's top."""

    outcomes: list[ExerciseOutcome]
    late_penalty: float = 0.0
    deadline: str = ""  # the student's deadline and the credit applied (`autograder.deadlines.student_line`)
    pending_points: float = 0.0  # of the answers still to be graded by hand: in the total's points, not its score

    def of(self, grade_id: str | None) -> ExerciseOutcome | None:
        return next((found for found in self.outcomes if found.grade_id == grade_id), None)
