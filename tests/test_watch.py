"""`autograder watch` on a real nbgrader exchange: submissions graded as they arrive, exactly as `autograder
grade` grades them, with feedback released where `nbgrader fetch_feedback` finds it; nothing lost or graded
twice across restarts; the attempts policy; hostile folders in inbound/."""

import os
import re
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.devtools.catalogue import wrong_answers
from autograder.watch.inbound import NAMES_PER_POLL
from autograder.watch.ungraded import REFUSALS_LOGGED
from autograder.watch.watcher import STOP_GRACE_SECONDS
from tests.grading_course import ASSIGNMENT, CLI, grade, result, scores
from tests.watching import (
    COURSE_ID,
    OWNERLESS,
    SLOW,
    copy_watched,
    feedback_of,
    hand_in,
    make_template,
    start_watcher,
    wait_for,
    watching,
)

WRONG = next(a for a in wrong_answers(ASSIGNMENT) if a.hint == "wrong_axis")  # loses the concat_weights points


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return make_template(tmp_path_factory.mktemp("watch-template"))


def released(watched, handed, log) -> str:
    return wait_for(lambda: feedback_of(watched, handed).is_file() and feedback_of(watched, handed).read_text(),
                    60, f"feedback for {handed.name}", log)


def test_nbgrader_submit_is_graded_and_fetch_feedback_gets_it(template, tmp_path):
    """The student's own commands, end to end: `nbgrader submit`, then `nbgrader fetch_feedback`."""
    watched = copy_watched(template, tmp_path, OWNERLESS)
    student = tmp_path / "student"
    student.mkdir()
    (student / "nbgrader_config.py").write_text(
        f'c = get_config()\nc.Exchange.root = "{watched.exchange}"\nc.CourseDirectory.course_id = "{COURSE_ID}"\n'
        f'c.Exchange.cache = "{student / "cache"}"\n')
    bin_dir = Path(sys.executable).parent

    def student_runs(*args):
        done = subprocess.run([str(bin_dir / "nbgrader"), *args], cwd=student, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]

    from autograder.devtools.catalogue import write_submission

    student_runs("fetch_assignment", ASSIGNMENT)
    write_submission(ASSIGNMENT, student / ASSIGNMENT, [WRONG], release=student / ASSIGNMENT)
    with watching(watched.course) as watcher:
        student_runs("submit", ASSIGNMENT, "--student=ada")
        watcher.wait_line(r"graded ada ")
        student_runs("fetch_feedback", ASSIGNMENT, "--student=ada")
    assert watcher.code == 0 and "stopped" in watcher.log()
    pages = list((student / ASSIGNMENT / "feedback").glob("*/hidden_state_activation.html"))
    assert len(pages) == 1
    page = pages[0].read_text()
    assert "concat_weights" in page and "Graded attempt 1" in page
    assert "BEGIN HIDDEN TESTS" not in page and "autograder.graders" not in page  # no hidden source
    watched_scores = scores(watched.course)["ada"]
    assert watched_scores["test_concat_weights"] == 0 and sum(watched_scores.values()) > 0
    watched_result = result(watched.course, "ada")
    # What `autograder grade` makes of the same collected submission: the same grades and result.
    done = grade(watched.course, "--force")
    assert done.returncode == 0, done.stderr
    assert scores(watched.course)["ada"] == watched_scores
    again = result(watched.course, "ada")
    assert [c["score"] for c in again["cells"]] == [c["score"] for c in watched_result["cells"]]


def test_restart_grades_what_arrived_in_order_and_nothing_twice(template, tmp_path):
    watched = copy_watched(template, tmp_path, OWNERLESS)
    now = datetime.now(UTC)
    # While no watcher runs: two of bo's submissions (the later one is wrong), one of cy's.
    first = hand_in(watched, "bo", stamp=now - timedelta(seconds=2))
    second = hand_in(watched, "bo", [WRONG], stamp=now - timedelta(seconds=1))
    cy = hand_in(watched, "cy")
    with watching(watched.course) as watcher:
        for handed in (first, second, cy):
            released(watched, handed, watcher.log)
        watcher.wait_line(r"graded bo .*attempt 2")
    log = watcher.log()
    assert log.index("attempt 1): 46/46") < log.index("attempt 2)")  # bo's in the order submitted
    assert scores(watched.course)["bo"]["test_concat_weights"] == 0  # the latest counts
    newest = feedback_of(watched, second).read_text()
    assert "Graded attempt 2" in newest and "This attempt counts for your grade" in newest
    # The first page, fetched again from the Assignments panel, says it no longer counts.
    assert "It no longer counts for your grade: a later attempt does" in feedback_of(watched, first).read_text()
    graded_lines = [r for r in watched.ledger if r["state"] == "graded"]
    assert len(graded_lines) == 3
    # A restart grades nothing again; a submission made while stopped is graded.
    late = hand_in(watched, "cy", [WRONG])
    with watching(watched.course) as watcher:
        released(watched, late, watcher.log)
        watcher.wait_line(r"graded cy .*attempt 2")
    assert "graded bo" not in watcher.log()
    assert len([r for r in watched.ledger if r["state"] == "graded"]) == 4
    # The audit trail: each round that graded is a run of kind "watch", each student's score before and after.
    with sqlite3.connect(watched.course / "gradebook.db") as db:
        trail = db.execute("SELECT r.kind, s.student_id, s.score_before, s.score_after FROM autograder_grading_score s "
                           "JOIN autograder_grading_run r ON s.run_id = r.id ORDER BY r.started_at").fetchall()
    assert {kind for kind, *_ in trail} == {"watch"}
    assert [(b, a) for _, who, b, a in trail if who == "bo"] == [(None, 46.0), (46.0, 40.0)]
    assert [(b, a) for _, who, b, a in trail if who == "cy"] == [(None, 46.0), (46.0, 40.0)]


def test_a_crash_after_grading_does_not_grade_again(template, tmp_path):
    """Killed after the gradebook was written but before the ledger was: the next watcher finds the
    submission graded (autograded/ holds its time and secret) and only releases its feedback."""
    watched = copy_watched(template, tmp_path, OWNERLESS)
    handed = hand_in(watched, "di")
    with watching(watched.course) as watcher:
        released(watched, handed, watcher.log)
    ledger = watched.course / ".autograder-watch" / "ledger.jsonl"
    ledger.write_text("")  # as if the watcher died before writing its line
    feedback_of(watched, handed).unlink()
    graded_before = (watched.course / "autograded" / "di" / ASSIGNMENT / "autograder-result.json").stat().st_mtime_ns
    with watching(watched.course) as watcher:
        released(watched, handed, watcher.log)
    after = (watched.course / "autograded" / "di" / ASSIGNMENT / "autograder-result.json").stat().st_mtime_ns
    assert after == graded_before  # not graded again
    assert [r["state"] for r in watched.ledger] == ["graded"]


def test_two_watchers_refuse_to_run_together(template, tmp_path):
    watched = copy_watched(template, tmp_path, OWNERLESS)
    with watching(watched.course):
        second = subprocess.run([CLI, "watch", ASSIGNMENT], cwd=watched.course, capture_output=True, text=True,
                                timeout=120)
    assert second.returncode == 1
    assert second.stderr.strip().count("\n") == 0 and "another watcher" in second.stderr


def test_attempts_over_the_limit_wait_for_the_window_and_faults_do_not_count(template, tmp_path):
    watched = copy_watched(template, tmp_path, f"{OWNERLESS}\nc.AutograderWatch.attempts = 1\n"
                                               "c.AutograderWatch.window_hours = 0.002")  # 7.2 s
    with watching(watched.course, env={"AUTOGRADER_GRADEBOOK_TIMEOUT": "0.2"}) as watcher:
        # A fault on our side first: the gradebook is locked by another program while the watcher tries.
        blocker = sqlite3.connect(watched.course / "gradebook.db", isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        handed = hand_in(watched, "ed")
        watcher.wait_line(r"NOT GRADED ed ")
        assert "grading will be retried" in feedback_of(watched, handed).read_text()
        blocker.execute("ROLLBACK")
        blocker.close()
        watcher.wait_line(r"graded ed .*attempt 1\)", timeout=90)  # the failure was not an attempt
        over = hand_in(watched, "ed", [WRONG])
        watcher.wait_line(r"deferred ed ")
        notice = wait_for(lambda: "Waiting to be graded" in feedback_of(watched, over).read_text()
                          and feedback_of(watched, over).read_text(), 30, "the deferral notice", watcher.log)
        assert "none left until" in notice and "(as graded attempt 2)" in notice
        assert "Until then, attempt 1 (submitted" in notice  # what counts meanwhile
        watcher.wait_line(r"graded ed .*attempt 2\)", timeout=60)  # once the window allows
    assert "Graded attempt 2 of 1" not in feedback_of(watched, over).read_text()
    assert "Graded attempt 2 (1 of 1 in this " in feedback_of(watched, over).read_text()
    assert [r["state"] for r in watched.ledger if r["student"] == "ed"] == ["failed", "graded", "deferred", "graded"]


def test_best_attempt_counts_when_the_course_says_so(template, tmp_path):
    watched = copy_watched(template, tmp_path, f'{OWNERLESS}\nc.AutograderWatch.counts = "best"')
    with watching(watched.course) as watcher:
        good = hand_in(watched, "fa")
        released(watched, good, watcher.log)
        worse = hand_in(watched, "fa", [WRONG])
        released(watched, worse, watcher.log)
        watcher.wait_line(r"counted attempt kept for fa ")
    worse_page = feedback_of(watched, worse).read_text()
    assert "concat_weights" in worse_page  # the student sees this attempt's
    # Its total is out of 48 with the written answer (left as released): the attempt line says what it adds.
    assert ("Your best attempt (attempt 1: 46 of the 46 autograded points; the answers graded by hand make up the "
            "rest of the 48) counts for your grade, not this one (40 of the 46 autograded points)") in worse_page
    assert "This attempt counts for your grade" in feedback_of(watched, good).read_text()  # still
    assert sum(scores(watched.course)["fa"].values()) == 46  # the gradebook holds the best


def test_hostile_inbound_entries_are_refused_one_line_each_and_the_rest_graded(template, tmp_path):
    watched = copy_watched(template, tmp_path)  # with nbgrader's owner check, on by default
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    inbound = watched.inbound
    os.symlink(watched.course / "source", inbound / f"root+{ASSIGNMENT}+{stamp}")  # a link to the course
    (inbound / f"..+{ASSIGNMENT}+{stamp}").mkdir()  # not an id
    (inbound / f"root+{ASSIGNMENT}+{stamp}+x+y").mkdir()  # not a submission's name
    claimed = hand_in(watched, "gus")  # root's folder, naming gus
    bad_secret = hand_in(watched, "root", stamp=datetime.now(UTC) - timedelta(seconds=3))
    (bad_secret.folder / "submission_secret.txt").write_text("../../etc")
    linked = hand_in(watched, "root", stamp=datetime.now(UTC) - timedelta(seconds=2))
    os.symlink("/etc/shadow", linked.folder / "notes.txt")
    os.makedirs(linked.folder / "sub")
    os.link(watched.course / "nbgrader_config.py", linked.folder / "sub" / "config.py")  # a hard link
    backdated = hand_in(watched, "root", [WRONG], stamp=datetime(2020, 1, 1, tzinfo=UTC))
    # Not finished by `nbgrader submit` (no secret yet, not yet writable by all): one named for another user is
    # refused at once (whose it is comes first), the owner's own is waited for.
    claimed_unfinished = hand_in(watched, "ivy")
    unfinished = hand_in(watched, "root")
    for handed in (claimed_unfinished, unfinished):
        os.chmod(handed.folder, 0o755)
        os.rename(handed.folder / "submission_secret.txt", tmp_path / f"secret-{handed.name}")
    with watching(watched.course) as watcher:
        watcher.wait_line(r"refused ivy\+.*owned by root, not by ivy")
        released(watched, backdated, watcher.log)
        released(watched, linked, watcher.log)
        assert unfinished.name not in watcher.log()
        os.rename(tmp_path / f"secret-{unfinished.name}", unfinished.folder / "submission_secret.txt")
        os.chmod(unfinished.folder, 0o777)
        released(watched, unfinished, watcher.log)  # now complete: graded
    log = watcher.log()
    assert log.count("refused ") == 6, log
    assert "owned by root, not by gus" in log and "not a valid student id" in log
    assert "not a submission's name" in log and "submission_secret.txt is not nbgrader's" in log
    assert "not a folder" in log
    assert not feedback_of(watched, claimed).exists()
    submitted = watched.course / "submitted" / "root" / ASSIGNMENT
    assert not (submitted / "notes.txt").exists() and not (submitted / "sub" / "config.py").exists()
    assert "'notes.txt': a link" in log and "other hard links" in log
    # The name's 2020 date is not believed: the folder's time is the submission's.
    assert "the time in its name is 2020-01-01" in log
    assert (submitted / "timestamp.txt").read_text().startswith(str(datetime.now(UTC).year))
    assert watcher.code == 0


def test_a_submission_is_not_graded_while_the_watcher_is_stopped_then_is(template, tmp_path):
    """SIGTERM mid-stream: the watcher finishes its round and stops; what came after is graded next time."""
    watched = copy_watched(template, tmp_path, OWNERLESS)
    watcher = start_watcher(watched.course)
    try:
        watcher.wait_line("watching ", timeout=90)
        first = hand_in(watched, "hal")
        released(watched, first, watcher.log)
    finally:
        assert watcher.stop() == 0
    assert watcher.log().rstrip().endswith("stopped")
    second = hand_in(watched, "hal", [WRONG])
    assert not feedback_of(watched, second).exists()
    with watching(watched.course) as again:
        released(watched, second, again.log)
    assert scores(watched.course)["hal"]["test_concat_weights"] == 0


def set_due(watched, due: datetime) -> None:
    """The due date, as the instructor sets it while the watcher runs (the time in a submission's name is
    never believed: a late one cannot be made on time, so the due date moves instead)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{watched.course}/gradebook.db") as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=due)


PASSED, AHEAD = datetime(2021, 1, 1), datetime(2200, 1, 1)


def test_work_after_the_last_late_deadline_is_not_accepted_and_the_grade_stays(template, tmp_path):
    # nbgrader's own "zero" rule is the course's "not accepted" after the due date (deadlines.rules).
    watched = copy_watched(template, tmp_path, f"{OWNERLESS}\nc.LateSubmissionPlugin.penalty_method = 'zero'")
    set_due(watched, AHEAD)
    with watching(watched.course) as watcher:
        first = hand_in(watched, "jo")
        assert "This attempt counts for your grade" in released(watched, first, watcher.log)
        set_due(watched, PASSED)
        late = hand_in(watched, "jo", [WRONG])
        page = released(watched, late, watcher.log)
        late_only = hand_in(watched, "lu")
        released(watched, late_only, watcher.log)
    assert "Submission not accepted" in page and "arrived after your last late deadline" in page
    assert "does not change your grade" in page
    assert scores(watched.course)["jo"]["test_concat_weights"] > 0  # the on-time attempt, untouched
    refused = {r["name"]: r for r in watched.ledger if r["state"] == "refused"}
    assert set(refused) == {late.name, late_only.name} and "not accepted" in refused[late.name]["note"]
    assert "lu" not in scores(watched.course)  # nothing graded, nothing recorded


def test_practice_after_the_last_late_deadline_gets_feedback_and_never_counts(template, tmp_path):
    watched = copy_watched(template, tmp_path, f'{OWNERLESS}\nc.LateCredit.after = "practice"')
    set_due(watched, AHEAD)
    with watching(watched.course) as watcher:
        first = hand_in(watched, "pa")
        released(watched, first, watcher.log)
        set_due(watched, PASSED)
        practice = hand_in(watched, "pa", [WRONG])
        page = released(watched, practice, watcher.log)
        watcher.wait_line(r"counted attempt kept for pa ")
        only = hand_in(watched, "pb")
        only_page = released(watched, only, watcher.log)
    assert "concat_weights" in page  # its own feedback
    assert "Practice: this attempt arrived after your last late deadline" in page
    assert "Your attempt 1 (submitted" in page
    assert "46 of the 46 autograded points; the answers graded by hand make up the rest of the 48) still counts" in page
    assert "this is practice: graded, but the score does not count" in page  # the deadline line agrees
    assert sum(scores(watched.course)["pa"].values()) == 46  # the on-time attempt, graded again into the gradebook
    assert "None of your attempts arrived before that deadline" in only_page
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{watched.course}/gradebook.db") as gb:
        alone = gb.find_submission(ASSIGNMENT, "pb")
        assert alone.score == 46 and alone.late_submission_penalty == 46  # graded, counted 0
    assert "attempt 2, practice)" in watcher.log()


def test_a_slow_broken_or_flooding_student_holds_up_nobody_else(template, tmp_path):
    watched = copy_watched(template, tmp_path, f"{OWNERLESS}\nc.Execute.timeout = 4")
    slow = hand_in(watched, "sam", [SLOW])  # every call sleeps: its exercises take the cell limit each
    broken = hand_in(watched, "bo", stamp=datetime.now(UTC) + timedelta(seconds=1))
    (broken.folder / f"{ASSIGNMENT}.ipynb").unlink()  # the student submitted without the notebook
    changed = hand_in(watched, "cy", stamp=datetime.now(UTC) + timedelta(seconds=2))
    time.sleep(0.1)  # past the kernel's clock tick: the rewrite has a later change time than the folder
    notebook = changed.folder / f"{ASSIGNMENT}.ipynb"
    notebook.write_text(notebook.read_text())  # rewritten in place after it was handed in
    for i in range(3000):  # junk that is no submission: read a slice a poll, refused in one counted line
        (watched.inbound / f"junk{i}").mkdir()
    with watching(watched.course) as watcher:
        watcher.wait_line(r"graded bo ", timeout=120)
        honest = hand_in(watched, "oz")
        released(watched, honest, watcher.log)
        assert not feedback_of(watched, slow).exists(), "the honest student waited for the slow one"
        busy = wait_for(lambda: "grading sam" in (status := _status(watched)).stdout and status, 10,
                        "the status of the slow one", watcher.log)
        assert busy.returncode == 0 and "watcher running" in busy.stdout, busy.stdout + busy.stderr
        report = subprocess.run([CLI, "report", ASSIGNMENT], cwd=watched.course, capture_output=True, text=True,
                                timeout=120)  # the class report says the same as the status, to the instructor
        assert report.returncode == 0 and "running;" in report.stdout, report.stdout + report.stderr
        page = (watched.course / "reports" / f"{ASSIGNMENT}.html").read_text()
        assert re.search(r'data-metric="watcher">Running \(pid \d+\)', page), page[-3000:]
        # The slow one is in hand until its cell limits have run out; on a loaded host the report may be made
        # after that, and then it must not say so.
        in_hand = re.search(r'data-metric="watch-in-hand">[1-9]', page) and "sam (" in page
        assert in_hand or re.search(r"graded sam ", watcher.log()), page[-3000:]
        page = released(watched, broken, watcher.log)
        assert f"has no {ASSIGNMENT}.ipynb" in page and "scores 0" in page
        released(watched, slow, watcher.log)
        refused = released(watched, changed, watcher.log)
        assert "Submission not graded" in refused and "does not count as an attempt" in refused
    stopped = _status(watched)
    assert stopped.returncode == 1 and "NO WATCHER RUNNING" in stopped.stdout and "graded: 3" in stopped.stdout
    log = watcher.log()
    assert "NOT GRADED bo" not in log and "more entries in" in log
    polls = -(-3004 // NAMES_PER_POLL)  # a bounded slice of names a poll; past 20 refusals a poll, one line
    assert log.count("refused ") <= polls * (REFUSALS_LOGGED + 1), log[-3000:]
    states = {r["name"]: r["state"] for r in watched.ledger}
    assert states[broken.name] == "graded" and states[changed.name] == "refused"
    assert sum(s == "refused" for s in states.values()) == 1  # junk is not the ledger's: it would grow with it
    assert sum(scores(watched.course)["oz"].values()) == 46


def test_a_stop_waits_for_a_slow_submission_only_so_long_and_it_is_graded_at_the_next_start(template, tmp_path):
    """A stop finishes what the workers hold within STOP_GRACE_SECONDS; a notebook that would hold them for its
    whole time budget is left unrecorded (no attempt, no score) and graded when a watcher next starts."""
    watched = copy_watched(template, tmp_path, f"{OWNERLESS}\nc.Execute.timeout = 60")
    slow = hand_in(watched, "sam", [SLOW])
    watcher = start_watcher(watched.course)
    try:
        watcher.wait_line("watching ", timeout=90)
        wait_for(lambda: "grading sam" in _status(watched).stdout, 30, "the slow one in hand", watcher.log)
        began = time.monotonic()
    finally:
        code = watcher.stop()
    took = time.monotonic() - began
    assert code == 0 and took < STOP_GRACE_SECONDS + 15, (took, watcher.log())
    assert "stopping with 1 submissions still being graded (sam " in watcher.log()
    assert not watched.ledger and not feedback_of(watched, slow).exists()
    report = subprocess.run([CLI, "report", ASSIGNMENT], cwd=watched.course, capture_output=True, text=True,
                            timeout=120)  # nothing graded yet: the report says so, in one line
    assert report.returncode == 1 and "no graded submissions" in report.stderr, report.stderr
    with open(watched.course / "nbgrader_config.py", "a") as config:
        config.write("\nc.Execute.timeout = 4\n")  # the instructor lowers the limit: the next start is quick
    with watching(watched.course) as watcher:
        watcher.wait_line(r"graded sam .*attempt 1\)", timeout=120)


def _status(watched) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, "status"], cwd=watched.course, capture_output=True, text=True, timeout=60)
