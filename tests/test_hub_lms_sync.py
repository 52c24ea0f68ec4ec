"""The LMS and the course in step with no command run (issue 30), through one real hub (`autograder hub`, its
managed services) and the demo LMS (devtools/demo_lms: lti1p3platform, with the strict checks of its deep linking
return, AGS and NRPS endpoints), both for the whole module:

  - the instructor's "Add the tool" in the LMS: a signed LtiDeepLinkingRequest through the hub's LTI login, the
    hub's assignment picker, its signed answer posted back: one line item, even when linked twice; a student's
    deep linking request is refused;
  - a student launched from that link submits through their own server; the watcher service grades, the push
    service (`autograder push --follow`) puts the score in the LMS's gradebook;
  - the roster service syncs the LMS course's members (NRPS).
"""

from __future__ import annotations

import html
import json
import re
import secrets
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import write_submission
from autograder.devtools.demo_lms.demo_course import DEMO_COURSE, INSTRUCTOR, LEARNER, DemoCourse, DemoPerson
from autograder.devtools.demo_lms.demo_platform import DemoLms, new_key_pair
from autograder.devtools.hub_driver import RunningHub, remove_users, running_hub
from autograder.hub.hub_course import HubCourse, HubCourseError
from autograder.hub.os_accounts import account_command
from autograder.hub.services import free_port, lms_services, push_service_name, roster_service_name
from autograder.lms.gradebook import open_gradebook
from autograder.lms.identity import load_people
from autograder.lms.identity_names import readable
from autograder.lms.roster_sync import lms_statuses
from tests.grading_course import ASSIGNMENT, exchange_course
from tests.students import check_can_make_students
from tests.test_hub import launch
from tests.test_lti_launch import posted_form

TAG = secrets.token_hex(3)
COURSE_ID = f"hublms-{TAG}"  # the course's OS group is the machine's: this run's own
# The people are this run's own too: the roster sync names the students from their e-mails (as their launches
# would: launch_identity.new_name), and so their OS users.
TEACHER = DemoPerson(f"lk{TAG}t", "Grace", f"Link{TAG}", f"grace.{TAG}@demo.invalid", INSTRUCTOR)
ADA = DemoPerson(f"lk{TAG}a", "Ada", f"Link{TAG}", f"ada.{TAG}@demo.invalid", LEARNER)
ALAN = DemoPerson(f"lk{TAG}b", "Alan", f"Link{TAG}", f"alan.{TAG}@demo.invalid", LEARNER)
NAMES = {person.sub: readable(person.email) for person in (TEACHER, ADA, ALAN)}  # identity_names' first choice
WAIT = 240  # seconds: a generous bound on what the services do by themselves, never a measured time


@dataclass
class World:
    lms: DemoLms
    hub: RunningHub
    folder: Path


@pytest.fixture(scope="module")
def world():
    check_can_make_students()
    scratch, folder = exchange_course("autograder-hub-lms-", COURSE_ID)
    nbgrader(folder, "release_assignment", ASSIGNMENT)
    port = free_port()
    try:
        course = DemoCourse(DEMO_COURSE.context_id, DEMO_COURSE.title, DEMO_COURSE.label, (TEACHER, ADA, ALAN))
        with DemoLms(f"http://127.0.0.1:{port}/hub/", [], (course,)) as lms:  # no link until the tool is added
            # The tool's key in a file outside the course, its public key given to the LMS; the sender polls the
            # outbox often, as a test's patience is shorter than a term's.
            lms.register_course(folder, key_file=scratch / "tool-key.pem")
            with (folder / "lms.toml").open("a") as settings:
                settings.write("\n[push]\npoll_seconds = 0.2\nbackoff_seconds = 0.5\n")
            with running_hub(folder, scratch / "state", port=port) as hub:
                yield World(lms, hub, folder)
                assert lms.violations == []
    finally:
        remove_users(list(NAMES.values()))
        account_command("groupdel", f"instructors-{COURSE_ID}")
        subprocess.run(["rm", "-rf", str(scratch)])


def wait_for(what: str, found, world: World):
    deadline = time.monotonic() + WAIT
    while not (value := found()):
        assert time.monotonic() < deadline, f"{what}: not within {WAIT} s\n{world.hub.log()[-4000:]}"
        time.sleep(0.5)
    return value


def roster(world: World) -> tuple[dict, dict]:
    with open_gradebook(world.folder) as gradebook:
        return {p.lti_user_id: p for p in load_people(gradebook) if p.lti_user_id}, lms_statuses(gradebook)


def add_the_tool(world: World, person: DemoPerson) -> tuple[requests.Session, requests.Response]:
    """The course page's "Add the tool" as `person`: the LMS's deep linking request, up to the hub's answer."""
    session = requests.Session()
    page = session.get(world.lms.add_tool_link(person), timeout=60)
    assert page.status_code == 200, page.text[:1000]
    action, form = posted_form(page.text)
    assert action == f"{world.hub.url}/hub/lti13/oauth_callback"
    return session, session.post(action, data=form, allow_redirects=False, timeout=60)


def pick(world: World, session: requests.Session, picker: requests.Response, assignment: str) -> requests.Response:
    """The instructor's choice on the hub's picker page."""
    action = html.unescape(re.search(r'<form method="post" action="([^"]*)"', picker.text).group(1))
    state = html.unescape(re.search(r'name="state" value="([^"]*)"', picker.text).group(1))
    return session.post(f"{world.hub.url}{action}", data={"state": state, "assignment": assignment},
                        allow_redirects=False, timeout=60)


def link_the_assignment(world: World) -> requests.Response:
    """The instructor adds the tool and links ASSIGNMENT; the browser posts the hub's answer to the LMS."""
    session, picker = add_the_tool(world, TEACHER)
    assert picker.status_code == 200 and "Link an assignment" in picker.text, picker.text[:1000]
    # Shown in a frame of the LMS's own (Canvas's modal): that LMS, and only it, may frame the hub's pages here.
    assert picker.headers["Content-Security-Policy"] == f"frame-ancestors 'self' {world.lms.base}"
    assert f"<strong>{ASSIGNMENT}</strong>" in picker.text
    answer = pick(world, session, picker, ASSIGNMENT)
    assert answer.status_code == 200, answer.text[:1000]
    action, form = posted_form(answer.text)
    assert action == world.lms.return_url and set(form) == {"JWT"}
    assert answer.headers["Content-Security-Policy"] == f"frame-ancestors 'self' {world.lms.base}"
    back = session.post(action, data=form, timeout=60)  # the LMS takes the link and shows its course page
    assert back.status_code == 200, back.text[:1000]
    assert pick(world, session, picker, ASSIGNMENT).status_code == 400, "a picker's choice is good once"
    return back


def linked_lineitems(world: World) -> list[dict]:
    return [item for item in world.lms.store.lineitems.values() if item.get("tag") == ASSIGNMENT]


def test_the_tool_s_public_keys_are_at_a_keyset_url_and_only_public_parts(world):
    """What an LMS registers instead of a pasted key: the keys the platform was given (their kids), public only."""
    reply = requests.get(f"{world.hub.url}/hub/lti13/jwks", timeout=30)
    assert reply.status_code == 200 and reply.headers["Content-Type"].startswith("application/json")
    keys = reply.json()["keys"]
    assert {k["kid"] for k in keys} == set(world.lms.tool_keys) and len(keys) == 1
    assert all(k["kty"] == "RSA" and not {"d", "p", "q", "dp", "dq", "qi"} & set(k) for k in keys)


def test_the_roster_service_syncs_the_lms_course_s_members(world):
    services = world.hub.admin.hub("GET", "/services").json()
    assert services[roster_service_name(COURSE_ID)]["pid"] > 0 and services[push_service_name(COURSE_ID)]["pid"] > 0
    people, status = wait_for("the roster synced", lambda: (r := roster(world)) and ALAN.sub in r[0] and r, world)
    assert {sub: (p.first_name, p.last_name, p.email) for sub, p in people.items()} == {
        ADA.sub: ("Ada", ADA.family_name, ADA.email), ALAN.sub: ("Alan", ALAN.family_name, ALAN.email)}, \
        "the learners, and no one else: the instructor is not graded"
    assert {people[sub].id: status[people[sub].id] for sub in people} == {NAMES[ADA.sub]: "active",
                                                                          NAMES[ALAN.sub]: "active"}


def test_an_instructor_s_deep_link_makes_one_line_item_even_when_linked_twice(world):
    page = link_the_assignment(world)
    (item,) = linked_lineitems(world)
    # 46 autograded points and the written answer's 2, graded by hand
    assert (item["label"], item["scoreMaximum"], item["resourceId"]) == (ASSIGNMENT, 48, ASSIGNMENT)
    assert f"Open {ASSIGNMENT} as Ada" in html.unescape(page.text), "the course page lists the new link"
    link_the_assignment(world)  # again, as from a copied LMS course
    assert len(linked_lineitems(world)) == 1, "the second link reuses the first's column"
    assert [link.assignment for link in world.lms.resource_links] == [ASSIGNMENT, ASSIGNMENT]
    assert "lineItem" in world.lms.links[0] and "lineItem" not in world.lms.links[1]
    assert world.lms.violations == []


def test_a_student_s_deep_linking_request_is_refused(world):
    before = len(world.lms.links)
    _, response = add_the_tool(world, ADA)
    assert response.status_code == 403, response.text[:1000]
    assert "Launch refused" in response.text and "only an instructor" in response.text
    assert "Link an assignment" not in response.text and len(world.lms.links) == before
    assert "LTI launch refused: only an instructor" in world.hub.log()
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"], "a refusal keeps the hub's"


def test_a_student_launched_from_the_link_is_graded_and_the_score_reaches_the_lms_gradebook(world):
    if not linked_lineitems(world):
        link_the_assignment(world)
    (number,) = [n for n, item in world.lms.store.lineitems.items() if item.get("tag") == ASSIGNMENT]
    wait_for("the roster synced", lambda: ADA.sub in roster(world)[0], world)  # the sync named her first
    session, landing = launch(world.lms, world.hub.url, ADA)
    assert landing == f"{world.hub.url}/hub/user-redirect/autograder/open/{ASSIGNMENT}"  # hub/open_assignment.py
    name = roster(world)[0][ADA.sub].id
    assert name == NAMES[ADA.sub], "her launch kept the name the sync gave her, the one it would have given"
    assert world.hub.admin.hub("GET", f"/users/{name}").status_code == 200
    api = world.hub.add_user(name, course_id=COURSE_ID)  # her own token (she is in the student group already)
    assert world.hub.spawn(name).status_code in (201, 202)
    world.hub.wait_ready(name)
    answered = write_submission(ASSIGNMENT, Path(tempfile.mkdtemp()), release=world.folder / "release" / ASSIGNMENT)
    saved = api.put_notebook(name, f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb", json.loads(answered.read_text()))
    assert saved.status_code == 200, saved.text[:300]
    submitted = api.assignments(name, "submit", COURSE_ID, ASSIGNMENT).json()
    assert submitted["success"], submitted
    scores = wait_for("the score in the LMS's gradebook", lambda: world.lms.scores(number, ADA.sub), world)
    (score,) = scores
    # every function right, the written answer left as released: nbgrader's 0 for no response, nothing to wait for
    assert (score["scoreGiven"], score["scoreMaximum"]) == (46, 48), score
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    assert world.lms.violations == []


# ---- which LMS services a course gets (no hub needed) -----------------------------------------------------------


def course_with_lti(tmp_path: Path, lti_lines: str) -> HubCourse:
    folder = tmp_path / "course"
    folder.mkdir(parents=True)
    (folder / "lms.toml").write_text('[lti]\nissuer = "https://lms.example"\nclient_id = "tool"\n'
                                     'token_url = "https://lms.example/token"\n'
                                     'lineitems_url = "https://lms.example/lineitems"\n'
                                     'memberships_url = "https://lms.example/members"\n' + lti_lines)
    return HubCourse("c1", folder, tmp_path / "exchange")


def test_the_lms_services_run_only_with_a_key_lms_toml_names_and_the_hub_can_read(tmp_path, monkeypatch):
    assert lms_services(course_with_lti(tmp_path / "none", "")) == [], "no key named: no service"
    key, _ = new_key_pair()
    (tmp_path / "key.pem").write_text(key)
    named = lms_services(course_with_lti(tmp_path / "file", f'private_key_file = "{tmp_path / "key.pem"}"\n'))
    assert [s["name"] for s in named] == [push_service_name("c1"), roster_service_name("c1")]
    assert [s["environment"] for s in named] == [{}, {}], "a key file is read by the service, not passed to it"
    monkeypatch.setenv("COURSE_LTI_KEY", key)
    named = lms_services(course_with_lti(tmp_path / "env", 'private_key_env = "COURSE_LTI_KEY"\n'))
    assert [s["environment"] for s in named] == [{"COURSE_LTI_KEY": key.strip()}] * 2
    inside = course_with_lti(tmp_path / "inside", 'private_key_file = "tool-key.pem"\n')
    (inside.folder / "tool-key.pem").write_text(key)
    with pytest.raises(HubCourseError, match="points inside the course folder"):
        lms_services(inside)
    with pytest.raises(HubCourseError, match="no LTI private key: set the environment variable MISSING_KEY"):
        lms_services(course_with_lti(tmp_path / "unset", 'private_key_env = "MISSING_KEY"\n'))


def test_a_failed_roster_sync_is_one_log_line_and_the_service_goes_on(tmp_path, caplog):
    """The LMS unreachable (nothing listens on the memberships URL's port): one warning, nothing written, and the
    loop waits for the next try until the hub stops it."""
    import logging
    import threading

    from autograder.hub.roster_service import RETRY_SECONDS, sync_every

    key, _ = new_key_pair()
    (tmp_path / "key.pem").write_text(key)
    dead = f"http://127.0.0.1:{free_port()}"
    course = course_with_lti(tmp_path, f'private_key_file = "{tmp_path / "key.pem"}"\n[push]\nretries = 0\n')
    text = (course.folder / "lms.toml").read_text().replace("https://lms.example", dead)
    (course.folder / "lms.toml").write_text(text)
    stop = threading.Event()
    threading.Timer(3, stop.set).start()
    with caplog.at_level(logging.INFO, logger="autograder.hub.roster_service"):
        sync_every(course.folder, stop)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and lines[0].startswith("roster sync failed: ") and "\n" not in lines[0], lines
    assert f"next try in {RETRY_SECONDS:.0f} s" in lines[0]
    assert not (course.folder / "gradebook.db").exists(), "nothing written"
