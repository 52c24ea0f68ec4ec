"""The exchange service (autograder/hub/exchange_service.py) for students who share one OS uid, against a real
JupyterHub on loopback: every student's nbgrader side here runs in this test process, as one OS user, each with
their own hub token, through the exchange classes their servers would load (autograder/hub/exchange_client.py).
What the service writes is read back as the watcher reads inbound/ (autograder.watch.exchange), and feedback is
released as the watcher releases it; and once end to end: the course's real assignment handed in through the
service, graded by the real `autograder watch` running in the course, its feedback fetched back by its owner alone.

Cost: one hub (and its proxy) and the service started twice, about 9 CPU-s; the end-to-end test about 3 more (a
watcher started, one submission graded), and the course's release 5 more when this module runs alone (in the suite
it is made once for every course that copies it)."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from autograder.devtools.catalogue import wrong_answers
from autograder.hub.services import exchange_service_name
from tests.grading_course import ASSIGNMENT, make_course, scores
from tests.lti_hub import ADMIN_TOKEN, free_port, start_hub, stop_hub
from tests.watching import OWNERLESS, watching

COURSE = "cs101"
SERVICE = exchange_service_name(COURSE)
SERVICE_TOKEN = "exchange-tests-service-token-0123456789abcdef"
BOUND_KB = 100  # the course's c.CourseDirectory.max_dir_size: a submission's bound
WRONG = next(a for a in wrong_answers(ASSIGNMENT) if a.hint == "wrong_axis")  # loses concat_weights' points
NOTEBOOK = {"cells": [{"cell_type": "code", "execution_count": None, "id": "a1", "metadata": {}, "outputs": [],
                       "source": "x = None"}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def hub_extra(course: Path, exchange_root: Path, service_port: int) -> str:
    """The hub's configuration for the test: the course's exchange service and its role as `services.py` makes them
    (the service external, at `service_port`: the test starts and stops it), its students' groups, a second
    course's student."""
    from autograder.hub.hub_course import HubCourse
    from autograder.hub.services import exchange_service

    service, role = exchange_service(HubCourse(COURSE, course, exchange_root))
    assert service["name"] == SERVICE
    external = {"name": SERVICE, "url": f"http://127.0.0.1:{service_port}", "api_token": SERVICE_TOKEN}
    return f"""
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.manage_groups = False
c.JupyterHub.services = [{{"name": "launch-tests", "api_token": {ADMIN_TOKEN!r}}}, {external!r}]
c.JupyterHub.load_groups = {{"students-cs101": {{"users": ["ana", "ben", "cy", "dee"]}},
                            "students-cs202": {{"users": ["eve"]}}}}
c.JupyterHub.load_roles = [
    {{"name": "launch-tests", "services": ["launch-tests"], "scopes": ["admin:users", "tokens", "list:users"]}},
    {role!r},
]
"""


class World:
    def __init__(self, root: Path, hub_port: int, service_port: int) -> None:
        self.root, self.hub, self.port = root, None, service_port
        self.hub_url = f"http://127.0.0.1:{hub_port}"
        self.course = root / "course"
        self.exchange = root / "exchange" / COURSE
        self.url = f"http://127.0.0.1:{service_port}/services/{SERVICE}/"
        self.service: subprocess.Popen | None = None
        self.tokens: dict[str, str] = {}

    def token(self, user: str, **body) -> str:
        response = requests.post(f"{self.hub_url}/hub/api/users/{user}/tokens", json=body, timeout=30,
                                 headers={"Authorization": f"token {ADMIN_TOKEN}"})
        assert response.status_code == 201, response.text
        return response.json()["token"]

    def start_service(self, hub_url: str | None = None) -> None:
        """The service, asking the hub at `hub_url` (by default the test's) about tokens."""
        env = dict(os.environ, JUPYTERHUB_API_TOKEN=SERVICE_TOKEN,
                   JUPYTERHUB_API_URL=f"{hub_url or self.hub_url}/hub/api",
                   JUPYTERHUB_SERVICE_NAME=SERVICE, JUPYTERHUB_SERVICE_PREFIX=f"/services/{SERVICE}/",
                   JUPYTERHUB_SERVICE_URL=f"http://127.0.0.1:{self.port}", JUPYTERHUB_BASE_URL="/",
                   PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
        log = (self.root / "service.log").open("ab")
        self.service = subprocess.Popen([sys.executable, "-m", "autograder.hub.exchange_service"], cwd=self.course,
                                        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.service.poll() is None, (self.root / "service.log").read_text()
            try:
                requests.get(f"{self.url}released", timeout=2)
                return
            except requests.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("the exchange service did not answer within 60 s")

    def stop_service(self) -> None:
        if self.service is not None and self.service.poll() is None:
            os.killpg(self.service.pid, signal.SIGINT)
            try:
                self.service.wait(timeout=15)
            except subprocess.TimeoutExpired:  # a whole suite's load once held SIGINT past 30 s: as the hub would
                os.killpg(self.service.pid, signal.SIGKILL)
                self.service.wait(timeout=30)

    def inbound(self) -> list[str]:
        return sorted(os.listdir(self.exchange / "inbound"))

    def home(self, student: str) -> Path:
        home = self.root / "homes" / student
        home.mkdir(parents=True, exist_ok=True)
        return home

    def client(self, kind: str, student: str, assignment: str = "ps1", token: str | None = None, **options):
        """One of the students' exchange classes as their server's nbgrader makes it: their token, their home."""
        from nbgrader.auth import Authenticator
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config import Config

        from autograder.hub.exchange_client import CLASSES, use_exchange_service

        config = Config()
        use_exchange_service(config, self.url)
        config.ServiceExchange.token = self.tokens[student] if token is None else token
        config.CourseDirectory.course_id = COURSE
        config.CourseDirectory.assignment_id = assignment
        config.Exchange.assignment_dir = str(self.home(student))
        for key, value in options.items():
            setattr(config.CourseDirectory if key == "student_id" else config.ExchangeList, key, value)
        coursedir = CourseDirectory(config=config)
        return CLASSES[kind](coursedir=coursedir, authenticator=Authenticator(config=config), config=config)

    def post(self, student_or_token: str, assignment: str, files: dict[str, bytes] | bytes) -> requests.Response:
        from autograder.hub.exchange_wire import encode

        token = self.tokens.get(student_or_token, student_or_token)
        body = files if isinstance(files, bytes) else encode(files)
        return requests.post(f"{self.url}submissions/{assignment}", data=body, timeout=30,
                             headers={"Authorization": f"token {token}"})


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("exchange-service")
    # The course's real assignment (released, not handed out until the end-to-end test), where the service and
    # the watcher both run, as in a deployment.
    course = make_course(root / "course", f"c.CourseDirectory.course_id = {COURSE!r}\n"
                                          f"c.Exchange.root = {str(root / 'exchange')!r}\n{OWNERLESS}\n"
                                          f"c.CourseDirectory.max_dir_size = {BOUND_KB}")
    released = root / "exchange" / COURSE / "outbound" / "ps1"
    released.mkdir(parents=True)
    (released / "ps1.ipynb").write_text(json.dumps(NOTEBOOK))
    (released / "data.txt").write_text("given data\n")
    port, service_port = free_port(), free_port()
    world = World(root, port, service_port)
    try:
        # The service first: the hub waits 30 s for an external service it cannot reach. The service asks the
        # hub nothing until a request comes.
        world.start_service()
        world.hub = start_hub(root / "hub", [], port, hub_extra(course, root / "exchange", service_port))
        world.tokens = {user: world.token(user, scopes=[f"access:services!service={SERVICE}"])
                        for user in ("ana", "ben", "cy", "dee")}
        world.tokens["eve"] = world.token("eve")  # every permission eve has: none in cs101
        yield world
    finally:
        world.stop_service()
        if world.hub is not None:
            stop_hub(world.hub)


def fetched(world: World, student: str) -> Path:
    """`student`'s copy of ps1, fetched through the service the first time."""
    folder = world.home(student) / "ps1"
    if not folder.exists():
        world.client("fetch_assignment", student).start()
    return folder


def hand_in(world: World, student: str, answer: str) -> tuple[str, dict]:
    """`student` fetches ps1 (once), writes `answer` into it and submits; the new entry in inbound/ and the answer."""
    folder = fetched(world, student)
    notebook = json.loads((folder / "ps1.ipynb").read_text())
    notebook["cells"][0]["source"] = answer
    (folder / "ps1.ipynb").write_text(json.dumps(notebook))
    before = set(world.inbound())
    submit = world.client("submit", student)
    submit.start()
    (new,) = set(world.inbound()) - before
    return new, {"timestamp": submit.timestamp}


def released_feedback(world: World, entry: str, page: bytes) -> None:
    """Feedback for the submission `entry`, released as the watcher releases it (by the submission's secret)."""
    from autograder.watch.exchange import Exchange

    exchange = Exchange(world.root / "exchange", COURSE)
    parsed = exchange.parse(entry, ("ps1",), check_owner=False)
    exchange.release(exchange.secret(parsed), "ps1", page)


def nbgrader_collect(world: World) -> Path:
    """`nbgrader collect ps1` in the course (its own config, as an instructor's formgrader runs it); submitted/."""
    from nbgrader.auth import Authenticator

    from autograder.collect.exchange_collect import ExchangeTimeCollect
    from autograder.course.settings import read_course

    settings = read_course(world.course)
    settings.coursedir.assignment_id = "ps1"
    settings.coursedir.db_url = f"sqlite:///{world.root / 'gradebook.db'}"
    ExchangeTimeCollect(coursedir=settings.coursedir, authenticator=Authenticator(config=settings.config),
                        config=settings.config).start()
    return world.course / "submitted"


def test_two_students_of_one_uid_hand_in_as_themselves_and_fetch_only_their_own_feedback(world):
    from autograder.watch.exchange import Exchange

    ana_entry, ana = hand_in(world, "ana", "x = 'ana answer'")
    ben_entry, ben = hand_in(world, "ben", "x = 'ben answer'")
    assert ana_entry.startswith("ana+ps1+") and ben_entry.startswith("ben+ps1+")

    # The watcher's reading of inbound/, unchanged: each submission is its student's, at the service's time.
    exchange = Exchange(world.root / "exchange", COURSE)
    for entry, student, answer, told in ((ana_entry, "ana", "ana answer", ana), (ben_entry, "ben", "ben answer", ben)):
        parsed = exchange.parse(entry, ("ps1",), check_owner=False)
        assert parsed.student == student
        dest = world.root / "submitted" / student / "ps1"
        exchange.collect(parsed, dest, [])
        assert answer in (dest / "ps1.ipynb").read_text() and (dest / "data.txt").exists()
        written = (world.exchange / "inbound" / entry / "timestamp.txt").read_text()
        assert written == told["timestamp"] and written in entry  # the service's clock, told back to the student
    # `nbgrader collect` (the framework's collect class, as the formgrader's Collect button runs it), unchanged.
    collected = nbgrader_collect(world)
    for student, answer in (("ana", "ana answer"), ("ben", "ben answer")):
        assert answer in (collected / student / "ps1" / "ps1.ipynb").read_text()
    # Nothing of the exchange is open to other users (the students' servers share one uid, which is not the
    # service's): the course's folder is closed.
    assert world.exchange.stat().st_mode & 0o007 == 0

    released_feedback(world, ana_entry, b"<p>ANA-PAGE</p>")
    released_feedback(world, ben_entry, b"<p>BEN-PAGE</p>")
    for student, mine, theirs, told in (("ana", b"ANA-PAGE", b"BEN-PAGE", ana), ("ben", b"BEN-PAGE", b"ANA-PAGE", ben)):
        world.client("fetch_feedback", student).start()
        pages = [p.read_bytes() for p in (world.home(student) / "ps1" / "feedback").rglob("*.html")]
        assert any(mine in page for page in pages) and not any(theirs in page for page in pages)
        assert (world.home(student) / "ps1" / "feedback" / told["timestamp"] / "ps1.html").is_file()
        listed = world.client("list", student, inbound=True).start()
        theirs_in_inbound = [name for name in world.inbound() if name.startswith(f"{student}+ps1+")]
        assert [(a["student_id"], len(a["submissions"])) for a in listed] == [(student, len(theirs_in_inbound))]
        (this,) = [s for s in listed[0]["submissions"] if s["timestamp"] == told["timestamp"]]
        assert this["has_exchange_feedback"] and this["has_local_feedback"]

    # Asking for another's work by name gets one's own: nothing in a request names a student.
    raw = requests.get(f"{world.url}feedback/ps1?student=ben", timeout=30,
                       headers={"Authorization": f"token {world.tokens['ana']}"}).json()
    assert b"BEN-PAGE" not in json.dumps(raw).encode()
    assert [f["timestamp"] for f in raw["feedback"] if f["pages"]] == [ana["timestamp"]]


def test_a_student_cannot_submit_as_another_nor_overwrite_their_submission(world):
    hand_in(world, "ben", "x = 'ben again'")
    bens = {name: (world.exchange / "inbound" / name / "ps1.ipynb").read_bytes()
            for name in world.inbound() if name.startswith("ben+")}
    entry, _ = hand_in(world, "ana", "x = 'ana posing'")  # nbgrader's --student given: still ana's
    assert entry.startswith("ana+")
    submit = world.client("submit", "ana", student_id="ben")
    submit.start()
    assert world.client("list", "ana", cached=True).start()[0]["student_id"] == "ana"
    for name in ("ben+ps1+2020-01-01 00:00:00.000000 UTC", "ben", "../inbound/ben+ps1+x"):
        response = requests.post(f"{world.url}submissions/{name}", timeout=30, data=b'{"files": {}}',
                                 headers={"Authorization": f"token {world.tokens['ana']}"})
        assert response.status_code in (400, 404), response.text
    after = {name: (world.exchange / "inbound" / name / "ps1.ipynb").read_bytes()
             for name in world.inbound() if name.startswith("ben+")}
    assert after == bens
    for name in world.inbound():
        assert name.split("+")[0] in ("ana", "ben", "cy", "dee")


def test_a_forged_expired_or_other_courses_token_is_refused_in_one_line_and_nothing_is_written(world):
    from nbgrader.exchange.abc import ExchangeError

    fetched(world, "ana")
    short = world.token("ana", scopes=[f"access:services!service={SERVICE}"], expires_in=2)
    assert world.post(short, "ps1", {"ps1.ipynb": b"{}"}).status_code == 200  # it worked while valid
    before = world.inbound()
    time.sleep(2.5)
    cases = {"forged": "0" * 32, "expired": short, "another course's student": world.tokens["eve"]}
    for what, token in cases.items():
        response = world.post(token, "ps1", {"ps1.ipynb": b"{}"})
        assert response.status_code == 403, (what, response.text)
        line = response.json()["error"]
        assert "\n" not in line and ("not accept" in line or "not a student of cs101" in line), (what, line)
        with pytest.raises(ExchangeError, match=r"^the course's exchange service refused: [^\n]*$"):
            world.client("submit", "ana", token=token).start()
        with pytest.raises(ExchangeError):
            world.client("fetch_feedback", "ana", token=token).start()
    response = requests.post(f"{world.url}submissions/ps1", data=b'{"files": {}}', timeout=30)
    assert response.status_code == 401
    assert world.inbound() == before


def test_past_the_course_bound_a_hostile_name_or_a_flood_is_refused_in_one_line_and_nothing_is_written(world):
    before = world.inbound()
    refused = {
        "a file past the bound": {"big.bin": os.urandom(BOUND_KB * 1000 + 1)},
        "a way out": {"../escape.txt": b"x"},
        "an absolute path": {"/tmp/escape.txt": b"x"},
        "the service's own time": {"timestamp.txt": b"2000-01-01 00:00:00.000000 UTC"},
        "the service's own secret": {"submission_secret.txt": b"0" * 128},
    }
    for what, files in refused.items():
        response = world.post("cy", "ps1", files)
        assert response.status_code in (400, 413), (what, response.text)
        assert "nothing written" in response.json()["error"] and "\n" not in response.json()["error"], what
    # A body past what the bound could need is dropped unread, and the student still reads why.
    response = world.post("cy", "ps1", {"big.bin": os.urandom(3 * BOUND_KB * 1000)})
    assert response.status_code == 413 and "larger than 100 kB, the bound of cs101" in response.json()["error"]
    assert world.post("cy", "ps1", b"not json").status_code == 400
    assert world.post("cy", "unreleased", {"a.txt": b"x"}).status_code == 404
    assert world.inbound() == before
    assert not os.listdir(world.exchange / ".incoming")

    from autograder.hub.exchange_service import FLOOD_SUBMISSIONS

    accepted = [world.post("cy", "ps1", {"ps1.ipynb": b"{}"}).status_code for _ in range(FLOOD_SUBMISSIONS)]
    assert accepted == [200] * FLOOD_SUBMISSIONS
    flooded = world.inbound()
    response = world.post("cy", "ps1", {"ps1.ipynb": b"{}"})
    assert response.status_code == 429 and "nothing written" in response.json()["error"]
    assert world.inbound() == flooded
    assert world.post("ana", "ps1", {"ps1.ipynb": b"{}"}).status_code == 200  # one student's flood is theirs


def test_with_the_service_down_the_student_is_told_and_nothing_is_lost(world):
    from nbgrader.exchange.abc import ExchangeError

    work = fetched(world, "ben") / "ps1.ipynb"
    work.write_text(work.read_text().replace("x = ", "x = 'while down' or "))
    kept, before = work.read_bytes(), world.inbound()
    world.stop_service()
    try:
        with pytest.raises(ExchangeError, match=r"did not answer .*nothing was handed in; your files are as they were"):
            world.client("submit", "ben").start()
        assert work.read_bytes() == kept and world.inbound() == before
        # The service up, the hub it asks about tokens down: told so, nothing written.
        world.start_service(hub_url=f"http://127.0.0.1:{free_port()}")
        with pytest.raises(ExchangeError, match=r"refused: the hub did not answer the exchange service: nothing was"):
            world.client("submit", "ben").start()
        assert work.read_bytes() == kept and world.inbound() == before
        world.stop_service()
    finally:
        world.start_service()
    submit = world.client("submit", "ben")
    submit.start()
    (new,) = set(world.inbound()) - set(before)
    assert (world.exchange / "inbound" / new / "ps1.ipynb").read_bytes() == kept


def test_the_service_refuses_to_start_where_the_watcher_would_refuse_what_it_writes_or_others_could_read(world,
                                                                                                          tmp_path):
    from autograder.hub.exchange_service import ServiceError, exchange_folder

    shutil.copytree(world.course, tmp_path / "course")
    config = tmp_path / "course" / "nbgrader_config.py"
    config.write_text(config.read_text().replace("check_owner = False", "check_owner = True"))
    with pytest.raises(ServiceError, match="set c.CollectApp.check_owner = False"):
        exchange_folder(tmp_path / "course")

    # The course's folder in the exchange made first by someone else, as a link to a folder they can read.
    config.write_text(config.read_text().replace("check_owner = True", "check_owner = False")
                      .replace(str(world.root / "exchange"), str(tmp_path / "exchange")))
    (tmp_path / "exchange").mkdir()
    (tmp_path / "theirs").mkdir(mode=0o777)
    (tmp_path / "exchange" / COURSE).symlink_to(tmp_path / "theirs")
    with pytest.raises(ServiceError, match=r"cs101 is a link, not this service's"):
        exchange_folder(tmp_path / "course").make_private()
    assert not os.listdir(tmp_path / "theirs")


def docs_setting() -> dict:
    """The students' setting as docs/administrators/exchange-service.md gives it (its one JSON block)."""
    from autograder.devtools.repo import ROOT

    page = (ROOT / "docs" / "administrators" / "exchange-service.md").read_text()
    (block,) = re.findall(r"```json\n(.*?)```", page, re.S)
    return json.loads(block)


def test_the_assignments_panel_works_through_the_one_setting_in_the_students_config(world, monkeypatch):
    """nbgrader's own Assignments panel (its server side, as JupyterLab calls it) in a student's folder whose
    nbgrader_config.json holds the setting of the docs (read from the page), the address and token in the
    environment as in a pod."""
    from nbgrader.server_extensions.assignment_list.handlers import AssignmentList

    from autograder.hub.exchange_client import CLASSES, TOKEN_ENV, URL_ENV, ServiceExchange

    home = world.home("dee")
    setting = docs_setting()
    assert setting["ExchangeFactory"] == {kind: f"{cls.__module__}.{cls.__name__}" for kind, cls in CLASSES.items()}
    # Its address is for the students' pods; here the service's address comes from the environment, as it may.
    assert set(setting.pop("ServiceExchange")) <= set(ServiceExchange.class_traits(config=True))
    (home / "nbgrader_config.json").write_text(json.dumps({**setting, "CourseDirectory": {"course_id": COURSE}}))
    monkeypatch.setenv(URL_ENV, world.url)
    monkeypatch.setenv(TOKEN_ENV, world.tokens["dee"])
    monkeypatch.chdir(home)  # a student's server runs in its root folder, where the panel reads the config again
    panel = AssignmentList()
    panel.root_dir = str(home)

    def shown(status: str) -> list[dict]:
        listed = panel.list_assignments(COURSE)
        assert listed["success"], listed
        return [a for a in listed["value"] if a["status"] == status]

    assert "ps1" in [a["assignment_id"] for a in shown("released")]
    assert panel.fetch_assignment(COURSE, "ps1")["success"]
    (fetched_ps1,) = shown("fetched")
    assert [nb["path"] for nb in fetched_ps1["notebooks"]] == ["ps1/ps1.ipynb"]
    assert panel.submit_assignment(COURSE, "ps1")["success"]
    (submitted,) = shown("submitted")
    (entry,) = [name for name in world.inbound() if name.startswith("dee+ps1+")]
    assert [s["timestamp"] for s in submitted["submissions"]] == [entry.split("+")[2]]
    assert not submitted["submissions"][0]["has_exchange_feedback"]

    released_feedback(world, entry, b"<p>DEE-PAGE</p>")
    assert shown("submitted")[0]["submissions"][0]["has_exchange_feedback"]
    assert panel.fetch_feedback(COURSE, "ps1")["success"]
    (after,) = shown("submitted")[0]["submissions"]
    assert after["has_local_feedback"] and not after["feedback_updated"]
    assert b"DEE-PAGE" in (home / after["local_feedback_path"] / "ps1.html").read_bytes()


def test_an_answer_handed_in_through_the_service_is_graded_by_the_watcher_and_only_its_owner_fetches_its_feedback(
        world):
    """End to end: the course's assignment released where the service reads it, a student's answer handed in through
    the service, graded by the real `autograder watch` in the course, the feedback fetched back through the service."""
    from autograder.devtools.catalogue import write_submission

    # What `nbgrader release_assignment` does: the release copied into outbound/ (the command costs seconds).
    shutil.copytree(world.course / "release" / ASSIGNMENT, world.exchange / "outbound" / ASSIGNMENT)
    world.client("fetch_assignment", "ana", ASSIGNMENT).start()
    work = world.home("ana") / ASSIGNMENT
    write_submission(ASSIGNMENT, work, [WRONG], release=work)
    submit = world.client("submit", "ana", ASSIGNMENT)
    with watching(world.course, "--jobs", "1", "--aside", "0") as watcher:
        submit.start()
        watcher.wait_line(r"graded ana ")
    assert watcher.code == 0, watcher.log()
    graded = scores(world.course)["ana"]
    total = sum(graded.values())
    assert graded["test_concat_weights"] == 0 and total > 0  # her answer's own score, not full marks nor none

    world.client("fetch_feedback", "ana", ASSIGNMENT).start()
    (page,) = (work / "feedback").rglob("*.html")
    assert page.relative_to(work / "feedback").as_posix() == f"{submit.timestamp}/{ASSIGNMENT}.html"
    text = page.read_text()
    # Her score, as the gradebook holds it, heading her page, and the exercise her answer lost.
    assert re.search(rf"Feedback on {ASSIGNMENT}: {total:g} / \d+ points", text)
    assert "concat_weights: 0 / " in text and "Graded attempt 1 " in text

    # ben, of the same uid and course, who handed in nothing for it: no page of hers, however he asks.
    world.client("fetch_feedback", "ben", ASSIGNMENT).start()
    assert not list((world.home("ben") / ASSIGNMENT).rglob("*.html"))
    raw = requests.get(f"{world.url}feedback/{ASSIGNMENT}?student=ana", timeout=30,
                       headers={"Authorization": f"token {world.tokens['ben']}"})
    assert raw.status_code == 200 and raw.json() == {"feedback": []}
