"""The whole loop, in a real browser (Debian's Chromium, driven by Playwright): `make hub`'s demo loop
(devtools/demo_loop.py: `autograder hub`'s steps beside the demo LMS) runs the hub and the demo LMS; a student
clicks their link on the demo LMS's course page, the hub's LTI 1.3 login lets them in, their own JupyterLab opens
on the assignment, they answer an exercise, submit it in the Assignments panel, and Fetch Feedback shows the score
the hub's watcher service gave. An instructor's link reaches the formgrader; the student's session does not. One
hub for the file, two servers (a student's, an instructor's)."""

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.demo_lms.demo_course import DEMO_COURSE
from autograder.devtools.hub_driver import DEMO_LOOP, RunningHub, remove_users, running_hub
from autograder.hub.hub_course import read_hub_course
from autograder.hub.os_accounts import account_command
from autograder.hub.services import free_port
from tests.assignments_panel import answer_and_save, fetch_feedback, open_assignment_list, submit
from tests.axe import serious_violations
from tests.browser import CHROMIUM, CHROMIUM_FLAGS
from tests.grading_course import ASSIGNMENT, exchange_course, scores
from tests.students import check_can_make_students

# Not the course's own id: the hub gives a course's instructors an OS group named for it, which test_hub.py's hub
# (on another pytest worker, at the same time) makes and removes for the course's own id.
COURSE_ID = "rnn-hub-loop"
GRACE, ADA = DEMO_COURSE.people[0], DEMO_COURSE.people[1]
# Grace's name is the one her launch gives her (lti_login.py: from her e-mail or name). Ada, a learner, is also
# synced by the hub's roster service at its start: whichever comes first, her launch or the sync, names her by the
# one rule (launch_identity.new_name), so she is ada-lovelace either way, and the other keeps that name.
STUDENT, INSTRUCTOR = "ada-lovelace", "grace-hopper"
SHOTS = Path("/tmp")
SPAWN_TIMEOUT_MS = 300_000  # a server's first start on a loaded 2-core machine (the hub's own limit is 600 s)


@dataclass
class Loop:
    hub: RunningHub
    lms_url: str
    course: Path
    browser: Any
    contexts: dict[str, Any] = field(default_factory=dict)  # a person's browser, by their hub name
    student: str = ""  # Ada's hub name, once her launch has given it

    def launch(self, person, name: str) -> Any:
        """`person` clicks their link on the demo LMS's course page, in a browser of their own: the page it ends on."""
        context = self.browser.new_context(viewport={"width": 1400, "height": 1000})
        self.contexts[name] = context
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{self.lms_url}/")
        page.get_by_role("link", name=f"Open {ASSIGNMENT} as {person.name}").click()
        return page


@pytest.fixture(scope="module")
def loop():
    from playwright.sync_api import sync_playwright

    check_can_make_students()
    scratch, folder = exchange_course("autograder-hub-loop-", COURSE_ID)
    nbgrader(folder, "release_assignment", ASSIGNMENT)
    lms_port = free_port()
    try:
        with running_hub(folder, scratch / "state", "--lms-port", str(lms_port), command=DEMO_LOOP) as hub, \
                sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
            try:
                yield Loop(hub, f"http://127.0.0.1:{lms_port}", folder, browser)
            finally:
                browser.close()
    finally:
        remove_users([STUDENT, INSTRUCTOR])
        account_command("groupdel", read_hub_course(folder).instructors_os_group)  # made by the hub
        subprocess.run(["rm", "-rf", str(scratch)])


def test_the_command_prints_the_demo_lms_course_page_which_links_every_person_and_passes_axe(loop):
    deadline = time.monotonic() + 60
    while "Open the demo LMS's course page" not in loop.hub.log():
        assert time.monotonic() < deadline, loop.hub.log()[-3000:]
        time.sleep(0.2)
    page = loop.browser.new_page(viewport={"width": 1000, "height": 800})
    try:
        page.goto(f"{loop.lms_url}/")
        links = page.get_by_role("link").all_inner_texts()
        violations = serious_violations(page)
        page.screenshot(path=str(SHOTS / "page-hub-loop-lms.png"), full_page=True)
    finally:
        page.close()
    assert [f"Open {ASSIGNMENT} as {p.name} ({p.role_name})" for p in DEMO_COURSE.people] == links[:4], links
    # The URL to open is on a line of its own, after the line that says what it is.
    said = loop.hub.log().split("Open the demo LMS's course page", 1)[1].splitlines()
    assert f"    {loop.lms_url}/" in said[1:3], said[:3]
    assert violations == [], violations
    # The course's lms.toml holds the demo course's registration, which the hub's login read; the command says so.
    assert f'issuer = "{loop.lms_url}"' in (loop.course / "lms.toml").read_text()
    assert f"the demo LMS's course is registered in {loop.course / 'lms.toml'} [lti]" in loop.hub.log()


def test_a_students_launch_opens_their_jupyterlab_and_their_submission_comes_back_graded(loop):
    page = loop.launch(ADA, "ada")
    # The hub's login, the spawn page, then their own server on the assignment's notebook, open.
    page.wait_for_url(re.compile(rf"/user/{STUDENT}/lab/tree/{ASSIGNMENT}/{ASSIGNMENT}\.ipynb$"),
                      timeout=SPAWN_TIMEOUT_MS)
    page.get_by_role("tab", name=re.compile(rf"{ASSIGNMENT}\.ipynb")).first.wait_for()
    page.screenshot(path=str(SHOTS / "page-hub-loop-landed.png"))
    student = loop.student = STUDENT
    panel, menu = open_assignment_list(page)
    answer_and_save(page, panel, ASSIGNMENT)
    submitted = submit(page, panel)
    deadline = time.monotonic() + 300
    while not re.search(rf"graded {student} {ASSIGNMENT} ", loop.hub.log()):  # the watcher service's line
        assert time.monotonic() < deadline, loop.hub.log()[-4000:]
        time.sleep(0.5)
    frame = fetch_feedback(page, submitted, ASSIGNMENT)
    text = frame.locator("body").inner_text()
    page.screenshot(path=str(SHOTS / "page-hub-loop-feedback.png"))
    assert page.get_by_text("Jupyter news").count() == 0, "JupyterLab's news toast over the student's work"
    assert f"LTI launch: {student} is student of {COURSE_ID}" in loop.hub.log()
    assert [item for item in menu if item.strip()] == ["Assignment List"], menu  # no instructor tools
    assert re.search(r"concat_weights\s+6 / 6", text), text[:3000]
    assert re.search(r"concat_state_input\s+0 / 6", text) and "BEGIN HIDDEN TESTS" not in text
    assert scores(loop.course)[student]["test_concat_weights"] == 6
    # The hub's push service sends the score to the demo LMS by itself (its key in the hub's state folder).
    deadline = time.monotonic() + 240
    while not re.search(r"<td>Ada Lovelace</td><td class=\"number\">6(\.0)?</td>", gradebook := requests.get(
            f"{loop.lms_url}/gradebook", timeout=10).text):
        assert time.monotonic() < deadline, gradebook[-2000:] + loop.hub.log()[-3000:]
        time.sleep(1)


def test_my_assignments_opens_from_jupyterlabs_course_menu_with_the_latest_attempt_and_a_way_back(loop):
    """JupyterLab's Course menu and a file browser button (settings written by the hub, user_config.py) open the
    student's My assignments page in a tab of its own; its feedback link names her latest attempt; its link leads
    back to her JupyterLab. (~4 CPU-s, the browser's)"""
    context = loop.contexts.get("ada")
    assert loop.student and context is not None, "the student's launch (the test before) did not run"
    lab = context.pages[0]
    lab.get_by_role("menuitem", name="Course").click()
    with context.expect_page() as opened:
        lab.get_by_role("menuitem", name="My assignments").click()
    mine = opened.value
    try:
        mine.get_by_role("heading", name=f"My assignments: {COURSE_ID}").wait_for()
        mine.screenshot(path=str(SHOTS / "page-hub-loop-my-assignments.png"), full_page=True)
        links = mine.get_by_role("link").all_inner_texts()
        assert f"{ASSIGNMENT}: attempt 1" in links, links
        mine.get_by_role("link", name="Back to JupyterLab").click()
        mine.wait_for_url(re.compile(rf"/user/{loop.student}/lab"))
    finally:
        mine.close()
    # The same page from the button in the file browser's toolbar, beside the Launcher's "+".
    with context.expect_page() as opened:
        lab.locator(".jp-FileBrowser-toolbar").get_by_text("My assignments").click()
    again = opened.value
    try:
        again.get_by_role("heading", name=f"My assignments: {COURSE_ID}").wait_for()
    finally:
        again.close()
    # And from the Launcher: a card of its own in a "Course" section (jupyter-server-proxy's launcher entry).
    lab.get_by_role("menuitem", name="File").click()
    lab.get_by_role("menuitem", name="New Launcher").click()
    card = lab.locator(".jp-Launcher .jp-LauncherCard").filter(has_text="My assignments")
    card.wait_for()
    lab.screenshot(path=str(SHOTS / "page-hub-loop-launcher.png"))
    with context.expect_page() as opened:
        card.click()
    from_card = opened.value
    try:
        from_card.get_by_role("heading", name=f"My assignments: {COURSE_ID}").wait_for()
        assert "/services/" in from_card.url, from_card.url
    finally:
        from_card.close()


def test_a_students_session_reaches_no_formgrader(loop):
    student = loop.student
    context = loop.contexts.get("ada")
    assert student and context is not None, "the student's launch (the test before) did not run"
    page = context.new_page()
    try:
        # Their own server has none; the instructor's is not theirs to open (whether or not it runs yet).
        own = page.goto(f"{loop.hub.url}/hub/user-redirect/formgrader")
        own_status, own_url = own.status, page.url
        other = page.goto(f"{loop.hub.url}/user/{INSTRUCTOR}/formgrader")
        other_status, other_text = other.status, page.content()
    finally:
        page.close()
    assert own_url.startswith(f"{loop.hub.url}/user/{student}/") and own_status == 404, (own_url, own_status)
    assert other_status in (403, 404) or "Launch refused" in other_text, (other_status, other_text[:500])
    assert "Manage Assignments" not in other_text


def test_an_instructors_launch_reaches_the_formgrader_with_the_assignment(loop):
    page = loop.launch(GRACE, INSTRUCTOR)
    # Her server named for the launch's course (nbgrader's formgrader serves one course per server).
    page.wait_for_url(re.compile(rf"/user/{INSTRUCTOR}/{COURSE_ID}/formgrader"), timeout=SPAWN_TIMEOUT_MS)
    page.get_by_text("Manage Assignments").first.wait_for()
    page.get_by_role("link", name=ASSIGNMENT).first.wait_for()
    page.screenshot(path=str(SHOTS / "page-hub-loop-formgrader.png"), full_page=True)
    assert f"LTI launch: {INSTRUCTOR} is instructor of {COURSE_ID}" in loop.hub.log()


def test_a_course_without_a_gradebook_gets_one_at_set_up_that_its_instructors_can_write():
    """add_course makes the gradebook (with our tables) before it gives the course folder to its instructors'
    group: made later, by the login at the first launch, it would be the hub's (root's) alone, and no instructor
    could record a grade. One there already is left as it is."""
    import grp
    import sqlite3
    import stat

    from traitlets.config import Config

    from autograder.hub.course_config import add_course
    from autograder.lms.identity import IDENTITY_TABLE

    course_id = "hub-loop-gradebook"
    scratch = Path(tempfile.mkdtemp(prefix="autograder-hub-gradebook-"))
    os.chmod(scratch, 0o755)
    folder = scratch / "course"
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(f"c = get_config()  # noqa: F821\n"
                                               f"c.CourseDirectory.course_id = {course_id!r}\n"
                                               f"c.Exchange.root = {str(scratch / 'exchange')!r}\n")
    gradebook = folder / "gradebook.db"
    instructors = read_hub_course(folder).instructors_os_group
    try:
        add_course(Config(), folder, scratch / "state")
        made = gradebook.stat()
        group = grp.getgrgid(made.st_gid).gr_name
        with sqlite3.connect(gradebook) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        before = gradebook.read_bytes()
        add_course(Config(), folder, scratch / "state")
        assert gradebook.read_bytes() == before
    finally:
        account_command("groupdel", instructors)
        shutil.rmtree(scratch)
    assert {"assignment", "student", IDENTITY_TABLE.name} <= tables, tables
    assert group == instructors
    assert made.st_mode & (stat.S_IRGRP | stat.S_IWGRP) == stat.S_IRGRP | stat.S_IWGRP


@pytest.mark.parametrize("case", ["another platform's [lti]", "lms.toml not TOML", "another authenticator"])
def test_demo_lms_refuses_in_one_line_a_course_of_another_platform_or_another_login(case):
    scratch = Path(tempfile.mkdtemp(prefix="autograder-hub-refused-"))
    os.chmod(scratch, 0o755)
    folder = scratch / "course"
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(f"c = get_config()  # noqa: F821\n"
                                               f"c.CourseDirectory.course_id = {COURSE_ID!r}\n")
    registered = ('[lti]\nissuer = "https://canvas.instructure.com"\n' if case != "lms.toml not TOML"
                  else "[lti\nissuer = \n")
    (folder / "lms.toml").write_text(registered)
    extra = ["--authenticator", "null"] if case == "another authenticator" else []
    try:
        done = subprocess.run([*DEMO_LOOP, str(folder), "--lms-port", str(free_port()),
                               "--state", str(scratch / "state"), *extra], capture_output=True, text=True)
    finally:
        lms_toml, state_made = (folder / "lms.toml").read_text(), (scratch / "state").exists()
        shutil.rmtree(scratch)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    expected = {"another platform's [lti]": "already has an [lti] section", "lms.toml not TOML": "not valid TOML",
                "another authenticator": "leave out --authenticator"}[case]
    assert expected in done.stderr, done.stderr
    assert lms_toml == registered  # the course's own registration is left as it was
    assert not state_made  # refused before the hub's state folder was made


def test_make_hub_refuses_a_clone_other_users_cannot_reach_before_it_installs_anything(tmp_path):
    """`make hub` in a clone under a 0700 folder (a home): one line naming the folder and what to do, before the
    install (no .venv made). (~0.1 CPU-s)"""
    closed = tmp_path / "home"
    clone = closed / "autograder"
    clone.mkdir(parents=True)
    shutil.copy(Path(__file__).parents[1] / "Makefile", clone / "Makefile")
    os.chmod(closed, 0o700)
    done = subprocess.run(["make", "--no-print-directory", "hub"], cwd=clone, capture_output=True, text=True)
    refusal = [line for line in done.stderr.splitlines() if line.startswith("make hub:")]
    assert done.returncode != 0 and len(refusal) == 1, done.stderr
    assert f"{closed} keeps other users out" in refusal[0] and f"chmod o+x {closed}" in refusal[0]
    assert not (clone / ".venv").exists() and done.stdout == ""
