"""What an LMS archive changes under `submitted/`: one decision per file and per student, then the writes.

Per student the newest attempt wins; its notebook named as the assignment's notebook is taken (the newest
copy when there are several), else, for a one-notebook assignment, the newest notebook whatever its name.
Every other file of the student is kept aside under `lms_attempts/<assignment>/<student>/<attempt>/`,
never deleted, and so is a notebook a newer archive replaces. A notebook byte-identical to the one already
in `submitted/` is not touched, nor is its `timestamp.txt`, so `autograder grade` does not grade it again.
Only names this module makes are written: the student id from the roster, the notebook name from the
gradebook, and sanitised names for what is kept aside.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from autograder.course.submitted import (
    MAX_TIMESTAMP_BYTES,
    TIMESTAMP_FILE,
    UnsafeFile,
    folder_problem,
    read_bytes,
    valid_student_id,
)
from autograder.lms.identity import Person

from .archive import Archive, EntryError
from .layouts import LAYOUTS, Upload
from .roster import Roster

ASIDE = "lms_attempts"
# What nbgrader's `collect` writes in timestamp.txt (ExchangeCollect, `%Y-%m-%d %H:%M:%S.%f %Z`, UTC).
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"
NOTEBOOK_BYTES = 20 * 2**20
_NUMBERED = re.compile(r"(?P<stem>.+)-\d+(?P<ext>\.ipynb)", re.IGNORECASE)

IMPORTED, UPDATED, UNCHANGED = "imported", "updated", "unchanged"
OLDER, NOT_TAKEN, NOT_NOTEBOOK = "older attempt", "not taken", "not a notebook"
UNKNOWN, MISSING, REFUSED, OUTSIDE = "unknown student", "no submission", "refused", "outside the layout"
ORDER = (IMPORTED, UPDATED, UNCHANGED, OLDER, NOT_TAKEN, NOT_NOTEBOOK, UNKNOWN, MISSING, OUTSIDE, REFUSED)


@dataclass(frozen=True)
class Row:
    status: str
    student: str = ""
    lms: str = ""  # the identity the LMS gives, as the archive shows it
    file: str = ""  # the file in the archive
    note: str = ""


@dataclass
class Outcome:
    rows: list[Row] = field(default_factory=list)
    regrade: list[str] = field(default_factory=list)  # changed, but no time to tell `grade` it is newer
    lms_files: int = 0

    def count(self, status: str) -> int:
        return sum(row.status == status for row in self.rows)


def timestamp_text(time: datetime) -> str:
    return time.astimezone(UTC).strftime(TIMESTAMP_FORMAT)


def import_archive(course: Path, assignment: str, lms: str, archive: Archive, people: list[Person],
                   notebooks: list[str], zone: tzinfo, username_field: str = "login_id") -> Outcome:
    """Reconcile `archive` with the roster and write what it brings; `notebooks` are the assignment's
    notebook names (without `.ipynb`) from the gradebook."""
    outcome = Outcome()
    outcome.rows += [Row(REFUSED, file=name, note=why) for name, why in archive.listing.refused]
    parsed = LAYOUTS[lms](archive, zone)
    outcome.lms_files = len(parsed.lms_files)
    outcome.rows += [Row(OUTSIDE, file=path, note=why) for path, why in parsed.outside]
    roster = Roster(people, username_field)
    by_student: dict[str, list[Upload]] = {}
    found: dict[str, Person] = {}
    for upload in parsed.uploads:
        person, why = roster.find(upload.claim)
        if person is None:
            outcome.rows.append(Row(UNKNOWN, lms=upload.claim.shown, file=upload.entry.path, note=why))
        elif not valid_student_id(person.id):
            outcome.rows.append(Row(REFUSED, person.id, upload.claim.shown, upload.entry.path,
                                    "the roster's student id is not a plain name; nothing written"))
        else:
            found[person.id] = person
            by_student.setdefault(person.id, []).append(upload)
    writer = _Writer(course, assignment, archive, outcome)
    for student in sorted(by_student):
        writer.student(student, by_student[student], notebooks)
    for person in people:
        if person.id not in writer.taken:
            note = "only files that are not notebooks" if person.id in by_student else "nothing in the archive"
            outcome.rows.append(Row(MISSING, person.id, note=note))
    outcome.rows.sort(key=lambda r: (ORDER.index(r.status), r.student, r.file))
    return outcome


def _base(upload: Upload) -> str:
    return upload.file_name.rpartition("/")[2]


Taken = list[tuple[str, Upload, str]]


def choose(uploads: list[Upload], notebooks: list[str]) -> tuple[Taken, list[tuple[Upload, str]]]:
    """From one attempt's notebooks: (notebook name, upload, why) taken, and (upload, why) not taken."""
    left = sorted(uploads, key=lambda u: u.order, reverse=True)  # newest first
    taken = []
    for name in notebooks:
        target = f"{name}.ipynb"
        copies = [u for u in left if _base(u) == target or _numbered(_base(u)) == target]
        if copies:
            why = "" if len(copies) == 1 and _base(copies[0]) == target else \
                f"the newest of {len(copies)} copies of {target}" if len(copies) > 1 else \
                f"a numbered copy of {target} (the LMS renames a file uploaded again)"
            taken.append((name, copies[0], why))
            left.remove(copies[0])
    if not taken and len(notebooks) == 1 and left:
        target = f"{notebooks[0]}.ipynb"
        why = (f"the only notebook, named {_base(left[0])!r}; taken as {target}" if len(left) == 1 else
               f"no {target}; the newest of {len(left)} notebooks, {_base(left[0])!r}, taken as {target}")
        taken.append((notebooks[0], left.pop(0), why))
    names = ", ".join(f"{name}.ipynb" for name, _, _ in taken)
    return taken, [(u, f"{names} was taken from this attempt" if names else "not a notebook of this assignment")
                   for u in left]


def _numbered(name: str) -> str:
    match = _NUMBERED.fullmatch(name)
    return f"{match['stem']}{match['ext']}" if match else ""


def _safe_name(name: str, data: bytes) -> str:
    flat = name.replace("/", "_").lstrip(".")
    return flat if flat and len(flat) <= 200 else f"file-{hashlib.sha256(data).hexdigest()[:12]}"


class _Writer:
    def __init__(self, course: Path, assignment: str, archive: Archive, outcome: Outcome) -> None:
        self.submitted = course / "submitted"
        self.aside = course / ASIDE / assignment
        self.assignment = assignment
        self.archive = archive
        self.outcome = outcome
        self.taken: set[str] = set()

    def _read(self, upload: Upload, student: str) -> bytes | None:
        try:
            return self.archive.read(upload.entry)
        except EntryError as exc:
            self.outcome.rows.append(Row(REFUSED, student, upload.claim.shown, upload.entry.path, str(exc)))
            return None

    def student(self, student: str, uploads: list[Upload], notebooks: list[str]) -> None:
        attempts: dict[str, list[Upload]] = {}
        for upload in uploads:
            attempts.setdefault(upload.attempt, []).append(upload)
        latest = max(attempts, key=lambda a: max(u.order for u in attempts[a]))
        for label, older in attempts.items():
            if label != latest:
                for upload in older:
                    self._keep_aside(student, label, upload, OLDER, f"attempt {label}; the newest is {latest}")
        current = attempts[latest]
        ipynb = [u for u in current if _base(u).lower().endswith(".ipynb")]
        for upload in current:
            if upload not in ipynb:
                self._keep_aside(student, latest, upload, NOT_NOTEBOOK, "kept aside, not graded")
        taken, others = choose(ipynb, notebooks)
        for upload, why in others:
            self._keep_aside(student, latest, upload, NOT_TAKEN, why)
        problem = folder_problem(self.submitted, student, self.assignment)
        for name, upload, why in taken:
            if problem:
                self.outcome.rows.append(Row(REFUSED, student, upload.claim.shown, upload.entry.path, problem))
                continue
            data = self._read(upload, student)
            if data is not None:
                self._submit(student, name, upload, data, why)

    def _keep_aside(self, student: str, label: str, upload: Upload, status: str, note: str) -> None:
        data = self._read(upload, student)
        if data is None:
            return
        folder = self.aside / student / label
        name = _safe_name(upload.file_name, data)
        path = folder / name
        try:
            existing = read_bytes(path, len(data)) if os.path.lexists(path) else None
        except UnsafeFile:
            existing = None
        if existing != data:
            if existing is not None:
                path = folder / f"{hashlib.sha256(data).hexdigest()[:12]}-{name}"
            if not path.exists():
                folder.mkdir(parents=True, exist_ok=True)
                _write(path, data)
        where = path.relative_to(self.aside.parent.parent)
        self.outcome.rows.append(Row(status, student, upload.claim.shown, upload.entry.path, f"{note}; in {where}"))

    def _submit(self, student: str, name: str, upload: Upload, data: bytes, why: str) -> None:
        folder = self.submitted / student / self.assignment
        path = folder / f"{name}.ipynb"
        notes = [why] if why else []
        if upload.late:
            notes.append("the LMS marks it LATE")
        try:
            old = read_bytes(path, NOTEBOOK_BYTES) if os.path.lexists(path) else None
        except UnsafeFile as exc:
            self.outcome.rows.append(Row(REFUSED, student, upload.claim.shown, upload.entry.path,
                                         f"{path.relative_to(self.submitted.parent)}: {exc}; left as it is"))
            self.taken.add(student)
            return
        self.taken.add(student)
        if old == data:
            self.outcome.rows.append(Row(UNCHANGED, student, upload.claim.shown, upload.entry.path,
                                         "; ".join(notes + ["same bytes as in submitted/, not touched"])))
            return
        stamp = folder / TIMESTAMP_FILE
        if old is not None:
            replaced = self.aside / student / f"replaced-{hashlib.sha256(old).hexdigest()[:12]}"
            replaced.mkdir(parents=True, exist_ok=True)
            _write(replaced / path.name, old)
            try:
                _write(replaced / TIMESTAMP_FILE, read_bytes(stamp, MAX_TIMESTAMP_BYTES))
            except UnsafeFile:
                pass  # none, or not a file: nothing to keep
            notes.append(f"the notebook it replaces is in {replaced.relative_to(self.submitted.parent)}")
        folder.mkdir(parents=True, exist_ok=True)
        _write(path, data)
        if upload.time is not None:
            _write(stamp, timestamp_text(upload.time).encode())
            notes.append(f"submitted {timestamp_text(upload.time)}")
        else:
            if os.path.lexists(stamp):
                os.unlink(stamp)  # the old notebook's time, kept aside with it; it does not date this one
            if old is not None:
                self.outcome.regrade.append(student)
        status = UPDATED if old is not None else IMPORTED
        self.outcome.rows.append(Row(status, student, upload.claim.shown, upload.entry.path, "; ".join(notes)))


def _write(path: Path, data: bytes) -> None:
    """`data` at `path` through a temporary file and a rename: a reader never sees half a notebook, and a
    link at `path` is replaced, not followed."""
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
