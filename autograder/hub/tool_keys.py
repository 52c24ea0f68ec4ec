"""The tool's public keys at a URL (`/hub/lti13/jwks`), which an LMS registers instead of a pasted key (Canvas's
"Public JWK URL", Moodle's "Public keyset URL"): the key of every course the hub's login serves, read from each
course's lms.toml `[lti]` at each request, so a key replaced in its file is published at once (rotation:
docs/administrators/hub.md). A course without a tool key yet adds nothing; only public parts ever leave."""

from __future__ import annotations

from typing import Any

from jupyterhub.handlers import BaseHandler

from autograder.lms import lti
from autograder.lms.errors import LmsError
from autograder.lms.lms_settings import load

from .course_registration import CourseRegistration


def tool_keys(courses: list[CourseRegistration]) -> tuple[dict[str, Any], list[str]]:
    """The JWKS of the courses' tool keys (each key once, by its `kid`), and a line for each course whose key
    cannot be read (the hub's log: a course's mistake never takes the others' keys away)."""
    keys: dict[str, dict[str, Any]] = {}
    problems = []
    for course in courses:
        try:
            settings = load(course.folder, required=True)
            if not settings.get("lti", "private_key_file") and not settings.get("lti", "private_key_env"):
                continue
            private = settings.secret("lti", "private_key_env", "private_key_file", lti.KEY_ENV, "LTI private key")
            for key in lti.jwks(private)["keys"]:
                keys.setdefault(str(key.get("kid")), key)
        except (LmsError, ValueError) as exc:
            problems.append(f"{course.folder / 'lms.toml'}: {exc}")
    return {"keys": list(keys.values())}, problems


class ToolKeysHandler(BaseHandler):
    """GET /hub/lti13/jwks: the keyset, public, cached by the platform for a few minutes at most."""

    def get(self) -> None:
        keyset, problems = tool_keys(list(self.authenticator.registrations.values()))
        for problem in problems:
            self.log.warning("LTI tool keys: %s", problem)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "public, max-age=300")
        self.finish(keyset)
