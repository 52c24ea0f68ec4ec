"""What a regrade changed: per student, the score before and after, and the exercises and checks that
moved; printed as a table and written as CSV (`autograder.lms.table`, which keeps formulas out)."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from rich import box
from rich.table import Table
from rich.text import Text

from autograder.display.terminal import cell as text_cell
from autograder.grading.model import CellResult
from autograder.lms.gradebook import fmt
from autograder.lms.table import Table as CsvTable
from autograder.regrade.no_decrease import Kept
from autograder.regrade.snapshot import Cell, Snapshot

EPSILON = 1e-9


@dataclass(frozen=True)
class CheckChange:
    name: str
    before: tuple[float, float] | None  # (earned, points); None: no such check then
    after: tuple[float, float] | None

    def text(self) -> str:
        def shown(value: tuple[float, float] | None) -> str:
            return "—" if value is None else f"{fmt(value[0])}/{fmt(value[1])}"
        return f"{self.name} {shown(self.before)} → {shown(self.after)}"


@dataclass(frozen=True)
class ExerciseChange:
    label: str
    before: float | None  # the cell's score in the gradebook (manual if any, else auto)
    after: float | None
    auto_after: float | None
    manual: float | None
    checks: tuple[CheckChange, ...] = ()
    self_check: str = ""  # "passed → failed" when the visible self-check's verdict changed
    kept: Kept | None = None

    @property
    def disagrees(self) -> bool:
        """An instructor's manual score that is not what the graders now give."""
        return self.manual is not None and self.auto_after is not None and abs(self.manual - self.auto_after) > EPSILON

    def text(self) -> str:
        kept = f" (kept; graders now {fmt(self.kept.graders)})" if self.kept else ""
        head = f"{self.label} {_points(self.before)} → {_points(self.after)}{kept}"
        details = [c.text() for c in self.checks] + ([f"self-check {self.self_check}"] if self.self_check else [])
        return head + (": " + ", ".join(details) if details else "")


@dataclass(frozen=True)
class StudentChange:
    student: str
    before: float | None
    after: float | None
    exercises: tuple[ExerciseChange, ...]
    replaced: tuple[str, ...] = ()  # --no-decrease: notebooks not the ones graded before, whose new grading stands

    @property
    def delta(self) -> float:
        return (self.after or 0.0) - (self.before or 0.0)

    @property
    def notes(self) -> list[str]:
        notes = [f"{name}: not the notebook graded before, new grading stands" for name in self.replaced]
        notes += [f"{e.label}: kept {fmt(e.kept.kept)}, graders now {fmt(e.kept.graders)}" for e in self.exercises
                  if e.kept]
        notes += [f"{e.label}: manual {fmt(e.manual)} ≠ new auto {fmt(e.auto_after)}" for e in self.exercises
                  if e.disagrees and e.manual is not None and e.auto_after is not None]
        return notes


@dataclass
class Diff:
    changed: list[StudentChange] = field(default_factory=list)
    unchanged: int = 0

    @property
    def gained(self) -> list[StudentChange]:
        return [s for s in self.changed if s.delta > EPSILON]

    @property
    def lost(self) -> list[StudentChange]:
        return [s for s in self.changed if s.delta < -EPSILON]

    @property
    def kept(self) -> list[str]:
        """Students for whom --no-decrease kept a score."""
        return [s.student for s in self.changed if any(e.kept for e in s.exercises)]

    @property
    def replaced(self) -> list[str]:
        """Students whose notebook was not the one graded before, so --no-decrease kept nothing of it."""
        return [s.student for s in self.changed if s.replaced]

    @property
    def disagreements(self) -> list[tuple[str, str]]:
        """(student, exercise) where a manual score now disagrees with the graders."""
        return [(s.student, e.label) for s in self.changed for e in s.exercises if e.disagrees]


def _points(value: float | None) -> str:
    return "—" if value is None else fmt(value)


def compare(before: Snapshot, after: Snapshot, checks_before: dict[str, dict[str, CellResult]],
            checks_after: dict[str, dict[str, CellResult]], students: Iterable[str],
            kept: dict[str, list[Kept]] | None = None, order: list[str] = (),
            replaced: dict[str, list[str]] | None = None) -> Diff:
    """The change of each student in `students` from `before` to `after`. `order`: grade cell ids in the
    notebook's order (the gradebook keeps none); `kept`: what --no-decrease kept, by student; `replaced`: the
    notebooks it kept nothing of (not the ones graded before), by student."""
    rank = {name: i for i, name in enumerate(order)}
    diff = Diff()
    for student in students:
        old, new = before.cells.get(student, {}), after.cells.get(student, {})
        held = {k.grade_id: k for k in (kept or {}).get(student, [])}
        exercises = []
        for key in sorted(old.keys() | new.keys(), key=lambda k: (rank.get(k[1], len(rank)), k)):
            was, now = old.get(key), new.get(key)
            if not (_moved(was, now) or key[1] in held):
                continue
            cb = checks_before.get(student, {}).get(key[1])
            ca = checks_after.get(student, {}).get(key[1])
            exercises.append(ExerciseChange(
                after.label(key) if now else before.label(key), was.score if was else None,
                now.score if now else None, now.auto if now else None, now.manual if now else None,
                _checks(cb, ca), _self_check(cb, ca), held.get(key[1])))
        if exercises or (replaced or {}).get(student):  # a notebook graded afresh is said, even if no score moved
            diff.changed.append(StudentChange(student, before.total(student), after.total(student), tuple(exercises),
                                              tuple((replaced or {}).get(student, ()))))
        else:
            diff.unchanged += 1
    diff.changed.sort(key=lambda s: (s.delta, s.student))  # who loses most first
    return diff


def _moved(was: Cell | None, now: Cell | None) -> bool:
    if was is None or now is None:
        return was is not now
    return abs(was.score - now.score) > EPSILON or (was.auto is None) != (now.auto is None) or (
        was.auto is not None and now.auto is not None and abs(was.auto - now.auto) > EPSILON)


def _cases(cell: CellResult | None) -> dict[str, tuple[float, float]]:
    if cell is None or cell.exercise is None:
        return {}
    return {case.name: (case.earned, case.points) for case in cell.exercise.cases}


def _checks(before: CellResult | None, after: CellResult | None) -> tuple[CheckChange, ...]:
    """The checks whose lost points changed (a check that appeared or went counts if it loses points); none
    when either side has no result file to say."""
    if before is None or after is None:
        return ()
    old, new = _cases(before), _cases(after)

    def lost(value: tuple[float, float] | None) -> float:
        return 0.0 if value is None else value[1] - value[0]

    return tuple(CheckChange(name, old.get(name), new.get(name)) for name in list(dict.fromkeys([*old, *new]))
                 if abs(lost(old.get(name)) - lost(new.get(name))) > EPSILON)


def _self_check(before: CellResult | None, after: CellResult | None) -> str:
    if before is None or after is None or bool(before.visible_error) == bool(after.visible_error):
        return ""
    return "passed → failed" if after.visible_error else "failed → passed"


# Output ----------------------------------------------------------------------------------------------------

HEADER = ["student", "score_before", "score_after", "change", "exercises_and_checks", "notes"]


def _change(student: StudentChange) -> str:
    if student.before is None or student.after is None:
        return "new" if student.before is None else "gone"
    return f"{student.delta:+.2f}".rstrip("0").rstrip(".") if abs(student.delta) > EPSILON else "0"


def table(diff: Diff, title: str) -> Table:
    """The changed students, one a row, each changed exercise on a line of its own. Every text that names a
    student goes through `terminal.cell`: an id cannot drive the terminal."""
    out = Table(title=text_cell(title), box=box.SIMPLE_HEAD, title_justify="left", show_edge=False, pad_edge=False)
    out.add_column("student", no_wrap=True)
    out.add_column("before", justify="right")
    out.add_column("after", justify="right")
    out.add_column("change", justify="right")
    out.add_column("exercises and checks that changed")
    out.add_column("notes")
    for student in diff.changed:
        style = "green" if student.delta > EPSILON else "red" if student.delta < -EPSILON else ""
        out.add_row(text_cell(student.student), _points(student.before), _points(student.after),
                    Text(_change(student), style=style),
                    text_cell("\n".join(e.text() for e in student.exercises)),
                    text_cell("\n".join(student.notes), style="yellow"))
    return out


def csv_text(diff: Diff) -> str:
    rows = [[s.student, _points(s.before).replace("—", ""), _points(s.after).replace("—", ""), _change(s),
             "; ".join(e.text() for e in s.exercises), "; ".join(s.notes)] for s in diff.changed]
    return CsvTable(list(HEADER), rows).to_csv()


def summary(diff: Diff) -> str:
    return (f"{len(diff.changed)} changed ({len(diff.gained)} gained, {len(diff.lost)} lost), "
            f"{diff.unchanged} unchanged")
