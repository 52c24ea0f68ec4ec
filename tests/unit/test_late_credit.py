"""The late-credit arithmetic (`autograder.deadlines.schedule`) and the rules read from `c.LateCredit`
(`autograder.deadlines.rules`): boundaries to the second, windows across DST changes given in explicit zones,
leap days, extensions and labels, and every bad input refused in one line."""

import html
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from autograder.deadlines.rules import rules_from
from autograder.deadlines.schedule import (
    DeadlineError,
    Label,
    LateSchedule,
    Outcome,
    Step,
    credit_at,
    parse_date,
    parse_duration,
    penalty,
)

DUE = datetime(2026, 3, 2, 23, 59, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)
SCHEDULE = LateSchedule((Step(timedelta(hours=48), 0.8), Step(timedelta(days=7), 0.5)), "practice")


def test_boundaries_to_the_second():
    assert credit_at(SCHEDULE, DUE, DUE).outcome is Outcome.ON_TIME
    late = credit_at(SCHEDULE, DUE, DUE + SECOND)
    assert (late.outcome, late.credit, late.late_by) == (Outcome.LATE, 0.8, SECOND)
    assert credit_at(SCHEDULE, DUE, DUE + timedelta(hours=48)).credit == 0.8
    assert credit_at(SCHEDULE, DUE, DUE + timedelta(hours=48) + SECOND).credit == 0.5
    assert credit_at(SCHEDULE, DUE, DUE + timedelta(days=7)).credit == 0.5
    last = credit_at(SCHEDULE, DUE, DUE + timedelta(days=7) + SECOND)
    assert (last.outcome, last.credit, last.counts) == (Outcome.PRACTICE, 0.0, False)


def test_grace_is_on_time_until_its_last_second():
    graced = LateSchedule(SCHEDULE.steps, "not-accepted", timedelta(minutes=15))
    assert credit_at(graced, DUE, DUE + timedelta(minutes=15)).outcome is Outcome.ON_TIME
    assert credit_at(graced, DUE, DUE + timedelta(minutes=15) + SECOND).credit == 0.8
    assert credit_at(graced, DUE, DUE + timedelta(days=8)).outcome is Outcome.NOT_ACCEPTED


def test_no_schedule_is_full_credit_whenever():
    assert credit_at(LateSchedule(), DUE, DUE + timedelta(days=300)).credit == 1.0


def test_a_window_across_a_dst_change_is_elapsed_time():
    # Europe/Berlin moves from +01:00 to +02:00 at 2026-03-29 02:00: 48 h after Saturday 12:00 local
    # is Monday 13:00 local, not 12:00.
    berlin = ZoneInfo("Europe/Berlin")
    due = datetime(2026, 3, 28, 12, 0, tzinfo=berlin)
    assert credit_at(SCHEDULE, due, datetime(2026, 3, 30, 13, 0, tzinfo=berlin)).credit == 0.8
    assert credit_at(SCHEDULE, due, datetime(2026, 3, 30, 13, 0, 1, tzinfo=berlin)).credit == 0.5
    # The same instant written in another zone is the same instant.
    assert credit_at(SCHEDULE, due, datetime(2026, 3, 30, 11, 0, 1, tzinfo=UTC)).credit == 0.5


def test_a_dated_step_on_a_leap_day():
    due = datetime(2028, 2, 28, 12, 0, tzinfo=UTC)
    dated = LateSchedule((Step(parse_date("2028-02-29T23:59:59Z"), 0.7),), "not-accepted")
    dated.check_dates(due)
    assert credit_at(dated, due, datetime(2028, 2, 29, 23, 59, 59, tzinfo=UTC)).credit == 0.7
    assert credit_at(dated, due, datetime(2028, 3, 1, 0, 0, 0, tzinfo=UTC)).outcome is Outcome.NOT_ACCEPTED
    # A day after 28 February is the leap day, two days after is 1 March.
    relative = LateSchedule((Step(parse_duration("1d"), 0.9),), "not-accepted")
    assert credit_at(relative, due, datetime(2028, 2, 29, 12, 0, tzinfo=UTC)).credit == 0.9
    assert credit_at(relative, due, datetime(2028, 3, 1, 12, 0, tzinfo=UTC)).outcome is Outcome.NOT_ACCEPTED


def test_an_extension_moves_the_due_date_and_every_step():
    ext = timedelta(days=3)
    assert credit_at(SCHEDULE, DUE, DUE + ext, extension=ext).outcome is Outcome.ON_TIME
    assert credit_at(SCHEDULE, DUE, DUE + ext + timedelta(hours=48), extension=ext).credit == 0.8
    dated = LateSchedule((Step(DUE + timedelta(days=1), 0.6),), "not-accepted")
    assert credit_at(dated, DUE, DUE + ext + timedelta(hours=23), extension=ext).credit == 0.6


def test_a_label_adds_time_and_stretches_windows_and_an_extension_replaces_its_extra_time():
    label = Label("extra-time", timedelta(days=1), 1.5)
    mine = DUE + timedelta(days=1)
    assert credit_at(SCHEDULE, DUE, mine, label=label).outcome is Outcome.ON_TIME
    assert credit_at(SCHEDULE, DUE, mine + timedelta(hours=72), label=label).credit == 0.8  # 48 h x 1.5
    assert credit_at(SCHEDULE, DUE, mine + timedelta(hours=72) + SECOND, label=label).credit == 0.5
    # The instructor's extension of 2 h is the date chosen for them: the label's day no longer applies.
    two = timedelta(hours=2)
    assert credit_at(SCHEDULE, DUE, DUE + two + SECOND, extension=two, label=label).credit == 0.8


def test_penalty_is_what_the_credit_takes_away():
    assert penalty(10.0, credit_at(SCHEDULE, DUE, DUE + timedelta(days=1))) == pytest.approx(2.0)
    assert penalty(10.0, credit_at(SCHEDULE, DUE, DUE + timedelta(days=30))) == 10.0
    assert penalty(10.0, credit_at(SCHEDULE, DUE, DUE)) == 0.0


@pytest.mark.parametrize("text, problem", [
    ("1970-01-01T00:00:00Z", "plausible"), ("9999-12-31T23:59:00+00:00", "plausible"),
    ("2026-03-01T12:00:00", "no time zone"), ("next friday", "ISO 8601")])
def test_bad_dates(text, problem):
    with pytest.raises(DeadlineError, match=problem):
        parse_date(text)


def test_dates_in_iso_forms_with_offsets():
    assert parse_date("2026-03-01T23:59:00+01:00") == datetime(2026, 3, 1, 22, 59, tzinfo=UTC)
    assert parse_date("2026-03-01 22:59Z") == datetime(2026, 3, 1, 22, 59, tzinfo=UTC)


@pytest.mark.parametrize("text", ["-3d", "0d", "3 days", "d", "", "3x"])
def test_bad_durations(text):
    with pytest.raises(DeadlineError):
        parse_duration(text)


def test_durations():
    assert parse_duration("1d12h") == timedelta(hours=36)
    assert parse_duration("2w") == timedelta(days=14)
    assert parse_duration("90m") == timedelta(minutes=90)


@pytest.mark.parametrize("section, problem", [
    ({"schedule": [["48h", 0.5], ["7d", 0.8]], "after": "practice"}, "goes up from 0.5 to 0.8"),
    ({"schedule": [["48h", 1.5]], "after": "practice"}, "not between 0 and 1"),
    ({"schedule": [["48h", 0.5]]}, "needs what happens after"),
    ({"schedule": [["48h", 0.5]], "after": "never"}, "neither"),
    ({"schedule": [["-2d", 0.5]], "after": "practice"}, "negative"),
    ({"grace": "-5m"}, "negative"),
    ({"labels": {"extra-time": {"stretch": 0.5}}}, "stretch"),
    ({"labels": {"extra-time": {"days": 2}}}, "must be a dict"),
    ({"assignments": {"hw1": {"schedule": [["48h", 0.5]], "afterwards": 1}}}, "unknown setting 'afterwards'"),
    ({"schedul": []}, "c.LateCredit.schedul: unknown setting"),
])
def test_bad_rules_are_one_line_naming_the_setting(section, problem):
    with pytest.raises(DeadlineError, match=problem) as raised:
        rules_from(section)
    assert "\n" not in str(raised.value) and "c.LateCredit" in str(raised.value)


def test_an_assignment_overrides_the_course_schedule_keeping_what_it_does_not_set():
    rules = rules_from({"schedule": [["48h", 0.8]], "after": "practice", "grace": "10m",
                        "assignments": {"hw2": {"schedule": [["2026-03-08T23:59:00+01:00", 0.5]]}},
                        "labels": {"extra-time": {"stretch": 1.5, "extra": "1d"}}})
    assert rules.schedule("hw1").steps == (Step(timedelta(hours=48), 0.8),)
    own = rules.schedule("hw2")
    assert own.steps == (Step(datetime(2026, 3, 8, 22, 59, tzinfo=UTC), 0.5),)
    assert (own.after, own.grace) == ("practice", timedelta(minutes=10))
    assert rules.label("extra-time") == Label("extra-time", timedelta(days=1), 1.5)
    with pytest.raises(DeadlineError, match="unknown label 'sport'"):
        rules.label("sport")


def test_the_feedback_line_says_the_deadline_for_the_student_and_the_credit_and_why():
    from autograder.deadlines.rules import LateRules
    from autograder.deadlines.student_deadline import StudentDeadline
    from autograder.deadlines.student_line import deadline_line as line

    def deadline_line(*args):  # the words a reader sees where no script runs: each time's UTC text
        return html.unescape(re.sub(r"<[^>]+>", "", line(*args)))

    rules = LateRules(SCHEDULE, labels={"extra-time": Label("extra-time", timedelta(days=1), 1.5)})
    extended = StudentDeadline(DUE, timedelta(days=3), None)
    arrived = DUE + timedelta(days=4)
    assert deadline_line(extended, arrived, extended.credit(rules, "hw", arrived)) == (
        "Due for you: 2026-03-05 23:59:00 UTC (an extension of 3d). Handed in: 2026-03-06 23:59:00 UTC, 1d late: "
        "80% of the score counts (the course's late-credit schedule).")
    labelled = StudentDeadline(DUE, None, "extra-time")
    assert deadline_line(labelled, DUE, labelled.credit(rules, "hw", DUE)) == (
        "Due for you: 2026-03-03 23:59:00 UTC (1d of extra time, label extra-time). "
        "Handed in: 2026-03-02 23:59:00 UTC, on time: full credit.")
    plain = StudentDeadline(DUE, None, None)
    late = DUE + timedelta(days=9)
    assert deadline_line(plain, late, plain.credit(rules, "hw", late)).endswith(
        "9d late: after the last late deadline, so this is practice: graded, but the score does not count.")
    assert deadline_line(plain, None, None) == "Due for you: 2026-03-02 23:59:00 UTC."
    # Each time is one the page's script shows in the reader's zone, to the second.
    assert '<time class="autograder-time" datetime="2026-03-02T23:59:00Z">' in line(plain, None, None)
