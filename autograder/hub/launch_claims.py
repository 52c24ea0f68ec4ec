"""What a verified LTI 1.3 launch says, read the strict way: the person's role in the launch's LMS course and the
assignment the link opens. Only the id_token's claims are read here; whether they are signed and fresh is the
login handler's business (lti_login.py)."""

from __future__ import annotations

import enum
from typing import Any

from .course_registration import ASSIGNMENT_NAME, CourseRegistration

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
ROLES = CLAIM + "roles"
CONTEXT = CLAIM + "context"
DEPLOYMENT = CLAIM + "deployment_id"
MESSAGE_TYPE = CLAIM + "message_type"
RESOURCE_LINK = CLAIM + "resource_link"
CUSTOM = CLAIM + "custom"

# Context roles only, as full URIs (LTI 1.3 §A.2.2): an institution role (`.../institution/person#Instructor`) says
# nothing of this course, and the short names (`Instructor`) are deprecated and not accepted.
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LEARNER = {f"{MEMBERSHIP}#Learner"}
TEACHING = {f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}#TeachingAssistant",
            f"{MEMBERSHIP}/Instructor#TeachingAssistant"}


class Role(enum.Enum):
    STUDENT = "student"
    INSTRUCTOR = "instructor"


def role_in_course(claims: dict[str, Any]) -> Role | None:
    """Instructor or TA -> instructor (a TA enrolled as a learner too teaches); Learner -> student; else None."""
    roles = claims.get(ROLES)
    if not isinstance(roles, list):
        return None
    named = {r for r in roles if isinstance(r, str)}
    if named & TEACHING:
        return Role.INSTRUCTOR
    if named & LEARNER:
        return Role.STUDENT
    return None


def context_id(claims: dict[str, Any]) -> str:
    context = claims.get(CONTEXT)
    value = context.get("id") if isinstance(context, dict) else None
    return value if isinstance(value, str) else ""


def text_claim(claims: dict[str, Any], name: str) -> str:
    value = claims.get(name)
    return value if isinstance(value, str) else ""


def assignment_of(claims: dict[str, Any], course: CourseRegistration) -> str | None:
    """The assignment the link opens: its custom parameter `assignment`, else the course's mapping of its
    resource link id; None when it names none, or names something that is not an assignment folder's name."""
    custom = claims.get(CUSTOM)
    named = custom.get("assignment") if isinstance(custom, dict) else None
    if not named:
        link = claims.get(RESOURCE_LINK)
        link_id = link.get("id") if isinstance(link, dict) else None
        named = course.resource_links.get(link_id) if isinstance(link_id, str) else None
    if isinstance(named, str) and ASSIGNMENT_NAME.fullmatch(named):
        return named
    return None
