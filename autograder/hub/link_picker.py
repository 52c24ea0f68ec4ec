"""Deep linking through the hub's LTI login: the instructor adding the tool in the LMS picks an assignment.

The LMS sends an LtiDeepLinkingRequest to the same redirect URI as a launch; CourseLtiCallbackHandler checks it as
strictly as a launch (signature, issuer, audience, expiry, nonce and state once, the deployment, the LMS course)
and, for an Instructor or TA of that course only, answers `deep_link.picker_page` instead of logging anyone in.
The page's form posts back here (`/hub/lti13/deep_link`) with a handle on the verified request: one random value,
good once and for `PICK_SECONDS`, which is all the authority the choice carries (the LMS shows the page in its own
frame, where the hub's cookies may be blocked). The choice is answered with `deep_link.respond`'s signed JWT in
`deep_link.response_form`, which the browser posts to the LMS's return URL. The tool's private key is read, as
`push` reads it, from where the course's lms.toml says (an environment variable or a file outside the course).
"""

from __future__ import annotations

import asyncio
import html
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from jupyterhub.handlers import BaseHandler

from autograder.lms import lti
from autograder.lms.deep_link import SETTINGS_CLAIM, picker_page, respond, response_form
from autograder.lms.errors import LmsError
from autograder.lms.gradebook import linkable
from autograder.lms.lms_settings import load

from .course_registration import CourseRegistration
from .launch_claims import CONTEXT, text_claim

PICK_SECONDS = 600  # how long the picker page's choice stays good (an instructor reading the list)
TARGET_LINK = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"

PLAIN_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{title}</title></head>
<body><main><h1>{title}</h1><p>{reason}</p></main></body>
</html>
"""


@dataclass(frozen=True)
class PendingPick:
    course: CourseRegistration
    claims: dict[str, Any]  # the verified LtiDeepLinkingRequest
    until: float


@dataclass
class PendingPicks:
    """Verified deep linking requests waiting for the instructor's choice, each by a random handle, taken once."""

    picks: dict[str, PendingPick] = field(default_factory=dict)

    def add(self, course: CourseRegistration, claims: dict[str, Any]) -> str:
        now = time.time()
        self.picks = {h: p for h, p in self.picks.items() if p.until > now}
        handle = secrets.token_urlsafe(32)
        self.picks[handle] = PendingPick(course, claims, now + PICK_SECONDS)
        return handle

    def take(self, handle: str) -> PendingPick | None:
        pick = self.picks.pop(handle, None)
        return pick if pick is not None and pick.until > time.time() else None


def frame_policy(claims: dict[str, Any]) -> str:
    """The Content-Security-Policy of the picker's pages: JupyterHub forbids framing its pages
    (`frame-ancestors 'none'`), but an LMS shows deep linking in a frame of its own (Canvas's modal); only the
    LMS that sent the verified request, the origin of its return URL, may frame them."""
    settings = claims.get(SETTINGS_CLAIM)
    url = settings.get("deep_link_return_url") if isinstance(settings, dict) else None
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not re.fullmatch(r"[A-Za-z0-9.:\[\]-]+", parts.netloc):
        return "frame-ancestors 'none'"
    return f"frame-ancestors 'self' {parts.scheme}://{parts.netloc}"


def picker_for(course: CourseRegistration, claims: dict[str, Any], handle: str, action_url: str) -> str:
    """The picker page of `course`'s assignments (its gradebook's), for the verified request `claims`."""
    context = claims.get(CONTEXT)
    title = text_claim(context, "title") if isinstance(context, dict) else ""
    try:
        assignments = linkable(course.folder)
    except LmsError:  # no gradebook yet: nothing released, nothing to link
        assignments = []
    return picker_page(assignments, action_url, handle, title or course.course_id)


class DeepLinkChoiceHandler(BaseHandler):
    """POST /hub/lti13/deep_link: the instructor's choice on the picker page, answered with the signed response."""

    def check_xsrf_cookie(self) -> None:
        """The form is the hub's own page shown in the LMS's frame, where the hub's cookies may not be sent: the
        handle it carries (random, good once) stands for the verified request."""

    async def post(self) -> None:
        pick = self.authenticator.picks.take(self.get_argument("state", ""))
        if pick is None:
            return self._plain(400, "Link not made", "this choice is too old or was already used: add the tool "
                                                     "again from the LMS")
        chosen = next((a for a in linkable(pick.course.folder) if a.name == self.get_argument("assignment", "")),
                      None)
        if chosen is None:
            return self._plain(400, "Link not made", "that is not one of the course's assignments: add the tool "
                                                     "again from the LMS")
        try:
            settings = load(pick.course.folder, required=True)
            key = settings.secret("lti", "private_key_env", "private_key_file", lti.KEY_ENV, "LTI private key")
            # pylti1p3 looks the line item up with blocking requests: out of the hub's event loop.
            token = await asyncio.to_thread(respond, settings, key, pick.claims, chosen,
                                            text_claim(pick.claims, TARGET_LINK))
        except LmsError as exc:
            self.log.warning("LTI deep link of %s in %s failed: %s", chosen.name, pick.course.course_id, exc)
            return self._plain(503, "Link not made", f"the hub could not answer the LMS: {exc}")
        self.log.info("LTI deep link: %s linked in %s", chosen.name, pick.course.course_id)
        self.set_header("Content-Security-Policy", frame_policy(pick.claims))
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(response_form(pick.claims, token))

    def _plain(self, status: int, title: str, reason: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(PLAIN_PAGE.format(title=html.escape(title), reason=html.escape(reason[:500])))
