"""The demo LMS: a real LTI 1.3 platform on loopback with a demo course, for `make hub` (demo_loop.py) and the
tests. It is the strict harness (lti_platform.py: lti1p3platform's token endpoint and Assignment and Grade
Services) plus what a student's click in an LMS does:

  GET /                 the demo course: each assignment as LTI links, one per person (an instructor, three students)
  GET /launch           a link's click: the OIDC login initiation, sent to the tool's login URL
  GET|POST /authorize   the platform's OIDC authorization endpoint: checks the tool's authentication request and
                        answers a page that posts the signed id_token (an LtiResourceLinkRequest, made and signed by
                        lti1p3platform's message launch) to the tool's redirect URI
  GET /jwks             the platform's public keys
  GET /gradebook        the scores the tool sent through AGS
  GET /add_tool         an instructor's "Add the tool": a deep linking request (demo_deep_link.py) by the same OIDC
                        flow; the tool's answer comes back to POST /deep_link_return (advantage_platform.py),
                        which makes the line item and the resource link the course page then lists
  GET /courses/<context id>/members   the course's members (NRPS)

lti1p3platform checks of the authentication request only that it has a nonce, a state, a redirect URI and the
client id; this platform also refuses a redirect URI that is not the registered one, the wrong response type,
scope, response mode or prompt, and a login hint or message hint it did not issue (the message hint is signed
with a key of this process: a link cannot be edited into another person's launch). A refusal is answered 400 and
recorded in `violations`, as the harness does for AGS.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tomllib
import typing as t
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from autograder.lms.errors import LmsError
from autograder.lms.lms_settings import FILENAME

from .advantage_platform import AdvantagePlatform
from .demo_course import (
    AGS_CLAIM,
    AGS_SCOPES,
    COURSE_OFFERING,
    DEMO_COURSE,
    OTHER_COURSE,
    DemoCourse,
    DemoLaunch,
    DemoPerson,
)
from .demo_deep_link import deep_linking_launch
from .demo_pages import course_page, gradebook_page, launch_form_page, refusal_page
from .lti_platform import PlainRequest, Platform

DEPLOYMENT_ID = "demo-deployment-1"  # one deployment for the whole demo account, as Canvas registers tools
CLIENT_ID = "autograder-hub"


def new_key_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


class DemoLms(AdvantagePlatform):
    """The demo platform with its courses, the tool registered at `hub_url` (JupyterHub's `/hub/` URL)."""

    def __init__(self, hub_url: str, assignments: t.Sequence[str],
                 courses: tuple[DemoCourse, ...] = (DEMO_COURSE, OTHER_COURSE),
                 tool_jwks: dict[str, t.Any] | None = None, client_id: str = CLIENT_ID, port: int = 0) -> None:
        private, public = new_key_pair()
        super().__init__(private, public, tool_jwks or {"keys": []}, client_id=client_id, deployment_id=DEPLOYMENT_ID,
                         port=port)
        self.hub_url = hub_url.rstrip("/") + "/"
        self.assignments = tuple(assignments)
        self.courses = {c.context_id: c for c in courses}
        self.hint_key = secrets.token_bytes(32)
        self.issuer = self.base  # the platform's issuer is its own URL, as an LMS's is
        (self.registration.set_iss(self.issuer).set_deployment_id(DEPLOYMENT_ID)
         .set_launch_url(self.hub_url).set_deeplink_launch_url(self.hub_url)
         .set_oidc_login_url(self.login_initiation_url))

    # ---- what the tool registers ------------------------------------------------------------------------

    @property
    def login_initiation_url(self) -> str:
        return f"{self.hub_url}lti13/oauth_login"

    @property
    def redirect_uri(self) -> str:
        return f"{self.hub_url}lti13/oauth_callback"

    @property
    def course(self) -> DemoCourse:
        return next(iter(self.courses.values()))

    def lti_section(self, course: DemoCourse | None = None, key_file: Path | None = None) -> dict[str, t.Any]:
        """The course's `[lti]` settings for lms.toml: what an instructor copies from an LMS's registration (the
        tool's private key file too when it has one: `give_tool_key`)."""
        course = course or self.course
        section = {"issuer": self.issuer, "client_id": self.client_id, "auth_login_url": f"{self.base}/authorize",
                   "jwks_url": f"{self.base}/jwks", "deployment_ids": [DEPLOYMENT_ID], "context_id": course.context_id,
                   "token_url": self.token_url, "lineitems_url": f"{self.base}/lineitems",
                   "memberships_url": self.course_memberships_url(course), "user_id": "lti_user_id"}
        if key_file is not None:
            section["private_key_file"] = str(key_file)
        return section

    def lti_toml(self, course: DemoCourse | None = None, key_file: Path | None = None) -> str:
        """`lti_section` as the `[lti]` table of an lms.toml (JSON strings and arrays are TOML's too)."""
        lines = [f"{key} = {json.dumps(value)}" for key, value in self.lti_section(course, key_file).items()]
        return "[lti]\n" + "\n".join(lines) + "\n"

    def register_course(self, course_folder: Path, key_file: Path | None = None) -> Path:
        """Write the demo course's `[lti]` into the course's lms.toml (made if missing). One this platform wrote
        before, on the same port, is the same and is kept (`make hub` started again); any other
        `[lti]` section is another platform's and is left alone (an LmsError). With `key_file` (outside the
        course), the tool gets a key pair there (`give_tool_key`, a new one at each start: this platform knows
        only the key it was given), so the hub sends grades and syncs the roster by itself."""
        path = course_folder / FILENAME
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        try:
            registered = tomllib.loads(text).get("lti")
        except tomllib.TOMLDecodeError as exc:
            raise LmsError(f"{path}: not valid TOML ({exc})") from None
        if registered is not None and registered != tomllib.loads(self.lti_toml(key_file=key_file))["lti"]:
            raise LmsError(f"{path}: already has an [lti] section; the demo LMS registers only a course without one")
        if key_file is not None:
            key_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.give_tool_key(key_file)
        if registered is None:
            joint = "\n" if text and not text.endswith("\n") else ""
            path.write_text(text + joint + self.lti_toml(key_file=key_file), encoding="utf-8")
        return path

    def give_tool_key(self, key_file: Path) -> None:
        """A new private key for the tool in `key_file` (0600), its public key registered with this platform, as
        an administrator pastes the tool's JWKS into an LMS."""
        from autograder.lms.lti import jwks

        private, _ = new_key_pair()
        descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(private)
        tool_jwks = jwks(private)
        self.tool_keys.update({k["kid"]: jwt.PyJWK(k) for k in tool_jwks["keys"]})
        self.registration.set_tool_key_set(tool_jwks)

    def course_memberships_url(self, course: DemoCourse) -> str:
        return f"{self.base}/courses/{course.context_id}/members"

    def membership(self, path: str) -> tuple[dict[str, t.Any], list[dict[str, t.Any]]] | None:
        """Each course's members (NRPS) at `/courses/<context id>/members`."""
        parts = path.split("/")
        course = self.courses.get(parts[2]) if len(parts) == 4 and parts[1] == "courses" and parts[3] == "members" \
            else None
        if course is None:
            return None
        context = {"id": course.context_id, "label": course.label, "title": course.title}
        return context, [{"user_id": p.sub, "status": "Active", "name": p.name, "given_name": p.given_name,
                          "family_name": p.family_name, "email": p.email, "roles": [p.role]} for p in course.people]

    @property
    def launchable(self) -> tuple[str, ...]:
        """The assignments a link opens: the ones given, and the ones the tool linked by deep linking."""
        linked = [link.assignment for link in self.resource_links if link.assignment]
        return tuple(dict.fromkeys([*self.assignments, *linked]))

    def add_tool_link(self, person: DemoPerson, course: DemoCourse | None = None) -> str:
        """The course page's "Add the tool" button: a deep linking request from `person` (an instructor in an LMS;
        the platform signs whatever role the person has, and the tool must refuse a student)."""
        course = course or self.course
        return f"{self.base}/add_tool?" + urlencode({"course": course.context_id, "user": person.sub})

    def launch_link(self, person: DemoPerson, assignment: str, course: DemoCourse | None = None) -> str:
        course = course or self.course
        return f"{self.base}/launch?" + urlencode({"course": course.context_id, "user": person.sub,
                                                   "assignment": assignment})

    # ---- HTTP ---------------------------------------------------------------------------------------------

    def _route(self, handler, method: str, path: str, query: dict[str, str], raw: str) -> None:
        if path == "/" and method == "GET":
            return self._page(handler, 200, course_page(self))
        if path == "/gradebook" and method == "GET":
            return self._page(handler, 200, gradebook_page(self))
        if path == "/jwks" and method == "GET":
            return self._send(handler, 200, {"keys": self.registration.get_jwks()})
        if path == "/launch" and method == "GET":
            return self._initiate(handler, query)
        if path == "/add_tool" and method == "GET":
            return self._initiate(handler, dict(query, assignment=""))
        if path == "/authorize" and method in ("GET", "POST"):
            form = query if method == "GET" else dict(parse_qsl(raw))
            return self._authorize(handler, form)
        return super()._route(handler, method, path, query, raw)

    def _page(self, handler, status: int, page: str, headers: dict[str, str] | None = None) -> None:
        self._send(handler, status, page.encode(), "text/html; charset=utf-8", headers)

    def _refuse_page(self, handler, message: str) -> None:
        self.violations.append(message)
        self._page(handler, 400, refusal_page(message))

    def _hint(self, context_id: str, sub: str, assignment: str) -> str:
        body = json.dumps([context_id, sub, assignment])
        mac = hmac.new(self.hint_key, body.encode(), hashlib.sha256).hexdigest()
        return f"{body}.{mac}"

    def _read_hint(self, hint: str) -> tuple[str, str, str] | None:
        body, _, mac = hint.rpartition(".")
        expected = hmac.new(self.hint_key, body.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected.encode(), mac.encode()):  # bytes: a hostile hint may be any text
            return None
        context_id, sub, assignment = json.loads(body)
        return context_id, sub, assignment

    def _initiate(self, handler, query: dict[str, str]) -> None:
        """A link clicked: third-party initiated login (LTI 1.3 §5.1.1), by redirect to the tool."""
        course = self.courses.get(query.get("course", ""))
        person = course.person(query.get("user", "")) if course else None
        assignment = query.get("assignment", "")  # "" asks to add the tool (deep linking)
        if person is None or (assignment and assignment not in self.launchable):
            return self._refuse_page(handler, "no such course, person or assignment")
        params = {"iss": self.issuer, "login_hint": person.sub, "target_link_uri": self.hub_url,
                  "lti_message_hint": self._hint(course.context_id, person.sub, assignment),
                  "client_id": self.client_id, "lti_deployment_id": DEPLOYMENT_ID}
        self._send(handler, 302, b"", "text/plain", {"Location": f"{self.login_initiation_url}?{urlencode(params)}"})

    def _authorize(self, handler, form: dict[str, str]) -> None:
        """The tool's authentication request (IMS Security Framework §5.1.1.2), answered with a signed launch."""
        expected = {"response_type": "id_token", "scope": "openid", "response_mode": "form_post",
                    "prompt": "none", "client_id": self.client_id, "redirect_uri": self.redirect_uri}
        for key, value in expected.items():
            if form.get(key) != value:
                return self._refuse_page(handler, f"authentication request with {key} {form.get(key)!r}, "
                                                  f"expected {value!r}")
        if not form.get("nonce") or not form.get("state"):
            return self._refuse_page(handler, "authentication request without a nonce or a state")
        hint = self._read_hint(form.get("lti_message_hint", ""))
        if hint is None or hint[1] != form.get("login_hint"):
            return self._refuse_page(handler, "authentication request with a login or message hint this "
                                              "platform did not issue")
        context_id, sub, assignment = hint
        course = self.courses[context_id]
        person = course.person(sub)
        if not assignment:
            return self._page(handler, 200, deep_linking_launch(self, form, course, person))
        launch = DemoLaunch(PlainRequest({"method": "POST", "form_data": form, "get_data": {}, "headers": {},
                                          "content_type": "", "path": "/authorize", "json": None}),
                            Platform(registration=self.registration))
        launch.set_user_data(person.sub, [person.role], full_name=person.name, email_address=person.email)
        linked = [link.id for link in self.resource_links
                  if (link.context_id, link.assignment) == (context_id, assignment)]
        launch.set_resource_link_claim(linked[-1] if linked else f"{context_id}-{assignment}", title=assignment)
        launch.set_launch_context_claim(context_id, [COURSE_OFFERING], course.title, course.label)
        launch.set_custom_parameters_claim({"assignment": assignment})
        launch.set_extra_claims({"given_name": person.given_name, "family_name": person.family_name,
                                 AGS_CLAIM: {"scope": AGS_SCOPES, "lineitems": f"{self.base}/lineitems"}})
        data = launch.lti_launch()
        self._page(handler, 200, launch_form_page(data["launch_url"], data["id_token"], data["state"]))

    def deep_link_answer(self, handler, linked: int) -> None:
        """Back to the course page, which lists the new link, as an LMS shows the item just added."""
        self._send(handler, 303, b"", "text/plain", {"Location": "/"})

    def person_named(self, sub: str) -> str:
        for course in self.courses.values():
            person = course.person(sub)
            if person is not None:
                return person.name
        return sub
