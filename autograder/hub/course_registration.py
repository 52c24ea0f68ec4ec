"""A course's LTI 1.3 registration, read from the `[lti]` section of its `lms.toml`: who may launch into it.

The platform's side of the registration (issuer, client id, its OIDC login and JWKS URLs) is what the hub's
login verifies every launch against; the deployment ids and the LMS course (`context_id`) say which launches are
this course's. The courses of one hub may name different platforms (a university's Canvas and a department's
Moodle), or different registrations on one platform; the launch's own issuer and audience pick the one its
signature is checked against. A platform that registers a tool once for a whole account (Canvas does) sends
one deployment id for every course of the account, so the deployment alone never picks a course: the context
does, and without one (it is optional) the one course of that platform that registered the deployment.

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
from autograder.lms.lms_settings import deployment_ids, load

# An assignment name as a launch may give it: one path component of the user's home, never `..` or hidden.
ASSIGNMENT_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")


@dataclass(frozen=True)
class Platform:
    """The platform's side of a registration: who signs the launches, and where its login and keys are."""

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
    deployments = deployment_ids(settings)
    if not deployments:
        raise LmsError(f"{settings.path}: [lti] deployment_ids must list the platform's deployment ids for this "
                       "course")
    links = settings.section("lti").get("resource_links", {})
    for link, assignment in links.items():
        if not isinstance(assignment, str) or not ASSIGNMENT_NAME.fullmatch(assignment):
            raise LmsError(f"{settings.path}: [lti.resource_links] {link!r} must name an assignment folder")
    return CourseRegistration(folder=folder, course_id=course_id, platform=platform,
                              deployment_ids=frozenset(deployments),
                              context_id=str(settings.require("lti", "context_id")), resource_links=dict(links))


def read_registrations(folders: list[Path]) -> dict[tuple[str, str], CourseRegistration]:
    """Each course by its platform's issuer and its LMS context id. Two courses answering to one context of one
    platform would make a launch ambiguous, and one registration (issuer and client id) must have one login URL
    and one set of keys wherever it is named."""
    courses: dict[tuple[str, str], CourseRegistration] = {}
    for folder in folders:
        course = read_registration(Path(folder))
        key = (course.platform.issuer, course.context_id)
        if key in courses:
            raise LmsError(f"{course.folder / 'lms.toml'}: [lti] context_id {course.context_id!r} of "
                           f"{course.platform.issuer} is also {courses[key].folder}'s")
        same = next((c for c in courses.values() if c.platform.issuer == course.platform.issuer
                     and c.platform.client_id == course.platform.client_id and c.platform != course.platform), None)
        if same is not None:
            raise LmsError(f"{course.folder / 'lms.toml'}: [lti] client_id {course.platform.client_id!r} of "
                           f"{course.platform.issuer} has other auth_login_url or jwks_url than in "
                           f"{same.folder / 'lms.toml'}")
        courses[key] = course
    if not courses:
        raise LmsError("no course given to the LTI login (CourseLtiAuthenticator.courses)")
    return courses


def platforms_of(courses: dict[tuple[str, str], CourseRegistration]) -> list[Platform]:
    """The distinct platform registrations the courses name, in the courses' order."""
    return list(dict.fromkeys(course.platform for course in courses.values()))
