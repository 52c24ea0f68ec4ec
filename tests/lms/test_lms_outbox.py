"""Grades sent as they are made: the outbox (`autograder.grades.outbox`) filled in the grade's own transaction by
every path that changes a counted score, and its sender (`outbox_sender`, `autograder push --follow`) against
the loopback LTI platform (tests/lms/nrps_platform.py) through a burst of 429s and each bad answer.

Submissions reach the gradebook through `GradebookWriter`, the writer `autograder watch` keeps open and
commits after each graded submission: the outcomes are built with the scores the graders give (the sandbox
is not run here: its cost would buy nothing this file checks). The outage, with the real watcher grading
through it: tests/lms/test_lms_outbox_watch.py.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

import pytest
from traitlets.config import Config

from autograder.devtools.demo_lms.lti_platform import Fault
from autograder.grades.outbox import DETECTED, history, latest
from autograder.grading.model import CellResult, Outcome, SubmissionResult
from autograder.grading.writer import GradebookWriter
from autograder.lms.gradebook import course_rules, read_gradesheet
from autograder.lms.outbox_sender import LtiSender, open_outbox
from tests.lms.conftest import DUE, HSA, HSA_CELLS, RUE, Course, TenPercentPerDay, run_cli
from tests.lms.notebook_order import RUE_ORDER, with_rue_notebook
from tests.lms.nrps_platform import AdvantagePlatform, Garble

LINE = "1"  # the first line item the platform makes


def outcome(student: str, points: float) -> Outcome:
    """A graded HSA submission scoring `points` in all: the cells filled in order, each up to its points."""
    cells, left = [], points
    for cell, most in HSA_CELLS.items():
        cells.append(CellResult(cell, most, min(most, left)))
        left -= cells[-1].score
    return Outcome(SubmissionResult(student, HSA, cells=cells))


def writer(course: Course) -> GradebookWriter:
    config = Config()
    config.AssignLatePenalties.plugin_class = TenPercentPerDay
    return GradebookWriter(course.db_url, "rnn-test", config=config)


def grade(book: GradebookWriter, student: str, points: float, minutes_before_due: int = 60) -> None:
    when = (DUE - timedelta(minutes=minutes_before_due)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    book.add(outcome(student, points), when, {})
    book.commit()


def rows(course: Course):
    with open_outbox(course.root) as db:
        return history(db, HSA)


def send_until_empty(lms: AdvantagePlatform, passes: int = 50) -> LtiSender:
    sender = LtiSender(lms.settings, lms.tool_key, backoff_seconds=0.01)
    with open_outbox(lms.settings.course) as db:
        for _ in range(passes):
            report = sender.send_due(db)
            if not report.pause and not report.waiting and not report.sent:
                break
            time.sleep(report.pause)
    return sender


def test_every_path_that_changes_a_score_queues_it_with_the_grade(in_course: Course) -> None:
    book = writer(in_course)
    try:
        grade(book, "ada", 23)
        grade(book, "ada", 23)  # graded again, same score: nothing new to send
        book.add(outcome("cyd", 10), None, {})
        book.rollback()  # a batch rolled back takes its outbox rows with it
    finally:
        book.close()
    queued = rows(in_course)
    assert [(r.student, r.score, r.origin, r.state) for r in queued] == [("ada", 23, "grade", "pending")]
    assert queued[0].comment.startswith("attempt 2025-03-01 16:00 UTC: concat_state_input 6/6, concat_weights 6/6")
    assert queued[0].comment.endswith("; total 23/46") and queued[0].max_score == 46
    assert run_cli("override", HSA, "ada", "--cell", "test_sigmoid", "--score", "7", "--reason", "dispute") == 0
    assert [(r.origin, r.score, r.state) for r in rows(in_course)][-2:] == [
        ("grade", 23, "superseded"), ("override", 30, "pending")]
    with in_course.gradebook() as gb:  # the formgrader's manual grade: nbgrader's API, outside our transactions
        gb.find_grade("test_hidden_state", HSA, HSA, "ada").manual_score = 15
        gb.db.commit()
    assert run_cli("push", "--status", HSA) == 0
    newest = {r.student: r for r in rows(in_course)}
    assert (newest["ada"].origin, newest["ada"].score) == (DETECTED, 45)
    assert newest["bob"].origin == DETECTED, "graded before the outbox existed: queued when first scanned"


def test_the_comment_lists_the_exercises_in_the_notebook_order(in_course: Course) -> None:
    """Built in the grading run's transaction, in the order of source/<assignment>/<notebook>.ipynb (the feedback
    page's), not by name."""
    from autograder.course.settings import read_course

    with_rue_notebook(in_course)
    read_course(in_course.root)  # as every grading command does: where the course's source notebooks are
    book = writer(in_course)
    try:
        cells = [CellResult(cell, most, most) for cell, most in RUE_ORDER.items()]
        for student in ("bob", "cyd"):
            book.add(Outcome(SubmissionResult(student, RUE, cells=cells)), "2025-03-02 16:00:00.000000 UTC", {})
        book.commit()
    finally:
        book.close()
    with open_outbox(in_course.root) as db:
        comments = [r.comment for r in history(db, RUE)]
    assert len(comments) == 2
    for comment in comments:
        listed = comment.split(": ", 1)[1].split("; ")[0].split(", ")
        assert [part.split()[0] for part in listed] == [cell.removeprefix("test_") for cell in RUE_ORDER]


def test_a_regrade_queues_what_it_changed_and_names_itself(in_course: Course) -> None:
    from autograder.regrade.audit import AuditTrail

    book = writer(in_course)
    try:
        book.audit = AuditTrail("regrade", {HSA: "f" * 64}, "--no-decrease")  # as `autograder regrade` sets it
        grade(book, "dee", 12)
    finally:
        book.close()
    assert [(r.student, r.score, r.origin) for r in rows(in_course)] == [("dee", 12, "regrade")]


def test_the_outbox_counts_what_push_and_export_count(in_course: Course) -> None:
    with open_outbox(in_course.root) as db:
        from autograder.grades.outbox import counted_scores

        counted = counted_scores(db, HSA)
    with in_course.gradebook() as gb:
        sheet = read_gradesheet(gb, [HSA], course_rules(in_course.root))
    for person in sheet.people:
        grade_ = sheet.grade(HSA, person.id)
        if not grade_.submitted:
            assert person.id not in counted
            continue
        mine = counted[person.id]
        assert (mine.score, mine.max_score) == (pytest.approx(grade_.score), grade_.max_score)
        assert mine.comment.split(": ", 1)[1] == grade_.summary(), "the same per-exercise text, after the attempt"


def test_a_burst_of_429s_is_waited_out_as_the_platform_asks(in_course: Course, advantage: AdvantagePlatform,
                                                             caplog) -> None:
    book = writer(in_course)
    try:
        for n, student in enumerate(["ada", "bob", "dee"]):
            grade(book, student, 20 + n)
    finally:
        book.close()
    advantage.faults.append(Fault("POST", r"/lineitems/\d+/scores", 429, {"Retry-After": "0.2"}, times=6))
    caplog.set_level(logging.INFO, "autograder.grades.outbox")
    send_until_empty(advantage)
    assert [advantage.scores(LINE, f"lti-{s}")[-1]["scoreGiven"] for s in ("ada", "bob", "dee")] == [20, 21, 22]
    assert all(len(advantage.scores(LINE, f"lti-{s}")) == 1 for s in ("ada", "bob", "dee"))
    waits = [r.getMessage() for r in caplog.records if "next try in" in r.getMessage()]
    assert len(waits) == 6 and all("next try in 0.2 s" in w for w in waits), waits
    assert {r.state for r in rows(in_course)} == {"sent"}


def test_an_outage_without_retry_after_is_waited_out_doubling_from_backoff_seconds(
        in_course: Course, advantage: AdvantagePlatform, caplog) -> None:
    book = writer(in_course)
    try:
        grade(book, "ada", 25)
    finally:
        book.close()
    advantage.faults.append(Fault("POST", r"/lineitems/\d+/scores", 503, times=3))
    caplog.set_level(logging.INFO, "autograder.grades.outbox")
    send_until_empty(advantage)  # backoff_seconds=0.01: the retry policy's doubling, as every LMS call has it
    waits = [r.getMessage().rsplit("next try in ", 1)[1] for r in caplog.records if "next try in" in r.getMessage()]
    assert waits == ["0.01 s", "0.02 s", "0.04 s"], waits
    assert advantage.scores(LINE, "lti-ada")[-1]["scoreGiven"] == 25 and {r.state for r in rows(in_course)} == {"sent"}


def test_each_bad_answer_is_one_line_keeps_the_score_and_shows_in_push_status(
        in_course: Course, advantage: AdvantagePlatform, caplog, capsys) -> None:
    caplog.set_level(logging.INFO, "autograder.grades.outbox")
    book = writer(in_course)
    try:
        grade(book, "ada", 30)
        grade(book, "bob", 31)
        sender = LtiSender(advantage.settings, advantage.tool_key, backoff_seconds=0.01)
        with open_outbox(in_course.root) as db:
            # malformed JSON: pending, tried again
            advantage.garbles.append(Garble("POST", r"/lineitems/\d+/scores"))
            report = sender.send_due(db)
            assert [r.student for r, _ in report.waiting] == ["ada"] and report.pause > 0
            assert latest(db, HSA)["ada"].last_error == "the platform's answer is not JSON"
            time.sleep(report.pause)  # as the sender waits
            # a student the LMS no longer enrols: failed, with the platform's answer
            advantage.faults.append(Fault("POST", r"/lineitems/\d+/scores", 422, times=1))
            report = sender.send_due(db)
            assert [r.student for r, _ in report.failed] == ["ada"], advantage.refusals
            assert [r.student for r in report.sent] == ["bob"], (advantage.refusals, report)
            # the token expires mid-run: a new one, the score sent
            advantage.expire_tokens()
            grade(book, "bob", 32)
            assert [r.student for r in sender.send_due(db).sent] == ["bob"]
            assert advantage.tokens_issued == 2
            # the line item deleted in the LMS: looked up again (made again), the score sent there
            del advantage.store.lineitems[LINE]
            grade(book, "bob", 33)
            assert [r.student for r in sender.send_due(db).sent] == ["bob"]
            assert [i["tag"] for i in advantage.store.lineitems.values()] == [HSA], "made again, once"
            assert advantage.scores(LINE, "lti-bob")[-1]["scoreGiven"] == 33
            # a line item on another host: never followed, the score kept as failed
            advantage.store.lineitems["3"] = {"id": f"http://127.0.0.2:{advantage.server.server_address[1]}/lineitems/3",
                                              "tag": HSA, "label": HSA, "scoreMaximum": 46}
            del advantage.store.lineitems[LINE]
            grade(book, "bob", 34)
            sender.lineitems.clear()
            report = sender.send_due(db)
            assert [r.student for r, _ in report.failed] == ["bob"]
            assert "another host (http://127.0.0.2:" in report.failed[0][1]
    finally:
        book.close()
    assert not any(host.startswith("127.0.0.2") for host in advantage.hosts)
    messages = [r.getMessage() for r in caplog.records]
    for expected in ("not JSON", "HTTP 422", "access token (expired or revoked)", "line item is gone",
                     "another host"):
        assert sum(expected in m for m in messages) == 1, (expected, messages)
    capsys.readouterr()
    assert run_cli("push", "--status", HSA) == 0
    status = capsys.readouterr().out
    assert "2 failed" in status and "HTTP 422 from POST" in status and "another host" in status
    advantage.violations.clear()  # the injected faults were answered as rule breaks by design


def test_push_and_the_outbox_never_disagree(in_course: Course, advantage: AdvantagePlatform) -> None:
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert {(r.student, r.state) for r in rows(in_course)} == {("ada", "sent"), ("bob", "sent"), ("dee", "sent")}
    sender = send_until_empty(advantage)
    assert sender.lineitems == {}, "nothing left to send: the push sent it"
    book = writer(in_course)
    try:
        grade(book, "dee", 12)
    finally:
        book.close()
    send_until_empty(advantage)
    assert [s["scoreGiven"] for s in advantage.scores(LINE, "lti-dee")] == [0, 12]
    assert run_cli("push", HSA, "--to", "lti") == 0  # nothing differs: nothing sent again
    assert len(advantage.scores(LINE, "lti-dee")) == 2


def test_two_changes_sent_within_one_second_both_reach_a_platform_that_compares_whole_seconds(
        in_course: Course, advantage: AdvantagePlatform) -> None:
    book = writer(in_course)
    try:
        time.sleep(1 - time.time() % 1)  # both changes and sends below in one second, as Moodle compares them
        for points in (12, 13):
            grade(book, "dee", points)
            send_until_empty(advantage)
    finally:
        book.close()
    assert [s["scoreGiven"] for s in advantage.scores(LINE, "lti-dee")][-2:] == [12, 13], advantage.refusals


def test_push_follow_survives_a_restart(in_course: Course, advantage: AdvantagePlatform) -> None:
    """`autograder push --follow` as a course runs it: stopped (SIGTERM) while scores are graded, started again,
    it sends what was queued meanwhile, and the score sent before is not sent again."""
    import signal
    import subprocess
    import sys

    from tests.lms.conftest import subprocess_env

    def start() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "autograder.cli", "push", "--follow"], cwd=in_course.root,
                                env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def arrived(student: str, score: float) -> bool:
        deadline = time.monotonic() + 60  # a bound on waiting, not a timed assertion
        while time.monotonic() < deadline:
            if any(s["scoreGiven"] == score for s in advantage.scores(LINE, f"lti-{student}")):
                return True
            time.sleep(0.05)
        return False

    follower = start()
    try:
        book = writer(in_course)
        try:
            grade(book, "ada", 41)
            assert arrived("ada", 41)
            follower.send_signal(signal.SIGTERM)
            assert follower.wait(30) == 0 and "stopped" in follower.stdout.read()
            grade(book, "ada", 42)  # graded while no sender runs
        finally:
            book.close()
        follower = start()
        assert arrived("ada", 42)
    finally:
        follower.send_signal(signal.SIGTERM)
        follower.wait(30)
    given = [s["scoreGiven"] for s in advantage.scores(LINE, "lti-ada")]
    # (ada's score before, 40.5, queued by the first scan, may be superseded by 41 before it is sent)
    assert given in ([41, 42], [40.5, 41, 42]), "each once, in order"
