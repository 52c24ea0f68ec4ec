"""Read a roster file (Canvas's gradebook export or a plain CSV) into students with LMS identities.

Everything is checked before anything is written: a roster with one bad line imports nothing.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import LmsError
from .identity import Person, load_people, save_people
from .launch_identity import launched_students
from .lms_settings import IDENTITY_CHOICES
from .table import looks_like_formula

PLAIN_REQUIRED = ("id", "first_name", "last_name", "email", "lms_user_id")
PLAIN_OPTIONAL = ("sis_user_id", "login_id", "section", "lti_user_id")
CANVAS_REQUIRED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
# Which Canvas column becomes the nbgrader student id (JupyterHub usernames are usually the SIS login).
CANVAS_ID_COLUMNS = {"sis_login_id": "SIS Login ID", "sis_user_id": "SIS User ID", "id": "ID"}


@dataclass(frozen=True)
class ImportResult:
    people: list[Person]
    created: int
    updated: int
    not_in_roster: list[str]


def read_rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and (line number, row) pairs; a ragged or undecodable file is an error naming the line."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # Excel adds a BOM when saving as UTF-8 CSV
    except FileNotFoundError as exc:
        raise LmsError(f"{path}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise LmsError(f"{path}: not UTF-8 text (save it as CSV UTF-8)") from exc
    except OSError as exc:
        raise LmsError(f"{path}: cannot be read ({exc.strerror})") from exc
    # csv's own line handling: str.splitlines would also break a quoted field at a CR, \x1c or U+2028 in a name.
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration as exc:
        raise LmsError(f"{path}: empty file, expected a header line") from exc
    except csv.Error as exc:
        raise LmsError(f"{path} line 1: {exc}") from exc
    rows = []
    try:
        for values in reader:
            line = reader.line_num
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(header):
                raise LmsError(f"{path} line {line}: {len(values)} fields, the header has {len(header)}")
            rows.append((line, {h: v.strip() for h, v in zip(header, values, strict=True)}))
    except csv.Error as exc:
        raise LmsError(f"{path} line {reader.line_num}: {exc}") from exc
    return header, rows


def _require(path: Path, header: list[str], needed: tuple[str, ...]) -> None:
    missing = [h for h in needed if h not in header]
    if missing:
        raise LmsError(f"{path}: missing column(s) {', '.join(missing)} (the header must include {','.join(needed)})")


def parse_plain(path: Path) -> list[tuple[int, Person]]:
    header, rows = read_rows(path)
    _require(path, header, PLAIN_REQUIRED)
    people = []
    for line, row in rows:
        values = {name: row.get(name, "") for name in PLAIN_REQUIRED[1:] + PLAIN_OPTIONAL}
        people.append((line, Person(id=row["id"], **values)))
    return people


def _split_name(name: str) -> tuple[str, str]:
    """Canvas lists `Last, First`; a name without a comma is taken as `First Last`."""
    if "," in name:
        last, first = name.split(",", 1)
        return first.strip(), last.strip()
    first, _, last = name.rpartition(" ")
    return (first, last) if first else (last, "")


def parse_canvas(path: Path, id_from: str = "sis_login_id") -> list[tuple[int, Person]]:
    """Canvas's gradebook export: one row per student, after an optional `Points Possible` row."""
    header, rows = read_rows(path)
    _require(path, header, CANVAS_REQUIRED)
    id_column = CANVAS_ID_COLUMNS[id_from]
    people = []
    for line, row in rows:
        name = row["Student"]
        if name == "Points Possible" or name.startswith("Points Possible"):
            continue
        # Canvas's own preview user, in every course's export; not a real student.
        if name == "Student, Test" and not row["SIS Login ID"] and not row["SIS User ID"]:
            continue
        if not row["ID"]:
            raise LmsError(f"{path} line {line}: {name or 'a student'} has no Canvas ID")
        first, last = _split_name(name)
        people.append((line, Person(
            id=row[id_column], first_name=first, last_name=last, lms_user_id=row["ID"],
            sis_user_id=row["SIS User ID"], login_id=row["SIS Login ID"], section=row["Section"],
        )))
    return people


def validate(path: Path, people: list[tuple[int, Person]], id_from: str = "") -> list[Person]:
    """Reject empty or duplicate student ids, one LMS user id shared by two students, and an identity a
    spreadsheet would run as a formula (LMS exports match students on it and cannot escape it; see table.py)."""
    if not people:
        raise LmsError(f"{path}: no students in the file")
    seen: dict[str, int] = {}
    lms_ids: dict[str, tuple[int, str]] = {}
    for line, person in people:
        if not person.id:
            source = f" (its {CANVAS_ID_COLUMNS[id_from]} column is empty)" if id_from else ""
            raise LmsError(f"{path} line {line}: no student id{source}")
        for name in IDENTITY_CHOICES:  # every identity an export or a push can match on
            value = person.get(name)
            if looks_like_formula(value):
                raise LmsError(f"{path} line {line}: {name} {value!r} holds what a spreadsheet runs as a "
                               "formula; LMS imports match students on it, so it is refused")
        if person.id in seen:
            raise LmsError(
                f"{path} line {line}: student id {person.id!r} appears twice (first on line {seen[person.id]})"
            )
        seen[person.id] = line
        if person.lms_user_id:
            other = lms_ids.get(person.lms_user_id)
            if other:
                raise LmsError(
                    f"{path} line {line}: LMS user id {person.lms_user_id!r} is also given to {other[1]!r} "
                    f"on line {other[0]}"
                )
            lms_ids[person.lms_user_id] = (line, person.id)
    return [person for _, person in people]


def parse(path: Path, fmt: str, canvas_id_from: str = "sis_login_id") -> list[Person]:
    if fmt == "plain":
        return validate(path, parse_plain(path))
    if fmt == "canvas":
        return validate(path, parse_canvas(path, canvas_id_from), canvas_id_from)
    raise LmsError(f"unknown roster format {fmt!r} (canvas or plain)")


def _as_launched(path: Path, people: list[Person], launched: dict[str, str]) -> list[Person]:
    """A roster row of a student who already entered by an LTI launch (same LTI user id) updates that student,
    under the name the launch gave them, rather than making a second student of the same person."""
    resolved, rows = [], {}  # student id -> the roster's id that named them
    bound = {student: lti_user for lti_user, student in launched.items()}
    for person in people:
        roster_id = person.id
        student = launched.get(person.lti_user_id) if person.lti_user_id else None
        if student is not None:
            person = replace(person, id=student)
        elif person.lti_user_id and person.id in bound:  # the key of their launches must not change under them
            raise LmsError(f"{path}: {person.id!r} entered by an LTI launch as LTI user {bound[person.id]!r}; "
                           f"the roster gives them {person.lti_user_id!r}")
        if person.id in rows:
            raise LmsError(f"{path}: the rows of {rows[person.id]!r} and {roster_id!r} are the same student "
                           f"{person.id!r} (who entered by an LTI launch as LTI user {person.lti_user_id!r})")
        rows[person.id] = roster_id
        resolved.append(person)
    return resolved


def import_roster(gradebook, path: Path, fmt: str, canvas_id_from: str = "sis_login_id") -> ImportResult:
    """Create or update the roster's students in the gradebook; students not in the roster stay."""
    people = parse(path, fmt, canvas_id_from)
    people = _as_launched(path, people, launched_students(gradebook))
    taken = {p.lms_user_id: p.id for p in load_people(gradebook) if p.lms_user_id}
    for person in people:
        holder = taken.get(person.lms_user_id)
        if person.lms_user_id and holder and holder != person.id and holder not in {p.id for p in people}:
            raise LmsError(
                f"{path}: LMS user id {person.lms_user_id!r} of {person.id!r} already belongs to {holder!r} "
                "in the gradebook"
            )
    created, updated = save_people(gradebook, people)
    listed = {p.id for p in people}
    others = sorted(p.id for p in load_people(gradebook) if p.id not in listed)
    return ImportResult(people, created, updated, others)
