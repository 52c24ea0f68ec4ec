"""`autograder roster sync`: the LMS course's members (NRPS) into the roster that `roster import` fills.

Learners become students (instructors and assistants are not graded); a member the course already knows
(by LTI user id: a roster, an earlier sync or their launch named them) keeps their nbgrader id, a new one is
named as their first launch would name them (`launch_identity.new_name`, from the e-mail or name the membership
gives and the platform's key of the member), so a student has one name whichever comes first. Names, email
and the LTI user id are saved with the function `roster import` uses (`identity.save_people`). A student who left the
LMS course (status Inactive or Deleted, or missing from the membership after a sync found them) is flagged
`left` in `lms_status`, never removed: their grades stay, and `autograder roster` and the class report show
the flag. A student who comes back is `active` again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from .identity import IDENTITY_TABLE, Person, load_people, save_people
from .launch_identity import LaunchedPerson, LaunchKey, names_in, new_name
from .lms_settings import Settings, deployment_ids
from .nrps import Member
from .roster_import import validate

ACTIVE, LEFT = "active", "left"


@dataclass
class SyncResult:
    created: int = 0
    updated: int = 0
    left: list[str] = field(default_factory=list)  # flagged now
    returned: list[str] = field(default_factory=list)  # active again
    not_learners: int = 0


def _person(student_id: str, member: Member) -> Person:
    first, last = member.given_name, member.family_name
    if not (first or last) and member.name:
        first, _, last = member.name.rpartition(" ") if " " in member.name else ("", "", member.name)
    return Person(id=student_id, first_name=first, last_name=last, email=member.email, lti_user_id=member.user_id)


def sync_roster(gradebook, members: list[Member], issuer: str, deployment_id: str = "",
                source: str = "NRPS") -> SyncResult:
    """Save the learners among `members` and flag who left; one transaction. `gradebook`: nbgrader's open
    `Gradebook`; `issuer` and `deployment_id`: the platform's, which with a member's LTI user id are the key a
    launch of theirs carries. Students with no LTI identity (added by hand, or by a CSV roster only) are left as
    they are."""
    result = SyncResult()
    people = load_people(gradebook)
    known = {p.lti_user_id: p.id for p in people if p.lti_user_id}
    learners = [m for m in members if m.learner]
    result.not_learners = len(members) - len(learners)
    taken = names_in(gradebook)
    ids = []
    for member in learners:
        if member.user_id not in known:
            launch = LaunchedPerson(LaunchKey(issuer, deployment_id, member.user_id), member.given_name,
                                    member.family_name, member.email, member.name)
            known[member.user_id] = new_name(launch, taken.__contains__)
            taken.add(known[member.user_id])
        ids.append(known[member.user_id])
    chosen = validate(source, [(n + 1, _person(i, m)) for n, (i, m) in enumerate(zip(ids, learners, strict=True))])
    result.created, result.updated = save_people(gradebook, chosen)
    status = {i: (ACTIVE if m.status == "Active" else LEFT) for i, m in zip(ids, learners, strict=True)}
    before = lms_statuses(gradebook)
    listed = {m.user_id for m in members}
    for person in people:  # found by an earlier sync, gone from the membership now
        if person.id in before and person.id not in status and person.lti_user_id not in listed:
            status[person.id] = LEFT
    session = gradebook.db
    try:
        for student, state in status.items():
            session.execute(IDENTITY_TABLE.update().where(IDENTITY_TABLE.c.student_id == student)
                            .values(lms_status=state))
            if state == LEFT and before.get(student) != LEFT:
                result.left.append(student)
            if state == ACTIVE and before.get(student) == LEFT:
                result.returned.append(student)
        session.commit()
    except Exception:
        session.rollback()
        raise
    return result


def lms_statuses(gradebook) -> dict[str, str]:
    """Each student's status in the LMS course as the last sync found it (students never synced: absent)."""
    rows = gradebook.db.execute(select(IDENTITY_TABLE.c.student_id, IDENTITY_TABLE.c.lms_status)).all()
    return {student: state for student, state in rows if state}


def sync_course(course: Path) -> tuple[int, SyncResult]:
    """`roster sync` of the course in `course`: its lms.toml's platform asked for the members, the learners saved;
    how many members the platform listed, and what changed. An LmsError of one line when it cannot."""
    from . import lti
    from .gradebook import open_gradebook
    from .lms_settings import load
    from .nrps import fetch_members
    from .retry import policy_from_settings

    settings = load(course, required=True)
    key = settings.secret("lti", "private_key_env", "private_key_file", lti.KEY_ENV, "LTI private key")
    members = fetch_members(settings, key, policy_from_settings(settings))
    with open_gradebook(course, must_exist=False) as gradebook:
        return len(members), sync_roster(gradebook, members, settings.require("lti", "issuer"),
                                         roster_deployment(settings))


def roster_deployment(settings: Settings) -> str:
    """The deployment a synced learner's key is made with (their name is the one their first launch would give):
    the one `[lti] deployment_ids` lists, or, when it lists several, the first (the membership does not say
    which deployment a member launches through: list first the one the course's links are placed under).
    Empty when none is listed."""
    return next(iter(deployment_ids(settings)), "")
