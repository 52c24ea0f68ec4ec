"""The single writer: applies graded submissions to nbgrader's gradebook and the `autograded/` folder,
as `nbgrader autograde` would leave them, so `generate_feedback`, `export` and the formgrader work on them.

Submissions are committed in batches (one transaction for a few dozen students: their students,
submissions, per-cell auto scores, comments, late penalties), and each student's autograded folder is
built beside its place but swapped in only after its batch committed. A crash mid-class leaves every
student of an earlier batch as graded; the students of the batch in progress are either all graded or
none of them (and are graded again next run), never half-written.
"""

import dataclasses
import fnmatch
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import nbformat
import sqlalchemy.exc
from nbgrader import utils as nbutils
from nbgrader.api import Comment, Grade, Gradebook, MissingEntry, Student, SubmittedAssignment, SubmittedNotebook

from autograder.assemble import SourceCell, SourceNotebook
from autograder.engine import Outcome
from autograder.results import RESULT_FILE


class GradebookError(Exception):
    """The gradebook cannot be used (locked, unreadable); a one-line message."""


class GradebookWriter:
    def __init__(self, db_url: str, course_id: str, lock_seconds: float = 30.0) -> None:
        try:
            self.gb = Gradebook(db_url, course_id)
            if db_url.startswith("sqlite"):
                self.gb.db.connection().exec_driver_sql(f"PRAGMA busy_timeout = {int(lock_seconds * 1000)}")
        except sqlalchemy.exc.OperationalError as exc:
            raise GradebookError(f"cannot open the gradebook {db_url}: {_short(exc)}") from None
        self.lock_seconds = lock_seconds
        # This writer is the only one changing these rows during a run: keeping the assignment's structure
        # (notebooks, cells) loaded across commits saves re-reading it for every student.
        self.gb.db.expire_on_commit = False
        self._assignments: dict[str, Any] = {}

    def close(self) -> None:
        self.gb.close()

    # reading ------------------------------------------------------------------------------------
    def has_assignment(self, assignment: str) -> bool:
        try:
            self.gb.find_assignment(assignment)
            return True
        except MissingEntry:
            return False

    def source_notebooks(self, assignment: str) -> list[SourceNotebook]:
        notebooks = []
        for nb in self.gb.find_assignment(assignment).notebooks:
            source = SourceNotebook(nb.name)
            # In the order the gradebook returns them, which is the order nbgrader's add_missing_cells uses.
            for cell in nb.source_cells:
                source.cells.append(SourceCell(cell.name, cell.cell_type, bool(cell.locked), cell.source,
                                               cell.checksum))
            source.grade_cells = {c.name: float(c.max_score) for c in nb.grade_cells}
            source.solution_cells = {c.name for c in nb.solution_cells}
            source.task_cells = {c.name: float(c.max_score) for c in nb.task_cells}
            notebooks.append(source)
        return sorted(notebooks, key=lambda n: n.name)

    # writing ------------------------------------------------------------------------------------
    def record(self, outcome: Outcome, timestamp: str | None, cells: dict[str, list[Any]]) -> None:
        """One transaction: the student, the submission and every grade of it. `cells` gives each
        notebook's executed cells (for solution-cell comments and manually graded cells)."""
        self.add(outcome, timestamp, cells)
        self.commit()

    def add(self, outcome: Outcome, timestamp: str | None, cells: dict[str, list[Any]]) -> None:
        """Stage one student's rows in the open transaction; nothing is written for good until `commit`.
        On any error the whole open transaction (every student staged since the last commit) is rolled
        back: the caller must then drop those students' staged files too."""
        self._guarded(self._record, outcome.result, timestamp, cells)

    def commit(self) -> None:
        """Write every staged student in one transaction (one flush: the ORM inserts each table's new rows
        with one executemany, and the journal is synced once per batch instead of once per student)."""
        self._guarded(self.gb.db.commit)

    def rollback(self) -> None:
        self.gb.db.rollback()

    def _guarded(self, action: Any, *args: Any) -> None:
        try:
            action(*args)
        except sqlalchemy.exc.OperationalError as exc:
            self.rollback()
            if "locked" in str(exc):
                raise GradebookError(f"the gradebook is locked by another program (waited {self.lock_seconds:g} s)"
                                     ) from None
            raise GradebookError(f"cannot write the gradebook: {_short(exc)}") from None
        except BaseException:
            self.rollback()
            raise

    def _record(self, result: Any, timestamp: str | None, cells: dict[str, list[Any]]) -> None:
        db = self.gb.db
        with db.no_autoflush:
            student = db.query(Student).filter(Student.id == result.student).one_or_none()
            if student is None:
                student = Student(id=result.student)
                db.add(student)
            submission = self._submission(result.assignment, student, timestamp)
            scores = {c.grade_id: c.score for c in result.cells}
            for notebook in submission.notebooks:
                self._grade_notebook(notebook, scores, cells.get(notebook.name), result.status)
            late = submission.total_seconds_late > 0
            if late:
                db.flush()  # the notebooks' scores (SQL expressions) are read for the penalty
            for notebook in submission.notebooks:
                notebook.late_submission_penalty = None
                if late:
                    from nbgrader.plugins import LateSubmissionPlugin

                    penalty = LateSubmissionPlugin().late_submission_penalty(
                        result.student, notebook.score, submission.total_seconds_late)
                    if penalty is not None:
                        notebook.late_submission_penalty = min(max(penalty, 0), notebook.score)

    def _submission(self, assignment_name: str, student: Student, timestamp: str | None) -> SubmittedAssignment:
        db = self.gb.db
        if assignment_name not in self._assignments:
            self._assignments[assignment_name] = self.gb.find_assignment(assignment_name)
        assignment = self._assignments[assignment_name]
        submission = db.query(SubmittedAssignment).filter(
            SubmittedAssignment.assignment_id == assignment.id,
            SubmittedAssignment.student_id == student.id).one_or_none()
        if submission is None:  # as Gradebook.add_submission, without its commit
            submission = SubmittedAssignment(assignment=assignment, student=student)
            db.add(submission)
        # Every notebook, grade and comment the assignment has, whether the submission is new or was left
        # incomplete; SQLAlchemy 2 no longer adds objects reached through a backref, so each is added here.
        have = {nb.notebook_id: nb for nb in submission.notebooks}
        for notebook in assignment.notebooks:
            nb = have.get(notebook.id)
            if nb is None:
                nb = SubmittedNotebook(notebook=notebook, assignment=submission)
                db.add(nb)
            grades = {g.cell_id for g in nb.grades}
            comments = {c.cell_id for c in nb.comments}
            for cell in [*notebook.grade_cells, *notebook.task_cells]:
                if cell.id not in grades:
                    db.add(Grade(cell_id=cell.id, notebook=nb))
            for cell in [*notebook.solution_cells, *notebook.task_cells]:
                if cell.id not in comments:
                    db.add(Comment(cell_id=cell.id, notebook=nb))
        if timestamp:
            submission.timestamp = nbutils.parse_utc(timestamp)
        return submission

    def _grade_notebook(self, notebook: SubmittedNotebook, scores: dict[str, float], cells: list[Any] | None,
                        status: str) -> None:
        by_id = {}
        for cell in cells or []:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if gid:
                by_id[gid] = cell
        # New rows have no `name` until flushed (it is a query property): go through the cell ids.
        names = {c.id: c.name for c in [*notebook.notebook.grade_cells, *notebook.notebook.solution_cells,
                                        *notebook.notebook.task_cells]}
        for grade in notebook.grades:
            name = names.get(grade.cell_id)
            cell = by_id.get(name)
            if name in scores:
                grade.auto_score = scores[name]
            elif cell is not None and nbutils.is_grade(cell):
                grade.auto_score, _ = nbutils.determine_grade(cell)  # answers graded by hand, as nbgrader
            else:
                grade.auto_score = 0.0  # not submitted, or the notebook could not be read
            grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None \
                or status == "unreadable"
        for comment in notebook.comments:
            cell = by_id.get(names.get(comment.cell_id))
            unchanged = cell is not None and cell.get("metadata", {}).get("nbgrader", {}).get("checksum") == \
                nbutils.compute_checksum(cell)
            comment.auto_comment = "No response." if unchanged and not nbutils.is_task(cell) else None


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]


# Files --------------------------------------------------------------------------------------------------


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)


def regular_files(folder: Path, ignore: list[str]) -> list[Path]:
    """Files under `folder` (relative paths), skipping ignored names and never following a symlink:
    a submission's link to the gradebook or another student's work is not copied."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = [d for d in dirnames if not _matches(d, ignore) and not os.path.islink(os.path.join(dirpath, d))]
        for name in filenames:
            path = Path(dirpath, name)
            if not _matches(name, ignore) and path.is_file() and not path.is_symlink():
                found.append(path.relative_to(folder))
    return found


def write_autograded(dest: Path, submitted: Path, source: Path, ignore: list[str], keep_student: list[str],
                     notebooks: dict[str, nbformat.NotebookNode], outcome: Outcome) -> None:
    """Replace `dest` (autograded/<student>/<assignment>) in one rename: the student's other files, the
    instructor's files over them (as nbgrader does), the executed notebooks and the result record."""
    swap_in(stage_autograded(dest, submitted, source, ignore, keep_student, notebooks, outcome), dest)


def stage_autograded(dest: Path, submitted: Path, source: Path, ignore: list[str], keep_student: list[str],
                     notebooks: dict[str, nbformat.NotebookNode], outcome: Outcome) -> Path:
    """Build what `dest` will hold in a hidden folder beside it (same file system, so `swap_in` is a
    rename) and return that folder; `dest` itself is not touched."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        if submitted.is_dir():
            for rel in regular_files(submitted, ignore + ["*.ipynb"]):
                (build / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(submitted / rel, build / rel)
        for rel in regular_files(source, ignore + ["*.ipynb"]) if source.is_dir() else []:
            if str(rel) in keep_student:
                continue
            (build / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, build / rel)
        for name, nb in notebooks.items():
            # The cells came from a read notebook and plain outputs: nbformat's schema check (milliseconds
            # each) is skipped; the JSON is written as nbformat writes it.
            # No indentation: the C encoder is ten times faster, and every notebook reader takes it.
            (build / f"{name}.ipynb").write_text(json.dumps(nb, sort_keys=True, ensure_ascii=False),
                                                 encoding="utf-8")
        # What SubmissionResult.save writes, without dataclasses.asdict's deep copies (milliseconds each).
        (build / RESULT_FILE).write_text(json.dumps(plain(outcome.result)))
        os.chmod(build, 0o755)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return build


def swap_in(build: Path, dest: Path) -> None:
    """Replace `dest` with the staged folder `build` in one rename (the old one is removed after)."""
    try:
        old = None
        if dest.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}-old-", dir=dest.parent))
            os.rename(dest, old / "x")
        os.rename(build, dest)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


_FIELDS: dict[type, tuple[str, ...]] = {}


def plain(value: Any) -> Any:
    """dataclasses.asdict for these plain records, without its deep copies."""
    kind = type(value)
    if kind in _FIELDS or dataclasses.is_dataclass(value):
        names = _FIELDS.setdefault(kind, tuple(f.name for f in dataclasses.fields(value)))
        return {name: plain(getattr(value, name)) for name in names}
    if kind is list or kind is tuple:
        return [plain(v) for v in value]
    if kind is dict:
        return {k: plain(v) for k, v in value.items()}
    return value


def with_outputs(nb: nbformat.NotebookNode, outputs: list[list[dict[str, Any]]]) -> nbformat.NotebookNode:
    """The executed notebook: each code cell's outputs and execution count."""
    count = 0
    for cell, cell_outputs in zip(nb.cells, outputs, strict=False):
        if cell.cell_type != "code":
            continue
        count += 1
        cell.outputs = cell_outputs  # plain dicts: they are only written out as JSON
        cell.execution_count = count
    return nb
