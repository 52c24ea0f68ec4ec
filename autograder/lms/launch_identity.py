"""The person behind an LTI 1.3 launch: one name per (issuer, deployment id, LMS user id), in the gradebook's identity
table (`identity.IDENTITY_TABLE`, the one mapping of LMS ids to students). A learner is also a student of the
gradebook; an instructor or TA has a row in the identity table only.

A launch's key is looked up first. A key seen before is its student, whatever the launch now says of their name.
A new key that a roster import already gave to one student (its `lti_user_id`, imported without an issuer or
deployment) is that student: the row is bound to the key, and the student keeps their gradebook row. Otherwise
the person is new: a safe name is made for them (`new_name`, the rule a roster sync names a new learner by too),
not a system user, not a student of this gradebook, not a name another course of the hub gave someone else.

The name is also the person's JupyterHub and OS user name, so it must be safe. A roster id that is not (an e-mail,
a name with capitals, an existing system user) is renamed to a safe one on the first launch, in every table that
names the student, as long as nothing was submitted under it; otherwise the launch is refused for the instructor
to sort out (`LaunchRefused`), rather than split the student in two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import and_, select, text

from autograder.lms.identity_names import is_posix_name, on_system, safe_name

from .identity import IDENTITY_TABLE, our_tables

# Our tables that name a student (the migrations' 0001 and 0002), renamed with them.
STUDENT_TABLES = ("autograder_lms_identity", "autograder_student_label", "autograder_score_override",
                  "autograder_exception_event")


class LaunchRefused(Exception):
    """The launch names a person this gradebook cannot take as a student; the message is for the person."""


@dataclass(frozen=True)
class LaunchKey:
    issuer: str
    deployment_id: str
    user_id: str  # the id_token's `sub`

    def parts(self) -> tuple[str, str, str]:
        return self.issuer, self.deployment_id, self.user_id


@dataclass(frozen=True)
class LaunchedPerson:
    """What a launch says of a person (the id_token's name claims), used for a new student's row and name."""

    key: LaunchKey
    given_name: str = ""
    family_name: str = ""
    email: str = ""
    name: str = ""  # the full name, which some platforms send instead of the given and family names

    @property
    def hint(self) -> str:
        """The readable part of a new name: the e-mail's local part, else the name."""
        return self.email or f"{self.given_name} {self.family_name}".strip() or self.name


def new_name(person: LaunchedPerson, taken: Callable[[str], bool]) -> str:
    """The name of a person new to the course: readable from their e-mail or name, made distinct by their LMS key
    (`identity_names.safe_name`), never one `taken` says is someone else's. The one rule for both ways a person
    arrives, their first launch (`name_for_launch`) and the first roster sync that lists them
    (`roster_sync.sync_roster`): whichever comes first names them, and the other finds that name by their LTI
    user id."""
    return safe_name(person.hint, person.key.parts(), taken)


def _where_key(key: LaunchKey):
    c = IDENTITY_TABLE.c
    return and_(c.lti_issuer == key.issuer, c.lti_deployment_id == key.deployment_id, c.lti_user_id == key.user_id)


def launched_student(gradebook, key: LaunchKey) -> str | None:
    """The name this key launched as before, or None."""
    our_tables(gradebook)
    row = gradebook.db.execute(select(IDENTITY_TABLE.c.student_id).where(_where_key(key))).first()
    return row[0] if row else None


def launched_students(gradebook) -> dict[str, str]:
    """Each launched person's LTI user id -> their name: a roster naming that LTI user id names them,
    whatever id the roster gives (their name is their hub and OS user's, and cannot change)."""
    our_tables(gradebook)
    c = IDENTITY_TABLE.c
    return {row.lti_user_id: row.student_id for row in gradebook.db.execute(
        select(c.lti_user_id, c.student_id).where(c.lti_issuer.is_not(None))).all()}


def names_in(gradebook) -> set[str]:
    """Every name this gradebook gives someone: its students, and the instructors who launched into it."""
    our_tables(gradebook)
    return {s.id for s in gradebook.students} | {
        row[0] for row in gradebook.db.execute(select(IDENTITY_TABLE.c.student_id)).all()}


def name_for_launch(gradebook, person: LaunchedPerson, as_student: bool, known_name: str | None = None,
                    taken_elsewhere: Callable[[str], bool] = lambda name: False) -> str:
    """The name (= nbgrader student id, hub and OS user) of the person launching, made or bound on their first
    launch. `as_student`: a Learner, who is a student of the gradebook; an instructor or TA has a name in the
    identity table only, never a student row (nor a line in exports, pushes and the class report).
    `known_name`: the name another course of the same hub already gave this key (one name per person on a hub);
    `taken_elsewhere`: whether another course of the hub gave a name to someone else."""
    session = gradebook.db
    found = launched_student(gradebook, person.key)
    if found is not None:
        if as_student and session.execute(text("SELECT 1 FROM student WHERE id = :id"), {"id": found}).first() is None:
            _add_student(gradebook, found, person)  # taught before, a learner now
            session.commit()
        return found
    c = IDENTITY_TABLE.c
    roster = [row[0] for row in session.execute(
        select(c.student_id).where(c.lti_user_id == person.key.user_id, c.lti_issuer.is_(None))).all()]
    if len(roster) > 1:
        raise LaunchRefused(f"the course roster gives your LMS account to {len(roster)} students; "
                            "ask your instructor to correct the roster")
    names = names_in(gradebook)

    def taken(name: str) -> bool:
        return name in names or taken_elsewhere(name)

    imported = roster[0] if roster else None
    if known_name is not None:
        name = known_name
    elif imported is not None and is_posix_name(imported) and not on_system(imported) \
            and not taken_elsewhere(imported):
        name = imported
    else:
        name = new_name(person, taken)
    try:
        if imported is not None:
            if imported != name:
                _rename(gradebook, imported, name, names)
            session.execute(IDENTITY_TABLE.update().where(c.student_id == name).values(
                lti_issuer=person.key.issuer, lti_deployment_id=person.key.deployment_id))
        else:
            if name in names:  # known_name, given by another course to this person, is someone else's here
                raise LaunchRefused("your user name on this hub belongs to another person of this course; "
                                    "ask your instructor")
            if as_student:
                _add_student(gradebook, name, person)
            session.execute(IDENTITY_TABLE.insert().values(
                student_id=name, lti_user_id=person.key.user_id, lti_issuer=person.key.issuer,
                lti_deployment_id=person.key.deployment_id))
        session.commit()
    except Exception:
        session.rollback()
        raise
    session.expire_all()
    return name


def _add_student(gradebook, name: str, person: LaunchedPerson) -> None:
    gradebook.db.execute(text("INSERT INTO student (id, first_name, last_name, email) VALUES (:id, :f, :l, :e)"),
                         {"id": name, "f": person.given_name or None, "l": person.family_name or None,
                          "e": person.email or None})


def _rename(gradebook, old: str, new: str, names: set[str]) -> None:
    """A roster student's id made safe before anything was submitted under it."""
    from nbgrader.api import Student

    if new in names:
        raise LaunchRefused("your user name on this hub belongs to another person of this course; ask your "
                            "instructor")
    student = gradebook.db.get(Student, old)
    if student is not None and student.submissions:
        raise LaunchRefused(f"the course roster names you {old!r}, which cannot be a user name on this hub, and work "
                            "is already recorded under it; ask your instructor to rename you in the gradebook")
    gradebook.db.execute(text("UPDATE student SET id = :new WHERE id = :old"), {"new": new, "old": old})
    for table in STUDENT_TABLES:
        gradebook.db.execute(text(f"UPDATE {table} SET student_id = :new WHERE student_id = :old"),
                             {"new": new, "old": old})
