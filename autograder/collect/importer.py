"""What an LMS archive changes under `submitted/`: one decision per file and per student, then the writes.

Per student the newest attempt wins; its notebook named as the assignment's notebook is taken (the newest
copy when there are several), else, for a one-notebook assignment, the newest notebook whatever its name.
Every other file of the student is kept aside under `lms_attempts/<assignment>/<student>/<attempt>/`,
never deleted, and so is a notebook a newer archive replaces. A notebook byte-identical to the one already
in `submitted/` is not touched, nor is its `timestamp.txt`, so `autograder grade` does not grade it again.
Only names this module makes are written: the student id from the roster, the notebook name from the
gradebook, and sanitised names for what is kept aside, bounded in bytes (a name of 100 CJK characters is
300 bytes, past what a file system takes).

A student is refused, not guessed, when the archive holds two submitters for them (two Moodle folders of
two participant ids, one of them a look-alike name) or one submitter under two names. Whatever an archive
holds, the work is bounded: at most `FILES_PER_STUDENT` files of a student are kept aside (and the rows
are bounded by `Outcome`).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections import Counter
from datetime import UTC, datetime, tzinfo
from pathlib import Path, PurePosixPath

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
from .outcome import (
    IMPORTED,
    MISSING,
    NOT_NOTEBOOK,
    NOT_TAKEN,
    OLDER,
    OUTSIDE,
    REFUSED,
    UNCHANGED,
    UNKNOWN,
    UPDATED,
    Outcome,
    Row,
)
from .student_match import Roster

ASIDE = "lms_attempts"
# What nbgrader's `collect` writes in timestamp.txt (ExchangeCollect, `%Y-%m-%d %H:%M:%S.%f %Z`, UTC).
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"
NOTEBOOK_BYTES = 20 * 2**20
# A name written under lms_attempts/: at most this many bytes in UTF-8, which leaves room for the 13-byte
# hash prefix and the temporary name's 14 bytes under the 255 bytes of a file name.
NAME_BYTES = 200
FILES_PER_STUDENT = 200  # as submitted.FolderBounds.files: what is kept aside of one student
_NUMBERED = re.compile(r"(?P<stem>.+)-\d+(?P<ext>\.ipynb)", re.IGNORECASE)

def timestamp_text(time: datetime) -> str:
    return time.astimezone(UTC).strftime(TIMESTAMP_FORMAT)


def import_archive(course: Path, assignment: str, lms: str, archive: Archive, people: list[Person],
                   notebooks: list[str], zone: tzinfo, username_field: str = "login_id") -> Outcome:
    """Reconcile `archive` with the roster and write what it brings; `notebooks` are the assignment's
    notebook names (without `.ipynb`) from the gradebook."""
    outcome = Outcome()
    for name, why in archive.listing.refused:
        outcome.add(Row(REFUSED, file=name, note=why))
    parsed = LAYOUTS[lms](archive, zone)
    outcome.lms_files = len(parsed.lms_files)
    for path, why in parsed.outside:
        outcome.add(Row(OUTSIDE, file=path, note=why))
    for path, why in parsed.refused:
        outcome.add(Row(REFUSED, file=path, note=why))
    roster = Roster(people, username_field)
    by_student: dict[str, list[Upload]] = {}
    for upload in parsed.uploads:
        person, why = roster.find(upload.claim)
        if person is None:
            outcome.add(Row(UNKNOWN, lms=upload.claim.shown, file=upload.entry.path, note=why))
        elif not valid_student_id(person.id):
            outcome.add(Row(REFUSED, person.id, upload.claim.shown, upload.entry.path,
                            "the roster's student id is not a plain name; nothing written"))
        else:
            by_student.setdefault(person.id, []).append(upload)
    doubtful = _refuse_doubts(by_student, outcome)
    writer = _Writer(course, assignment, archive, outcome)
    for student in sorted(by_student):
        writer.student(student, by_student[student], notebooks)
    for person in people:
        if person.id not in writer.taken:
            note = ("its files were refused: more than one submitter in the archive is this student" if
                    person.id in doubtful else "only files that are not notebooks" if person.id in by_student
                    else "nothing in the archive")
            outcome.add(Row(MISSING, person.id, note=note))
    outcome.finish()
    return outcome


def _refuse_doubts(by_student: dict[str, list[Upload]], outcome: Outcome) -> set[str]:
    """Take out of `by_student`, with a refused row per file, the students the archive holds more than one
    submitter for (two ids of the LMS matched to one student: two Moodle folders, a look-alike name), and
    the submitters it shows under two names (an LMS writes one name per id). Returns those students."""
    names: dict[str, set[str]] = {}
    for uploads in by_student.values():
        for upload in uploads:
            if upload.claim.source:
                names.setdefault(upload.claim.source, set()).add(upload.claim.value)
    doubtful = set()
    for student, uploads in list(by_student.items()):
        sources = sorted({u.claim.source for u in uploads if u.claim.source})
        twice = [s for s in sources if len(names[s]) > 1]
        if len(sources) > 1:
            why = (f"the archive holds {len(sources)} submitters for this student "
                   f"({', '.join(sorted({u.claim.shown for u in uploads}))}; LMS ids {', '.join(sources)}): "
                   "which one is theirs cannot be told; nothing written")
        elif twice:
            why = f"the LMS id {twice[0]} appears under {len(names[twice[0]])} names in the archive; nothing written"
        else:
            continue
        for upload in uploads:
            outcome.add(Row(REFUSED, student, upload.claim.shown, upload.entry.path, why))
        del by_student[student]
        doubtful.add(student)
    return doubtful


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
    """A file name for `name` under lms_attempts/: flat, not hidden, at most `NAME_BYTES` bytes (else a hash
    of the bytes, with the extension when it is short)."""
    flat = name.replace("/", "_").lstrip(".")
    if flat and len(flat.encode()) <= NAME_BYTES:
        return flat
    suffix = PurePosixPath(flat).suffix
    return f"file-{hashlib.sha256(data).hexdigest()[:12]}" + (suffix if len(suffix.encode()) <= 16 else "")


class _Writer:
    def __init__(self, course: Path, assignment: str, archive: Archive, outcome: Outcome) -> None:
        self.submitted = course / "submitted"
        self.aside = course / ASIDE / assignment
        self.assignment = assignment
        self.archive = archive
        self.outcome = outcome
        self.taken: set[str] = set()
        self.kept: Counter = Counter()

    def _read(self, upload: Upload, student: str) -> bytes | None:
        try:
            return self.archive.read(upload.entry)
        except EntryError as exc:
            self.outcome.add(Row(REFUSED, student, upload.claim.shown, upload.entry.path, str(exc)))
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
                self.outcome.add(Row(REFUSED, student, upload.claim.shown, upload.entry.path, problem))
                continue
            data = self._read(upload, student)
            if data is not None:
                self._submit(student, name, upload, data, why)

    def _keep_aside(self, student: str, label: str, upload: Upload, status: str, note: str) -> None:
        self.kept[student] += 1
        if self.kept[student] > FILES_PER_STUDENT:
            self.outcome.add(Row(status, student, upload.claim.shown, upload.entry.path,
                                 f"{note}; not kept aside: past {FILES_PER_STUDENT} files of this student"))
            return
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
        try:
            if existing != data:
                if existing is not None:
                    path = folder / f"{hashlib.sha256(data).hexdigest()[:12]}-{name}"
                if not path.exists():
                    folder.mkdir(parents=True, exist_ok=True)
                    _write(path, data)
        except OSError as exc:
            self.outcome.add(Row(REFUSED, student, upload.claim.shown, upload.entry.path,
                                 f"{note}; cannot be kept aside ({exc.strerror})"))
            return
        where = path.relative_to(self.aside.parent.parent)
        self.outcome.add(Row(status, student, upload.claim.shown, upload.entry.path, f"{note}; in {where}"))

    def _submit(self, student: str, name: str, upload: Upload, data: bytes, why: str) -> None:
        folder = self.submitted / student / self.assignment
        path = folder / f"{name}.ipynb"
        notes = [why] if why else []
        if upload.late:
            notes.append("the LMS marks it LATE")
        try:
            old = read_bytes(path, NOTEBOOK_BYTES) if os.path.lexists(path) else None
        except UnsafeFile as exc:
            self.outcome.add(Row(REFUSED, student, upload.claim.shown, upload.entry.path,
                                 f"{path.relative_to(self.submitted.parent)}: {exc}; left as it is"))
            self.taken.add(student)
            return
        self.taken.add(student)
        if old == data:
            self.outcome.add(Row(UNCHANGED, student, upload.claim.shown, upload.entry.path,
                                 "; ".join(notes + ["same bytes as in submitted/, not touched"])))
            return
        try:
            notes += self._replace(student, folder, path, old, upload.time, data)
        except OSError as exc:
            self.outcome.add(Row(REFUSED, student, upload.claim.shown, upload.entry.path,
                                 f"cannot be written ({exc.strerror}); what submitted/ held is in "
                                 f"{ASIDE}/{self.assignment}/{student}/"))
            return
        if upload.time is None and old is not None:
            self.outcome.regrade.append(student)
        status = UPDATED if old is not None else IMPORTED
        self.outcome.add(Row(status, student, upload.claim.shown, upload.entry.path, "; ".join(notes)))


    def _replace(self, student: str, folder: Path, path: Path, old: bytes | None, time: datetime | None,
                 data: bytes) -> list[str]:
        """Write `data` at `path`, the notebook it replaces kept aside first; the time is written before the
        notebook, so that a failure between the two never leaves a new notebook dated by the old one's time."""
        notes = []
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
        if time is not None:
            _write(stamp, timestamp_text(time).encode())
            notes.append(f"submitted {timestamp_text(time)}")
        elif os.path.lexists(stamp):
            os.unlink(stamp)  # the old notebook's time, kept aside with it; it does not date this one
        _write(path, data)
        return notes


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
