"""`autograder hub`: a real JupyterHub (with configurable-http-proxy from npm) running one course, driven through
its REST API and proxy as its users would: two students and an instructor spawned once for the whole file (their OS
users made by the spawner), each acting with a token of their own.

The hub logs people in with its LTI 1.3 login, from the demo platform (devtools/demo_lms): one student arrives by
a launch, as from an LMS; the others are made through the REST API with the hub's admin token, in the groups a
launch would give them (the launches themselves are tests/test_lti_launch.py's)."""

import json
import os
import pwd
import re
import secrets
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import write_submission
from autograder.devtools.demo_lms.demo_course import DEMO_COURSE, LEARNER, DemoCourse, DemoPerson
from autograder.devtools.demo_lms.demo_platform import DemoLms
from autograder.devtools.hub_driver import CLI, remove_users, running_hub
from autograder.hub.groups import student_group
from autograder.hub.hub_course import read_hub_course
from autograder.hub.os_accounts import HUB_MARK, account_command
from autograder.hub.server_limits import NICE, PROCESSES
from autograder.hub.services import (
    IDLE_CULLER,
    free_port,
    my_assignments_service_name,
    status_service_name,
    watch_service_name,
)
from tests.grading_course import ASSIGNMENT, exchange_course, scores
from tests.students import check_can_make_students
from tests.test_lti_launch import posted_form

# The course's OS group (instructors-<course id>) is the machine's: a course id of this run's own keeps two runs (or
# another test file's hub, on another xdist worker) from sharing it, and from deleting it under each other.
COURSE_ID = f"hubtest-{secrets.token_hex(3)}"


class Course:
    def __init__(self, folder: Path, hub, students: dict, instructor: tuple,
                 launched: tuple[requests.Session, str]) -> None:
        self.folder, self.hub, self.students, self.instructor = folder, hub, students, instructor
        self.launched = launched  # the launched student's browser (the hub's login cookie) and where the hub sent it


def launch(lms: DemoLms, hub_url: str, person) -> tuple[requests.Session, str]:
    """A click on the demo LMS's link for `person`: the signed launch posted to the hub, as the browser would;
    the session (logged in) and where the hub sends it next."""
    session = requests.Session()
    page = session.get(lms.launch_link(person, ASSIGNMENT), timeout=30)
    action, form = posted_form(page.text)
    landed = session.post(action, data=form, allow_redirects=False, timeout=60)
    assert landed.status_code == 302, landed.text[:1000]
    return session, f"{hub_url}{landed.headers['Location']}"


@pytest.fixture(scope="module")
def course():
    check_can_make_students()
    scratch, folder = exchange_course("autograder-hub-", COURSE_ID)
    nbgrader(folder, "release_assignment", ASSIGNMENT)
    tag = secrets.token_hex(3)
    # A learner of the demo platform's course, with a name of this run's own (runs on one machine do not meet).
    learner = DemoPerson(f"hub-test-{tag}", "Ada", f"Hub{tag}", f"ada.hub{tag}@demo.invalid", LEARNER)
    names = [f"aghs{tag}b", f"aghi{tag}"]
    port = free_port()
    try:
        courses = (DemoCourse(DEMO_COURSE.context_id, DEMO_COURSE.title, DEMO_COURSE.label, (learner,)),)
        with DemoLms(f"http://127.0.0.1:{port}/hub/", [ASSIGNMENT], courses) as lms:
            lms.register_course(folder)  # the course's lms.toml [lti], as an instructor copies it from the LMS
            with running_hub(folder, scratch / "state", port=port) as hub:
                launched, landing = launch(lms, hub.url, learner)
                assert landing == f"{hub.url}/hub/user-redirect/autograder/open/{ASSIGNMENT}"
                (name,) = [user["name"] for user in hub.admin.hub("GET", "/users").json()]  # the hub named her
                names.insert(0, name)
                apis = {name: hub.add_user(name, course_id=COURSE_ID, instructor=name == names[2]) for name in names}
                for name in names:  # asked for at once, as a class arriving: the hub starts them side by side
                    assert hub.spawn(name).status_code in (201, 202)
                for name in names:
                    hub.wait_ready(name)
                yield Course(folder, hub, {name: apis[name] for name in names[:2]}, (names[2], apis[names[2]]),
                             (launched, landing))
    finally:
        remove_users([*names, "agh-refused"])  # (the launched student's is first, once the hub named her)
        account_command("groupdel", f"instructors-{COURSE_ID}")  # made by the hub for the course folder
        subprocess.run(["rm", "-rf", str(scratch)])


def test_an_lti_launch_lands_in_the_students_own_jupyterlab_on_the_fetched_assignment(course):
    session, landing = course.launched
    page = session.get(landing, timeout=60)  # through the hub's redirect and the server's own OAuth with the hub
    assert page.status_code == 200, page.text[:1000]
    (name, _), _ = course.students.items()
    # Her server's open_assignment.py sends her on to the assignment's notebook, not its folder.
    assert page.url == f"{course.hub.url}/user/{name}/lab/tree/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    assert (Path(pwd.getpwnam(name).pw_dir) / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()


def test_a_students_first_spawn_makes_their_private_account_with_the_assignment_fetched(course):
    for name, api in course.students.items():
        account = pwd.getpwnam(name)
        home = Path(account.pw_dir)
        assert account.pw_gecos.split(",")[0] == HUB_MARK
        assert home.stat().st_mode & 0o777 == 0o700 and home.stat().st_uid == account.pw_uid
        notebook = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        assert notebook.stat().st_uid == account.pw_uid
        # The notebook an LTI launch opens is there.
        listing = api.server(name, "GET", f"/api/contents/{ASSIGNMENT}")
        assert listing.status_code == 200
        assert {item["name"] for item in listing.json()["content"]} >= {f"{ASSIGNMENT}.ipynb", "selfcheck.py"}
        assert api.server(name, "GET", f"/lab/tree/{ASSIGNMENT}").status_code == 200
        # A student's JupyterLab has nbgrader's Assignments panel but no formgrader.
        assert api.server(name, "GET", "/formgrader").status_code == 404
        assert api.server(name, "GET", f"/assignments?course_id={COURSE_ID}").json()["success"]
        # Their server and all it starts are bounded (issue 40): in a cgroup of its own, at a lower priority.
        server = subprocess.run(["pgrep", "-u", name, "-f", "user_server.py"], capture_output=True, text=True)
        pid = int(server.stdout.split()[0])
        assert os.getpriority(os.PRIO_PROCESS, pid) == NICE
        limits = Path(f"/proc/{pid}/limits").read_text()
        assert re.search(rf"^Max processes\s+{PROCESSES}\s+{PROCESSES}\s", limits, re.M), limits
        cgroups = dict(line.split(":", 2)[1:] for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines())
        pids = cgroups.get("pids") or cgroups.get("")
        assert "autograder-" in pids.rsplit("/", 1)[-1], cgroups  # a cgroup of its own, not the hub's


def test_a_student_reaches_nothing_but_their_own_server_through_the_proxy_and_the_api(course):
    (ann, api), (ben, _) = course.students.items()
    teacher, _ = course.instructor
    # Another student's server, files and feedback, the instructor's server and its formgrader.
    for other in (ben, teacher):
        for path in ("/api/contents", f"/api/contents/{ASSIGNMENT}", "/lab", "/formgrader", "/formgrader/gradebook",
                     f"/assignments?course_id={COURSE_ID}"):
            reply = api.server(other, "GET", path)
            assert reply.status_code in (302, 403, 404), (other, path, reply.status_code)
            assert reply.status_code != 302 or "/hub/login" in reply.headers["Location"] or \
                "oauth" in reply.headers["Location"], reply.headers
    # The hub's REST API: their own user and server, nothing else.
    assert api.hub("GET", "/user").json()["name"] == ann
    assert api.hub("GET", "/users").status_code == 403
    assert api.hub("GET", f"/users/{ben}").status_code in (403, 404)
    assert api.hub("POST", f"/users/{ben}/server").status_code in (403, 404)
    assert api.hub("DELETE", f"/users/{ben}/server").status_code in (403, 404)
    assert api.hub("POST", f"/users/{ben}/tokens", json={}).status_code in (403, 404)
    assert api.hub("GET", "/groups").status_code == 403
    assert api.hub("POST", f"/groups/instructors-{COURSE_ID}/users", json={"users": [ann]}).status_code in (403, 404)
    assert api.hub("PATCH", f"/users/{ann}", json={"admin": True}).status_code == 403
    assert api.hub("POST", "/users/someone-new").status_code == 403
    assert api.hub("GET", "/proxy").status_code == 403
    assert api.hub("GET", f"/users/{ann}").status_code == 200


def test_a_students_own_code_cannot_read_the_course_the_gradebook_or_another_student(course):
    """What a kernel (or terminal) of theirs can do, run as their OS user: the course folder (gradebook, sources
    with solutions, submissions) and the other student's home are closed to it."""
    (ann, api), (ben, _) = course.students.items()
    targets = {"course": str(course.folder), "gradebook": str(course.folder / "gradebook.db"),
               "source": str(course.folder / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"),
               "other home": f"/home/{ben}", "other notebook": f"/home/{ben}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb",
               "hub state": str(course.hub.state / "hub"),
               "exchange inbound": str(course.folder.parent / "exchange" / COURSE_ID / "inbound")}
    code = f"""
import json, os
found = {{}}
for what, path in {json.dumps(targets)}.items():
    try:
        found[what] = sorted(os.listdir(path)) if os.path.isdir(path) \\
            else open(path, "rb").read(10).hex()
    except OSError as exc:
        found[what] = type(exc).__name__
found["whoami"] = os.getuid()
print(json.dumps(found))
"""
    printed = api.run_code(ann, code)
    found = json.loads(printed.strip().splitlines()[-1])
    assert found.pop("whoami") == pwd.getpwnam(ann).pw_uid
    assert found == {what: "PermissionError" for what in targets}, found


def test_the_instructor_group_reaches_the_formgrader_on_the_course(course):
    teacher, api = course.instructor
    page = api.server(teacher, "GET", "/formgrader", allow_redirects=True)
    assert page.status_code == 200 and page.url.startswith(f"{course.hub.url}/user/{teacher}/formgrader")
    assert "Manage Assignments" in page.text
    listed = api.server(teacher, "GET", "/formgrader/api/assignments")
    assert listed.status_code == 200, listed.text[:500]
    groups = subprocess.run(["id", "-nG", teacher], capture_output=True, text=True).stdout.split()
    server_groups = subprocess.run(["sh", "-c", f"grep -h Groups /proc/$(pgrep -o -u {teacher})/status"],
                                   capture_output=True, text=True).stdout
    assert ASSIGNMENT in {a["name"] for a in listed.json()}, (groups, server_groups, course.hub.log()[-3000:])
    # The instructor's OS user is in the course's instructors' group, which owns the course folder.
    assert f"instructors-{COURSE_ID}" in groups
    # A student is not.
    (ann, _), _ = course.students.items()
    assert f"instructors-{COURSE_ID}" not in subprocess.run(["id", "-nG", ann], capture_output=True,
                                                             text=True).stdout.split()


def test_an_instructors_server_named_for_their_course_runs_its_formgrader_and_no_other_is_started(course):
    """Where an instructor's launch sends them (lti_login.get_next_url): their server named for the launch's course,
    with that course's formgrader; a server named for a course they do not teach, or a student's named for theirs,
    is refused. (~6 CPU-s: one more server)"""
    teacher, api = course.instructor
    admin = course.hub.admin
    (student, _), _ = course.students.items()
    for name, server in ((teacher, "another-course"), (student, COURSE_ID)):
        refused = admin.hub("POST", f"/users/{name}/servers/{server}")
        assert refused.status_code >= 400, (name, server, refused.text[:300])
        assert "is the formgrader of that course" in refused.text + course.hub.log()
        assert not admin.hub("GET", f"/users/{name}").json()["servers"].get(server, {}).get("ready")
    assert admin.hub("POST", f"/users/{teacher}/servers/{COURSE_ID}").status_code in (201, 202)
    deadline = time.monotonic() + 180
    while not admin.hub("GET", f"/users/{teacher}").json()["servers"].get(COURSE_ID, {}).get("ready"):
        assert time.monotonic() < deadline, course.hub.log()[-3000:]
        time.sleep(0.5)
    try:
        listed = api.server(teacher, "GET", f"/{COURSE_ID}/formgrader/api/assignments")
        assert listed.status_code == 200 and ASSIGNMENT in {a["name"] for a in listed.json()}, listed.text[:500]
    finally:
        admin.hub("DELETE", f"/users/{teacher}/servers/{COURSE_ID}")


def test_a_submission_through_the_students_server_is_graded_by_the_watch_service_and_feedback_fetched(course):
    (ann, api), _ = course.students.items()
    services = course.hub.admin.hub("GET", "/services").json()
    assert services[watch_service_name(COURSE_ID)]["pid"] > 0 and services[IDLE_CULLER]["pid"] > 0
    answered = write_submission(ASSIGNMENT, Path(tempfile.mkdtemp()), release=course.folder / "release" / ASSIGNMENT)
    saved = api.put_notebook(ann, f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb", json.loads(answered.read_text()))
    assert saved.status_code == 200, saved.text[:300]
    submitted = api.assignments(ann, "submit", COURSE_ID, ASSIGNMENT).json()
    assert submitted["success"], submitted
    import time

    deadline = time.monotonic() + 180
    while True:
        listed = api.assignments(ann, "fetch_feedback", COURSE_ID, ASSIGNMENT).json()
        notebooks = [nb for a in listed["value"] if a["status"] == "submitted" for s in a["submissions"]
                     for nb in s["notebooks"]]
        if notebooks and notebooks[0]["has_local_feedback"]:
            break
        assert time.monotonic() < deadline, course.hub.log()[-4000:]
        time.sleep(0.5)
    page = api.server(ann, "GET", f"/api/contents/{notebooks[0]['local_feedback_path'].removeprefix('./')}")
    assert page.status_code == 200
    text = page.json()["content"]
    assert re.search(r"concat_weights\W+6 / 6", re.sub(r"<[^>]+>", " ", text)), text[:2000]
    assert "BEGIN HIDDEN TESTS" not in text
    assert scores(course.folder)[ann]["test_concat_weights"] == 6
    assert re.search(rf"graded {ann} {ASSIGNMENT} .*: 46/46", course.hub.log())


def test_the_watchers_status_page_is_in_the_instructors_services_and_closed_to_students(course):
    """JupyterHub shows a managed service in its Services menu only when it serves a page: the watcher's is its
    status, as `autograder status` prints it."""
    name = status_service_name(COURSE_ID)
    teacher, api = course.instructor
    page = api.call("GET", f"/services/{name}/", allow_redirects=True)
    assert page.status_code == 200, page.text[:500]
    assert "watcher running" in page.text and f"autograder watch: {COURSE_ID}" in page.text
    assert page.headers["Content-Security-Policy"].startswith("default-src 'none'")  # a staff page: nothing runs
    # What the hub's Services menu lists: a service with a URL, to be displayed.
    listed = course.hub.admin.hub("GET", "/services").json()[name]
    assert listed["display"] and listed["url"] and listed["pid"] > 0
    (_, student), _ = course.students.items()
    assert student.call("GET", f"/services/{name}/", allow_redirects=True).status_code == 403
    # The page as a browser draws it (offline: it fetches nothing), audited and kept to be looked at.
    from playwright.sync_api import sync_playwright

    from tests.axe import serious_violations
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS, offline

    shot = Path("/tmp/page-hub-watch-status.png")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context(viewport={"width": 1000, "height": 600})
            refused = offline(context)
            seen = context.new_page()
            seen.set_content(page.text)
            violations = serious_violations(seen)
            seen.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert violations == [] and refused == [], (violations, refused)


# A student's HTML in a markdown cell and in outputs (issue 40): each would set a marker on the instructor's page.
HOSTILE_MARKDOWN = ('<img src="x" onerror="window.__mark_img = 1">\n\n<script>window.__mark_script = 1</script>\n\n'
                    '<a href="javascript:window.__mark_link = 1">a link to click</a>\n\nA plain sentence, readable.')
HOSTILE_CODE = ("from IPython.display import HTML, Javascript, display\n"
                "display(HTML('<svg><image href=\"y\" onerror=\"window.__mark_output = 1\"/></svg>'))\n"
                "display(Javascript('window.__mark_js = 1'))")
MARKERS = ["__mark_img", "__mark_script", "__mark_link", "__mark_output", "__mark_js", "__mark_inline",
           "__mark_file"]
WATCH_VIOLATIONS = """window.__violations = [];
document.addEventListener("securitypolicyviolation",
                          e => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));"""


def live_script(page: str) -> list[str]:
    """What on `page` a browser could run that mentions a marker: an event handler, a script element's text, a
    `javascript:` URL (the student's code shown as highlighted, escaped text is none of these)."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Finder(HTMLParser):
        in_script = False

        def handle_starttag(self, tag, attrs):
            self.in_script = tag == "script"
            found.extend(f"{tag} {name}={value}" for name, value in attrs if value and "__mark" in value
                         and (name.startswith("on") or value.strip().lower().startswith("javascript:")))

        def handle_data(self, data):
            if self.in_script and "__mark" in data:
                found.append(f"script {data.strip()[:80]}")

    Finder().feed(page)
    return found


def submitted_hostile_notebook(course) -> str:
    """The second student's submission, with HOSTILE_MARKDOWN, HOSTILE_CODE and a script file beside it, graded by
    the watch service; its id in the formgrader."""
    import time

    (_, _), (bob, api) = course.students.items()
    teacher, staff = course.instructor
    answered = json.loads(write_submission(ASSIGNMENT, Path(tempfile.mkdtemp()),
                                           release=course.folder / "release" / ASSIGNMENT).read_text())
    answered["cells"] += [{"cell_type": "markdown", "metadata": {}, "source": HOSTILE_MARKDOWN},
                          {"cell_type": "code", "metadata": {}, "source": HOSTILE_CODE, "outputs": [],
                           "execution_count": None}]
    assert api.put_notebook(bob, f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb", answered).status_code == 200
    saved = api.server(bob, "PUT", f"/api/contents/{ASSIGNMENT}/evil.js",
                       json={"type": "file", "format": "text", "content": "window.__mark_file = 1;"})
    assert saved.status_code in (200, 201), saved.text[:300]
    assert api.assignments(bob, "submit", COURSE_ID, ASSIGNMENT).json()["success"]
    deadline = time.monotonic() + 180
    while True:
        listed = staff.server(teacher, "GET", f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}")
        mine = [row for row in listed.json() if row["student"] == bob] if listed.status_code == 200 else []
        if mine and re.search(rf"graded {bob} {ASSIGNMENT} ", course.hub.log()):
            return mine[0]["id"]
        assert time.monotonic() < deadline, (listed.text[:500], course.hub.log()[-4000:])
        time.sleep(0.5)


def test_a_students_html_is_inert_in_the_instructors_formgrader_and_jupyterlab_still_runs(course):
    """A student's `onerror`, `<script>` and `javascript:` link, in markdown and in outputs, handed in, graded and
    opened by the instructor in the formgrader (Manage Assignments -> Submissions -> the student), in Chromium with
    the instructor's token: nothing of it runs. Two layers, each checked on its own: the page is sanitised (none of
    it is in the HTML served), and the server's policy refuses inline script and script from where a student can
    write, put in the page after it loaded. The formgrader's own script and JupyterLab still run."""
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    teacher, staff = course.instructor
    (_, _), (bob, _) = course.students.items()
    submission = submitted_hostile_notebook(course)
    url = f"{course.hub.url}/user/{teacher}/formgrader/submissions/{submission}/"
    served = staff.call("GET", url.removeprefix(course.hub.url))
    assert served.status_code == 200, course.hub.log()[-3000:]
    assert "A plain sentence, readable." in served.text and "a link to click" in served.text
    assert live_script(served.text) == [], live_script(served.text)  # the sanitiser's part, policy aside
    assert f"/user/{teacher}/static/" in served.headers["Content-Security-Policy"]
    # Where the instructor's server serves a file the student wrote (there to be run, were the policy not to stop it)
    tried = {path: staff.call("GET", path).status_code for path in (
        *(f"/user/{teacher}/files/{folder}/{bob}/{ASSIGNMENT}/evil.js" for folder in ("submitted", "autograded")),
        f"/user/{teacher}/formgrader/submissions/{submission}/evil.js")}
    student_files = [path for path, status in tried.items() if status == 200]
    assert student_files, tried
    shots = {what: Path(f"/tmp/page-hub-staff-{what}.png") for what in ("formgrader", "lab")}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context(viewport={"width": 1200, "height": 800},
                                          extra_http_headers={"Authorization": f"token {staff.token}"})
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(course.hub.url)
                          else route.abort())  # the CDN's MathJax: not on a course's machine either
            context.add_init_script(WATCH_VIOLATIONS)
            page = context.new_page()
            page.goto(url, wait_until="load")
            page.get_by_text("a link to click").click()
            page.evaluate("""files => {
                const inline = document.createElement("script");
                inline.textContent = "window.__mark_inline = 1";
                document.body.appendChild(inline);
                for (const src of files) {
                    const loaded = document.createElement("script");
                    loaded.src = src;
                    document.body.appendChild(loaded);
                }
            }""", student_files)
            page.wait_for_timeout(1000)
            found = page.evaluate(f"""() => ({{
                marks: {json.dumps(MARKERS)}.filter(name => window[name] !== undefined),
                own: [typeof window.Backbone, typeof window.toggle_name],
                violations: window.__violations}})""")
            page.screenshot(path=str(shots["formgrader"]), full_page=True)
            page.goto(f"{course.hub.url}/user/{teacher}/lab", wait_until="load")
            try:  # the file browser, listing the course folder: JupyterLab's own script and extensions ran
                page.locator(".jp-DirListing-itemText", has_text="release").first.wait_for(timeout=60_000)
            finally:
                lab_violations = page.evaluate("window.__violations")
                page.screenshot(path=str(shots["lab"]))
                print("violations in JupyterLab:", lab_violations)
        finally:
            browser.close()
    assert found["marks"] == [], found
    assert found["own"] == ["object", "function"], found  # the formgrader's scripts: from its static, and inline
    # Refused: what was put in after the page loaded (one inline script, the student's files), nothing of its own.
    assert sorted(found["violations"]) == sorted(["script-src-elem inline",
                                                  *(f"script-src-elem {course.hub.url}{src}" for src in student_files)])
    assert [v for v in lab_violations if "script" in v] == [], lab_violations


@pytest.mark.parametrize("name, refusal", [
    ("daemon", "existing OS account that the hub did not make"),  # a system user: never taken over
    ("agh.refused", "not a valid POSIX user name"),
    ("agh-refused", None),  # valid, but in no course: no server, no account
])
def test_a_spawn_is_refused_for_a_system_account_an_invalid_name_or_someone_in_no_course(course, name, refusal):
    admin = course.hub.admin
    assert admin.hub("POST", f"/users/{name}").status_code in (201, 409)
    if refusal:
        admin.hub("POST", f"/groups/{student_group(COURSE_ID)}/users", json={"users": [name]})
    before = subprocess.run(["getent", "passwd", name], capture_output=True, text=True).stdout
    reply = admin.hub("POST", f"/users/{name}/server")
    assert reply.status_code >= 400, reply.text
    assert (refusal or "in no course") in reply.text or (refusal or "in no course") in course.hub.log()
    assert subprocess.run(["getent", "passwd", name], capture_output=True, text=True).stdout == before
    assert not admin.hub("GET", f"/users/{name}").json()["servers"]


def test_the_command_refuses_a_missing_course_in_one_line(tmp_path):
    done = subprocess.run([CLI, "hub", str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "nowhere: no such course folder" in done.stderr


def test_a_launch_fetches_an_assignment_the_student_lacks_and_leaves_the_work_they_have(course):
    """What the launch lands on (open_assignment.py) in a running server: the assignment fetched when it is not in
    their home (here: they renamed their copy), never over a copy they have; a name that is not one folder is
    refused. Her submissions are listed newest first; her JupyterLab's Course menu opens her My assignments page.
    (~4 CPU-s, most of it the watcher grading her two submissions)"""
    (_, _), (name, api) = course.students.items()
    home = Path(pwd.getpwnam(name).pw_dir)
    notebook = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    assert api.server(name, "PATCH", f"/api/contents/{ASSIGNMENT}", json={"path": "my-work"}).status_code == 200
    target = f"/user/{name}/lab/tree/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    opened = api.server(name, "GET", f"/autograder/open/{ASSIGNMENT}")
    assert opened.status_code == 302 and opened.headers["Location"] == target, (opened.status_code, opened.headers)
    assert (home / notebook).is_file() and (home / "my-work" / f"{ASSIGNMENT}.ipynb").is_file()
    work = json.loads((home / notebook).read_text())
    work["cells"][0]["source"] = "my own work, saved"
    assert api.put_notebook(name, notebook, work).status_code == 200
    again = api.server(name, "GET", f"/autograder/open/{ASSIGNMENT}")
    assert again.status_code == 302 and again.headers["Location"] == target
    assert "".join(json.loads((home / notebook).read_text())["cells"][0]["source"]) == "my own work, saved"
    # A name that is not one folder opens nothing outside her home (the proxy may tidy a '..' away first).
    for hostile in ("%2E%2E", "..%2Fetc", "%2Fetc", "%2E%2E%2F%2E%2E%2Fetc"):
        reply = api.server(name, "GET", f"/autograder/open/{hostile}")
        assert reply.status_code in (302, 404) and "etc" not in reply.headers.get("Location", ""), (hostile, reply)
    unknown = api.server(name, "GET", "/autograder/open/no-such-assignment")
    assert unknown.status_code == 302 and unknown.headers["Location"] == f"/user/{name}/lab"
    # Handed in twice: the Assignments panel lists her submissions newest first (nbgrader's own order is oldest first).
    for _ in range(2):
        submitted = api.server(name, "POST", "/assignments/submit",
                               data={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
        assert submitted.status_code == 200 and submitted.json()["success"], submitted.text[:500]
    listed = api.server(name, "GET", f"/assignments?course_id={COURSE_ID}").json()["value"]
    stamps = [s["timestamp"] for a in listed if a["assignment_id"] == ASSIGNMENT for s in a.get("submissions", [])]
    assert len(stamps) >= 2 and stamps == sorted(stamps, reverse=True), stamps
    menus = api.server(name, "GET", "/lab/api/settings/@jupyterlab/mainmenu-extension:plugin").json()
    (course_menu,) = [m for m in menus["schema"]["properties"]["menus"]["default"] if m["label"] == "Course"]
    (item,) = course_menu["items"]
    assert item["args"]["text"] == "My assignments"
    assert item["args"]["url"] == f"/services/{my_assignments_service_name(COURSE_ID)}/"


def test_stopping_the_hub_stops_the_watcher_and_every_server_it_started(course):
    """Last in the file: it stops the file's hub (the fixture's own stop then has nothing left to do)."""
    import signal

    names = [*course.students, course.instructor[0]]
    course.hub.process.send_signal(signal.SIGTERM)
    assert course.hub.process.wait(timeout=120) == 0
    log = course.hub.log()
    assert re.search(r"^\S+ \S+ stopped$", log, re.M), log[-3000:]  # the watcher's last line: a clean stop
    for name in names:
        assert subprocess.run(["pgrep", "-u", name], capture_output=True).returncode == 1, f"{name} still runs"


def test_remove_users_removes_the_accounts_and_the_group_this_hub_made_and_nothing_else(course):
    """After the hub stopped (the test before): `autograder hub --remove-users` removes its users' OS accounts, homes
    included, and the course's instructors' group, and the course folder goes back to root's group; daemon, a user
    of the hub's database whose account the hub did not make, stays. (~2 CPU-s: the command)"""
    names = [*course.students, course.instructor[0]]
    homes = [Path(pwd.getpwnam(name).pw_dir) for name in names]
    group = read_hub_course(course.folder).instructors_os_group
    done = subprocess.run([CLI, "hub", str(course.folder), "--state", str(Path(course.hub.state)), "--remove-users"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and f"removed {len(names)} OS users the hub made" in done.stdout, done
    assert f"the OS group {group}" in done.stdout
    for name, home in zip(names, homes, strict=True):
        assert subprocess.run(["getent", "passwd", name], capture_output=True).returncode == 2, name
        assert not home.exists()
    assert subprocess.run(["getent", "group", group], capture_output=True).returncode == 2
    assert course.folder.stat().st_gid == 0
    assert pwd.getpwnam("daemon").pw_uid > 0
