"""Issue 39: one grade, the same everywhere. A model-based test (Hypothesis's stateful testing) over a small class:
four students whose work arrived on time, within the grace period, in a late-credit step and after the last step,
graded once by `autograder grade`; then any sequence of what an instructor does, through the real commands
(`extend --by/--until`, `extend --revoke`, `label --set/--remove`, `override --score/--remove`, a score typed in
the formgrader, the schedule edited in nbgrader_config.py, the due date moved with nbgrader's `db assignment add`,
`regrade`, a resubmission graded by `autograder grade`). After every step, every place a grade appears is read as
its users read it and compared with the model; the feedback pages are compared at the end of each sequence.

The model is the documented rule, written here and not imported from the code (docs/instructors/deadlines.md,
the `c.LateCredit` settings in autograder/deadlines/rules.py's docstring):
- the due date for a student is the assignment's plus their extension, which replaces their label's extra time;
- work late by no more than the grace period is on time (full credit); otherwise the first step whose window
  (after the student's due date, stretched by their label's factor) holds the arrival gives its credit; after the
  last step "practice" and "not accepted" both count 0; no schedule: full credit;
- a cell's score is the instructor's where one was set (`override`, or typed in the formgrader), else the
  graders'; the raw score is their sum; the late penalty is raw x (1 - credit); the counted score is raw - penalty,
  never below 0;
- lateness (the report's "late by", the breakdown CSV's seconds late) is counted from the student's own due date
  (work within the grace period may show 0 instead: not documented, so either, but the same on every surface);
  the breakdown's status is the outcome: on time, late, practice or not accepted;
- a feedback page made before a change is made again, or says it is out of date and gives the grade as it is now.
The graders' score of each cell is the one fact taken from the code: what the graders gave each kind of answer
when the class was graded (the same answers graded again get the same).
"""

import contextlib
import csv
import io
import os
import re
import shutil
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from nbgrader.api import Gradebook

from autograder.devtools.catalogue import wrong_answers
from tests.grading_course import ASSIGNMENT, grade, make_course, submit, tree_digest
from tests.regrading import cli
from tests.test_gradebook_writer import stamp

DUE = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
GRACE = timedelta(minutes=10)
LABEL = "extra-time"
LABEL_EXTRA, LABEL_STRETCH = timedelta(days=1), 1.5
# The course's schedule, and those an instructor may change it to: (c.LateCredit.schedule, c.LateCredit.after).
SCHEDULES = {
    "course": ((("48h", 0.8), ("7d", 0.5)), "practice"),
    "strict": ((("1d", 0.5),), "not-accepted"),
    "lenient": ((("3d", 0.9), ("10d", 0.6)), "practice"),
    "none": ((), None),
}
DURATIONS = {"12h": timedelta(hours=12), "1d": timedelta(days=1), "48h": timedelta(hours=48),
             "3d": timedelta(days=3), "7d": timedelta(days=7), "10d": timedelta(days=10)}
WRONG = {answer.name: answer for answer in wrong_answers(ASSIGNMENT)}
VARIANTS = {"reference": (), "axis-0": (WRONG["axis-0"],), "sign-flipped": (WRONG["sign-flipped"],)}
# When each student's work arrived (after the due date) and what it was.
CLASS = {
    "ontime": (-timedelta(hours=1), "reference"),
    "grace": (timedelta(minutes=5), "sign-flipped"),
    "late": (timedelta(hours=20), "axis-0"),  # in the first step
    "past": (timedelta(days=8), "reference"),  # after the last step: practice, counts 0
}
STUDENTS = tuple(CLASS)
LMS_SETTINGS = '[canvas]\nurl = "http://127.0.0.1:9"\ncourse_id = 77\n[canvas.assignments]\n' \
               f"{ASSIGNMENT} = 501\n"
BERLIN = ZoneInfo("Europe/Berlin")
# What a page made before a change says instead of being remade (issue 39: "says it is out of date").
STALE_PAGE = re.compile(r"out of date|out-of-date|outdated|no longer (?:current|up to date)", re.I)


def late_rules(schedule: str) -> str:
    steps, after = SCHEDULES[schedule]
    lines = [f"c.LateCredit.schedule = {[list(step) for step in steps]!r}"]
    if after:
        lines.append(f"c.LateCredit.after = {after!r}")
    lines += [f'c.LateCredit.grace = "{GRACE.seconds // 60}m"',
              f'c.LateCredit.labels = {{"{LABEL}": {{"extra": "1d", "stretch": {LABEL_STRETCH}}}}}']
    return "\n".join(lines)


# The model --------------------------------------------------------------------------------------------------


@dataclass
class Student:
    arrived: datetime
    variant: str
    extension: timedelta | None = None
    label: bool = False
    overrides: dict[str, float] = field(default_factory=dict)  # cell -> the instructor's score


@dataclass(frozen=True)
class Expected:
    due: datetime  # for the student
    late_by: timedelta  # after their due date, 0 when before
    outcome: str  # on time, late, practice, not accepted
    credit: float
    cells: dict[str, float]
    overridden: tuple[str, ...]
    extension: timedelta | None
    label: bool
    raw: float
    penalty: float
    counted: float


def expected(due: datetime, schedule: str, student: Student, graders: dict[str, dict[str, float]]) -> Expected:
    steps, after = SCHEDULES[schedule]
    extra, stretch = (LABEL_EXTRA, LABEL_STRETCH) if student.label else (timedelta(0), 1.0)
    mine = due + (student.extension if student.extension else extra)
    late = student.arrived - mine
    if late <= GRACE:
        outcome, credit = "on time", 1.0
    else:
        found = [c for until, c in steps if student.arrived <= mine + DURATIONS[until] * stretch]
        if found:
            outcome, credit = "late", found[0]
        elif after:
            outcome, credit = after.replace("-", " "), 0.0
        else:
            outcome, credit = "late", 1.0
    cells = {**graders[student.variant], **student.overrides}
    raw = sum(cells.values())
    penalty = raw * (1 - credit)
    return Expected(mine, max(late, timedelta(0)), outcome, credit, cells, tuple(sorted(student.overrides)),
                    student.extension, student.label, raw, penalty, max(0.0, raw - penalty))


# The graded class -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Graded:
    course: Path
    points: dict[str, float]  # grade cell -> points possible (the written answer's too: the total's points)
    graders: dict[str, dict[str, float]]  # answer variant -> each cell's score from the graders


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Graded:
    """The class graded by `autograder grade`, each student's feedback page made as the watcher makes it."""
    course = make_course(tmp_path_factory.mktemp("one-grade") / "course", late_rules("course"))
    (course / "lms.toml").write_text(LMS_SETTINGS)
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE.replace(tzinfo=None))
        for number, student in enumerate(STUDENTS):
            gb.add_student(student, lms_user_id=str(1001 + number))
    for student, (after, variant) in CLASS.items():
        stamp(submit(course, student, VARIANTS[variant]).parent, DUE + after)
    done = grade(course)
    assert done.returncode == 0, done.stderr
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        points = {cell.name: cell.max_score for nb in gb.find_assignment(ASSIGNMENT).notebooks
                  for cell in nb.grade_cells}
        # The autograded cells: the written answer (a markdown grade cell) waits for a person, in no surface a 0.
        graders = {CLASS[s.student_id][1]: {g.name: g.auto_score for nb in s.notebooks for g in nb.grades
                                            if g.cell.cell_type == "code"}
                   for s in gb.assignment_submissions(ASSIGNMENT)}
    # The answers are what they claim: the reference full marks, each wrong one losing its own exercise only.
    assert graders["reference"] == {cell: most for cell, most in points.items() if cell != "explain_formulas"}
    for name, answers in VARIANTS.items():
        lost = {cell for cell, score in graders[name].items() if score < points[cell]}
        assert lost == {f"test_{a.exercise}" for a in answers}, (name, graders[name])
    feedback_pages(course, STUDENTS)
    return Graded(course, points, graders)


# Every example starts from a fresh copy of the same graded course, and its first comparison of every surface (and,
# for an example that takes no action, its feedback pages) would give the same result each time: a comparison
# of a course byte for byte the same as one compared before (`tree_digest`: names and contents; a comparison
# itself writes only exports/), against the same model, is not made again. Kept here, not in OneGrade: Hypothesis
# draws the sequences from a digest of the machine's source, and these keep the sequences drawn before.
_SAME = {"surfaces": set(), "pages": {}}


def feedback_pages(course: Path, students: tuple[str, ...]) -> dict[str, str]:
    """Each student's feedback page, made by nbgrader's generate_feedback in this process, as the watcher does
    (once for a course in a state they were made for before: `_SAME`)."""
    key = (tree_digest(course), students)
    if key not in _SAME["pages"]:
        _SAME["pages"][key] = _made_pages(course, students)
    return _SAME["pages"][key]


def _made_pages(course: Path, students: tuple[str, ...]) -> dict[str, str]:
    from autograder.course.settings import read_course
    from autograder.watch.pages import FeedbackMaker

    settings = read_course(course)
    maker = FeedbackMaker(settings.root, settings.coursedir, settings.coursedir.config)
    return {s: maker.generate(ASSIGNMENT, s, [ASSIGNMENT])[ASSIGNMENT].decode() for s in students}


def page_path(course: Path, student: str) -> Path:
    return course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"


# The instructor's commands, and the surfaces as their users read them ---------------------------------------


@contextlib.contextmanager
def inside(folder: Path):
    """In the course folder, with a wide terminal (the tables unwrapped), as an instructor runs a command."""
    old, columns = Path.cwd(), os.environ.get("COLUMNS")
    os.chdir(folder)
    os.environ["COLUMNS"] = "400"
    try:
        yield
    finally:
        os.chdir(old)
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns


def command(course: Path, *args: str) -> str:
    """`autograder ARGS...` run in-process through the console script's `main`; its output. It must succeed."""
    from autograder.cli import main

    out, err = io.StringIO(), io.StringIO()
    with inside(course), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert code == 0 and not err.getvalue(), f"autograder {' '.join(args)}: {code} {err.getvalue()}"
    return out.getvalue()


def shown(points: float) -> str:
    """Points as the LMS texts show them (two decimals at most)."""
    text = f"{points:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def near(a: float | None, b: float, tolerance: float = 1e-6) -> bool:
    return a is not None and abs(a - b) <= tolerance


class Disagreements(list):
    """What a surface shows that the model does not, one line each."""

    def expect(self, ok: bool, surface: str, student: str, what: str, seen: object, model: object) -> None:
        if not ok:
            self.append(f"{surface}: {student}: {what} is {seen!r}, the rules give {model!r}")


def lateness_ok(seen: timedelta, e: Expected) -> bool:
    """How late work is: after the student's own due date. Work within the grace period is on time; whether its
    few minutes are shown is not documented, so 0 is right for it too (the surfaces must still agree)."""
    return seen == e.late_by or (e.outcome == "on time" and seen == timedelta(0))


def compare_surfaces(course: Path, want: dict[str, Expected], students: tuple[str, ...] = STUDENTS
                     ) -> Disagreements:
    """Every surface but the feedback page against the model, for `students` (not again for a course in a state,
    and a model, that were found to agree before: `_SAME`)."""
    key = (tree_digest(course), repr(want), students)
    if key in _SAME["surfaces"]:
        return Disagreements()
    found = _compared_surfaces(course, want, students)
    if not found:
        _SAME["surfaces"].add(key)
    return found


def _compared_surfaces(course: Path, want: dict[str, Expected], students: tuple[str, ...]) -> Disagreements:
    found = Disagreements()
    penalised = {s for s, e in want.items() if shown(e.penalty) != "0"}

    # The gradebook, through nbgrader's own API.
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        for s in students:
            sub = gb.find_submission(ASSIGNMENT, s)
            found.expect(near(sub.score, want[s].raw), "gradebook", s, "score", sub.score, want[s].raw)
            penalty = sub.late_submission_penalty or 0.0
            found.expect(near(penalty, want[s].penalty), "gradebook", s, "late_submission_penalty", penalty,
                         want[s].penalty)

    # `autograder scores`: its printed totals and its words about late penalties.
    out = command(course, "scores", ASSIGNMENT)
    before = "before late penalties" in out
    for s in students:
        row = re.search(rf"^{s}\s+(?:[\d.]+\s+)*?([\d.]+)\s*$", out, re.M)
        total = float(row.group(1)) if row else None
        model = want[s].raw if before else want[s].counted
        found.expect(near(total, model, 0.06), "autograder scores", s, "total", total, model)
        named = any(re.search(rf"\b{s}\b", line.split(":", 1)[-1]) for line in out.splitlines()
                    if "late penalt" in line)
        found.expect(named == (s in penalised) or (named is False and not before), "autograder scores", s,
                     "named as having a late penalty", named, s in penalised)

    # `autograder export --to canvas`: the score column.
    command(course, "export", ASSIGNMENT, "--to", "canvas")
    with open(course / "exports" / "canvas.csv", newline="") as file:
        by_id = {row[1]: row[-1] for row in csv.reader(file)}
    for s in students:
        cell = by_id.get(str(1001 + STUDENTS.index(s)))
        found.expect(cell == shown(want[s].counted), "canvas CSV", s, "score", cell, shown(want[s].counted))

    # `autograder export --to csv`: the breakdown's totals and its on-time/late column.
    command(course, "export", ASSIGNMENT, "--to", "csv")
    with open(course / "exports" / "csv.csv", newline="") as file:
        breakdown = {row["student_id"]: row for row in csv.DictReader(file)}
    for s in students:
        row, e = breakdown[s], want[s]
        for column, model in (("raw_score", e.raw), ("late_penalty", e.penalty), ("score", e.counted)):
            found.expect(row[column] == shown(model), "breakdown CSV", s, column, row[column], shown(model))
        found.expect(row["status"] == e.outcome, "breakdown CSV", s, "status", row["status"], e.outcome)
        seconds = timedelta(seconds=float(row["seconds_late"] or "nan"))
        found.expect(lateness_ok(seconds, e), "breakdown CSV", s, "seconds_late", row["seconds_late"],
                     e.late_by.total_seconds())

    # The LMS: `autograder push --dry-run` and the outbox's newest row (what the LMS has or is to get).
    out = command(course, "push", ASSIGNMENT, "--to", "canvas", "--dry-run")
    sent = {m[0]: (float(m[1]), m[2]) for m in re.findall(r"^\s+(\w+)\s+\S+\s+([\d.]+)/[\d.]+\s+(.*)$", out, re.M)}
    from autograder.grades.outbox import latest
    from autograder.lms.outbox_sender import open_outbox

    with open_outbox(course) as db:
        newest = {s: (row.score, row.comment) for s, row in latest(db, ASSIGNMENT).items()}
    for surface, seen in (("push --dry-run", sent), ("LMS outbox", newest)):
        for s in students:
            score, comment = seen.get(s, (None, ""))
            found.expect(near(score, want[s].counted, 0.006), surface, s, "score", score, want[s].counted)
            words = f"late penalty -{shown(want[s].penalty)}" if s in penalised else None
            has = re.search(r"late penalty -[\d.]+", comment)
            found.expect((has.group(0) if has else None) == words, surface, s, "late penalty words",
                         has.group(0) if has else None, words)

    # The class report's data: scores, and who was late, by how much, the points taken, exceptions, overrides.
    from autograder.report.data import collect

    data = collect(course, ASSIGNMENT)
    totals = {sub.student: sub.score for sub in data.submissions}
    rows = {row.student: row for row in data.deadlines}
    for s in students:
        e, row = want[s], rows.get(s)
        # Its total is the score before or after the late penalty (it shows the penalty beside it).
        found.expect(near(totals.get(s), e.raw) or near(totals.get(s), e.counted), "report", s, "score", totals.get(s),
                     (e.raw, e.counted))
        needed = bool(shown(e.penalty) != "0" or e.extension or e.label or e.overridden
                      or (e.late_by and e.outcome != "on time"))
        found.expect(row is not None or not needed, "report", s, "listed in the deadline section", False, True)
        late_by = row.late_by if row is not None else timedelta(0)
        found.expect(lateness_ok(late_by, e), "report", s, "late by", late_by, e.late_by)
        # One lateness wherever it is shown.
        in_csv = breakdown[s]["seconds_late"]
        found.expect(in_csv == shown(late_by.total_seconds()), "report and breakdown CSV", s, "seconds late",
                     (late_by.total_seconds(), in_csv), "the same")
        if row is not None:
            for what, seen, model, ok in (
                    ("penalty", row.penalty, e.penalty, near(row.penalty, e.penalty)),
                    ("due", row.due, e.due, row.due == e.due),
                    ("overrides", row.overrides, e.overridden, tuple(sorted(row.overrides)) == e.overridden)):
                found.expect(ok, "report", s, what, seen, model)

    # My assignments: the counted score and the due date for the student.
    from autograder.course.settings import read_course
    from autograder.hub.my_assignments import read_rows
    from autograder.watch.attempt_policy import Policy

    settings_ = read_course(course)
    for s in students:
        (mine,) = read_rows(settings_, Policy(), s, datetime(2026, 3, 1))
        found.expect(near(mine.grade, want[s].counted), "My assignments", s, "grade", mine.grade, want[s].counted)
        due = f"{want[s].due:%Y-%m-%d %H:%M:%S} UTC"
        found.expect(due in (mine.due or ""), "My assignments", s, "due date", _text(mine.due or ""), due)
    return found


def _text(html: str) -> str:
    """The words of some HTML, each tag a space."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def compare_page(page: str, e: Expected, points: dict[str, float], surface: str, student: str,
                 found: Disagreements) -> None:
    """A feedback page against the model: its totals, each cell's points (and who set them), the late penalty
    row and the deadline line, which say one thing."""
    total = f"{round(e.counted, 2):g} / {sum(points.values()):g}"
    heading = re.search(r"<h1>.*?</h1>", page, re.S)
    found.expect(heading is not None and total in heading.group(0), surface, student, "title's total",
                 _text(heading.group(0)) if heading else None, total)
    foot = re.search(r"<tfoot>.*?</tfoot>", page, re.S)
    found.expect(foot is not None and total in foot.group(0), surface, student, "Total row",
                 _text(foot.group(0)) if foot else None, total)
    late_row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*Late submission penalty(?:(?!</tr>).)*</tr>", page, re.S)
    penalty = re.search(r"-\s*([\d.]+)", _text(late_row.group(0))) if late_row else None
    model = round(e.penalty, 2) if shown(e.penalty) != "0" else None
    found.expect((float(penalty.group(1)) if penalty else None) == model, surface, student, "late penalty row",
                 _text(late_row.group(0)).strip() if late_row else None, model)
    line = re.search(r'<p class="deadline">(.*?)</p>', page, re.S)
    text = _text(line.group(1)) if line else ""
    due = f"{e.due:%Y-%m-%d %H:%M:%S} UTC"
    words = {"on time": "on time", "late": f"{e.credit:.0%}", "practice": "practice",
             "not accepted": "not accepted"}[e.outcome]
    says_on_time = "on time" in text
    found.expect(due in text and words in text and says_on_time == (e.outcome == "on time"), surface, student,
                 "deadline line", text, f"due {due}, {e.outcome} ({words})")
    for cell, score in e.cells.items():
        label = cell.removeprefix("test_")
        row = re.search(rf'<tr[^>]*>(?:(?!</tr>).)*href="#{cell}"(?:(?!</tr>).)*</tr>', page, re.S)
        got = re.search(rf"(?<![\w.])([\d.]+) / {points[cell]:g}\b", _text(row.group(0))) if row else None
        found.expect(got is not None and near(float(got.group(1)), score, 0.006), surface, student,
                     f"{label}'s points", _text(row.group(0)).strip() if row else None, score)
        if cell in e.overridden:
            title = re.search(rf'<h\d id="{cell}"[^>]*>.*?</h\d>', page, re.S)
            said = " ".join(_text(m.group(0)) for m in (row, title) if m)
            found.expect("instructor" in said.lower(), surface, student, f"{label}'s explanation", said,
                         "the instructor set it")


def compare_note(page: str, e: Expected, points: dict[str, float], student: str, found: Disagreements) -> None:
    """A page made before a change: its note says it is out of date and gives the grade as it is now
    (docs/instructors/deadlines.md)."""
    note = next((m.group(1) for m in re.finditer(r">([^<]*)<", page) if STALE_PAGE.search(m.group(1))), "")
    total = f"{round(e.counted, 2):g} / {sum(points.values()):g}"
    found.expect(total in note and ("on time" in note) <= (e.outcome == "on time"), "feedback page (out of date)",
                 student, "note", note.strip(), f"{total}, {e.outcome}")


# The machine ------------------------------------------------------------------------------------------------

class OneGrade(RuleBasedStateMachine):
    """A fresh copy of the graded class; each rule one instructor action, through the real command."""

    graded: Graded
    budget = 1  # grading runs (regrade, resubmission) per example: each costs a few CPU-seconds

    def __init__(self) -> None:
        super().__init__()
        self.scratch = self.graded.course.parent / f"copy-{id(self)}"
        self.course = self.scratch / "course"
        shutil.copytree(self.graded.course, self.course, symlinks=True)
        self.due, self.schedule = DUE, "course"
        self.students = {s: Student(DUE + after, variant) for s, (after, variant) in CLASS.items()}
        self.actions: list[str] = []
        self.grading_runs = 0
        self.consistent = False
        self.cells = sorted(self.graded.graders["reference"])  # the autograded cells
        self.watched = STUDENTS  # whose grade every surface is compared for

    def run(self, *args: str) -> str:
        self.consistent = False
        self.actions.append("autograder " + " ".join(args))
        return command(self.course, *args)

    def read_by_next_command(self) -> None:
        """A change made outside our commands is found by the next command that reads the course."""
        command(self.course, "exceptions", ASSIGNMENT)

    def want(self) -> dict[str, Expected]:
        return {s: expected(self.due, self.schedule, state, self.graded.graders) for s, state in self.students.items()}

    # Extensions, labels, overrides ---------------------------------------------------------------------------
    @rule(student=st.sampled_from(STUDENTS), length=st.sampled_from(("12h", "3d", "10d")), until=st.booleans())
    def extend(self, student: str, length: str, until: bool) -> None:
        if until:  # the same length as a date, in another zone
            date = (self.due + DURATIONS[length]).astimezone(BERLIN).isoformat()
            self.run("extend", ASSIGNMENT, student, "--until", date, "--reason", "illness")
        else:
            self.run("extend", ASSIGNMENT, student, "--by", length, "--reason", "illness")
        self.students[student].extension = DURATIONS[length]

    @precondition(lambda self: any(s.extension for s in self.students.values()))
    @rule(data=st.data())
    def revoke(self, data) -> None:
        student = data.draw(st.sampled_from(sorted(s for s, x in self.students.items() if x.extension)))
        self.run("extend", ASSIGNMENT, student, "--revoke", "--reason", "granted by mistake")
        self.students[student].extension = None

    @rule(student=st.sampled_from(STUDENTS), on=st.booleans())
    def label(self, student: str, on: bool) -> None:
        self.run("label", student, *(("--set", LABEL) if on else ("--remove",)), "--reason", "accommodation letter")
        self.students[student].label = on

    @rule(student=st.sampled_from(STUDENTS), cell=st.integers(0, 5), share=st.sampled_from((0.0, 0.5, 1.0)))
    def override(self, student: str, cell: int, share: float) -> None:
        name = self.cells[cell]
        score = self.graded.points[name] * share
        self.run("override", ASSIGNMENT, student, "--cell", name, "--score", f"{score:g}", "--reason", "dispute")
        self.students[student].overrides[name] = score

    @precondition(lambda self: any(s.overrides for s in self.students.values()))
    @rule(data=st.data())
    def remove_override(self, data) -> None:
        student, name = data.draw(st.sampled_from(sorted((s, c) for s, x in self.students.items()
                                                         for c in x.overrides)))
        self.run("override", ASSIGNMENT, student, "--cell", name, "--remove", "--reason", "dispute withdrawn")
        del self.students[student].overrides[name]

    @rule(student=st.sampled_from(STUDENTS), cell=st.integers(0, 5), share=st.sampled_from((0.0, 0.5, 1.0)))
    def formgrader_score(self, student: str, cell: int, share: float) -> None:
        """A score typed over the graders' in the formgrader: its REST handler's write, through nbgrader's API."""
        name = self.cells[cell]
        score = self.graded.points[name] * share
        self.consistent = False
        self.actions.append(f"formgrader: {student} {name} = {score:g}")
        with Gradebook(f"sqlite:///{self.course}/gradebook.db") as gb:
            found = gb.find_grade(name, ASSIGNMENT, ASSIGNMENT, student)
            found.manual_score, found.extra_credit = score, None
            found.needs_manual_grade = False
            gb.db.commit()
        self.students[student].overrides[name] = score
        self.read_by_next_command()

    # The rules of the course changed after grading ------------------------------------------------------------
    @rule(data=st.data())
    def change_schedule(self, data) -> None:
        schedule = data.draw(st.sampled_from([name for name in SCHEDULES if name != self.schedule]))
        config = self.course / "nbgrader_config.py"
        text = config.read_text()
        assert late_rules(self.schedule) in text
        config.write_text(text.replace(late_rules(self.schedule), late_rules(schedule)))
        self.consistent = False
        self.actions.append(f"nbgrader_config.py: c.LateCredit.schedule, after = {SCHEDULES[schedule]}")
        self.schedule = schedule
        self.read_by_next_command()

    @rule(data=st.data())
    def move_due_date(self, data) -> None:
        """`nbgrader db assignment add A --duedate=...`, nbgrader's own command, run in this process."""
        from nbgrader.apps.dbapp import DbAssignmentAddApp

        due = data.draw(st.sampled_from([DUE + timedelta(days=d) for d in (-1, 0, 1, 2) if d != (self.due - DUE).days]))
        text = f"{due.astimezone(BERLIN):%Y-%m-%d %H:%M:%S} Europe/Berlin"
        self.consistent = False
        self.actions.append(f"nbgrader db assignment add {ASSIGNMENT} --duedate='{text}'")
        app = DbAssignmentAddApp()
        with inside(self.course):
            app.initialize([ASSIGNMENT, f"--duedate={text}"])
            app.start()
        self.due = due
        self.read_by_next_command()

    # Grading again -------------------------------------------------------------------------------------------
    @precondition(lambda self: self.grading_runs < self.budget)
    @rule(student=st.sampled_from(STUDENTS))
    def regrade(self, student: str) -> None:
        self.grading_runs += 1
        self.consistent = False
        self.actions.append(f"autograder regrade {ASSIGNMENT} --student {student}")
        done = cli(self.course, "regrade", ASSIGNMENT, "--student", student)
        assert done.returncode == 0, done.stderr

    @precondition(lambda self: self.grading_runs < self.budget)
    @rule(student=st.sampled_from(STUDENTS), variant=st.sampled_from(tuple(VARIANTS)),
          after=st.sampled_from(("-30m", "5m", "1d", "3d", "9d")))
    def resubmit(self, student: str, variant: str, after: str) -> None:
        """New work collected (at a later time than the last) and `autograder grade` run, as after a collect."""
        sign = -1 if after.startswith("-") else 1
        length = {"30m": timedelta(minutes=30), "5m": timedelta(minutes=5), "1d": timedelta(days=1),
                  "3d": timedelta(days=3), "9d": timedelta(days=9)}[after.lstrip("-")]
        when = self.due + sign * length
        if when <= self.students[student].arrived:
            return  # the exchange's time only moves on: nothing newer to collect
        self.grading_runs += 1
        self.consistent = False
        self.actions.append(f"resubmission by {student} ({variant}) at {when:%Y-%m-%d %H:%M} UTC; autograder grade")
        stamp(submit(self.course, student, VARIANTS[variant]).parent, when)
        done = grade(self.course)
        assert done.returncode == 0, done.stderr
        self.students[student] = replace(self.students[student], arrived=when, variant=variant)

    # After each step --------------------------------------------------------------------------------------------
    @invariant()
    def every_surface_shows_the_model(self) -> None:
        found = compare_surfaces(self.course, self.want(), self.watched)
        assert not found, self.story(found)
        self.consistent = True

    def story(self, found: list[str]) -> str:
        steps = "\n".join(f"  {i + 1}. {a}" for i, a in enumerate(self.actions)) or "  (none: as graded)"
        return f"after these actions:\n{steps}\nthese surfaces disagree with the rules:\n  " + "\n  ".join(found)

    def teardown(self) -> None:
        try:
            if self.consistent:  # the feedback pages: the slowest surface, once per example
                want = self.want()
                found = Disagreements()
                for s in self.watched:  # the page the student has: as the rules say, or saying it is out of date
                    page = page_path(self.course, s).read_text()
                    if STALE_PAGE.search(page):
                        compare_note(page, want[s], self.graded.points, s, found)
                    else:
                        compare_page(page, want[s], self.graded.points, "feedback page (as left)", s, found)
                for s, page in feedback_pages(self.course, self.watched).items():
                    compare_page(page, want[s], self.graded.points, "feedback page (made now)", s, found)
                assert not found, self.story(found)
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)


def test_any_sequence_of_instructor_actions_leaves_one_grade_everywhere(graded):
    # About 7 CPU-seconds an example. No shrinking (each try would copy and read a course again): the failure
    # lists the actions that led to it.
    OneGrade.graded = graded
    run_state_machine_as_test(OneGrade, settings=settings(
        max_examples=10, stateful_step_count=5, deadline=None, derandomize=True, database=None,
        phases=[Phase.generate], suppress_health_check=list(HealthCheck)))


def test_an_extension_for_a_student_graded_late_is_seen_everywhere_without_a_regrade(graded):
    """The issue's first case, as a sequence of its own: extended by 3 days, the student graded 20 h late is on
    time, full credit, on every surface, their feedback page included."""
    OneGrade.graded = graded
    machine = OneGrade()
    machine.watched = ("late",)
    try:
        machine.every_surface_shows_the_model()
        machine.extend("late", "3d", until=False)
        machine.every_surface_shows_the_model()
    finally:
        machine.teardown()


def test_a_resubmission_graded_by_autograder_grade_marks_the_page_made_before_it(graded):
    """A wider draw found it: the course's page made before a resubmission was graded kept the old total (46 of 46
    where the gradebook held 40), since only a settled-again grade marked pages, not a grading run's."""
    OneGrade.graded = graded
    machine = OneGrade()
    machine.watched = ("ontime",)
    try:
        machine.resubmit("ontime", "axis-0", "5m")
        machine.every_surface_shows_the_model()
    finally:
        machine.teardown()
