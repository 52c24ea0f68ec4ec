"""The arithmetic of one grade, in one place: a cell's score, a notebook's and an assignment's total, the late
credit and penalty, and the score that counts. Pure: it is handed the gradebook's facts (`grades.facts`) and the
course's late rules, and reads nothing itself.

Where it mirrors nbgrader it is nbgrader's rule, so our numbers and nbgrader's own commands (export, the
formgrader) never disagree: a cell scores its manual score if any, else its auto score, plus extra credit
(`Grade.score`); a notebook and a submission sum their cells (`SubmittedNotebook.score`,
`SubmittedAssignment.score`); a notebook's late penalty is clamped to [0, its score] (`AssignLatePenalties`), and
only a submission later than its due date plus extension is asked for one (`total_seconds_late > 0`); the score
that counts is the raw score less the penalties, never below 0 (`CsvExportPlugin`). What nbgrader leaves to a
plugin, the credit itself, is the course's schedule (`deadlines.schedule.credit_at`: due date, extension, label,
grace, steps).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from autograder.deadlines.rules import LateRules
from autograder.deadlines.schedule import Credit
from autograder.deadlines.student_deadline import StudentDeadline


def cell_score(auto: float | None, manual: float | None, extra: float | None) -> float:
    """nbgrader's `Grade.score`: the instructor's score over the graders', plus extra credit."""
    base = manual if manual is not None else auto
    return 0.0 if base is None else float(base) + float(extra or 0.0)


def clamp_penalty(penalty: float, score: float) -> float:
    """nbgrader's `AssignLatePenalties._check_late_penalty`: a penalty is never below 0 nor above the score."""
    return max(0.0, min(float(penalty), float(score)))


def late_penalty(score: float, credit: Credit) -> float:
    """What the late credit takes from a notebook's `score` (to the millionth of a point, as it is stored)."""
    return clamp_penalty(round(score * (1.0 - credit.credit), 6), score)


def counted_score(raw: float, penalty: float) -> float:
    """The score an LMS is sent: nbgrader's export's `max(0.0, score - late_submission_penalty)`."""
    return max(0.0, raw - penalty)


def rubric_score(points: Iterable[float], max_score: float) -> float | None:
    """A written answer's score from the rubric items given it (`by_question`): their points summed, within
    [0, the cell's points]; None when given none (not graded)."""
    given = list(points)
    return None if not given else min(float(max_score), max(0.0, sum(given)))


@dataclass(frozen=True)
class CellFacts:
    """One graded cell (a grade cell, or a task cell) of a submitted notebook."""

    notebook: str
    cell: str
    max_score: float
    auto: float | None
    manual: float | None
    extra: float | None = None
    exercise: bool = True  # a grade cell (an exercise), not a task cell
    needs_manual: bool = False  # nbgrader's `needs_manual_grade`

    @property
    def score(self) -> float:
        return cell_score(self.auto, self.manual, self.extra)

    @property
    def set_by_instructor(self) -> bool:
        """An autograded cell whose score an instructor typed (override, or the formgrader)."""
        return self.auto is not None and self.manual is not None

    @property
    def pending(self) -> bool:
        """An answer graded by hand that no one has graded yet (nbgrader's `needs_manual_grade` with neither
        score): it adds 0 to the total, as in nbgrader, but a page or an LMS must say "to be graded", not 0."""
        return self.needs_manual and self.auto is None and self.manual is None


@dataclass(frozen=True)
class SubmissionFacts:
    """Everything one grade is computed from."""

    assignment: str
    student: str
    cells: tuple[CellFacts, ...]
    notebooks: tuple[str, ...]  # the submission's notebooks, by name
    arrived: datetime | None  # the exchange's time (UTC), None when unknown
    deadline: StudentDeadline | None  # None when the assignment has no due date
    max_score: float
    stored_penalties: dict[str, float | None] = field(default_factory=dict)  # by notebook, as the gradebook holds

    def seconds_late(self) -> float:
        """nbgrader's `SubmittedAssignment.total_seconds_late`: after the due date plus extension, never < 0."""
        if self.arrived is None or self.deadline is None:
            return 0.0
        due = self.deadline.due + (self.deadline.extension or timedelta(0))
        return max(0.0, (self.arrived - due).total_seconds())


# A course's own late-penalty plugin, asked as nbgrader asks it: (student, notebook score, seconds late) ->
# penalty or None. None here means the course's schedule decides (the framework's plugin).
PenaltyRule = Callable[[str, float, float], float | None]


@dataclass(frozen=True)
class Grade:
    """One student's grade of one assignment, and why."""

    facts: SubmissionFacts
    credit: Credit | None  # None: no due date, or no time of arrival
    notebook_scores: dict[str, float]
    penalties: dict[str, float | None]  # by notebook: what the gradebook stores (None: not late)

    @property
    def raw(self) -> float:
        return sum(self.notebook_scores.values())

    @property
    def penalty(self) -> float:
        return sum(p or 0.0 for p in self.penalties.values())

    @property
    def score(self) -> float:
        return counted_score(self.raw, self.penalty)

    @property
    def max_score(self) -> float:
        return self.facts.max_score

    def pending_points(self, notebook: str | None = None) -> float:
        """The points of the answers still to be graded by hand (of one notebook's, when named): part of
        `max_score`, none of `raw` yet."""
        return sum(cell.max_score for cell in self.facts.cells
                   if cell.pending and (notebook is None or cell.notebook == notebook))

    @property
    def counts(self) -> bool:
        """Whether the score counts (not practice nor refused); without a due date it always does."""
        return self.credit is None or self.credit.counts

    @property
    def statement(self) -> str:
        """Everything a page or an LMS says of this grade, as one line: the numbers, and the deadline and credit
        that explain them. Two grades that read the same to a student have the same statement."""
        credit = self.credit
        said = [f"{self.raw:.6f}", f"{self.penalty:.6f}", f"{self.max_score:.6f}"]
        if credit is not None:
            said += [credit.outcome.value, f"{credit.credit:.6f}", credit.due.isoformat(),
                     str(int(credit.late_by.total_seconds()))]
        elif self.facts.deadline is not None:
            said += [self.facts.deadline.due.isoformat(), str(self.facts.deadline.extension)]
        return " ".join(said)

    @property
    def stale(self) -> bool:
        """Whether the gradebook's stored penalties differ from these (a change not yet applied)."""
        stored = self.facts.stored_penalties
        return any(abs((stored.get(nb) or 0.0) - (p or 0.0)) > 1e-9 or (stored.get(nb) is None) != (p is None)
                   for nb, p in self.penalties.items())


def credit_of(facts: SubmissionFacts, rules: LateRules) -> Credit | None:
    """The late credit of the submission, or None without a due date or a time of arrival."""
    if facts.deadline is None or facts.arrived is None:
        return None
    return facts.deadline.credit(rules, facts.assignment, facts.arrived)


def grade_of(facts: SubmissionFacts, rules: LateRules, plugin: PenaltyRule | None = None) -> Grade:
    """The grade of one submission: every number a person sees of it. `plugin`: a course's own late-penalty
    plugin (None: the course's schedule, the framework's plugin)."""
    scores = {name: 0.0 for name in facts.notebooks}
    for cell in facts.cells:
        scores[cell.notebook] = scores.get(cell.notebook, 0.0) + cell.score
    credit = credit_of(facts, rules)
    late = facts.seconds_late()
    penalties: dict[str, float | None] = {}
    for name, score in scores.items():
        found: float | None = None
        if late > 0:  # nbgrader asks for a penalty only then, and resets it to none otherwise
            if plugin is not None:
                found = plugin(facts.student, score, late)
            elif credit is not None:
                found = late_penalty(score, credit)
        penalties[name] = None if found is None else clamp_penalty(found, score)
    return Grade(facts, credit, scores, penalties)


def stored_grade(facts: SubmissionFacts) -> Grade:
    """The grade with the late penalties the gradebook stores (`settle` derived them when the facts last changed):
    for readers that have no late rules at hand (the LMS outbox, My assignments)."""
    scores = {name: 0.0 for name in facts.notebooks}
    for cell in facts.cells:
        scores[cell.notebook] = scores.get(cell.notebook, 0.0) + cell.score
    return Grade(facts, None, scores, dict(facts.stored_penalties))
