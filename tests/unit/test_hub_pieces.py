"""The hub's pieces that need no running hub: which names get an OS account, each user's nbgrader settings, what
`add_course` adds to a hub's config and what it refuses (tests/test_hub.py runs the real hub)."""

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from traitlets.config import Config

from autograder.hub.course_config import add_course, add_idle_culler
from autograder.hub.hub_course import HubCourse, HubCourseError
from autograder.hub.os_accounts import HUB_MARK, AccountError, check_name, course_group_name, ensure_user
from autograder.hub.services import IDLE_CULLER, IDLE_TIMEOUT_SECONDS
from autograder.hub.user_config import STAFF_PAGES, STAFF_PAGES_FILE, write_user_config


@pytest.mark.parametrize("name", ["ann", "_svc", "s-001", "a" * 32, "x_y-z9"])
def test_a_posix_user_name_is_accepted(name: str) -> None:
    check_name(name)


@pytest.mark.parametrize("name", ["", "Ann", "1abc", "-ann", "a b", "ann@uni.edu", "a.b", "é", "a" * 33, "ann\n",
                                  "../root", "ann;rm"])
def test_anything_else_is_refused_before_any_account_is_made(name: str) -> None:
    with pytest.raises(AccountError, match="not a valid POSIX user name"):
        ensure_user(name)


def test_a_system_account_is_never_taken_over() -> None:
    with pytest.raises(AccountError, match="existing OS account that the hub did not make"):
        ensure_user("root")


@pytest.fixture
def colleague():
    """An ordinary login of this machine (uid 1000 or more) the hub did not make, who has set their room (the
    comment's second field, which chfn lets any user change) to the hub's mark."""
    import secrets

    from tests.os_users import account_command

    name = f"agcol{secrets.token_hex(3)}"
    made = account_command("useradd", "--comment", "Bo Colleague", name)
    assert made.returncode == 0, made.stderr
    try:
        yield name
    finally:
        account_command("userdel", name)


def test_an_ordinary_account_is_never_taken_over_even_with_the_mark_in_a_field_its_user_sets(colleague) -> None:
    import pwd
    import subprocess

    assert pwd.getpwnam(colleague).pw_uid >= 1000
    with pytest.raises(AccountError, match="existing OS account that the hub did not make"):
        ensure_user(colleague)
    # chfn -r as root sets what `chfn` run by the colleague sets: the room, after the full name
    subprocess.run(["chfn", "-r", HUB_MARK, colleague], check=True, capture_output=True)
    assert HUB_MARK in pwd.getpwnam(colleague).pw_gecos
    with pytest.raises(AccountError, match="existing OS account that the hub did not make"):
        ensure_user(colleague)


def test_a_course_group_keeps_its_name_when_posix_allows_it_else_a_stable_short_one() -> None:
    assert course_group_name("instructors-rnn") == "instructors-rnn"
    long = course_group_name("instructors-" + "x" * 40)
    assert long == course_group_name("instructors-" + "x" * 40) and len(long) <= 32
    assert course_group_name("instructors-Fall.2026") != course_group_name("instructors-fall.2026")


def course(course_id: str, root: str = "/srv/exchange") -> HubCourse:
    return HubCourse(course_id, Path(f"/srv/courses/{course_id}"), Path(root))


def test_a_students_settings_name_the_exchange_and_their_one_course(tmp_path: Path) -> None:
    folder = write_user_config(tmp_path, "ann", [course("rnn")], [])
    settings = json.loads((folder / "nbgrader_config.json").read_text())
    assert settings == {"Exchange": {"root": "/srv/exchange"}, "CourseDirectory": {"course_id": "rnn"}}


def test_a_student_of_two_courses_gets_no_course_id_so_the_panel_lists_both(tmp_path: Path) -> None:
    folder = write_user_config(tmp_path, "ann", [course("rnn"), course("cnn")], [])
    assert json.loads((folder / "nbgrader_config.json").read_text()) == {"Exchange": {"root": "/srv/exchange"}}


def test_an_instructors_settings_root_the_formgrader_in_the_course(tmp_path: Path) -> None:
    folder = write_user_config(tmp_path, "tim", [course("cnn")], [course("rnn")])
    settings = json.loads((folder / "nbgrader_config.json").read_text())
    assert settings["CourseDirectory"] == {"root": "/srv/courses/rnn", "course_id": "rnn"}


def test_only_an_instructors_server_loads_the_staff_pages_extension(tmp_path: Path) -> None:
    extension = write_user_config(tmp_path, "tim", [], [course("rnn")]) / "jupyter_server_config.d" / STAFF_PAGES_FILE
    assert json.loads(extension.read_text()) == {"ServerApp": {"jpserver_extensions": {
        STAFF_PAGES: True, "jupyter_server_proxy": False}}}  # no proxy where students' work is opened
    write_user_config(tmp_path, "tim", [course("rnn")], [])  # the same person, a student now
    assert not extension.exists()


def test_a_students_html_keeps_what_reads_and_loses_what_runs() -> None:
    from autograder.display.inert_html import inert_html

    shown = inert_html('<h2>Title</h2><table><tr><td>1</td></tr></table><img src="data:image/png;base64,AA" '
                       'onerror="x()"><a href="javascript:x()">link</a><script>x()</script>'
                       '<p id="toggle_name" style="position: fixed">text</p><svg><image href="y" onload="x()"/></svg>')
    assert "<h2>Title</h2>" in shown and "<td>1</td>" in shown and 'src="data:image/png;base64,AA"' in shown
    assert ">link</a>" in shown and ">text</p>" in shown
    for gone in ("x()", "javascript:", "<script", "id=", "style=", "<svg"):
        assert gone not in shown, (gone, shown)


def test_the_staff_policy_allows_script_only_from_the_servers_own_code_and_eval_only_to_jupyterlab() -> None:
    from autograder.hub.staff_pages import policy

    lab, formgrader = (policy("hub.edu", "/user/tim/", "n0nce", {"toggle_name(true);"}, f"/user/tim/{page}")
                       for page in ("lab/tree/x.ipynb", "formgrader/submissions/1/"))
    script = formgrader.split(";")[0].split()
    assert script[:2] == ["script-src", "'nonce-n0nce'"] and "'unsafe-inline'" not in script
    assert [s for s in script if "/" in s] == ["hub.edu/user/tim/static/", "hub.edu/user/tim/lab/extensions/",
                                               "hub.edu/user/tim/formgrader/static/"]  # never files/ nor 'self'
    assert "'unsafe-eval'" in lab and "'unsafe-eval'" not in formgrader
    assert "object-src 'none'" in formgrader and "base-uri 'none'" in formgrader


def test_a_course_folder_without_a_course_id_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    with pytest.raises(HubCourseError, match="sets no c.CourseDirectory.course_id"):
        add_course(Config(), tmp_path, tmp_path / "state")
    with pytest.raises(HubCourseError, match="no such course folder"):
        add_course(Config(), tmp_path / "missing", tmp_path / "state")


def test_the_idle_culler_is_added_beside_the_hubs_own_services_with_the_scopes_it_needs() -> None:
    c = Config()
    c.JupyterHub.services.append({"name": "institution-service"})  # a lazy append made earlier in the file
    add_idle_culler(c)
    services = {s["name"]: s for s in c.JupyterHub.services}
    assert set(services) == {"institution-service", IDLE_CULLER}
    assert f"--timeout={IDLE_TIMEOUT_SECONDS}" in services[IDLE_CULLER]["command"]
    (role,) = c.JupyterHub.load_roles
    assert role["services"] == [IDLE_CULLER] and "delete:servers" in role["scopes"]


def test_a_course_its_instructors_servers_could_not_reach_is_refused(tmp_path: Path) -> None:
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "rnn"\n')
    closed = next(p for p in reversed(tmp_path.parents) if not p.stat().st_mode & 0o001)  # pytest's own, 0700
    with pytest.raises(HubCourseError, match=f"{closed} keeps other users out"):
        add_course(Config(), tmp_path, tmp_path / "state")


def test_a_course_folder_holding_the_hubs_own_python_environment_is_refused() -> None:
    """This repository is a course whose venv lies inside it (make install): closing it to students would close
    their Python too."""
    from autograder.devtools.repo import ROOT

    with pytest.raises(HubCourseError, match="Python environment .* is inside the course folder"):
        add_course(Config(), ROOT, ROOT / "state")


def test_a_student_gets_a_launcher_card_per_course_whose_process_redirects_to_their_page(tmp_path: Path) -> None:
    """One course: one "My assignments" card; two: one per course, named for it. Each card's process is the
    redirect, run by the student's Python, sending them to that course's service page."""
    from autograder.hub.user_config import CARD, REDIRECT, SERVER_CONFIG, SERVER_PROXY

    def cards(learns: list[HubCourse]) -> dict:
        folder = write_user_config(tmp_path, "ann", learns, [], "/base/services/", "/opt/py")
        return json.loads((folder / SERVER_CONFIG).read_text())["ServerProxy"]

    one = cards([course("rnn")])["servers"]
    assert list(one) == [CARD] and one[CARD]["launcher_entry"]["title"] == "My assignments"
    entry = one[CARD]["launcher_entry"]
    assert Path(entry["icon_path"]).is_file() and entry["category"] == "Course"
    assert one[CARD]["command"] == ["/opt/py", str(REDIRECT), "{port}", "{base_url}", CARD,
                                    "/base/services/autograder-my-rnn/"]
    assert one[CARD]["new_browser_tab"] is True
    two = cards([course("rnn"), course("cnn")])["servers"]
    assert [s["launcher_entry"]["title"] for s in two.values()] == ["My assignments: rnn", "My assignments: cnn"]
    assert [s["command"][-1] for s in two.values()] == ["/base/services/autograder-my-rnn/",
                                                        "/base/services/autograder-my-cnn/"]
    assert len(set(two)) == 2 and SERVER_PROXY == "jupyter_server_proxy"
    write_user_config(tmp_path, "ann", [], [course("rnn")])  # the same person, an instructor now: no cards
    assert not (tmp_path / "ann" / SERVER_CONFIG).exists()


@pytest.mark.parametrize(("base_url", "name", "target", "browser_at", "lands"), [
    ("/user/ann/", "my-assignments", "/services/autograder-my-rnn/", "/user/ann/my-assignments/",
     "/services/autograder-my-rnn/"),
    ("/hub-prefix/user/ann/", "my-assignments-2", "/hub-prefix/services/x/", "/hub-prefix/user/ann/my-assignments-2/",
     "/hub-prefix/services/x/"),
    ("/", "my-assignments", "/services/x/", "/my-assignments/", "/services/x/"),
])
def test_the_cards_redirect_lands_on_the_page_from_where_the_browser_is(base_url, name, target, browser_at, lands):
    from urllib.parse import urljoin

    from autograder.hub.my_assignments_redirect import relative_location

    location = relative_location(base_url, name, target)
    assert not location.startswith("/")  # jupyter-server-proxy would put its own prefix before an absolute path
    assert urljoin(f"https://hub.example{browser_at}", location) == f"https://hub.example{lands}"


def test_the_cards_process_answers_every_request_with_the_redirect() -> None:
    """The process as jupyter-server-proxy starts it (by path, with a Python that need not import autograder)."""
    import socket
    import subprocess
    import sys
    import time

    from autograder.hub.user_config import REDIRECT

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-I", str(REDIRECT), str(port), "/user/ann/", "my-assignments",
                                "/services/autograder-my-rnn/"])
    try:
        opener = urllib.request.build_opener(NoRedirect)
        for _ in range(100):
            try:
                reply = opener.open(f"http://127.0.0.1:{port}/anything?x=1")
                break
            except urllib.error.HTTPError as error:
                reply = error
                break
            except OSError:
                time.sleep(0.05)
        assert reply.code == 302 and reply.headers["Location"] == "../../../services/autograder-my-rnn/"
    finally:
        process.kill()
        process.wait()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None
