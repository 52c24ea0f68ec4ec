"""LTI 1.3 launches into a real JupyterHub (`autograder.hub.lti_login.CourseLtiAuthenticator`), from the real demo
platform (`autograder.devtools.demo_lms`: lti1p3platform's signed launches) for the valid ones, and forged for the rest:
each way a launch is untrusted (issue 29) is refused with a plain page and a log line, and lets no one in.

One hub and one platform for the whole module. The forged launches follow the real OIDC flow up to the last
step (the hub's login initiation sets its state and nonce cookies), then post a token made here to the hub's
redirect URI, as an attacker in the browser's place would. Who got in, and with which groups, is read through
the hub's REST API with a service token.
"""

from __future__ import annotations

import html
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import requests
from nbgrader.api import Gradebook
from sqlalchemy import select

from autograder.devtools.demo_lms.demo_course import (
    DEMO_COURSE,
    INSTRUCTOR,
    LEARNER,
    OTHER_COURSE,
    DemoCourse,
    DemoPerson,
)
from autograder.devtools.demo_lms.demo_platform import DEPLOYMENT_ID, DemoLms, new_key_pair
from autograder.hub.groups import instructor_group, student_group
from autograder.lms.identity import IDENTITY_TABLE
from autograder.lms.roster_import import import_roster
from tests.lti_hub import Hub, free_port, start_hub, stop_hub

COURSE_ID = "rnn101"
ASSIGNMENT = "hidden_state_activation"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
ADA, ALAN, EMILIE = DEMO_COURSE.people[1:]
GRACE = DEMO_COURSE.people[0]
BARBARA = OTHER_COURSE.people[0]  # instructor of another course of the same account (same deployment)
# The hub's second course: Ada teaches it (the same LMS user as in the first, where she is a student).
SECOND_ID = "ml202"
SECOND_COURSE = DemoCourse("demo-ml-202", "Machine learning", "ML202", (
    DemoPerson(ADA.sub, ADA.given_name, ADA.family_name, ADA.email, INSTRUCTOR),))
# A department's own LMS beside the university's, on the same hub: its own issuer, client id, keys and course.
THIRD_ID = "nlp303"
MARIE = DemoPerson("dept-7", "Marie", "Curie", "marie@dept.invalid", LEARNER)
DEPT_COURSE = DemoCourse("dept-nlp-303", "Language models", "NLP303", (MARIE,))


@dataclass
class World:
    lms: DemoLms
    hub: Hub
    course: Path
    second: Path
    dept_lms: DemoLms
    third: Path
    hub_folder: Path
    port: int

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.course / 'gradebook.db'}"


def nbgrader_course(folder: Path, course_id: str) -> Path:
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(f"c = get_config()  # noqa: F821\n"
                                               f"c.CourseDirectory.course_id = {course_id!r}\n")
    return folder


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    """The hub serves two courses of the demo platform (DEMO_COURSE and SECOND_COURSE); the platform has a third,
    OTHER_COURSE, that the hub does not serve. A second platform (another issuer, client id and key) registers a
    third course of the hub (DEPT_COURSE)."""
    root = tmp_path_factory.mktemp("lti-launch")
    course, second = nbgrader_course(root / "course", COURSE_ID), nbgrader_course(root / "second", SECOND_ID)
    third = nbgrader_course(root / "third", THIRD_ID)
    port = free_port()
    hub_url = f"http://127.0.0.1:{port}/hub/"
    with DemoLms(hub_url, [ASSIGNMENT], (DEMO_COURSE, OTHER_COURSE, SECOND_COURSE)) as lms, \
            DemoLms(hub_url, [ASSIGNMENT], (DEPT_COURSE,), client_id="dept-tool") as dept_lms:
        lms.register_course(course)
        (second / "lms.toml").write_text(lms.lti_toml(SECOND_COURSE))
        dept_lms.register_course(third)
        world = World(lms, start_hub(root / "hub", [course, second, third], port), course, second, dept_lms, third,
                      root / "hub", port)
        try:
            yield world
        finally:
            stop_hub(world.hub)  # the one running now (a test restarts it)


# ---- the flow, real and forged ---------------------------------------------------------------------------------


def posted_form(page: str) -> tuple[str, dict[str, str]]:
    """The launch page's form: where it posts, and its fields."""
    action = html.unescape(re.search(r'<form[^>]*action="([^"]*)"', page).group(1))
    return action, {k: html.unescape(v) for k, v in re.findall(r'name="(\w+)" value="([^"]*)"', page)}


def platform_launch(world: World, person, course=DEMO_COURSE, lms: DemoLms | None = None,
                    ) -> tuple[requests.Session, str, dict[str, str]]:
    """A click on the demo course page's link, up to the form that posts the signed launch to the hub."""
    session = requests.Session()
    page = session.get((lms or world.lms).launch_link(person, ASSIGNMENT, course), timeout=30)
    assert page.status_code == 200, page.text
    action, form = posted_form(page.text)
    return session, action, form


def login_initiation(world: World, lms: DemoLms | None = None) -> tuple[requests.Session, str, str]:
    """The hub's half of the flow: its state and nonce, in its cookies and in the redirect to the platform."""
    lms = lms or world.lms
    session = requests.Session()
    response = session.get(f"{world.hub.hub_url}lti13/oauth_login", allow_redirects=False, timeout=30, params={
        "iss": lms.issuer, "login_hint": "someone", "target_link_uri": world.hub.hub_url,
        "client_id": lms.client_id})
    assert response.status_code == 302, response.text
    assert response.headers["Location"].startswith(lms.lti_section()["auth_login_url"])  # that platform's login
    query = parse_qs(urlsplit(response.headers["Location"]).query)
    return session, query["state"][0], query["nonce"][0]


def claims(world: World, nonce: str, sub: str, role: str = LEARNER, context: str = DEMO_COURSE.context_id,
           **changes) -> dict:
    now = int(time.time())
    body = {
        "iss": world.lms.issuer, "aud": world.lms.client_id, "sub": sub, "iat": now, "exp": now + 300,
        "nonce": nonce, "given_name": "Mallory", "family_name": "Forger", "email": "mallory@evil.invalid",
        CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
        CLAIM + "deployment_id": DEPLOYMENT_ID, CLAIM + "target_link_uri": world.hub.hub_url,
        CLAIM + "resource_link": {"id": "rl-1"}, CLAIM + "roles": [role],
        CLAIM + "context": {"id": context, "label": "RNN101", "title": "RNN"},
        CLAIM + "custom": {"assignment": ASSIGNMENT},
    }
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def signed(world: World, body: dict, private_pem: str | None = None, algorithm: str = "RS256",
           lms: DemoLms | None = None) -> str:
    """Signed with the platform's key (the default) or another; the platform's key id either way."""
    registration = (lms or world.lms).registration
    key = private_pem or registration.get_platform_private_key()
    headers = {"kid": registration.get_kid()} if registration.get_kid() else None
    return jwt.encode(body, key if algorithm != "none" else None, algorithm=algorithm, headers=headers)


def post(world: World, session: requests.Session, data: dict[str, str]) -> requests.Response:
    return session.post(f"{world.hub.hub_url}lti13/oauth_callback", data=data, allow_redirects=False, timeout=60)


def refusals(world: World) -> int:
    return world.hub.log_text().count("LTI launch refused:")


def assert_refused(world: World, response: requests.Response, before: int, reason: str, sub: str | None) -> None:
    """A plain page that says why, a log line, and no one let in."""
    assert response.status_code in (400, 401, 403), (response.status_code, response.text[:500])
    assert "<h1>Launch refused</h1>" in response.text and re.search(reason, html.unescape(response.text), re.I), \
        response.text
    assert refusals(world) == before + 1, world.hub.log_text()[-2000:]
    line = world.hub.log_text().rsplit("LTI launch refused:", 1)[1].split("\n", 1)[0]
    assert re.search(reason, line, re.I) and " claims iss=" in line, line
    assert not any(c.name == "jupyterhub-hub-login" for c in response.cookies), "a refused launch logs no one in"
    if sub is not None:
        with Gradebook(world.db_url) as gradebook:
            rows = gradebook.db.execute(select(IDENTITY_TABLE).where(IDENTITY_TABLE.c.lti_user_id == sub)).all()
        assert rows == [], "a refused launch makes no student"


def fresh_sub() -> str:
    return f"forged-{uuid.uuid4().hex}"


# ---- valid launches --------------------------------------------------------------------------------------------


def test_a_student_s_launch_logs_in_as_one_safe_name_in_the_student_group_and_opens_the_assignment(world):
    session, action, form = platform_launch(world, ADA)
    assert action == f"{world.hub.hub_url}lti13/oauth_callback"
    response = post(world, session, form)
    assert response.status_code == 302, response.text
    assert response.headers["Location"] == f"/hub/user-redirect/autograder/open/{ASSIGNMENT}"  # open_assignment.py
    user = world.hub.user("ada-lovelace")
    assert user is not None and user["groups"] == [student_group(COURSE_ID)] and not user["admin"]
    # A second launch is the same person: the same name, the same single gradebook row.
    session, _, form = platform_launch(world, ADA)
    assert post(world, session, form).status_code == 302
    with Gradebook(world.db_url) as gradebook:
        rows = gradebook.db.execute(select(IDENTITY_TABLE).where(IDENTITY_TABLE.c.lti_user_id == ADA.sub)).all()
        assert [(r.student_id, r.lti_issuer, r.lti_deployment_id) for r in rows] == [
            ("ada-lovelace", world.lms.issuer, DEPLOYMENT_ID)]
        student = gradebook.find_student("ada-lovelace")
        assert (student.first_name, student.last_name, student.email) == ("Ada", "Lovelace", ADA.email)
    assert world.lms.violations == []


def test_an_instructor_s_launch_is_in_the_course_s_instructor_group_only_and_opens_the_formgrader(world):
    session, _, form = platform_launch(world, GRACE)
    response = post(world, session, form)
    # The formgrader of the launch's course: her server named for it (nbgrader's formgrader serves one course).
    assert response.status_code == 302 and response.headers["Location"] == \
        f"/hub/spawn/grace-hopper/{COURSE_ID}?next=%2Fuser%2Fgrace-hopper%2F{COURSE_ID}%2Fformgrader"
    assert world.hub.user("grace-hopper")["groups"] == [instructor_group(COURSE_ID)]
    with Gradebook(world.db_url) as gradebook:  # a name, but no student row: no line in exports or reports
        assert gradebook.db.execute(select(IDENTITY_TABLE.c.student_id).where(
            IDENTITY_TABLE.c.lti_user_id == GRACE.sub)).scalar_one() == "grace-hopper"
        assert "grace-hopper" not in {s.id for s in gradebook.students}


def test_one_person_in_two_courses_of_the_hub_has_one_name_and_each_course_s_role(world):
    """Ada, a student of the first course, teaches the second: one hub user, a student there and an instructor
    here; a launch into one course keeps her group of the other."""
    both = sorted([instructor_group(SECOND_ID), student_group(COURSE_ID)])
    for person, course, groups in ((ADA, DEMO_COURSE, None), (SECOND_COURSE.people[0], SECOND_COURSE, both),
                                   (ADA, DEMO_COURSE, both)):
        session, _, form = platform_launch(world, person, course)
        response = post(world, session, form)
        assert response.status_code == 302
        if groups is not None:
            assert sorted(world.hub.user("ada-lovelace")["groups"]) == groups
        if course is SECOND_COURSE:  # teaching there: her server named for that course, with its formgrader
            assert response.headers["Location"] == \
                f"/hub/spawn/ada-lovelace/{SECOND_ID}?next=%2Fuser%2Fada-lovelace%2F{SECOND_ID}%2Fformgrader"
    assert [u for u in world.hub.users() if u.startswith("ada")] == ["ada-lovelace"]
    with Gradebook(f"sqlite:///{world.second / 'gradebook.db'}") as gradebook:
        rows = gradebook.db.execute(select(IDENTITY_TABLE)).all()
        assert [(r.student_id, r.lti_user_id) for r in rows] == [("ada-lovelace", ADA.sub)]
        assert gradebook.students == [], "she teaches that course: no student row there"


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_the_login_s_cookies_come_back_with_a_cross_site_launch_over_https(world, scheme):
    """A hosted LMS posts the launch from another site: the hub's state and nonce cookies must be SameSite=None
    (and so Secure) to come with it. Asked of the hub's own server as a TLS-terminating proxy would ask it."""
    response = requests.get(f"{world.hub.direct}/hub/lti13/oauth_login", allow_redirects=False, timeout=30,
                            headers={"X-Forwarded-Proto": scheme}, params={
                                "iss": world.lms.issuer, "login_hint": "someone", "client_id": world.lms.client_id,
                                "target_link_uri": world.hub.hub_url})
    assert response.status_code == 302
    cookies = [c for c in response.raw.headers.getlist("Set-Cookie") if c.startswith("lti13authenticator-")]
    assert len(cookies) == 2
    for cookie in cookies:
        attributes = {a.strip().split("=")[0].lower(): a.strip() for a in cookie.split(";")[1:]}
        assert "httponly" in attributes
        if scheme == "https":
            assert attributes.get("samesite") == "SameSite=None" and "secure" in attributes, cookie
        else:  # plain HTTP: SameSite=None would need Secure; the loopback demo is one site anyway
            assert "samesite" not in attributes and "secure" not in attributes, cookie


# ---- launches refused ------------------------------------------------------------------------------------------


def test_a_deep_linking_request_without_the_claims_lti_makes_optional_reaches_the_picker(world):
    """LTI 1.3 makes context, launch_presentation, tool_platform and azp optional in a deep linking request (the
    library required them): without a context, the one course of that platform with the deployment is meant."""
    lms = world.dept_lms
    with Gradebook(f"sqlite:///{world.third / 'gradebook.db'}") as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT)  # something to link
    session, state, nonce = login_initiation(world, lms)
    body = claims(world, nonce, fresh_sub(), role=INSTRUCTOR, iss=lms.issuer, aud=lms.client_id,
                  **{CLAIM + "message_type": "LtiDeepLinkingRequest", CLAIM + "resource_link": None,
                     CLAIM + "context": None,
                     CLAIM + "custom": None, "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": {
                         "deep_link_return_url": f"{lms.base}/deep_link_return", "accept_types": ["ltiResourceLink"],
                         "accept_presentation_document_targets": ["window"]}})
    optional = {CLAIM + "context", CLAIM + "launch_presentation", CLAIM + "tool_platform", "azp"}
    assert not optional & set(body)
    response = post(world, session, {"id_token": signed(world, body, lms=lms), "state": state})
    assert response.status_code == 200, response.text[:1000]
    assert "Link an assignment" in response.text and ASSIGNMENT in response.text


def test_two_platforms_on_one_hub_each_launch_into_its_own_course_only(world):
    """A department's LMS registered beside the university's: its launch is verified with its own keys and lands
    in its own course; a token signed by the other platform's key in its name is refused."""
    session, _, form = platform_launch(world, MARIE, DEPT_COURSE, lms=world.dept_lms)
    response = post(world, session, form)
    assert response.status_code == 302, response.text
    with Gradebook(f"sqlite:///{world.third / 'gradebook.db'}") as gradebook:
        rows = gradebook.db.execute(select(IDENTITY_TABLE)).all()
    assert [(r.lti_user_id, r.lti_issuer) for r in rows] == [(MARIE.sub, world.dept_lms.issuer)]
    assert world.hub.user(rows[0].student_id)["groups"] == [student_group(THIRD_ID)]
    assert world.dept_lms.issuer != world.lms.issuer and world.dept_lms.violations == []
    # The university's key cannot speak for the department's platform, nor the department's course for the other.
    session, state, nonce = login_initiation(world, world.dept_lms)
    sub, before = fresh_sub(), refusals(world)
    body = claims(world, nonce, sub, iss=world.dept_lms.issuer, aud=world.dept_lms.client_id,
                  context=DEPT_COURSE.context_id)
    response = post(world, session, {"id_token": signed(world, body), "state": state})
    assert_refused(world, response, before, "signing key", None)  # not among the department's published keys
    session, state, nonce = login_initiation(world)
    forged = signed(world, claims(world, nonce, sub, context=DEPT_COURSE.context_id))
    response = post(world, session, {"id_token": forged, "state": state})
    assert_refused(world, response, before + 1, "not one of this hub's courses", None)


@pytest.mark.parametrize("change", [{"iss": "https://lms.elsewhere.invalid"}, {"client_id": "another-tool"},
                                    {"iss": ""}])
def test_a_login_initiation_from_an_unregistered_platform_or_client_is_refused(world, change):
    """No state, nonce or redirect for a platform the hub has no registration for (LTI 1.3's login initiation
    names it): the browser is not sent to the registered platform's authorisation URL on its behalf."""
    params = {"iss": world.lms.issuer, "login_hint": "someone", "target_link_uri": world.hub.hub_url,
              "client_id": world.lms.client_id, **change}
    response = requests.get(f"{world.hub.hub_url}lti13/oauth_login", params=params, allow_redirects=False,
                            timeout=30)
    assert response.status_code == 400 and "Location" not in response.headers
    assert "not registered with this hub" in response.text and not response.cookies


def test_a_token_signed_with_another_key_is_refused(world):
    session, state, nonce = login_initiation(world)
    sub, before = fresh_sub(), refusals(world)
    other_key, _ = new_key_pair()
    response = post(world, session, {"id_token": signed(world, claims(world, nonce, sub), other_key), "state": state})
    assert_refused(world, response, before, "signature", sub)


@pytest.mark.parametrize("change, reason", [
    (lambda now: {"iss": "https://evil.invalid"}, "issuer"),
    (lambda now: {"aud": "another-tool"}, "audience"),
    # Expired two minutes ago, issued within the library's age limit (600 s): the expiry is what refuses it.
    (lambda now: {"exp": now - 120, "iat": now - 420}, "expired"),
], ids=["other-issuer", "other-audience", "expired"])
def test_a_signed_token_with_another_issuer_audience_or_an_expired_one_is_refused(world, change, reason):
    session, state, nonce = login_initiation(world)
    sub, before = fresh_sub(), refusals(world)
    body = claims(world, nonce, sub, **change(int(time.time())))
    response = post(world, session, {"id_token": signed(world, body), "state": state})
    assert_refused(world, response, before, reason, sub)


def with_cookies(state_from: requests.Session | requests.cookies.RequestsCookieJar,
                 nonce_from: requests.Session | requests.cookies.RequestsCookieJar) -> requests.Session:
    """A browser holding the hub's state cookie of one login and its nonce cookie of another."""
    jars = [j.cookies if isinstance(j, requests.Session) else j for j in (state_from, nonce_from)]
    session = requests.Session()
    session.cookies.set("lti13authenticator-state", jars[0].get("lti13authenticator-state"))
    session.cookies.set("lti13authenticator-nonce-state", jars[1].get("lti13authenticator-nonce-state"))
    return session


def test_a_replayed_nonce_is_refused(world):
    """The launch posted again with the cookies of its login: the library's cookie checks pass it."""
    session, _, form = platform_launch(world, ALAN)
    login_cookies = session.cookies.copy()
    assert post(world, session, form).status_code == 302
    # A fresh state (a new login initiation), the old token and its nonce's cookie.
    fresh, state, _ = login_initiation(world)
    before = refusals(world)
    response = post(world, with_cookies(fresh, login_cookies), {"id_token": form["id_token"], "state": state})
    assert_refused(world, response, before, "nonce was seen before", None)
    # And the whole form as it was, cookies and all.
    response = post(world, with_cookies(login_cookies, login_cookies), form)
    assert_refused(world, response, before + 1, "already used", None)


def test_a_launch_replayed_after_a_restart_of_the_hub_is_refused(world):
    """A launch captured (its form and the browser's cookies), the hub restarted (same cookie secret, so the
    library's cookie checks pass again), the launch posted again: the used nonce and state were kept."""
    session, _, form = platform_launch(world, ALAN)
    captured = session.cookies.copy()
    assert post(world, session, form).status_code == 302
    stop_hub(world.hub)
    world.hub = start_hub(world.hub_folder, [world.course, world.second, world.third], world.port)
    before = refusals(world)
    response = post(world, with_cookies(captured, captured), form)
    assert_refused(world, response, before, "already used", None)


def test_a_replayed_state_is_refused(world):
    session, state, nonce = login_initiation(world)
    first_cookies = session.cookies.copy()
    assert post(world, session, {"id_token": signed(world, claims(world, nonce, fresh_sub())),
                                 "state": state}).status_code == 302
    # The used state and its cookie again, with a fresh nonce and a token signed for it.
    fresh, _, nonce2 = login_initiation(world)
    sub, before = fresh_sub(), refusals(world)
    response = post(world, with_cookies(first_cookies, fresh), {"id_token": signed(world, claims(world, nonce2, sub)),
                                                                "state": state})
    assert_refused(world, response, before, "state was seen before", sub)


@pytest.mark.parametrize("state", [None, "not-the-state-of-this-login"], ids=["missing", "other"])
def test_a_launch_without_its_login_s_state_is_refused(world, state):
    session, real_state, nonce = login_initiation(world)
    sub, before = fresh_sub(), refusals(world)
    data = {"id_token": signed(world, claims(world, nonce, sub))}
    if state is not None:
        data["state"] = state
    assert_refused(world, post(world, session, data), before, "state", sub)


@pytest.mark.parametrize("deployment, reason", [
    (None, "deployment_id"), ("", "deployment id"), ("another-deployment", "deployment id is not one"),
], ids=["missing", "empty", "not-registered"])
def test_a_launch_without_a_registered_deployment_id_is_refused(world, deployment, reason):
    session, state, nonce = login_initiation(world)
    sub, before = fresh_sub(), refusals(world)
    body = claims(world, nonce, sub, **{CLAIM + "deployment_id": deployment})
    response = post(world, session, {"id_token": signed(world, body), "state": state})
    assert_refused(world, response, before, reason, sub)


@pytest.mark.parametrize("how", ["other-key", "unsigned"])
def test_instructor_claimed_in_a_token_the_platform_did_not_sign_is_refused(world, how):
    session, state, nonce = login_initiation(world)
    sub, before = fresh_sub(), refusals(world)
    body = claims(world, nonce, sub, role=INSTRUCTOR)
    token = signed(world, body, new_key_pair()[0]) if how == "other-key" else signed(world, body, algorithm="none")
    assert_refused(world, post(world, session, {"id_token": token, "state": state}), before, "not valid", sub)


def test_a_valid_launch_from_another_lms_course_of_the_same_deployment_is_no_one_here(world):
    """Canvas registers a tool for a whole account: one deployment id for every course. An instructor of
    course B, in a token the platform really signed, is refused in course A."""
    session, _, form = platform_launch(world, BARBARA, OTHER_COURSE)
    before = refusals(world)
    response = post(world, session, form)
    assert_refused(world, response, before, "not one of this hub's courses", BARBARA.sub)
    assert world.hub.user("barbara-liskov") is None


@pytest.mark.parametrize("role", [
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor",
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",  # an institution role: not this course's
    "Instructor",  # a short name, deprecated: only full URIs count
], ids=["mentor", "institution-instructor", "short-name"])
def test_anyone_neither_learner_nor_instructor_nor_ta_is_refused(world, role):
    session, state, nonce = login_initiation(world)
    sub, before = fresh_sub(), refusals(world)
    response = post(world, session, {"id_token": signed(world, claims(world, nonce, sub, role=role)), "state": state})
    assert_refused(world, response, before, "neither Learner, Instructor nor Teaching Assistant", sub)


def test_a_teaching_assistant_is_an_instructor_of_the_course(world):
    session, state, nonce = login_initiation(world)
    body = claims(world, nonce, fresh_sub(), role="http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor"
                                                   "#TeachingAssistant", given_name="Tess", family_name="Assistant",
                  email="tess@uni.invalid")
    assert post(world, session, {"id_token": signed(world, body), "state": state}).status_code == 302
    assert world.hub.user("tess")["groups"] == [instructor_group(COURSE_ID)]


# ---- one identity per student ----------------------------------------------------------------------------------


def test_a_student_imported_from_a_csv_roster_who_then_launches_keeps_one_gradebook_row(world, tmp_path):
    """Émilie is imported first, under an id that cannot be a user name (it becomes a safe one on her first
    launch, with her roster row); Alan launched first, so the roster's row for him lands on his student."""
    session, _, form = platform_launch(world, ALAN)
    assert post(world, session, form).status_code == 302
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name,email,lms_user_id,lti_user_id\n"
                      f"alan,Alan,Turing,alan@uni.invalid,5003,{ALAN.sub}\n"
                      f"Émilie.du-Châtelet@uni,Émilie,du Châtelet,,5004,{EMILIE.sub}\n")
    with Gradebook(world.db_url) as gradebook:
        result = import_roster(gradebook, roster, "plain")
        assert sorted(p.id for p in result.people) == sorted(["alan-turing", "Émilie.du-Châtelet@uni"])
    session, _, form = platform_launch(world, EMILIE)
    assert post(world, session, form).status_code == 302
    with Gradebook(world.db_url) as gradebook:
        ids = sorted(s.id for s in gradebook.students)
        rows = [(r.lti_user_id, r.student_id) for r in gradebook.db.execute(select(IDENTITY_TABLE)).all()]
        emilie = dict(rows)[EMILIE.sub]
        assert "Émilie.du-Châtelet@uni" not in ids and emilie in ids, "renamed before anything was submitted"
        assert re.fullmatch(r"emilie-du-chatel(-[0-9a-f]{6})?", emilie)
        student = gradebook.find_student(emilie)
        assert (student.first_name, student.lms_user_id) == ("Émilie", "5004"), "the roster's row, kept"
        assert [r for r in rows if r[0] in (ALAN.sub, EMILIE.sub)] == [(ALAN.sub, "alan-turing"), (EMILIE.sub, emilie)]
        assert "alan" not in ids and gradebook.find_student("alan-turing").lms_user_id == "5003"
    assert world.hub.user(emilie)["groups"] == [student_group(COURSE_ID)]


def test_a_roster_student_with_a_safe_id_launches_under_that_id(world, tmp_path):
    sub = fresh_sub()
    roster = tmp_path / "roster.csv"
    roster.write_text(f"id,first_name,last_name,email,lms_user_id,lti_user_id\nkurt,Kurt,Gödel,,5005,{sub}\n")
    with Gradebook(world.db_url) as gradebook:
        import_roster(gradebook, roster, "plain")
        before = sorted(s.id for s in gradebook.students)
    session, state, nonce = login_initiation(world)
    response = post(world, session, {"id_token": signed(world, claims(world, nonce, sub)), "state": state})
    assert response.status_code == 302
    assert world.hub.user("kurt")["groups"] == [student_group(COURSE_ID)]
    with Gradebook(world.db_url) as gradebook:
        assert sorted(s.id for s in gradebook.students) == before, "no second row"
