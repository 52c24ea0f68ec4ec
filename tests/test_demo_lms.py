"""The demo LMS (`devtools.demo_lms.demo_platform`) on its own: its pages read in Chromium (one link per person
and assignment; the gradebook of the scores received through its real AGS endpoints, a hostile comment shown as
text), no serious accessibility violation, and the strictness of its authorization endpoint. The launches it
signs are tested against a real hub in test_lti_launch.py. Screenshots: /tmp/page-demo-lms-*.png."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import pytest
import requests

from autograder.devtools.demo_lms.demo_course import DEMO_COURSE
from autograder.devtools.demo_lms.demo_pages import refusal_page
from autograder.devtools.demo_lms.demo_platform import DemoLms, new_key_pair
from autograder.devtools.demo_lms.lti_platform import ASSERTION_TYPE, LINEITEM_TYPE, SCORE_TYPE
from autograder.hub.lti_login import REFUSED_PAGE
from autograder.lms.lti import jwks

HUB = "http://127.0.0.1:9/hub/"  # never contacted: the tests stop where the browser would go to the hub
ASSIGNMENTS = ["hidden_state_activation", "rnn_update_equations"]
SHOTS = Path("/tmp")
HOSTILE_COMMENT = "<script>alert(1)</script> sigmoid 6/7"


@pytest.fixture(scope="module")
def lms():
    tool_key, _ = new_key_pair()
    with DemoLms(HUB, ASSIGNMENTS, tool_jwks=jwks(tool_key)) as platform:
        platform.tool_key = tool_key
        yield platform


def send_score(lms: DemoLms, user: str, given: float, comment: str) -> None:
    """As a tool does (AGS): a token by a signed client assertion, a line item, a score."""
    now = int(time.time())
    assertion = jwt.encode({"iss": lms.client_id, "sub": lms.client_id, "aud": lms.token_url, "iat": now,
                            "exp": now + 300, "jti": uuid.uuid4().hex}, lms.tool_key, algorithm="RS256",
                           headers={"kid": jwks(lms.tool_key)["keys"][0]["kid"]})
    token = requests.post(lms.token_url, data={
        "grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE, "client_assertion": assertion,
        "scope": "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem "
                 "https://purl.imsglobal.org/spec/lti-ags/scope/score"}, timeout=30)
    assert token.status_code == 200, token.text
    auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
    item = requests.post(f"{lms.base}/lineitems", json={"label": ASSIGNMENTS[0], "scoreMaximum": 46},
                         headers={**auth, "Content-Type": LINEITEM_TYPE}, timeout=30)
    assert item.status_code in (200, 201), item.text
    score = requests.post(f"{item.json()['id']}/scores", headers={**auth, "Content-Type": SCORE_TYPE}, timeout=30,
                          json={"userId": user, "scoreGiven": given, "scoreMaximum": 46, "comment": comment,
                                "timestamp": datetime.now(UTC).isoformat(timespec="microseconds"),
                                "activityProgress": "Completed", "gradingProgress": "FullyGraded"})
    assert score.status_code in (200, 204), score.text


def test_the_course_page_and_the_gradebook_read_in_a_browser(lms):
    from playwright.sync_api import sync_playwright

    from tests.axe import serious_violations
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    ada = DEMO_COURSE.people[1]
    send_score(lms, ada.sub, 40.5, HOSTILE_COMMENT)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(f"{lms.base}/")
            page.screenshot(path=str(SHOTS / "page-demo-lms-course.png"), full_page=True)
            links = page.eval_on_selector_all("main a", "as => as.map(a => [a.textContent, a.href])")
            course_violations = serious_violations(page)
            page.get_by_role("link", name="The LMS gradebook").click()
            page.wait_for_load_state()
            page.screenshot(path=str(SHOTS / "page-demo-lms-gradebook.png"), full_page=True)
            cells = page.eval_on_selector_all("tbody td", "tds => tds.map(td => td.textContent)")
            alerted = page.evaluate("typeof window.alerted")
            gradebook_violations = serious_violations(page)
            # The pages that refuse a launch: the hub's (lti_login.py) and this platform's.
            refusal_violations = []
            for refusal in (REFUSED_PAGE.format(reason="the launch is not valid: Signature verification failed"),
                            refusal_page("authentication request with redirect_uri 'x', expected 'y'")):
                page.set_content(refusal)
                refusal_violations += serious_violations(page)
            page.screenshot(path=str(SHOTS / "page-demo-lms-refused.png"), full_page=True)
        finally:
            browser.close()
    launches = [(text, href) for text, href in links if "/launch?" in href]
    assert [text for text, _ in launches] == [f"Open {a} as {p.name} ({p.role_name})"
                                              for a in ASSIGNMENTS for p in DEMO_COURSE.people]
    assert cells[:5] == [ASSIGNMENTS[0], "Ada Lovelace", "40.5", "46", HOSTILE_COMMENT], cells
    assert alerted == "undefined"
    assert course_violations == gradebook_violations == refusal_violations == [], (
        course_violations, gradebook_violations, refusal_violations)


def initiation(lms: DemoLms, person=DEMO_COURSE.people[1]) -> dict[str, str]:
    """A link's click: the login initiation the platform sends the browser to (the hub's URL: not followed)."""
    response = requests.get(lms.launch_link(person, ASSIGNMENTS[0]), allow_redirects=False, timeout=30)
    assert response.status_code == 302 and response.headers["Location"].startswith(f"{HUB}lti13/oauth_login?")
    return {k: v[0] for k, v in parse_qs(urlsplit(response.headers["Location"]).query).items()}


def authorize(lms: DemoLms, **changes: str) -> requests.Response:
    """The tool's authentication request, as jupyterhub-ltiauthenticator sends it, with `changes`."""
    start = initiation(lms)
    params = {"response_type": "id_token", "scope": "openid", "response_mode": "form_post", "prompt": "none",
              "client_id": lms.client_id, "redirect_uri": lms.redirect_uri, "login_hint": start["login_hint"],
              "lti_message_hint": start["lti_message_hint"], "nonce": "n-" + uuid.uuid4().hex,
              "state": "s-" + uuid.uuid4().hex}
    params.update(changes)
    return requests.get(f"{lms.base}/authorize?{urlencode(params)}", timeout=30)


def test_the_authorization_endpoint_signs_a_launch_for_the_person_the_link_names(lms):
    response = authorize(lms)
    assert response.status_code == 200 and f'action="{lms.redirect_uri}"' in response.text


@pytest.mark.parametrize("changes", [
    {"redirect_uri": "https://evil.invalid/callback"},
    {"response_type": "code"},
    {"client_id": "another-tool"},
    {"login_hint": DEMO_COURSE.people[0].sub},  # the instructor's id with a student's link
    {"lti_message_hint": '["demo-rnn-101", "demo-user-0001", "hidden_state_activation"].0000'},
    {"lti_message_hint": "Émilie.é"},
    {"nonce": ""},
], ids=["redirect-uri", "response-type", "client-id", "login-hint", "forged-message-hint", "unicode-message-hint",
        "no-nonce"])
def test_the_authorization_endpoint_refuses_what_it_did_not_issue_or_register(lms, changes):
    before = len(lms.violations)
    response = authorize(lms, **changes)
    assert response.status_code == 400 and 'name="id_token"' not in response.text
    assert len(lms.violations) == before + 1


def test_the_demo_course_registers_in_a_course_s_lms_toml_once(lms, tmp_path):
    from autograder.lms.errors import LmsError
    from autograder.lms.lms_settings import load

    (tmp_path / "lms.toml").write_text('[moodle]\nidentifier = "email"')
    lms.register_course(tmp_path)
    settings = load(tmp_path)
    assert settings.get("moodle", "identifier") == "email"
    assert settings.section("lti") == lms.lti_section() and settings.get("lti", "context_id") == DEMO_COURSE.context_id
    # Again, on the same port (`make hub` started again): the same registration, kept as it is.
    written = (tmp_path / "lms.toml").read_text()
    lms.register_course(tmp_path)
    assert (tmp_path / "lms.toml").read_text() == written
    # Another platform's registration (here: the demo LMS on another port) is refused and left alone.
    with DemoLms(HUB, ASSIGNMENTS) as other, pytest.raises(LmsError, match="already has an \\[lti\\] section"):
        other.register_course(tmp_path)
    assert (tmp_path / "lms.toml").read_text() == written
