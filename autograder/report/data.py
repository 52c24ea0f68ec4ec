"""Everything the class report shows about one assignment, collected from the gradebook and the result files.

Scores come from nbgrader's gradebook, which is the truth an instructor exports and may have edited by
hand. Misconceptions, limits hit and grading time exist only in the engine's result files
(`autograded/<student>/<assignment>/autograder-result.json`); a student graded another way (plain
`nbgrader autograde`) has none, and the report says so instead of guessing.
"""

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Course, Gradebook, MissingEntry

from autograder.course.settings import CourseSettings, SettingsError, read_course, shown_url, sqlite_path
from autograder.deadlines.rules import LateRules
from autograder.grader_support.hints import hint_text
from autograder.grading.model import RESULT_FILE, CellResult, SubmissionResult
from autograder.nbgrader_glue.notebook import NO_RESPONSE, exercise_label
from autograder.regrade.audit import grader_version, sqlalchemy_query, versions_by_student
from autograder.report.deadline_rows import DeadlineRow, deadline_rows
from autograder.similarity import Comparison, SimilarityError, compare_class
from autograder.watch.ledger import Record, read_ledger
from autograder.watch.watch_status import LEDGER_FILE, STATE_FOLDER, WatchHealth, watch_health

# Why a grade cell scored 0 before its graders ran, read from the result file's `visible_error`: the released
# stub (`c.ClearSolutions.code_stub`) raises NotImplementedError, so a cell that raised it holds an exercise
# left unanswered (or one whose self-check calls an unanswered function); a cell never run says why first.
UNANSWERED = "NotImplementedError"
NOT_RUN = ("not run: ", "no such notebook was submitted", "the notebook could not be read")


def why_zero(cell: CellResult) -> str | None:
    """"unanswered", "not run" or "self-check failed" for a cell whose visible check did not pass, else None."""
    error = cell.visible_error
    if not error:
        return None
    if error.startswith(UNANSWERED):
        return "unanswered"
    if error.startswith(NOT_RUN):
        return "not run"
    return "self-check failed"


class ReportError(Exception):
    """The report cannot be made (no gradebook, unknown assignment); the message is one line."""


@dataclass(frozen=True)
class Exercise:
    """One grade cell of the assignment."""

    notebook: str
    grade_id: str
    max_score: float
    label: str  # what the instructor reads: "concat_weights" for the grade cell "test_concat_weights"


@dataclass
class Submission:
    student: str
    score: float  # the gradebook's total
    scores: dict[str, float]  # Exercise.label -> the gradebook's score for that grade cell
    result: SubmissionResult | None = None  # None: graded without the engine, so no misconception data
    blank: bool = False  # no answer cell differs from the release (nbgrader's "No response." on each)


@dataclass(frozen=True)
class ManualCell:
    """A grade cell waiting for a person: nbgrader's `needs_manual_grade` (an unreadable notebook's cells,
    a manual score that the autograder's disagrees with, an answer graded by hand)."""

    student: str
    exercise: str
    submission_notebook_id: str  # the formgrader's page for it: <formgrader>/submissions/<id>/


@dataclass
class Misconception:
    hint: str
    text: str
    students: list[str]  # each student counted once, however many checks named it
    by_exercise: dict[str, list[str]]  # exercise label -> the students it was named for there

    @property
    def exercises(self) -> list[str]:
        return sorted(self.by_exercise)


@dataclass
class Problem:
    """A submission that hit a limit, could not be read, or whose result file is broken."""

    student: str
    status: str
    limits: list[str]
    message: str
    score: float | None  # the gradebook's total, None when the gradebook has no submission


@dataclass(frozen=True)
class Waiting:
    """A submission the watcher holds but has not graded: over the attempts limit, or after a fault of ours."""

    student: str
    submitted: str  # naive UTC, ISO
    state: str  # "deferred" or "failed"
    until: str  # not graded before then (naive UTC, ISO)
    note: str


@dataclass
class ClassData:
    assignment: str
    course_id: str
    exercises: list[Exercise]
    roster: list[str]  # every student in the gradebook, submitted or not
    submissions: list[Submission]
    misconceptions: list[Misconception] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # student -> grading time, from the results
    manual: list[ManualCell] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)  # student -> grader version of their latest run
    current_version: str = ""  # the graders and instructor files on disk now
    watch: WatchHealth | None = None  # the course's watcher, running or not, and its queue
    deadlines: list[DeadlineRow] = field(default_factory=list)  # who was late, had an exception or an override
    attempts: int = 0  # graded attempts the watcher's ledger holds (earlier ones included)
    attempted: list[str] = field(default_factory=list)  # the students those attempts are of
    waiting: list[Waiting] = field(default_factory=list)
    left_course: list[str] = field(default_factory=list)  # flagged by `roster sync`: no longer in the LMS course
    similarity: Comparison | None = None  # pairs whose work shares rare features (`autograder similarity`)
    similarity_problem: str = ""  # why the class was not compared, when it was not

    @property
    def mixed_versions(self) -> bool:
        """The class's scores come from different graders (some students not regraded since a change)."""
        return len(set(self.versions.values())) > 1

    @property
    def stale(self) -> list[str]:
        """Students whose score comes from other graders than the current ones."""
        return sorted(s for s, version in self.versions.items() if version != self.current_version)

    @property
    def bare(self) -> list[str]:
        """Students graded at the bare sandbox level, where their code could read the course."""
        return sorted(s.student for s in self.submissions if s.result and s.result.sandbox_level == "bare")

    @property
    def blank(self) -> list[str]:
        """Students who submitted the release as it was: no attempt, apart from attempts that scored 0."""
        return [s.student for s in self.submissions if s.blank]

    @property
    def failed_attempts(self) -> list[str]:
        """Students who answered something and scored 0."""
        return [s.student for s in self.submissions if not s.blank and s.score <= 0]

    @property
    def max_score(self) -> float:
        return sum(exercise.max_score for exercise in self.exercises)

    @property
    def scores(self) -> list[float]:
        return [submission.score for submission in self.submissions]

    @property
    def mean_score(self) -> float:
        return statistics.fmean(self.scores)

    @property
    def median_score(self) -> float:
        return statistics.median(self.scores)

    @property
    def not_submitted(self) -> list[str]:
        submitted = {submission.student for submission in self.submissions}
        return [student for student in self.roster if student not in submitted]

    @property
    def with_results(self) -> list[Submission]:
        return [submission for submission in self.submissions if submission.result is not None]

    @property
    def with_misconception_data(self) -> int:
        """Students whose misconceptions are known: a result file, or an attempt in the watcher's ledger."""
        return len({s.student for s in self.with_results} | set(self.attempted))

    @property
    def without_results(self) -> list[str]:
        return [submission.student for submission in self.submissions if submission.result is None]

    def exercise_mean(self, exercise: Exercise) -> float:
        return statistics.fmean(s.scores.get(exercise.label, 0.0) for s in self.submissions)

    def pass_rate(self, exercise: Exercise) -> float:
        """The share of submissions with full marks on the exercise."""
        passed = sum(s.scores.get(exercise.label, 0.0) >= exercise.max_score for s in self.submissions)
        return passed / len(self.submissions)

    def zero_because(self, exercise: Exercise, why: str) -> int:
        """Submissions (with a result file) whose cell for this exercise scored 0 before its graders ran for
        `why` (`why_zero`): a self-check that failed on an answer apart from one left unanswered."""
        return sum(cell.grade_id == exercise.grade_id and why_zero(cell) == why
                   for submission in self.with_results for cell in submission.result.cells)

    @property
    def cells_without_graders(self) -> int:
        """Grade cells in the result files where the graders did not run, so no misconception was named."""
        return sum(cell.exercise is None for submission in self.with_results for cell in submission.result.cells)

    def hints_of(self, student: str) -> list[str]:
        """The misconceptions named for `student`, in any attempt."""
        return sorted(m.hint for m in self.misconceptions if student in m.students)

    def top_misconception(self, exercise: Exercise) -> tuple[str, int] | None:
        """The misconception named for the most students in this exercise, and how many."""
        counts = [(len(m.by_exercise[exercise.label]), m.hint) for m in self.misconceptions
                  if exercise.label in m.by_exercise]
        if not counts:
            return None
        count, hint = min(counts, key=lambda pair: (-pair[0], pair[1]))
        return hint, count

def open_gradebook(settings: CourseSettings) -> Gradebook:
    # Gradebook() would create the tables of a missing or empty database (and need alembic to do it):
    # a report must only read, so check first, read-only, that this is a gradebook at all.
    path = sqlite_path(settings.db_url)
    try:
        tables = settings.gradebook_tables()
    except SettingsError as exc:
        raise ReportError(str(exc)) from None
    if tables is None:
        where = Path(path)
        raise ReportError(f"no {where.name} in {where.parent}: run this in the course folder after grading")
    if not {"submitted_assignment", "grade", "grade_cells"} <= tables:
        raise ReportError(f"{path or shown_url(settings.db_url)} is not an nbgrader gradebook (no grade tables)")
    try:
        return settings.open_gradebook()
    except SettingsError as exc:
        raise ReportError(str(exc)) from None


def _exercises(settings: CourseSettings, gradebook: Gradebook, assignment: str) -> list[Exercise]:
    try:
        record = gradebook.find_assignment(assignment)
    except MissingEntry:
        known = ", ".join(sorted(a.name for a in gradebook.assignments)) or "none"
        raise ReportError(f"unknown assignment {assignment!r} (the gradebook has: {known})") from None
    from autograder.grades.exercise_order import cell_order
    from autograder.grades.outbox import SessionSql

    notebooks = list(record.notebooks)
    order = cell_order(SessionSql(gradebook.db).rows, assignment)  # the one order of every listing
    exercises = []
    for notebook in notebooks:
        for cell in order.sorted(notebook.grade_cells, lambda cell, nb=notebook.name: (nb, cell.name)):
            label = exercise_label(cell.name)
            if len(notebooks) > 1:
                label = f"{notebook.name}/{label}"
            exercises.append(Exercise(notebook.name, cell.name, float(cell.max_score), label))
    if not exercises:
        raise ReportError(f"{assignment} has no grade cells in the gradebook: run `nbgrader generate_assignment` first")
    return exercises


def _submissions(gradebook: Gradebook, assignment: str, exercises: list[Exercise], rules: LateRules,
                 config: object = None) -> tuple[list[Submission], list[ManualCell], list[DeadlineRow]]:
    from autograder.grades.outbox import SessionSql
    from autograder.grades.settle import GradeRules

    labels = {(e.notebook, e.grade_id): e.label for e in exercises}
    # Each total as every surface computes it (`grades.arithmetic`: after the late penalty); an extension granted
    # before anything was handed in is not a submission.
    grades = GradeRules(rules, config).grades(SessionSql(gradebook.db).rows, assignment)
    submissions, manual = [], []
    for record in gradebook.assignment_submissions(assignment):
        grade = grades.get(record.student_id)
        if grade is None:
            continue
        scores = {labels[(cell.notebook, cell.cell)]: cell.score for cell in grade.facts.cells
                  if (cell.notebook, cell.cell) in labels}
        answers = [comment.auto_comment for notebook in record.notebooks for comment in notebook.comments]
        blank = bool(answers) and all(text == NO_RESPONSE for text in answers)
        submissions.append(Submission(record.student_id, grade.score, scores, blank=blank))
        manual += [ManualCell(record.student_id, labels.get((notebook.name, g.name), g.name), notebook.id)
                   for notebook in record.notebooks for g in notebook.grades if g.needs_manual_grade]
    return (sorted(submissions, key=lambda s: s.student),
            sorted(manual, key=lambda cell: (cell.student, cell.exercise)),
            deadline_rows(grades, rules))


def load_results(settings: CourseSettings, assignment: str) -> tuple[dict[str, SubmissionResult], list[Problem]]:
    """Every result file of the assignment, by student, and a Problem for each one that will not load."""
    results, broken = {}, []
    for path in sorted(settings.path("autograded", ".", ".").glob(f"*/{assignment}/{RESULT_FILE}")):
        student = path.parent.parent.name
        try:
            results[student] = SubmissionResult.load(path.parent)
        except (OSError, ValueError, KeyError, TypeError) as exc:  # truncated or hand-edited JSON
            message = f"{RESULT_FILE} could not be read ({type(exc).__name__}: {exc})"
            broken.append(Problem(student, "no result", [], message[:300], None))
    return results, broken


def _misconceptions(assignment: str, submissions: list[Submission], exercises: list[Exercise],
                    earlier: list[Record] = ()) -> list[Misconception]:
    """Each misconception with the students it was named for: in the result file of the attempt that counts,
    and in every graded attempt the watcher's ledger holds (a mistake since fixed was still made)."""
    labels = {exercise.grade_id: exercise.label for exercise in exercises}
    named: dict[str, dict[str, set[str]]] = {}  # hint -> exercise label -> students
    found_in = [(s.student, cell.grade_id, cell.exercise.hints)
                for s in submissions for cell in (s.result.cells if s.result else []) if cell.exercise]
    found_in += [(r.student, cell_id, hints) for r in earlier for cell_id, hints in r.hints.items()]
    for student, cell_id, hints in found_in:
        for hint in hints:
            named.setdefault(hint, {}).setdefault(labels.get(cell_id, cell_id), set()).add(student)
    found = [Misconception(hint, hint_text(hint, assignment), sorted(set().union(*where.values())),
                           {label: sorted(students) for label, students in where.items()})
             for hint, where in named.items()]
    return sorted(found, key=lambda m: (-len(m.students), m.hint))


def _problems(results: dict[str, SubmissionResult], totals: dict[str, float]) -> list[Problem]:
    """Submissions that could not be read, hit a limit, or held something the grader left out."""
    return [Problem(student, result.status, list(result.limits_hit),
                    "; ".join(filter(None, [result.message, *(f"left out: {line}" for line in result.ignored)])),
                    totals.get(student))
            for student, result in sorted(results.items())
            if result.status != "graded" or result.limits_hit or result.ignored]


def collect(course: Path, assignment: str) -> ClassData:
    """The report's data for `assignment` in the course folder `course`."""
    try:
        settings = read_course(course, required=False)
        rules = settings.late_rules
    except SettingsError as exc:
        raise ReportError(str(exc)) from None
    with open_gradebook(settings) as gradebook:
        exercises = _exercises(settings, gradebook, assignment)
        submissions, manual, deadlines = _submissions(gradebook, assignment, exercises, rules, settings.config)
        roster = sorted(student.id for student in gradebook.students)
        versions = _grader_versions(gradebook, assignment)
        left = _left_course(gradebook)
        record = gradebook.db.query(Course).first()
        course_id = record.id if record else ""
    if not submissions:
        raise ReportError(f"no graded submissions of {assignment} in the gradebook yet")
    results, broken = load_results(settings, assignment)
    for submission in submissions:
        submission.result = results.get(submission.student)
    totals = {submission.student: submission.score for submission in submissions}
    ledger = [r for r in read_ledger(settings.root / STATE_FOLDER / LEDGER_FILE).values()
              if r.assignment == assignment]
    graded = [r for r in ledger if r.state == "graded"]
    try:
        similarity, similarity_problem = compare_class(course, assignment), ""
    except SimilarityError as exc:
        similarity, similarity_problem = None, str(exc)
    waiting = sorted((Waiting(r.student, r.time, r.state, r.until, r.note) for r in ledger
                      if r.state in ("deferred", "failed")), key=lambda w: (w.submitted, w.student))
    return ClassData(
        assignment=assignment,
        course_id=course_id,
        exercises=exercises,
        roster=roster,
        submissions=submissions,
        misconceptions=_misconceptions(assignment, submissions, exercises, graded),
        problems=_problems(results, totals) + broken,
        seconds={student: result.seconds for student, result in results.items()},
        manual=manual,
        versions=versions,
        current_version=grader_version(assignment, settings.path("source", ".", assignment),
                                       list(settings.coursedir.ignore)),
        watch=watch_health(settings.root),
        deadlines=deadlines,
        attempts=len(graded),
        attempted=sorted({r.student for r in graded}),
        waiting=waiting,
        left_course=left,
        similarity=similarity,
        similarity_problem=similarity_problem,
    )


def _left_course(gradebook: Gradebook) -> list[str]:
    """The students the last `roster sync` found gone from the LMS course (none before a gradebook has the
    column: reading a report never changes the gradebook's tables)."""
    from sqlalchemy import inspect

    from autograder.lms.identity import IDENTITY_TABLE
    from autograder.lms.roster_sync import LEFT, lms_statuses

    seen = inspect(gradebook.engine)
    if not seen.has_table(IDENTITY_TABLE.name) or "lms_status" not in {
            c["name"] for c in seen.get_columns(IDENTITY_TABLE.name)}:
        return []
    return sorted(student for student, state in lms_statuses(gradebook).items() if state == LEFT)


def _grader_versions(gradebook: Gradebook, assignment: str) -> dict[str, str]:
    """Which graders scored each student last, from the audit trail (none for a gradebook without one)."""
    query = sqlalchemy_query(gradebook)
    if query is None:
        return {}
    return {student: row.run.version for student, row in versions_by_student(query, assignment).items()}

