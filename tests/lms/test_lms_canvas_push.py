"""`autograder push --to canvas` against a local HTTP fixture of Canvas's documented REST API.

Canvas cannot be installed here, so `tests/lms/canvas_fixture.py` stands in for it: a real HTTP server
on loopback that implements the Submissions and Progress endpoints as Canvas documents them and
asserts the method, path, query and form fields of each request. The client is the real `canvasapi`.
"""

from __future__ import annotations

import logging

import pytest

from autograder.lms import send
from autograder.lms.gradebook import open_gradebook
from autograder.lms.identity import Person
from tests.lms.canvas_fixture import FakeCanvas, Fault
from tests.lms.conftest import HSA, Course, dry_run, run_cli
from tests.lms.test_lms_student_text import (
    TERMINAL_HOSTILE,
    add_hostile_students,
    assert_comments_hold_no_student_text,
    assert_terminal_safe,
    store,
)

TOKEN = "canvas-test-token-Zq81xV"
A = 501  # the Canvas id of HSA in the test settings
USERS = ["1001", "1002", "1003", "1004"]
# canvasapi warns about plain-HTTP URLs; the loopback fixture has no TLS.
pytestmark = pytest.mark.filterwarnings("ignore:Canvas may respond unexpectedly")


@pytest.fixture
def canvas(in_course: Course, monkeypatch: pytest.MonkeyPatch):
    with FakeCanvas(TOKEN, 77, {501: 46, 502: 20}, USERS) as fake:
        settings = in_course.root / "lms.toml"
        settings.write_text(settings.read_text().replace('url = "http://127.0.0.1:9"', f'url = "{fake.base}"')
                            + "\n[push]\nretries = 3\nbackoff_seconds = 0.01\n")
        monkeypatch.setenv("CANVAS_API_TOKEN", TOKEN)
        yield fake
        assert fake.violations == []


def test_push_posts_each_grade_and_comment_in_bulk(in_course: Course, canvas: FakeCanvas, capsys) -> None:
    assert run_cli("push", HSA, "--to", "canvas") == 0
    assert len(canvas.bulk_posts) == 1, "one bulk request for the class"
    posted = canvas.bulk_posts[0]
    assert set(posted) == {"1001", "1002", "1004"}, "cyd (1003) submitted nothing: nothing sent"
    assert posted["1002"]["posted_grade"] == "29.2"  # 36.5 less nbgrader's 20% late penalty
    assert posted["1004"]["posted_grade"] == "0"
    assert posted["1001"]["posted_grade"] == "40.5"
    assert posted["1002"]["text_comment"].startswith("concat_state_input 0/6, concat_weights 6/6")
    assert "late penalty -7.3" in posted["1002"]["text_comment"]
    assert canvas.score(A, "1002") == 29.2 and canvas.score(A, "1003") is None
    out = capsys.readouterr().out
    assert "sent (3): bob, dee, ada" in out and "not submitted, nothing sent (1): cyd" in out
    methods = {(m, p) for m, p in canvas.requests}
    assert ("POST", "/api/v1/courses/77/assignments/501/submissions/update_grades") in methods
    assert ("GET", "/api/v1/progress/1") in methods


def test_rerun_sends_nothing_and_changes_nothing(in_course: Course, canvas: FakeCanvas, capsys) -> None:
    assert run_cli("push", HSA, "--to", "canvas") == 0
    state = {k: (v["score"], list(v["comments"])) for k, v in canvas.submissions.items()}
    capsys.readouterr()
    assert run_cli("push", HSA, "--to", "canvas") == 0
    assert len(canvas.bulk_posts) == 1, "no second bulk update"
    assert {k: (v["score"], list(v["comments"])) for k, v in canvas.submissions.items()} == state
    assert "already up to date, not sent again (3): bob, dee, ada" in capsys.readouterr().out


def test_only_a_changed_grade_is_sent_again(in_course: Course, canvas: FakeCanvas) -> None:
    assert run_cli("push", HSA, "--to", "canvas") == 0
    with in_course.gradebook() as gb:  # a regrade of dee's sigmoid exercise
        gb.find_grade("test_sigmoid", HSA, HSA, "dee").manual_score = 7
        gb.db.commit()
    assert run_cli("push", HSA, "--to", "canvas") == 0
    assert list(canvas.bulk_posts[1]) == ["1004"] and canvas.bulk_posts[1]["1004"]["posted_grade"] == "7"
    assert canvas.score(A, "1004") == 7


def test_retries_429_and_5xx_with_backoff(in_course: Course, canvas: FakeCanvas, capsys) -> None:
    sleeps: list[float] = []
    canvas.faults += [
        Fault("GET", r"/api/v1/courses/77/assignments/501/submissions", status=429, times=1),
        Fault("POST", r".*/update_grades", status=503, times=2),
        Fault("GET", r"/api/v1/progress/\d+", status=502, times=1),
    ]
    ok = send.run(in_course.root, HSA, "canvas", sleep=sleeps.append)
    assert ok
    assert len(canvas.bulk_posts) == 1 and canvas.score(A, "1001") == 40.5
    posts = [r for r in canvas.requests if r[0] == "POST"]
    assert len(posts) == 3, "two 503s, then the accepted request"
    backoffs = [s for s in sleeps if s in (0.01, 0.02, 0.04)]
    assert backoffs[:3] == [0.01, 0.01, 0.02], "exponential backoff from 0.01 s, restarting per call"


def test_failure_part_way_names_who_was_and_was_not_sent(in_course: Course, canvas: FakeCanvas, capsys) -> None:
    settings = in_course.root / "lms.toml"
    settings.write_text(settings.read_text().replace("course_id = 77\n", "course_id = 77\nbatch_size = 1\n"))
    # bob's batch goes through; dee's keeps failing with 500 (retries exhausted); ada is never tried.
    canvas.bulk_fail_after = 1
    assert run_cli("push", HSA, "--to", "canvas") == 1
    out = capsys.readouterr().out
    assert "Push INCOMPLETE" in out
    assert "sent (1): bob" in out and "NOT sent (2): dee, ada" in out and "Re-run" in out
    assert canvas.score(A, "1002") == 29.2 and canvas.score(A, "1004") is None

    canvas.bulk_fail_after = None
    assert run_cli("push", HSA, "--to", "canvas") == 0
    out = capsys.readouterr().out
    assert "sent (2): dee, ada" in out and "already up to date, not sent again (1): bob" in out


def test_failed_job_is_checked_student_by_student(in_course: Course, canvas: FakeCanvas, capsys) -> None:
    """A Canvas bulk job that fails after applying some grades: Canvas is read back to tell them apart."""
    canvas.next_job_fails.append((True, 1))  # the job applies bob's grade, then fails
    assert run_cli("push", HSA, "--to", "canvas") == 1
    out = capsys.readouterr().out
    assert "sent (1): bob" in out and "NOT sent (2): dee, ada" in out
    assert "Canvas bulk update job failed" in out


def test_dry_run_sends_nothing_and_needs_no_token(in_course: Course, canvas: FakeCanvas, monkeypatch,
                                                   capsys) -> None:
    monkeypatch.delenv("CANVAS_API_TOKEN")
    out = dry_run("canvas", canvas, capsys)
    assert out.startswith(f"Dry run: would send 3 grade(s) for {HSA} to Canvas {canvas.base} course 77, "
                          "assignment 501. Nothing was sent.")
    lines = out.splitlines()
    assert lines[1].split() == ["student", "LMS", "user", "score", "comment"]
    assert lines[2].split()[:3] == ["bob", "1002", "29.2/46"]
    assert "Not submitted, nothing sent: cyd" in out


def test_token_never_printed_or_logged(in_course: Course, canvas: FakeCanvas, capsys, caplog) -> None:
    caplog.set_level(logging.DEBUG)  # everything any library logs, canvasapi's request log included
    canvas.faults.append(Fault("POST", r".*/update_grades", status=500, times=99))
    assert run_cli("push", HSA, "--to", "canvas") == 1
    assert run_cli("push", HSA, "--to", "canvas", "--dry-run") == 0
    captured = capsys.readouterr()
    seen = captured.out + captured.err + caplog.text
    assert "Push INCOMPLETE" in seen
    assert TOKEN not in seen and TOKEN[-4:] not in seen


def test_missing_token_names_the_variable_not_a_value(in_course: Course, canvas: FakeCanvas, monkeypatch,
                                                       capsys) -> None:
    monkeypatch.delenv("CANVAS_API_TOKEN")
    assert run_cli("push", HSA, "--to", "canvas") == 1
    err = capsys.readouterr().err
    assert "CANVAS_API_TOKEN" in err and err.count("\n") == 1
    assert canvas.requests == []


def test_token_from_a_file_outside_the_course(in_course: Course, canvas: FakeCanvas, monkeypatch, tmp_path,
                                              capsys) -> None:
    monkeypatch.delenv("CANVAS_API_TOKEN")
    secret = tmp_path / "secrets" / "canvas-token"
    secret.parent.mkdir()
    secret.write_text(TOKEN + "\n")
    settings = in_course.root / "lms.toml"
    text = settings.read_text()
    settings.write_text(text.replace("course_id = 77\n", f'course_id = 77\ntoken_file = "{secret}"\n'))
    assert run_cli("push", HSA, "--to", "canvas") == 0
    assert canvas.score(A, "1001") == 40.5

    inside = in_course.root / "canvas-token"
    inside.write_text(TOKEN)
    settings.write_text(text.replace("course_id = 77\n", 'course_id = 77\ntoken_file = "canvas-token"\n'))
    capsys.readouterr()
    assert run_cli("push", HSA, "--to", "canvas") == 1
    assert "points inside the course folder" in capsys.readouterr().err


def test_wrong_token_stops_before_sending(in_course: Course, canvas: FakeCanvas, monkeypatch, capsys) -> None:
    monkeypatch.setenv("CANVAS_API_TOKEN", "not-the-token")
    assert run_cli("push", HSA, "--to", "canvas") == 1
    out = capsys.readouterr().out
    assert "could not read the assignment from Canvas (InvalidAccessToken" in out
    assert "NOT sent (3): bob, dee, ada" in out and canvas.bulk_posts == []


def test_student_without_canvas_id_stops_the_push(in_course: Course, canvas: FakeCanvas, capsys) -> None:
    with open_gradebook(in_course.root) as gb:
        gb.find_student("dee").lms_user_id = None
        gb.db.commit()
    assert run_cli("push", HSA, "--to", "canvas") == 1
    err = capsys.readouterr().err
    assert "dee" in err and "lms_user_id" in err and canvas.requests == []
    assert run_cli("push", HSA, "--to", "canvas", "--skip-missing") == 0
    assert set(canvas.bulk_posts[0]) == {"1001", "1002"}


def test_student_text_is_escaped_on_the_terminal_and_kept_out_of_comments(in_course: Course, canvas: FakeCanvas,
                                                                          capsys) -> None:
    add_hostile_students(in_course)
    dry = dry_run("canvas", canvas, capsys)
    row = next(line for line in dry.splitlines() if line.startswith("  mal"))
    assert row.count("mal\\x1b[2J") == 2  # the student id and the LMS user id, each escaped
    assert_terminal_safe(dry)
    # Canvas's user ids come from Canvas (a number), not from a student: give the hostile one a real id.
    store(in_course, Person(id=TERMINAL_HOSTILE, lms_user_id="1003"))
    assert run_cli("push", HSA, "--to", "canvas") == 0
    report = capsys.readouterr().out
    assert "sent (4): " in report
    assert_terminal_safe(report)
    comments = [grade["text_comment"] for post in canvas.bulk_posts for grade in post.values()]
    assert len(comments) == 4
    assert_comments_hold_no_student_text(comments)
