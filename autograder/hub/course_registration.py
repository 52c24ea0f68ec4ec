"""A course's LTI 1.3 registration, read from the `[lti]` section of its `lms.toml`: who may launch into it.

The platform's side of the registration (issuer, client id, its OIDC login and JWKS URLs) is what the hub's
login verifies every launch against; the deployment ids and the LMS course (`context_id`) say which launches are
this course's. A platform that registers a tool once for a whole account (Canvas does) sends one deployment id for
every course of the account, so the deployment alone never picks a course: the context does.

```toml
[lti]
issuer = "https://canvas.instructure.com"
client_id = "10000000000042"
auth_login_url = "https://sso.canvaslms.com/api/lti/authorize_redirect"
jwks_url = "https://sso.canvaslms.com/api/lti/security/jwks"
deployment_ids = ["6:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"]
context_id = "4dde05e8ca1973bcca9bffc13e1548820eee93a3"

[lti.resource_links]          # optional: a resource link id -> the assignment it opens
"f3a8d0e2-..." = "rnn_update_equations"
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.settings import SettingsError, read_course
from autograder.lms.errors import LmsError
from autograder.lms.lms_settings import load

# An assignment name as a launch may give it: one path component of the user's home, never `..` or hidden.
ASSIGNMENT_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")


@dataclass(frozen=True)
class Platform:
    """The platform's side of a registration, the same for every course a hub's login serves."""

    issuer: str
    client_id: str
    auth_login_url: str
    jwks_url: str


@dataclass(frozen=True)
class CourseRegistration:
    folder: Path
    course_id: str  # nbgrader's
    platform: Platform
    deployment_ids: frozenset[str]
    context_id: str
    resource_links: dict[str, str] = field(default_factory=dict)  # resource link id -> assignment


def read_registration(folder: Path) -> CourseRegistration:
    """The course's registration; an LmsError of one line naming lms.toml and what is missing or wrong."""
    try:
        settings = load(folder, required=True)
        course_id = read_course(folder).course_id
    except SettingsError as exc:
        raise LmsError(str(exc)) from None
    platform = Platform(*(str(settings.require("lti", key))
                          for key in ("issuer", "client_id", "auth_login_url", "jwks_url")))
    deployments = settings.get("lti", "deployment_ids")
    if not deployments or not all(isinstance(d, str) and d for d in deployments):
        raise LmsError(f"{settings.path}: [lti] deployment_ids must be a list of the platform's deployment ids "
                       "(strings) for this course")
    links = settings.section("lti").get("resource_links", {})
    for link, assignment in links.items():
        if not isinstance(assignment, str) or not ASSIGNMENT_NAME.fullmatch(assignment):
            raise LmsError(f"{settings.path}: [lti.resource_links] {link!r} must name an assignment folder")
    return CourseRegistration(folder=folder, course_id=course_id, platform=platform,
                              deployment_ids=frozenset(deployments),
                              context_id=str(settings.require("lti", "context_id")), resource_links=dict(links))


def read_registrations(folders: list[Path]) -> dict[str, CourseRegistration]:
    """Each course by its LMS context id. One hub's login speaks to one platform registration, so every course
    must name the same one; two courses answering to one context would make a launch ambiguous."""
    courses: dict[str, CourseRegistration] = {}
    for folder in folders:
        course = read_registration(Path(folder))
        first = next(iter(courses.values()), None)
        if first is not None and course.platform != first.platform:
            raise LmsError(f"{course.folder / 'lms.toml'}: [lti] names another platform registration than "
                           f"{first.folder / 'lms.toml'}; one hub's LTI login serves one")
        if course.context_id in courses:
            raise LmsError(f"{course.folder / 'lms.toml'}: [lti] context_id {course.context_id!r} is also "
                           f"{courses[course.context_id].folder}'s")
        courses[course.context_id] = course
    if not courses:
        raise LmsError("no course given to the LTI login (CourseLtiAuthenticator.courses)")
    return courses
