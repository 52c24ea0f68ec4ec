"""The audit trail: every grading run (`grade`, `watch`, `regrade`) and, per student it graded, the score
before and after, kept in the course's gradebook beside nbgrader's tables.

Two tables of our own, made and upgraded by our migrations (`autograder.migrations`) when the gradebook
writer opens the gradebook, in SQLite or on a server: `autograder_grading_run` (when, by which OS user,
kind, grader version, options) and `autograder_grading_score` (run, student, score before and after).
Neither has a foreign key into nbgrader's tables, so nbgrader's own commands (removing a student,
`nbgrader db upgrade`) never trip on them. The gradebook writer hands each batch's rows to
`AuditTrail.write` inside the batch's transaction: a run's trail holds exactly the students whose grades
were committed.

A grader version is a content hash of what decides a score: the assignment's grader package and every
module of this package those graders import, and the instructor's files (the source notebook,
`selfcheck.py`, ...).
"""

import hashlib
import os
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.grades.stamps import now_text, os_user

RUN_TABLE = "autograder_grading_run"
SCORE_TABLE = "autograder_grading_score"
KINDS = ("grade", "watch", "regrade")
SHORT = 12  # hex digits of a grader version shown to people


# Grader versions --------------------------------------------------------------------------------------


def grader_files(assignment: str) -> list[Path]:
    """The files whose code decides this assignment's scores: its grader package (every file in it) and
    the modules of this package they import, followed import by import, with their packages' `__init__`."""
    import autograder
    from autograder.grader_support.exercise import assignment_folder

    root = Path(autograder.__file__).resolve().parent
    package = assignment_folder(assignment) or root / "graders" / assignment
    found: dict[str, None] = {}
    todo = [str(p) for p in sorted(package.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    modules: set[str] = set()
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found[path] = None
        if path.endswith(".py"):
            for name in _imported(path) - modules:
                modules.add(name)
                todo += _module_files(str(root), name)
    return sorted(Path(path) for path in found)


# Import statements, read as text (parsing each file would cost more than the rest of the hash): `import
# autograder.x` and `from autograder.x import a, b as c` (parenthesised over several lines or not).
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(autograder[\w.]*)", re.MULTILINE)
_FROM = re.compile(r"^[ \t]*from[ \t]+(autograder[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)


def _imported(path: str) -> set[str]:
    """`autograder...` modules a file imports (for `from a import b`, also `a.b`, which may be a module)."""
    with open(path, encoding="utf-8", errors="replace") as file:
        text = file.read()
    names = set(_IMPORT.findall(text))
    for module, imported in _FROM.findall(text):
        names.add(module)
        for alias in imported.split("#")[0].strip("()").split(","):
            if alias.split():
                names.add(f"{module}.{alias.split()[0]}")
    return names


def _module_files(root: str, name: str) -> list[str]:
    parts = name.split(".")[1:]
    files = [os.path.join(root, *parts[:i], "__init__.py") for i in range(len(parts) + 1)]
    files += [os.path.join(root, *parts) + ".py"] if parts else []
    return [f for f in files if os.path.isfile(f)]


def grader_version(assignment: str, source: Path, ignore: Iterable[str] = ()) -> str:
    """The content hash (SHA-256, hex) of the assignment's graders and of the instructor's files in
    `source` (the assignment's source folder; names matching `ignore` are left out, as nbgrader does)."""
    import autograder
    from autograder.grader_support.exercise import assignment_folder
    from autograder.grading.autograded import regular_files

    root = Path(autograder.__file__).resolve().parent
    digest = hashlib.sha256()

    def add(label: str, name: str, data: bytes) -> None:
        digest.update(f"{label}\0{name}\0{len(data)}\0".encode())
        digest.update(data)

    own = assignment_folder(assignment)
    for path in grader_files(assignment):
        # A course's own graders (outside this package) are named from their graders folder.
        name = path.relative_to(root) if path.is_relative_to(root) else "graders" / path.relative_to(own.parent)
        add("graders", name.as_posix(), path.read_bytes())
    if source.is_dir():
        for rel in sorted(regular_files(source, list(ignore))):
            add("source", rel.as_posix(), (source / rel).read_bytes())
    return digest.hexdigest()


def short(version: str | None) -> str:
    return version[:SHORT] if version else "—"


def trail(kind: str, settings: Any, assignments: Iterable[str], options: str = "") -> "AuditTrail":
    """The audit trail of a run of `kind` over `assignments` of the course (`CourseSettings`), with the
    grader version of each as it is on disk now."""
    ignore = list(settings.coursedir.ignore)
    return AuditTrail(kind, {a: grader_version(a, settings.path("source", ".", a), ignore) for a in assignments},
                      options)


def options_text(*flags: str, force: bool = False, students: Iterable[str] | None = None) -> str:
    """The options a run was given, as the audit row keeps them."""
    words = [flag for flag in flags if flag] + ["--force"] * force
    return " ".join(words + [f"--student {student}" for student in students or []])


# Writing: one run row per run and assignment, one score row per student graded --------------------------


class AuditTrail:
    """What the gradebook writer records of one grading run. The writer calls `before` as it stages a
    student, `write` before committing a batch (same transaction), `discard` when it rolls back. A writer
    kept for many runs (the watcher's) calls `new_run` before each."""

    def __init__(self, kind: str, versions: dict[str, str], options: str = "", user: str | None = None) -> None:
        """`versions`: the grader version of each assignment this run may grade."""
        if kind not in KINDS:
            raise ValueError(f"unknown kind of grading run {kind!r}")
        self.kind, self.versions, self.options = kind, versions, options
        self.user = user if user is not None else os_user()
        self.started = now_text()
        self._runs: dict[str, str] = {}  # assignment -> id of its run row, once written
        self._uncommitted: list[str] = []  # assignments whose run row the open transaction holds
        self._staged: list[tuple[str, str, str, float | None]] = []  # (assignment, student, submission, before)

    def new_run(self) -> None:
        self._runs.clear()
        self._uncommitted.clear()
        self.started = now_text()

    def before(self, db: Any, assignment: str, student: str, submission_id: str, new: bool) -> None:
        """Note a student being graded; their score before (None: no submission in the gradebook until now)
        is read now, before their rows change."""
        score = None if new else _totals(db, [submission_id]).get(submission_id, 0.0)
        self._staged.append((assignment, student, submission_id, score))

    def write(self, db: Any) -> None:
        """The run rows and score rows of the staged students, after the batch's grades were sent (so their
        totals read as they will be committed)."""
        self._uncommitted.clear()  # the previous transaction committed: the writer discards on failure
        staged, self._staged = self._staged, []
        if not staged:
            return
        after = _totals(db, [submission for _, _, submission, _ in staged])
        for assignment in dict.fromkeys(a for a, _, _, _ in staged):
            if assignment not in self._runs:
                self._runs[assignment] = uuid.uuid4().hex
                self._uncommitted.append(assignment)
                db.write(f"INSERT INTO {RUN_TABLE} (id, assignment, kind, started_at, os_user, grader_version, "
                         "options) VALUES (:id, :assignment, :kind, :started, :user, :version, :options)",
                         [{"id": self._runs[assignment], "assignment": assignment, "kind": self.kind,
                           "started": self.started, "user": self.user[:128],
                           "version": self.versions.get(assignment, ""), "options": self.options[:1024]}])
        db.write(f"INSERT INTO {SCORE_TABLE} (run_id, student_id, score_before, score_after) "
                 "VALUES (:run, :student, :before, :after)",
                 [{"run": self._runs[assignment], "student": student, "before": before,
                   "after": after.get(submission, 0.0)} for assignment, student, submission, before in staged])

    def discard(self) -> None:
        """The open transaction was rolled back: its students, and any run row it wrote, are gone."""
        self._staged.clear()
        for assignment in self._uncommitted:
            self._runs.pop(assignment, None)
        self._uncommitted.clear()


def _totals(db: Any, submissions: list[str]) -> dict[str, float]:
    """Each submission's raw score (`grades.arithmetic.cell_score` summed: nbgrader's `SubmittedAssignment.score`)."""
    from autograder.grades.arithmetic import cell_score

    if not submissions:
        return {}
    names = {f"s{i}": submission for i, submission in enumerate(submissions)}
    listed = ", ".join(":" + name for name in names)
    totals = dict.fromkeys(submissions, 0.0)
    for submission, auto, manual, extra in db.rows(
            "SELECT sn.assignment_id, g.auto_score, g.manual_score, g.extra_credit FROM submitted_notebook sn "
            f"JOIN grade g ON g.notebook_id = sn.id WHERE sn.assignment_id IN ({listed})", names):
        totals[submission] += cell_score(auto, manual, extra)
    return totals


# Reading ----------------------------------------------------------------------------------------------

Query = Callable[[str, dict[str, Any]], list[tuple]]


@dataclass(frozen=True)
class Run:
    id: str
    assignment: str
    kind: str
    started_at: str  # UTC
    user: str
    version: str
    options: str
    students: int  # graded in this run
    changed: int  # whose score after differs from before (a first grade counts)


@dataclass(frozen=True)
class StudentRun:
    run: Run
    student: str
    before: float | None
    after: float | None


def has_trail(query: Query, sqlite: bool) -> bool:
    """Whether the gradebook holds the trail's tables (asked without touching them: a failed statement would
    end a server's transaction)."""
    if sqlite:
        found = query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = :n", {"n": RUN_TABLE})
    else:
        found = query("SELECT table_name FROM information_schema.tables WHERE table_name = :n", {"n": RUN_TABLE})
    return bool(found)


def sqlalchemy_query(gradebook: Any) -> Query | None:
    """A `Query` on nbgrader's open `Gradebook`, or None when the gradebook has no trail yet (reading never
    creates the tables)."""
    from sqlalchemy import inspect, text

    if not inspect(gradebook.engine).has_table(RUN_TABLE):
        return None
    return lambda sql, params: [tuple(row) for row in gradebook.db.execute(text(sql), params).all()]


def runs(query: Query, assignment: str) -> list[Run]:
    """Every run that graded someone in `assignment`, oldest first."""
    found = query(
        f"SELECT r.id, r.assignment, r.kind, r.started_at, r.os_user, r.grader_version, r.options, "
        f"COUNT(s.student_id), SUM(CASE WHEN s.score_before IS NULL OR s.score_after IS NULL "
        f"OR ABS(s.score_before - s.score_after) > 1e-9 THEN 1 ELSE 0 END) "
        f"FROM {RUN_TABLE} r JOIN {SCORE_TABLE} s ON s.run_id = r.id WHERE r.assignment = :a "
        f"GROUP BY r.id, r.assignment, r.kind, r.started_at, r.os_user, r.grader_version, r.options", {"a": assignment})
    return sorted((Run(*row[:7], int(row[7]), int(row[8] or 0)) for row in found), key=lambda r: (r.started_at, r.id))


def student_runs(query: Query, assignment: str, student: str | None = None) -> list[StudentRun]:
    """Each student's score before and after every run that graded them (or only `student`), oldest first."""
    by_id = {run.id: run for run in runs(query, assignment)}
    where = " AND s.student_id = :s" if student is not None else ""
    found = query(f"SELECT s.run_id, s.student_id, s.score_before, s.score_after FROM {SCORE_TABLE} s "
                  f"JOIN {RUN_TABLE} r ON s.run_id = r.id WHERE r.assignment = :a{where}",
                  {"a": assignment, **({"s": student} if student is not None else {})})
    rows = [StudentRun(by_id[run_id], who, before, after) for run_id, who, before, after in found if run_id in by_id]
    return sorted(rows, key=lambda r: (r.run.started_at, r.run.id, r.student))


def versions_by_student(query: Query, assignment: str) -> dict[str, StudentRun]:
    """Each student's latest run: the grader version their current score comes from."""
    latest: dict[str, StudentRun] = {}
    for row in student_runs(query, assignment):
        latest[row.student] = row  # oldest first: the last one wins
    return latest


def graded_by_other_graders(query: Query, sqlite: bool, assignment: str, version: str,
                            students: Iterable[str]) -> list[str]:
    """Those of `students` whose current score comes from a recorded run with other graders than `version`
    (students graded before the trail, or by plain nbgrader, are not known to be and are left out)."""
    if not has_trail(query, sqlite):
        return []
    latest = versions_by_student(query, assignment)
    return [s for s in students if s in latest and latest[s].run.version != version]
