"""Who a student is in the LMS, stored in the nbgrader gradebook itself.

nbgrader's `student` table holds the name, email and `lms_user_id`. The other identities an LMS import
matches on (SIS user id, login, section, LTI user id) have no column there, so they live in one extra
table, `autograder_lms_identity`, in the same database: the gradebook stays the single record, and
nbgrader, which never reads that table, is unaffected by it. The table is made and upgraded by our
migrations (`autograder.migrations`); `IDENTITY_TABLE` only says how to read and write it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from sqlalchemy import Column, MetaData, String, Table, select

from autograder.migrations import MigrationError, upgrade

from .errors import LmsError

_metadata = MetaData()
IDENTITY_TABLE = Table(
    "autograder_lms_identity",
    _metadata,
    Column("student_id", String(128), primary_key=True),
    Column("sis_user_id", String(128)),
    Column("login_id", String(128)),
    Column("section", String(255)),
    Column("lti_user_id", String(255)),
    # Set on a student's first LTI launch (lms/launch_identity.py): with lti_user_id, the launch's unique key.
    Column("lti_issuer", String(255)),
    Column("lti_deployment_id", String(255)),
)
EXTRA_FIELDS = ("sis_user_id", "login_id", "section", "lti_user_id")


@dataclass(frozen=True)
class Person:
    """A student with every identity an LMS may match on; empty string means unknown."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_user_id: str = ""
    sis_user_id: str = ""
    login_id: str = ""
    section: str = ""
    lti_user_id: str = ""

    @property
    def sortable_name(self) -> str:
        """`Last, First` as Canvas and Blackboard list students; the id when there is no name."""
        if self.last_name and self.first_name:
            return f"{self.last_name}, {self.first_name}"
        return self.last_name or self.first_name or self.id

    def get(self, field: str) -> str:
        """An identity by its settings name (`student_id` is the nbgrader id)."""
        return self.id if field == "student_id" else getattr(self, field)


PERSON_FIELDS = tuple(f.name for f in fields(Person))
IDENTITY_FIELDS = ("student_id",) + PERSON_FIELDS[1:]


def our_tables(gradebook) -> None:
    try:
        upgrade(gradebook.engine)
    except MigrationError as exc:
        raise LmsError(str(exc)) from None


def load_people(gradebook) -> list[Person]:
    """Every student in the gradebook, ordered by last name, first name, id."""
    our_tables(gradebook)
    extra = {
        row.student_id: row
        for row in gradebook.db.execute(select(IDENTITY_TABLE)).all()
    }
    people = []
    for student in gradebook.students:
        more = extra.get(student.id)
        people.append(Person(
            id=student.id,
            first_name=student.first_name or "",
            last_name=student.last_name or "",
            email=student.email or "",
            lms_user_id=student.lms_user_id or "",
            **{name: (getattr(more, name) or "") if more is not None else "" for name in EXTRA_FIELDS},
        ))
    return sorted(people, key=lambda p: (p.last_name.lower(), p.first_name.lower(), p.id))


def save_people(gradebook, people: list[Person]) -> tuple[int, int]:
    """Create or update these students in one transaction; returns (created, updated).

    A field left empty in `people` keeps what the gradebook already has, so a roster without emails
    does not erase the emails nbgrader already knew.
    """
    from nbgrader.api import Student

    our_tables(gradebook)
    session = gradebook.db
    created = updated = 0
    try:
        for person in people:
            student = session.get(Student, person.id)
            if student is None:
                student = Student(id=person.id)
                session.add(student)
                created += 1
            else:
                updated += 1
            if student.last_name == person.id and (person.first_name or person.last_name):
                student.last_name = ""  # the watcher's stand-in (grading.writer): the roster's names replace it
            for name in ("first_name", "last_name", "email", "lms_user_id"):
                value = getattr(person, name)
                if value:
                    setattr(student, name, value)
            row = session.execute(
                select(IDENTITY_TABLE).where(IDENTITY_TABLE.c.student_id == person.id)
            ).first()
            values = {name: getattr(person, name) for name in EXTRA_FIELDS if getattr(person, name)}
            if row is None:
                session.execute(IDENTITY_TABLE.insert().values(student_id=person.id, **values))
            elif values:
                session.execute(
                    IDENTITY_TABLE.update().where(IDENTITY_TABLE.c.student_id == person.id).values(**values)
                )
        session.commit()
    except Exception:
        session.rollback()
        raise
    return created, updated
