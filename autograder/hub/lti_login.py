"""JupyterHub's LTI 1.3 login for the courses of this framework: `CourseLtiAuthenticator`.

It extends jupyterhub-ltiauthenticator's `LTI13Authenticator`, which runs the OIDC flow (login initiation, state
and nonce cookies, the id_token's signature from the platform's JWKS, issuer, audience, expiry, age and required
claims), with what a course needs and the library leaves out:
  - the state and nonce cookies reach the hub with the platform's cross-site form post (SameSite=None over HTTPS);
  - the registration comes from each course's `lms.toml` `[lti]` (course_registration.py);
  - a nonce and a state are used once: the library compares them with its cookies, so the same form posted again
    with the same cookies would log in again (a replayed launch); here each is remembered until its token would be
    too old anyway (the library's `max_age`, plus its leeway);
  - the deployment id must be one the course registered (the library only wants the claim present);
  - the launch's LMS course (`context_id`) picks the course, and a role in *that* course (Learner -> the course's
    student group, Instructor or TA -> its instructor group) is the only role given: an Instructor of another
    course under the same account-wide deployment is no one here;
  - the user name is the student's one safe name (lms/launch_identity.py), also their OS user and nbgrader id;
  - after login, a student's browser goes to the assignment the link names (its notebook, fetched if need be:
    `/hub/user-redirect/autograder/open/<assignment>`, open_assignment.py), an instructor's to the formgrader of the
    launch's course (their server named for it: `/hub/spawn/<user>/<course id>`);
  - an LtiDeepLinkingRequest (an instructor adding the tool in the LMS) passes the same checks, logs no one in,
    and is answered with the course's assignment picker, for an Instructor or TA of the course only
    (link_picker.py).

Every refusal is a plain page saying why, with its status, and one log line `LTI launch refused: ...`.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jwt
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.constants import LTI13_GENERAL_REQUIRED_CLAIMS
from ltiauthenticator.lti13.error import ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13LoginInitHandler
from ltiauthenticator.lti13.validator import LTI13LaunchValidator
from ltiauthenticator.utils import convert_request_to_dict
from tornado.httputil import url_concat
from tornado.web import HTTPError
from traitlets import List, Unicode, default

from autograder.lms.errors import LmsError
from autograder.lms.gradebook import open_gradebook
from autograder.lms.launch_identity import (
    LaunchedPerson,
    LaunchKey,
    LaunchRefused,
    launched_student,
    name_for_launch,
    names_in,
)

from .course_registration import CourseRegistration, Platform, platforms_of, read_registrations
from .groups import instructor_group, student_group
from .launch_claims import (
    DEPLOYMENT,
    MESSAGE_TYPE,
    Role,
    assignment_of,
    context_id,
    role_in_course,
    text_claim,
)
from .link_picker import DeepLinkChoiceHandler, PendingPicks, frame_policy, picker_for
from .open_assignment import OPEN_PATH
from .tool_keys import ToolKeysHandler

USED_ONCE_FILE = "lti_used_once.sqlite"


class Refusal(Exception):
    """A launch refused: `reason` is shown to the person and logged."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class UsedOnce:
    """Values of one `kind` (nonces, states) seen in accepted launches, each kept until `ttl` seconds after it was
    first seen, in an SQLite file: a launch captured before a restart of the hub is still refused after it, and
    every hub process on the machine sees the others' launches. A value is kept as its SHA-256 (the launch's
    text, bounded), and the file's one transaction per launch makes "first" exact between processes."""

    ttl: float
    path: Path
    kind: str

    def first_use(self, value: str, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        with contextlib.closing(sqlite3.connect(self.path, timeout=30, isolation_level=None)) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("CREATE TABLE IF NOT EXISTS used_once (kind TEXT NOT NULL, digest TEXT NOT NULL, "
                           "until REAL NOT NULL, PRIMARY KEY (kind, digest))")
                db.execute("DELETE FROM used_once WHERE until <= ?", (now,))
                seen = db.execute("SELECT 1 FROM used_once WHERE kind = ? AND digest = ?",
                                  (self.kind, digest)).fetchone()
                if seen is None:
                    db.execute("INSERT INTO used_once VALUES (?, ?, ?)", (self.kind, digest, now + self.ttl))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return seen is None


def used_once_file(db_url: str) -> Path:
    """Where the hub keeps used nonces and states: beside its own SQLite database, else in its working folder."""
    from autograder.course.settings import sqlite_path

    database = sqlite_path(db_url)
    return (Path(database).resolve().parent if database else Path.cwd()) / USED_ONCE_FILE


DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


class CourseLaunchValidator(LTI13LaunchValidator):
    """The library's checks of an id_token, but for a deep linking request only the claims LTI 1.3 requires: the
    library adds context, launch_presentation, tool_platform and azp, which the specification makes optional."""

    def validate_id_token(self, id_token: dict[str, Any]) -> None:
        if id_token.get(MESSAGE_TYPE) != "LtiDeepLinkingRequest":
            super().validate_id_token(id_token)
            return
        self._check_arg_not_missing(id_token, [*LTI13_GENERAL_REQUIRED_CLAIMS, DEEP_LINKING_SETTINGS])
        self._check_lti_version(id_token)
        self._check_context_label(id_token)
        self._check_message_type(id_token)
        self._check_if_iat_is_too_old(id_token)


REFUSED_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Launch refused</title></head>
<body>
<main>
<h1>Launch refused</h1>
<p>{reason}</p>
<p>Open the course again from your learning platform. If this page comes back, show it to your instructor.</p>
</main>
</body>
</html>
"""


class CourseLtiLoginHandler(LTI13LoginInitHandler):
    """The library's login initiation, with its state and nonce cookies sent back on the platform's cross-site
    form post. The library sets them without a SameSite attribute, which browsers take as Lax: not sent with a
    POST from another site, such as the launch from a hosted LMS (instructure.com) to the hub (uni.edu), which
    the hub would then refuse as a login without its state. SameSite=None requires Secure, so it is set when
    the hub is served over HTTPS; over plain HTTP (the loopback demo, where the LMS is the same site) the
    library's cookies are left as they are."""

    def post(self) -> None:
        # The login initiation names the platform (`iss`) and, optionally, the tool's client id there. One this
        # hub has no registration for is refused now, before a state or nonce is made for it or the browser is
        # sent anywhere (the library checks only that the arguments are there).
        issuer, client_id = self.get_argument("iss", ""), self.get_argument("client_id", None)
        known = [p for p in self.authenticator.platforms if p.issuer == issuer]
        chosen = [p for p in known if client_id is None or p.client_id == client_id]
        if len(chosen) != 1:
            if len(chosen) > 1:  # several registrations on this platform, and it did not say which one it uses
                reason = "This learning platform has several registrations with this hub and did not say which."
            else:
                reason = "This learning platform is not registered with this hub (its issuer or client id is unknown)."
            what = f"client id {client_id[:80]!r} of " if known and client_id is not None else ""
            self.log.warning("LTI login initiation refused: %splatform %r: %s", what, issuer[:200], reason)
            self.set_status(400)
            self.finish(REFUSED_PAGE.format(reason=html.escape(reason)))
            return
        self.platform = chosen[0]
        super().post()

    get = post

    def authorize_redirect(self, redirect_uri: str, login_hint: str, nonce: str, client_id: str | None, state: str,
                           lti_message_hint: str | None = None) -> None:
        # The library's, sent to the chosen platform's login with its registration's client id (the initiation
        # may leave client_id out), not to one platform configured for the whole hub.
        args = {"response_type": "id_token", "scope": "openid", "response_mode": "form_post", "prompt": "none",
                "client_id": self.platform.client_id, "redirect_uri": redirect_uri, "login_hint": login_hint,
                "nonce": nonce, "state": state}
        if lti_message_hint is not None:
            args["lti_message_hint"] = lti_message_hint
        self.redirect(url_concat(self.platform.auth_login_url, args))

    def _set_oauth_cookie(self, key: str, value: Any) -> None:
        public_url = self.settings.get("public_url")
        https = (public_url.scheme if public_url else self.request.protocol) == "https"
        extra = {"samesite": "None", "secure": True} if https else {}
        self._set_cookie(key, value, expires_days=1, httponly=True, encrypted=True, **extra)


class CourseLtiCallbackHandler(LTI13CallbackHandler):
    """The library's launch handler, with the checks it lacks and a plain page for every refusal."""

    assignment: str | None = None  # the one the launch opens, set by CourseLtiAuthenticator.authenticate
    teaching = False  # an instructor's or TA's launch (set there too): they land on the formgrader
    _claims: dict[str, Any] | None = None  # the id_token's, once verified

    def decode_and_validate_launch_request(self) -> dict[str, Any]:
        """The library's, checked against the platform registration the token names (its issuer and audience,
        read before its signature is, only to choose whose keys verify it), and with deep linking's optional
        claims left optional."""
        validator = CourseLaunchValidator(parent=self.app)
        args = convert_request_to_dict(self.request.arguments)
        validator.validate_auth_response(args)
        self.check_state()
        platform = self.authenticator.platform_of(str(args.get("id_token")))
        id_token = validator.verify_and_decode_jwt(
            encoded_jwt=args.get("id_token"), issuer=platform.issuer, audience={platform.client_id},
            jwks_endpoint=platform.jwks_url, jwks_algorithms=self.authenticator.jwks_algorithms)
        validator.validate_id_token(id_token)
        validator.validate_azp_claim(id_token, {platform.client_id})
        self.check_nonce(id_token)
        return id_token

    async def post(self) -> None:
        authenticator: CourseLtiAuthenticator = self.authenticator
        try:
            try:
                id_token = self.decode_and_validate_launch_request()
            except ValidationError as exc:  # the library's: signature, issuer, audience, expiry, claims
                raise Refusal(401 if "audience" in str(exc).lower() or "azp" in str(exc) else 400,
                              f"the launch is not valid: {exc}") from None
            except HTTPError as exc:  # the library's: state or nonce against its cookies
                raise Refusal(exc.status_code, f"the launch does not match its login: {exc.log_message}") from None
            self._claims = id_token
            if not authenticator.nonces.first_use(str(id_token.get("nonce"))):
                raise Refusal(400, "this launch was already used (its nonce was seen before)")
            if not authenticator.states.first_use(self.get_argument("state")):
                raise Refusal(400, "this launch was already used (its state was seen before)")
            if text_claim(id_token, MESSAGE_TYPE) == "LtiDeepLinkingRequest":
                page = authenticator.deep_link_picker(id_token, url_path_join(self.hub.base_url, "lti13",
                                                                                "deep_link"))
                self.set_header("Content-Security-Policy", frame_policy(id_token))
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.finish(page)
                return
            user = await self.login_user(id_token)
        except Refusal as exc:
            self._refuse(exc)
            return
        if user is None:  # JupyterHub's own refusals (blocked users) after ours
            self._refuse(Refusal(403, "this hub does not let this user in"))
            return
        self.redirect(self.get_next_url(user))

    def get_next_url(self, user: Any = None) -> str:
        # An instructor's server runs in the course folder, where no lab/tree/<assignment> is: their assignments
        # (source, submissions, grades) are in the formgrader. nbgrader's formgrader serves one course per server, so
        # the launch goes to their server named for the launch's course (spawner.py), started if need be: an
        # instructor of two courses reaches each one's.
        if self.teaching and user is not None and self._claims is not None:
            course = quote(self.authenticator.course_of(self._claims).course_id, safe="")
            formgrader = url_path_join(self.base_url, "user", quote(user.name, safe=""), course, "formgrader")
            return url_concat(url_path_join(self.hub.base_url, "spawn", quote(user.name, safe=""), course),
                              {"next": formgrader})
        # A student's lands in their server's open_assignment.py: the assignment fetched if they do not have it yet,
        # then its notebook opened (not a folder and the Launcher).
        if self.assignment:
            return url_path_join(self.hub.base_url, "user-redirect", OPEN_PATH, quote(self.assignment, safe=""))
        return super().get_next_url(user)

    def _refuse(self, refusal: Refusal) -> None:
        claims, verified = self._claims, "verified"
        if claims is None:  # the token was refused: what it claims, for the log only, marked as unverified
            verified = "unverified"
            try:
                claims = jwt.decode(self.get_argument("id_token", ""), options={"verify_signature": False})
            except jwt.PyJWTError:
                claims = {}
        claims = claims if isinstance(claims, dict) else {}
        self.log.warning("LTI launch refused: %s (status %d; %s claims iss=%r sub=%r context=%r deployment=%r)",
                         refusal.reason, refusal.status, verified, text_claim(claims, "iss")[:200],
                         text_claim(claims, "sub")[:200], context_id(claims)[:200],
                         text_claim(claims, DEPLOYMENT)[:200])
        self.clear_login_cookie()
        self.set_status(refusal.status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(REFUSED_PAGE.format(reason=html.escape(refusal.reason[:500])))


class CourseLtiAuthenticator(LTI13Authenticator):
    """LTI 1.3 login into the courses named by `courses` (their folders, each with `lms.toml` `[lti]`)."""

    login_handler = CourseLtiLoginHandler
    callback_handler = CourseLtiCallbackHandler

    courses = List(Unicode(), config=True,
                   help="The course folders this hub's LTI login serves; each one's lms.toml [lti] registers it.")
    used_once_path = Unicode("", config=True,
                             help="The SQLite file of the nonces and states already used; empty: beside the hub's "
                                  f"SQLite database ({USED_ONCE_FILE}), or in its working folder.")

    @default("allow_all")
    def _allow_all(self) -> bool:
        return True  # no one passes authenticate() without a role in a registered course

    @default("manage_groups")
    def _manage_groups(self) -> bool:
        return True  # roles travel as groups (groups.py)

    def get_handlers(self, app: Any) -> list:
        return [*super().get_handlers(app), (url_path_join("/lti13", "deep_link"), DeepLinkChoiceHandler),
                (url_path_join("/lti13", "jwks"), ToolKeysHandler)]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.picks = PendingPicks()
        try:
            self.registrations: dict[str, CourseRegistration] = read_registrations([Path(c) for c in self.courses])
        except LmsError as exc:
            raise SystemExit(f"CourseLtiAuthenticator: {exc}") from None
        self.platforms = platforms_of(self.registrations)
        # The library's single-platform settings, which our handlers no longer read: the first registration's.
        self.issuer = self.platforms[0].issuer
        self.client_id = {platform.client_id for platform in self.platforms}
        self.authorize_url = self.platforms[0].auth_login_url
        self.jwks_endpoint = self.platforms[0].jwks_url
        validator = LTI13LaunchValidator(parent=self)  # the library's age limit and leeway, as configured
        ttl = validator.max_age + 2 * validator.time_leeway + 60
        used = Path(self.used_once_path) if self.used_once_path else used_once_file(
            str(getattr(self.parent, "db_url", "")))
        self.nonces = UsedOnce(ttl, used, "nonce")
        self.states = UsedOnce(ttl, used, "state")
        # The gradebook is read and written in the event loop, one launch after another: a first launch picks a
        # name no one has, which two launches at once in threads could both pick. Importing nbgrader's API
        # (seconds) at start-up keeps that cost out of the first student's launch.
        import nbgrader.api  # noqa: F401

    async def authenticate(self, handler: Any, data: dict[str, Any] | None = None) -> dict[str, Any]:
        claims = data or {}
        if text_claim(claims, MESSAGE_TYPE) != "LtiResourceLinkRequest":
            raise Refusal(400, "this hub takes resource link launches only")
        course = self.course_of(claims)
        deployment = text_claim(claims, DEPLOYMENT)
        sub = text_claim(claims, "sub")
        if not sub:
            raise Refusal(403, "the launch does not say who you are (no user id): anonymous launches are refused")
        role = role_in_course(claims)
        if role is None:
            raise Refusal(403, "your role in this course is neither Learner, Instructor nor Teaching Assistant, "
                               "so this hub has nothing for you")
        person = LaunchedPerson(LaunchKey(text_claim(claims, "iss"), deployment, sub), text_claim(claims, "given_name"),
                                text_claim(claims, "family_name"), text_claim(claims, "email"),
                                text_claim(claims, "name"))
        try:
            name = self.person_name(course, person, as_student=role is Role.STUDENT)
        except LaunchRefused as exc:
            raise Refusal(403, str(exc)) from None
        except LmsError as exc:  # the course's gradebook cannot be opened: the hub's fault, not the person's
            self.log.error("LTI login: %s", exc)
            raise Refusal(503, "the course's gradebook cannot be opened; try again later") from None
        mine = {student_group(course.course_id), instructor_group(course.course_id)}
        wanted = instructor_group(course.course_id) if role is Role.INSTRUCTOR else student_group(course.course_id)
        existing = handler.find_user(name)
        kept = [g.name for g in existing.groups if g.name not in mine] if existing is not None else []
        handler.assignment = assignment_of(claims, course)
        handler.teaching = role is Role.INSTRUCTOR
        self.log.info("LTI launch: %s is %s of %s", name, role.value, course.course_id)
        return {"name": name, "groups": sorted({*kept, wanted})}

    def platform_of(self, encoded: str) -> Platform:
        """The registration an id_token names by its issuer and audience (read unverified, only to choose whose
        keys will verify it); a ValidationError when the hub has none."""
        try:
            unverified = jwt.decode(encoded, options={"verify_signature": False})
        except jwt.PyJWTError as exc:
            raise ValidationError(f"the id_token cannot be read: {exc}") from None
        audience = unverified.get("aud")
        audiences = set(audience) if isinstance(audience, list) else {audience}
        found = [p for p in self.platforms if p.issuer == unverified.get("iss") and p.client_id in audiences]
        if len(found) != 1:
            raise ValidationError("the launch's issuer and audience are not a platform registered with this hub")
        return found[0]

    def course_of(self, claims: dict[str, Any]) -> CourseRegistration:
        """The hub's course the verified launch comes from, its deployment one the course registered. Without the
        (optional) context claim, the one course of this platform that registered the launch's deployment."""
        issuer, context = text_claim(claims, "iss"), context_id(claims)
        if context:
            course = self.registrations.get((issuer, context))
        else:
            deployment = text_claim(claims, DEPLOYMENT)
            mine = [c for (i, _), c in self.registrations.items() if i == issuer and deployment in c.deployment_ids]
            course = mine[0] if len(mine) == 1 else None
        if course is None:
            raise Refusal(403, "the launch comes from an LMS course that is not one of this hub's courses")
        if text_claim(claims, DEPLOYMENT) not in course.deployment_ids:
            raise Refusal(403, "the launch's deployment id is not one this course registered")
        return course

    def deep_link_picker(self, claims: dict[str, Any], action_url: str) -> str:
        """The assignment picker for a verified deep linking request (the instructor adding the tool); a
        Refusal for anyone but an Instructor or TA of the hub's course it comes from."""
        course = self.course_of(claims)
        if role_in_course(claims) is not Role.INSTRUCTOR:
            raise Refusal(403, "only an instructor of the course can add the tool to it (link an assignment)")
        self.log.info("LTI deep linking request from %s in %s", text_claim(claims, "sub")[:200], course.course_id)
        return picker_for(course, claims, self.picks.add(course, claims), action_url)

    def person_name(self, course: CourseRegistration, person: LaunchedPerson, as_student: bool) -> str:
        """The person's one name on this hub: the one another course of the hub gave them, else this course's."""
        known, elsewhere = None, set()
        for other in self.registrations.values():
            if other is course:
                continue
            try:
                with open_gradebook(other.folder) as gradebook:
                    known = known or launched_student(gradebook, person.key)
                    elsewhere |= names_in(gradebook)
            except LmsError:  # no gradebook there yet: no one has a name in it
                continue
        if known:
            elsewhere.discard(known)
        with open_gradebook(course.folder, must_exist=False) as gradebook:
            return name_for_launch(gradebook, person, as_student, known_name=known,
                                   taken_elsewhere=elsewhere.__contains__)
