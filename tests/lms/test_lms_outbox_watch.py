"""The issue's outage, end to end: `autograder watch` grades 20 submissions in its sandbox while the LTI platform
is down, the outbox's sender (`push --follow`'s loop) following; when the platform is back, every score the
outbox sends arrives once, in order, the newest last. The outage lasts OUTAGE_SECONDS here, a minute in
`make bench-lms` (tests/lms/outbox_bench.py, the same scenario: tests/lms/watched_outage.py)."""

from __future__ import annotations

import pytest
from nbgrader.api import Gradebook

from autograder.grades.outbox import FAILED, SENT, SUPERSEDED, iso_utc
from tests.grading_course import ASSIGNMENT
from tests.lms.nrps_platform import registered
from tests.lms.watched_outage import (
    LINE,
    down_while_graded,
    following,
    graded,
    hand_in_all,
    lms_course,
    newest,
    outbox,
    settled,
)
from tests.watching import COURSE_ID, make_template, wait_for, watching

OUTAGE_SECONDS = 3.0  # at least: the platform stays down until the watcher has graded the 20
ON_ROSTER = ["ada", "bob", "cyd", "dee"]
STRANGER = "eve"  # submits, but is not on the LMS's roster: her scores are kept, failed, shown


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return make_template(tmp_path_factory.mktemp("outbox-watch-template"))


def test_twenty_graded_by_the_watcher_while_the_lms_is_down_arrive_once_in_order_newest_last(
        template, tmp_path, keys) -> None:
    watched = lms_course(template, tmp_path, ON_ROSTER)
    everyone = [*ON_ROSTER, STRANGER]
    with (registered(watched.course, keys["tool"][0], keys["platform"]) as lms, watching(watched.course) as watcher,
          following(watched, lms) as printed):
        hand_in_all(watched, [(s, 0) for s in everyone], watcher.log)  # the platform up: each one's first attempt
        wait_for(lambda: settled(watched), 60, "the first scores sent", watcher.log)
        before = newest(watched)
        down_while_graded(watched, lms, [(s, n) for n in range(1, 5) for s in everyone], watcher.log, OUTAGE_SECONDS)
        wait_for(lambda: settled(watched), 60, "the scores sent after the outage", watcher.log)
    assert lms.violations == []
    assert graded(watched) == 25 and watcher.code == 0
    rows = outbox(watched)
    assert len(rows) == 25 and {r.origin for r in rows} == {"watch"}, "each graded attempt changed the score"
    assert any(status == 503 for status, _ in lms.refusals), "the sender tried while the platform was down"
    with Gradebook(f"sqlite:///{watched.course / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        counted = {s: gb.find_submission(ASSIGNMENT, s).score for s in everyone}
    for student in ON_ROSTER:
        received = lms.scores(LINE, f"lti-{student}")
        mine = [r for r in rows if r.student == student]  # in the order the watcher graded
        sent = [r for r in mine if r.state == SENT]
        assert [r["scoreGiven"] for r in received] == [r.score for r in sent], "what was sent arrived once each"
        assert sent == [before[student], mine[-1]], "the score before the outage, then the newest: in order"
        assert {r.state for r in mine[1:-1]} == {SUPERSEDED}, "scores made while down and replaced: never sent"
        assert received[-1]["scoreGiven"] == counted[student] == 46 > received[0]["scoreGiven"]
        assert received[-1]["submission"]["submittedAt"] == iso_utc(mine[-1].submitted_at), "the attempt's time"
        assert received[0]["timestamp"] < received[-1]["timestamp"]
    eve = [r for r in rows if r.student == STRANGER]
    assert {r.state for r in eve[:-1]} <= {FAILED, SUPERSEDED} and eve[-1].state == FAILED
    assert "no lti_user_id in the roster" in eve[-1].last_error and eve[-1].score == counted[STRANGER]
    assert any(f"{STRANGER}: refused by the LMS" in line for line in printed)
    assert [item["tag"] for item in lms.store.lineitems.values()] == [ASSIGNMENT], "one column, looked up first"
    assert ("GET", "/lineitems") in lms.requests
