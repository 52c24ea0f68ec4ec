"""Each student's "My assignments" page: its data from the ledger, the gradebook's deadlines and the course's rules
(unit tests, no hub), then the page as the hub serves it (a real `autograder hub`, with two students and an
instructor made through its REST API, each calling with a token of their own through the proxy).

The hub's fixture writes the watcher's ledger and the released feedback pages itself, as the watcher writes them
(its grading is tests/test_hub.py's): the page only reads them."""

import json
import os
import re
import secrets
import subprocess
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.deadlines.rules import rules_from
from autograder.deadlines.student_deadline import StudentDeadline
from autograder.hub.my_assignments import assignment_rows
from autograder.watch.attempt_policy import Policy
from autograder.watch.ledger import Record

NOW = datetime(2026, 3, 10, 12, 0)
DUE = datetime(2026, 3, 5, 23, 59, tzinfo=UTC)
RULES = rules_from({"schedule": [["2d", 0.5]], "after": "practice", "labels": {"extra-time": {"extra": "1d"}}})


def graded(student: str, n: int, at: datetime, score: float, practice: bool = False, assignment: str = "hw1",
           feedback: tuple[str, ...] = ()) -> Record:
    return Record(f"{student}+{assignment}+{n}", "graded", at.isoformat(), student, assignment,
                  (at - timedelta(minutes=1)).isoformat(), score, 10.0, feedback=list(feedback), practice=practice)


def row_of(records: list[Record], policy: Policy | None = None, deadline: StudentDeadline | None = None,
           student: str = "ann"):
    (row,) = assignment_rows(student, ["hw1"], {"hw1": deadline}, records, policy or Policy(), RULES, NOW)
    return row


def text_of(markup: str) -> str:
    return re.sub(r"<[^>]+>", "", markup)


def test_the_due_date_is_the_students_own_with_their_extension_or_label_as_the_feedback_page_says_it():
    extended = row_of([], deadline=StudentDeadline(DUE, timedelta(days=2), None))
    assert text_of(extended.due) == "Due for you: 2026-03-07 23:59:00 UTC (an extension of 2d)."
    labelled = row_of([], deadline=StudentDeadline(DUE, None, "extra-time"))
    assert text_of(labelled.due) == "Due for you: 2026-03-06 23:59:00 UTC (1d of extra time, label extra-time)."
    assert text_of(row_of([], deadline=StudentDeadline(DUE, None, None)).due) == "Due for you: 2026-03-05 23:59:00 UTC."
    assert row_of([]).due is None  # no due date


def test_a_practice_attempt_never_counts_even_when_it_is_the_latest_or_the_best():
    first = graded("ann", 1, NOW - timedelta(days=6), 4)
    practice = graded("ann", 2, NOW - timedelta(hours=1), 9, practice=True, feedback=("b" * 32 + ".html",))
    for counts in ("latest", "best"):
        row = row_of([first, practice], Policy(counts=counts))
        assert row.counting.number == 1 and row.counting.score == 4
        assert row.latest.number == 2 and row.latest.pages == ("b" * 32 + ".html",)  # its feedback is still shown
    assert row_of([practice], Policy()).counting is None


def test_the_counted_attempt_says_what_the_gradebook_holds_after_late_credit():
    from autograder.grades.outbox import CountedScore
    from autograder.hub.my_assignments_service import counts_cell

    def held(score: float, maximum: float = 10.0, pending: float = 0.0) -> dict[str, CountedScore]:
        return {"hw1": CountedScore("hw1", "ann", score, maximum, None, "", pending)}

    records = [graded("ann", 1, NOW - timedelta(hours=1), 8.0)]
    (late,) = assignment_rows("ann", ["hw1"], {"hw1": None}, records, Policy(), RULES, NOW, held(4.0))
    shown = text_of(counts_cell(late, "latest"))
    assert "Attempt 1, 8 / 10 points" in shown and "Your grade: 4 / 10 points (your feedback page" in shown
    (on_time,) = assignment_rows("ann", ["hw1"], {"hw1": None}, records, Policy(), RULES, NOW, held(8.0))
    assert "Your grade" not in text_of(counts_cell(on_time, "latest"))
    # A written answer still to be graded: the grade's maximum is the whole assignment's, as the LMS is sent.
    (waiting,) = assignment_rows("ann", ["hw1"], {"hw1": None}, records, Policy(), RULES, NOW, held(8.0, 12.0, 2.0))
    shown = text_of(counts_cell(waiting, "latest"))
    assert "Your grade: 8 / 12 points; 2 of them still to be graded by your instructor" in shown
    # The attempt's own points named as autograded, in the feedback banner's words, never "8 / 10" beside "/ 12".
    assert "Attempt 1: 8 of the 10 autograded points (submitted" in shown and "8 / 10" not in shown


def test_the_best_or_the_latest_attempt_counts_as_the_course_says():
    records = [graded("ann", 1, NOW - timedelta(hours=5), 8), graded("ann", 2, NOW - timedelta(hours=3), 5)]
    assert row_of(records, Policy(counts="best")).counting.number == 1
    assert row_of(records, Policy(counts="latest")).counting.number == 2


def test_attempts_used_and_left_are_those_of_the_window_now():
    policy = Policy(attempts=3, window=timedelta(hours=24))
    old = graded("ann", 1, NOW - timedelta(hours=30), 2)
    recent = [graded("ann", n, NOW - timedelta(hours=10 - n), 3) for n in (2, 3)]
    row = row_of([old, *recent], policy)
    assert (len(row.attempts), row.used, row.left, row.next_slot) == (3, 2, 1, None)
    full = row_of([old, *recent, graded("ann", 4, NOW - timedelta(hours=1), 3)], policy)
    assert (full.used, full.left) == (3, 0)
    assert full.next_slot == NOW - timedelta(hours=8) + timedelta(hours=24)  # the oldest in the window leaves it
    assert row_of([old], Policy()).left is None  # no limit


def test_another_students_attempts_are_never_in_a_row():
    records = [graded("ann", 1, NOW - timedelta(hours=2), 3), graded("ben", 1, NOW - timedelta(hours=1), 9),
               graded("ann", 2, NOW - timedelta(hours=1), 6, assignment="hw2")]
    row = row_of(records, Policy(counts="best"))
    assert [(a.number, a.score) for a in row.attempts] == [(1, 3)]


# The page on a real hub ---------------------------------------------------------------------------------------

COURSE_ID = f"mypage-{secrets.token_hex(3)}"  # the course's OS group is the machine's: this run's own
LATER = "later-work"  # a second assignment, with no due date


class HubCourse:
    def __init__(self, hub, students: dict, instructor, markers: dict) -> None:
        self.hub, self.students, self.instructor, self.markers = hub, students, instructor, markers


def release_page(feedback: Path, marker: str) -> str:
    """A released feedback page, as the watcher leaves it in the exchange (name: a hex hash, `.html`), holding
    `marker` and a script a student's notebook output could hold."""
    name = f"{secrets.token_hex(16)}.html"
    (feedback / name).write_text(f"<!doctype html><html lang=en><head><title>{marker}</title></head><body>"
                                 f"<p>{marker}</p><script>document.title = 'ran'</script></body></html>")
    os.chmod(feedback / name, 0o644)
    return name


@pytest.fixture(scope="module")
def hub_course():
    from nbgrader.api import Gradebook

    from autograder.deadlines.exception_store import Exceptions
    from autograder.devtools.hub_driver import remove_users, running_hub
    from autograder.watch.watch_status import LEDGER_FILE, STATE_FOLDER
    from tests.grading_course import ASSIGNMENT, exchange_course
    from tests.students import check_can_make_students

    check_can_make_students()
    scratch, folder = exchange_course("autograder-mypage-", COURSE_ID,
                                      'c.AutograderWatch.attempts = 3\nc.AutograderWatch.counts = "best"\n'
                                      'c.LateCredit.labels = {"extra-time": {"extra": "1d"}}')
    tag = secrets.token_hex(2)
    ann, ben, teacher = f"agma{tag}", f"agmb{tag}", f"agmi{tag}"
    now = datetime.now(UTC).replace(tzinfo=None)
    gradebook = Gradebook(f"sqlite:///{folder / 'gradebook.db'}", course_id=COURSE_ID)
    try:
        gradebook.update_or_create_assignment(ASSIGNMENT, duedate=now + timedelta(days=3))
        gradebook.update_or_create_assignment(LATER)
        for name in (ann, ben):
            gradebook.update_or_create_student(name)
        exceptions = Exceptions(gradebook, rules_from({"labels": {"extra-time": {"extra": "1d"}}}), user="test")
        exceptions.extend(ASSIGNMENT, [ann], "illness", by=timedelta(days=2))
        exceptions.label("extra-time", [ben], "accommodation")
    finally:
        gradebook.close()
    feedback = scratch / "exchange" / COURSE_ID / "feedback"
    feedback.mkdir(parents=True)
    markers = {ann: f"ANN-FEEDBACK-{tag}", ben: f"BEN-FEEDBACK-{tag}"}
    ledger = [  # ann: 31 then 27 of 46 (her best, the first, counts); ben: one attempt, 17 of 46
        graded(ann, 1, now - timedelta(hours=3), 31, assignment=ASSIGNMENT, feedback=(release_page(feedback, "old"),)),
        graded(ann, 2, now - timedelta(hours=1), 27, assignment=ASSIGNMENT,
               feedback=(release_page(feedback, markers[ann]),)),
        graded(ben, 1, now - timedelta(hours=2), 17, assignment=ASSIGNMENT,
               feedback=(release_page(feedback, markers[ben]),))]
    for record in ledger:
        record.max_score = 46.0
    (folder / STATE_FOLDER).mkdir()
    (folder / STATE_FOLDER / LEDGER_FILE).write_text("".join(json.dumps(asdict(r)) + "\n" for r in ledger))
    try:
        with running_hub(folder, scratch / "state", "--authenticator", "null") as hub:
            students = {name: hub.add_user(name, course_id=COURSE_ID) for name in (ann, ben)}
            yield HubCourse(hub, students, hub.add_user(teacher, course_id=COURSE_ID, instructor=True), markers)
    finally:
        remove_users([ann, ben, teacher])  # none was spawned: nothing to remove unless a test spawned one
        from autograder.hub.os_accounts import account_command

        account_command("groupdel", f"instructors-{COURSE_ID}")
        subprocess.run(["rm", "-rf", str(scratch)])


def my_page_path() -> str:
    from autograder.hub.services import my_assignments_service_name

    return f"/services/{my_assignments_service_name(COURSE_ID)}/"


def test_each_student_sees_their_own_assignments_and_nothing_of_the_others(hub_course):
    from tests.grading_course import ASSIGNMENT

    (ann, ann_api), (ben, ben_api) = hub_course.students.items()
    pages = {}
    for name, api in hub_course.students.items():
        reply = api.call("GET", my_page_path(), allow_redirects=True)
        assert reply.status_code == 200, reply.text[:500]
        pages[name] = text_of(reply.text)
    mine, theirs = pages[ann], pages[ben]
    assert 'href="/hub/user-redirect/lab">Back to JupyterLab</a>' in reply.text  # the way back to her own server
    assert f"Signed in as {ann}." in mine and ben not in mine
    assert "(an extension of 2d)" in mine and "label extra-time" not in mine
    assert "Attempt 1, 31 / 46 points" in mine and "17 / 46" not in mine  # her best counts, not her latest
    assert "2 graded attempts in all; 2 of 3 used in this 24-hour window: 1 left now." in mine
    assert f"Signed in as {ben}." in theirs and ann not in theirs
    assert "1d of extra time, label extra-time" in theirs and "extension" not in theirs
    assert "Attempt 1, 17 / 46 points" in theirs and "31 / 46" not in theirs and "27 / 46" not in theirs
    assert LATER in mine and "No due date." in mine and "Nothing yet." in mine  # released, not attempted
    assert mine.index(ASSIGNMENT) < mine.index(LATER)  # earliest due first, no due date last


def test_a_student_reaches_only_their_own_latest_feedback_whatever_the_url_asks(hub_course):
    from tests.grading_course import ASSIGNMENT

    (ann, api), (ben, _) = hub_course.students.items()
    frame = api.call("GET", f"{my_page_path()}feedback/{ASSIGNMENT}/2/1", allow_redirects=True)
    assert frame.status_code == 200 and 'src="1/page"' in frame.text and 'sandbox=""' in frame.text
    assert f'href="../../../#ask-{ASSIGNMENT}">Ask about a question' in frame.text  # to My assignments' form
    page = api.call("GET", f"{my_page_path()}feedback/{ASSIGNMENT}/2/1/page", allow_redirects=True)
    assert page.status_code == 200 and hub_course.markers[ann] in page.text
    assert "sandbox" in page.headers["Content-Security-Policy"]  # her notebook's own HTML runs no script here
    # Her first attempt's address (a tab opened before she handed in again) leads to the latest attempt's page.
    old = api.call("GET", f"{my_page_path()}feedback/{ASSIGNMENT}/1/1", allow_redirects=True)
    assert old.status_code == 200 and old.url.endswith(f"feedback/{ASSIGNMENT}/2/1"), old.url
    assert api.call("GET", f"{my_page_path()}feedback/{ASSIGNMENT}/1/1/page").status_code == 404  # not kept
    # Nothing in the URL or the query chooses whose page it is.
    for path in (f"?user={ben}", f"?student={ben}", f"{ben}", f"feedback/{ASSIGNMENT}/2/1/page?user={ben}",
                 f"feedback/{ASSIGNMENT}/2/2/page", f"feedback/{ASSIGNMENT}/3/1/page", f"feedback/{LATER}/1/1/page",
                 f"feedback/{ASSIGNMENT}/2/2", f"feedback/{ASSIGNMENT}/3/1", f"feedback/{LATER}/1/1",
                 f"feedback/..%2F{ben}/1/1/page", f"user/{ben}/", f"feedback/{LATER}/1/status?user={ben}"):
        reply = api.call("GET", f"{my_page_path()}{path}", allow_redirects=True)
        assert hub_course.markers[ben] not in reply.text and "17 / 46" not in reply.text, path
        assert reply.status_code in (200, 404), (path, reply.status_code)
        assert reply.status_code == 404 or f"Signed in as {ann}." in reply.text or \
            hub_course.markers[ann] in reply.text or "Attempt 1:" in text_of(reply.text) or \
            f"<title>Feedback: {ASSIGNMENT}, attempt 2</title>" in reply.text, path  # her own latest


def test_a_regrade_request_through_the_hub_is_the_token_users_and_only_about_a_graded_question(hub_course):
    """The service's POST under the hub (tests/test_regrade_requests.py drives the whole way in a browser): her
    gradebook holds no graded cell of hers (the ledger's attempt is the fixture's), so there is nothing to ask about,
    and a field naming another student names nobody."""
    import json

    from tests.grading_course import ASSIGNMENT

    (ann, api), (ben, _) = hub_course.students.items()
    reply = api.call("POST", f"{my_page_path()}ask", data={
        "assignment": ASSIGNMENT, "question": json.dumps([ASSIGNMENT, "explain_formulas"]), "text": "Why?",
        "student": ben})
    assert reply.status_code == 400, reply.text[:300]
    assert f"not sent: {ASSIGNMENT} has no graded question &#x27;explain_formulas&#x27; of yours" in reply.text
    assert f"Signed in as {ann}." in reply.text and "Your requests" not in reply.text


def test_an_open_feedback_tab_says_when_a_newer_attempt_was_graded(hub_course):
    """The strip above a feedback page reloads itself (an HTTP Refresh; the student's page under it is never
    reloaded): over the latest attempt it says so; over an earlier one, out of date, with a link to the latest."""
    from autograder.hub.my_assignments_service import STATUS_REFRESH_SECONDS
    from tests.grading_course import ASSIGNMENT

    (_, api), _ = hub_course.students.items()
    latest = api.call("GET", f"{my_page_path()}feedback/{ASSIGNMENT}/2/status", allow_redirects=True)
    assert latest.headers["Refresh"] == str(STATUS_REFRESH_SECONDS) and STATUS_REFRESH_SECONDS <= 60
    assert f"Attempt 2: your latest graded attempt of {ASSIGNMENT}" in text_of(latest.text)
    assert "Out of date" not in latest.text
    earlier = api.call("GET", f"{my_page_path()}feedback/{ASSIGNMENT}/1/status", allow_redirects=True)
    assert earlier.headers["Refresh"] == str(STATUS_REFRESH_SECONDS)
    assert f"Out of date: attempt 2 of {ASSIGNMENT} was graded after this one." in text_of(earlier.text)
    assert '<a href="../2/1" target="_top">' in earlier.text  # out of the frame, to the latest page


def test_grade_by_question_is_a_service_for_the_courses_instructors_and_closed_to_its_students(hub_course):
    """`autograder hub` starts the course's grade-by-question page (tests/test_grade_by_question.py drives the page
    itself): its instructors reach it, its students are refused."""
    from autograder.hub.services import grade_by_question_service_name

    path = f"/services/{grade_by_question_service_name(COURSE_ID)}/"
    reply = hub_course.instructor.call("GET", path, allow_redirects=True)
    # Its first page lists the questions graded by hand (the course's written answer), then the autograded
    # exercises, whose pages show the class's code by named mistake.
    from tests.grading_course import ASSIGNMENT

    assert reply.status_code == 200 and f"{ASSIGNMENT}: explain_formulas</a>" in reply.text, reply.text[:300]
    written, autograded = reply.text.split("<h2>Autograded exercises</h2>")
    assert "test_sigmoid" not in written and f"{ASSIGNMENT}: test_sigmoid</a>" in autograded
    (_, student_api), _ = hub_course.students.items()
    assert student_api.call("GET", path, allow_redirects=True).status_code == 403


def test_the_page_is_for_the_courses_students_and_listed_in_their_services(hub_course):
    from autograder.hub.services import my_assignments_service_name

    teacher_api = hub_course.instructor
    assert teacher_api.call("GET", my_page_path(), allow_redirects=True).status_code == 403
    name = my_assignments_service_name(COURSE_ID)
    listed = hub_course.hub.admin.hub("GET", "/services").json()[name]
    assert listed["display"] and listed["url"] and listed["pid"] > 0
    # What the hub's Services menu asks of a user before it lists a service (jupyterhub's
    # BaseHandler.get_accessible_services): this scope, which the students' group has and the instructors' has not.
    (_, student_api), _ = hub_course.students.items()
    scope = f"access:services!service={name}"
    assert scope in student_api.hub("GET", "/user").json()["scopes"]
    assert scope not in teacher_api.hub("GET", "/user").json()["scopes"]


def test_the_page_in_a_browser_is_accessible_and_its_feedback_link_runs_no_script_of_the_students(hub_course):
    """The page as a browser draws it, from the hub (the student's token in each request's header), audited and
    kept to be looked at; then its link to her latest feedback, whose own script must not run."""
    from playwright.sync_api import sync_playwright

    from tests.axe import serious_violations
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    (ann, api), _ = hub_course.students.items()
    shot = Path("/tmp/page-hub-my-assignments.png")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 500},
                                          extra_http_headers={"Authorization": f"token {api.token}"})
            elsewhere: list[str] = []  # anything but the hub: the page fetches nothing else

            def hub_only(route) -> None:
                if route.request.url.startswith(f"{api.url}/"):
                    route.continue_()
                else:
                    elsewhere.append(route.request.url)
                    route.abort()

            context.route("**/*", hub_only)
            seen = context.new_page()
            seen.goto(f"{api.url}{my_page_path()}")
            violations = serious_violations(seen)
            local = seen.locator("time.autograder-time").first.inner_text()
            seen.screenshot(path=str(shot), full_page=True)
            seen.get_by_role("link", name=re.compile("attempt 2")).click()
            seen.wait_for_load_state()
            frame = seen.frame_locator("iframe.page")
            feedback_text = frame.locator("body").inner_text()
            status_text = seen.frame_locator("iframe.status").locator("body").inner_text()
            page_frame = next(f for f in seen.frames if f.url.endswith("/1/page"))
            title = page_frame.title()
            seen.screenshot(path="/tmp/page-hub-my-feedback-frame.png")
            # axe reaches our frame page only past its CSP (no script may run there): a context of its own.
            audit = browser.new_context(viewport={"width": 1100, "height": 500}, bypass_csp=True,
                                        extra_http_headers={"Authorization": f"token {api.token}"}).new_page()
            audit.goto(seen.url)
            violations += serious_violations(audit)
        finally:
            browser.close()
    assert violations == [] and elsewhere == [], (violations, elsewhere)
    assert "(your time;" in local  # where scripts run, times read in the reader's zone too
    assert hub_course.markers[ann] in feedback_text and "your latest graded attempt" in status_text
    assert title == hub_course.markers[ann]  # the page's script (`document.title = 'ran'`) did not run
