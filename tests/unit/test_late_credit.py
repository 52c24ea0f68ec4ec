"""The late-credit arithmetic (`autograder.deadlines.schedule`) and the rules read from `c.LateCredit`
(`autograder.deadlines.rules`): boundaries to the second, windows across DST changes given in explicit zones,
leap days, extensions and labels, and every bad input refused in one line."""

import html
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.deadlines.rules import rules_from
from autograder.deadlines.schedule import (
    LATEST,
    LONGEST,
    MOST_STRETCH,
    NO_LABEL,
    Credit,
    DeadlineError,
    Label,
    LateSchedule,
    Outcome,
    Step,
    as_utc,
    credit_at,
    moved_due,
    naive_utc,
    parse_date,
    parse_duration,
    penalty,
    show,
    show_duration,
    student_due,
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


# Tests that fail on a plausible bug (issue 39): each names the bug it catches. ----------------------------------

def test_equal_and_zero_credit_steps_are_a_valid_schedule():
    # Bugs: `>=` for `>` in the credit's descent refuses a plateau; `0 <` for `0 <=` refuses a zero-credit step.
    plateau = LateSchedule((Step(timedelta(hours=1), 1.0), Step(timedelta(hours=2), 0.5),
                            Step(timedelta(hours=3), 0.5), Step(timedelta(hours=4), 0.0)), "not-accepted")
    assert [credit_at(plateau, DUE, DUE + timedelta(minutes=m)).credit for m in (60, 61, 150, 180, 181, 240)] == [
        1.0, 0.5, 0.5, 0.5, 0.0, 0.0]
    zero = credit_at(plateau, DUE, DUE + timedelta(hours=4))
    assert (zero.outcome, zero.counts) == (Outcome.LATE, True)  # late at 0%: counted, unlike after the last step
    assert penalty(6.0, zero) == 6.0


@pytest.mark.parametrize("steps, problem", [
    ((Step(timedelta(hours=48), 0.5), Step(timedelta(days=7), 0.8)),
     "the credit goes up from 0.5 to 0.8: a later submission cannot earn more"),
    ((Step(timedelta(hours=48), 1.000001),), "a credit of 1 is not between 0 and 1"),
    ((Step(timedelta(hours=48), -0.1),), "a credit of -0.1 is not between 0 and 1"),
    ((Step(timedelta(0), 0.5),), "a step ends 0:00:00 after the due date: it must end after it"),
    ((Step(-SECOND, 0.5),), "a step ends -1 day, 23:59:59 after the due date: it must end after it"),
])
def test_a_schedule_that_makes_no_sense_is_refused_in_words(steps, problem):
    with pytest.raises(DeadlineError) as raised:
        LateSchedule(steps, "practice")
    assert str(raised.value) == problem


def test_the_schedules_own_refusals_say_what_to_write():
    with pytest.raises(DeadlineError) as raised:
        LateSchedule(after="later")
    assert str(raised.value) == "after the last step: 'later' is neither 'practice' nor 'not-accepted'"
    with pytest.raises(DeadlineError) as raised:
        LateSchedule((Step(timedelta(hours=1), 0.5),))
    assert str(raised.value) == ("a late-credit schedule needs what happens after its last step "
                                 "(after='practice' or 'not-accepted')")
    with pytest.raises(DeadlineError) as raised:
        LateSchedule(grace=-SECOND)
    assert str(raised.value) == "the grace period is negative (-1 day, 23:59:59)"
    assert LateSchedule(grace=timedelta(0)).grace == timedelta(0)  # no grace is a grace


def test_check_dates_wants_each_step_strictly_after_the_last():
    # Bug: `<` for `<=` lets a dated step end at the due date itself, or two steps end at the same second.
    at_due = LateSchedule((Step(DUE, 0.5),), "practice")
    with pytest.raises(DeadlineError) as raised:
        at_due.check_dates(DUE)
    assert str(raised.value) == "a step ends at 2026-03-02 23:59:00 UTC, not after 2026-03-02 23:59:00 UTC"
    same = LateSchedule((Step(timedelta(hours=48), 0.8), Step(DUE + timedelta(hours=48), 0.5)), "practice")
    with pytest.raises(DeadlineError, match="ends at 2026-03-04 23:59:00 UTC, not after 2026-03-04 23:59:00 UTC"):
        same.check_dates(DUE)
    # A second later is after; relative steps are measured unstretched here (a label stretches them per student).
    LateSchedule((Step(timedelta(hours=48), 0.8), Step(DUE + timedelta(hours=48) + SECOND, 0.5),
                  Step(timedelta(hours=72), 0.2)), "practice").check_dates(DUE)
    with pytest.raises(DeadlineError, match="ends at 2026-03-05 23:59:00 UTC, not after 2026-03-05 23:59:00 UTC"):
        LateSchedule((Step(DUE + timedelta(hours=72), 0.8), Step(timedelta(hours=72), 0.5)),
                     "practice").check_dates(DUE)
    with pytest.raises(DeadlineError) as raised:
        SCHEDULE.check_dates(datetime(2245, 1, 1, tzinfo=UTC))
    assert str(raised.value) == "the due date 2245-01-01 00:00:00 UTC is not a plausible date (years 2000 to 2200)"


def test_on_time_is_full_credit_and_never_negative_lateness():
    # Bug: on-time `late_by` not clamped at 0 (an early submission "late by -2 days"); in the grace it is real.
    early = credit_at(SCHEDULE, DUE, DUE - timedelta(days=2))
    assert (early.outcome, early.credit, early.due, early.late_by, early.counts) == (
        Outcome.ON_TIME, 1.0, DUE, timedelta(0), True)
    graced = LateSchedule(SCHEDULE.steps, "practice", timedelta(minutes=15))
    assert credit_at(graced, DUE, DUE + timedelta(minutes=5)).late_by == timedelta(minutes=5)
    assert credit_at(graced, DUE, DUE + timedelta(minutes=5)).credit == 1.0


def test_without_a_schedule_late_work_is_late_at_full_credit():
    late = credit_at(LateSchedule(), DUE, DUE + timedelta(days=3), extension=timedelta(days=1))
    assert late == Credit(Outcome.LATE, 1.0, DUE + timedelta(days=1), timedelta(days=2))
    assert late.counts and LateSchedule().after_last is Outcome.LATE
    assert LateSchedule((Step(timedelta(hours=1), 0.5),), "not-accepted").after_last is Outcome.NOT_ACCEPTED
    after = credit_at(LateSchedule((Step(timedelta(hours=1), 0.5),), "not-accepted"), DUE, DUE + timedelta(hours=2))
    assert after == Credit(Outcome.NOT_ACCEPTED, 0.0, DUE, timedelta(hours=2)) and not after.counts


@pytest.mark.parametrize("score, credit, taken", [
    (7.0, 0.8, 1.4),  # bug: the penalty rounded to whole points (1.0)
    (10.0, 0.8, 2.0),  # 10 x 0.2 is 1.9999999999999996 in floats: kept to 6 decimals, as nbgrader shows it
    (1 / 3, 0.5, 0.166667),
    (5.0, 1.0, 0.0),
    (5.0, 0.0, 5.0),
    (0.0, 0.5, 0.0),
])
def test_the_penalty_is_the_share_the_credit_takes_to_six_decimals(score, credit, taken):
    assert penalty(score, Credit(Outcome.LATE, credit, DUE)) == taken


def test_a_label_is_bounded_and_an_extension_replaces_its_extra_time():
    assert Label("x", LONGEST, MOST_STRETCH) == Label("x", LONGEST, 10.0)  # the bounds themselves are allowed
    for extra, stretch in ((LONGEST + SECOND, 1.0), (-SECOND, 1.0), (timedelta(0), 0.99), (timedelta(0), 10.01),
                           (timedelta(0), float("nan")), (timedelta(0), float("inf"))):
        with pytest.raises(DeadlineError) as raised:
            Label("x", extra, stretch)
        assert str(raised.value) == ("label 'x': extra time must be from 0 to 73049d and a window's stretch "
                                     "from 1 to 10")
    label = Label("extra-time", timedelta(days=1), 2.0)
    assert student_due(DUE, None, label) == DUE + timedelta(days=1)
    assert student_due(DUE, timedelta(hours=2), label) == DUE + timedelta(hours=2)
    assert student_due(DUE, timedelta(0), label) == DUE + timedelta(days=1)  # a zero extension is none
    # A relative step is stretched for the labelled student (48 h x 2 after their own due date), a dated one is not
    # stretched but moves with their due date.
    mine = DUE + timedelta(days=1)
    assert credit_at(SCHEDULE, DUE, mine + timedelta(hours=96), label=label).credit == 0.8
    assert credit_at(SCHEDULE, DUE, mine + timedelta(hours=96) + SECOND, label=label).credit == 0.5
    dated = LateSchedule((Step(DUE + timedelta(days=2), 0.6),), "not-accepted")
    assert credit_at(dated, DUE, DUE + timedelta(days=3), label=label).credit == 0.6
    assert credit_at(dated, DUE, DUE + timedelta(days=3) + SECOND, label=label).outcome is Outcome.NOT_ACCEPTED


def test_an_extension_moves_the_due_date_within_the_plausible_years():
    assert moved_due(DUE, timedelta(days=3)) == DUE + timedelta(days=3)
    assert moved_due(DUE.replace(tzinfo=None), timedelta(days=3)) == DUE + timedelta(days=3)  # nbgrader's naive UTC
    last = LATEST - DUE
    assert moved_due(DUE, last) == LATEST
    with pytest.raises(DeadlineError) as raised:
        moved_due(DUE, last + SECOND)
    assert str(raised.value) == ("2026-03-02 23:59:00 UTC + 63491d1m1s = 2200-01-01 00:00:01 UTC is not a plausible "
                                 "date (years 2000 to 2200)")
    with pytest.raises(DeadlineError) as raised:  # a due date nbgrader was given near the year 9999
        moved_due(datetime(9999, 12, 1, tzinfo=UTC), timedelta(days=60))
    assert str(raised.value) == "9999-12-01 00:00:00 UTC + 60d is not a plausible date (years 2000 to 2200)"


@pytest.mark.parametrize("text, expected", [
    ("1d 12h", timedelta(hours=36)), (" 2W ", timedelta(days=14)), ("1.5h", timedelta(minutes=90)),
    ("30s", timedelta(seconds=30)), ("1w1d1h1m1s", timedelta(days=8, seconds=3661)),
    ("73049d", LONGEST),  # the longest there is: the years 2000 to 2200
])
def test_durations_as_people_type_them(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text, message", [
    ("-3d", "'-3d' is a negative duration"),
    ("0d", "'0d' is not a positive duration"),
    ("0", "'0' is not a duration (examples: 3d, 48h, 1d12h, 90m, 2w)"),
    ("3 days", "'3 days' is not a duration (examples: 3d, 48h, 1d12h, 90m, 2w)"),
    ("73049d1s", "'73049d1s' is longer than any deadline can move (at most 73049d, the years 2000 to 2200)"),
    ("100000000d", "'100000000d' is longer than any deadline can move (at most 73049d, the years 2000 to 2200)"),
    ("9" * 400 + "w", f"'{'9' * 400}w' is longer than any deadline can move (at most 73049d, the years 2000 to 2200)"),
])
def test_a_bad_duration_is_one_line_naming_it(text, message):
    with pytest.raises(DeadlineError) as raised:
        parse_duration(text)
    assert str(raised.value) == message


def test_zero_is_a_duration_only_where_asked():
    assert parse_duration("0", zero=True) == parse_duration("0s", zero=True) == parse_duration(" 0S", zero=True) \
        == timedelta(0)
    assert parse_duration("2h", zero=True) == timedelta(hours=2)


@pytest.mark.parametrize("text, message", [
    ("2200-01-01T00:00:01Z", "'2200-01-01T00:00:01Z' is not a plausible date (years 2000 to 2200)"),
    ("1999-12-31T23:59:59Z", "'1999-12-31T23:59:59Z' is not a plausible date (years 2000 to 2200)"),
    ("2026-03-01 12:00", "'2026-03-01 12:00' has no time zone: add its offset (+01:00) or Z for UTC"),
    ("soon", "'soon' is not an ISO 8601 date and time (e.g. 2026-03-01T23:59:00+01:00)"),
])
def test_a_bad_date_is_one_line_naming_it(text, message):
    with pytest.raises(DeadlineError) as raised:
        parse_date(text)
    assert str(raised.value) == message


def test_dates_at_the_bounds_and_in_any_offset_are_instants_in_utc():
    assert parse_date("2200-01-01T00:00:00Z") == LATEST
    assert parse_date("2000-01-01T01:00:00+01:00") == datetime(2000, 1, 1, tzinfo=UTC)
    assert parse_date("2026-03-01 23:59:00 +01:00").tzinfo is UTC


def test_a_naive_time_is_nbgraders_utc_whatever_the_machines_zone(monkeypatch):
    # Bug: `astimezone` on a naive time reads it in the machine's own zone (Berlin here), an hour off.
    import time

    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        naive = datetime(2026, 3, 2, 23, 59)
        assert as_utc(naive) == DUE and as_utc(naive).tzinfo is UTC
        assert naive_utc(DUE) == naive and naive_utc(datetime(2026, 3, 3, 0, 59, tzinfo=ZoneInfo("Europe/Berlin"))) \
            == naive
        assert as_utc(datetime(2026, 3, 3, 0, 59, tzinfo=ZoneInfo("Europe/Berlin"))).tzinfo is UTC
    finally:
        monkeypatch.undo()
        time.tzset()


def test_times_and_durations_are_shown_to_the_second():
    assert show(datetime(2026, 3, 2, 0, 59, 7, tzinfo=ZoneInfo("Europe/Berlin"))) == "2026-03-01 23:59:07 UTC"
    assert show_duration(timedelta(days=1, hours=2, minutes=3, seconds=4)) == "1d2h3m4s"
    assert show_duration(timedelta(hours=59, seconds=59)) == "2d11h59s"
    assert show_duration(timedelta(minutes=61)) == "1h1m"
    assert show_duration(timedelta(0)) == "0s"


@pytest.mark.parametrize("section, problem", [
    ({"schedule": [["48h", 0.5, 1]], "after": "practice"}, "a step is [until, credit], not ['48h', 0.5, 1]"),
    ({"schedule": ["48h"], "after": "practice"}, "a step is [until, credit], not '48h'"),
    ({"schedule": [["48h", True]], "after": "practice"}, "a step's credit is a number from 0 to 1, not True"),
    ({"schedule": [["48h", "0.5"]], "after": "practice"}, "a step's credit is a number from 0 to 1, not '0.5'"),
    ({"schedule": [["1-2h", 0.5]], "after": "practice"}, "'1-2h' is not an ISO 8601 date and time"),
    ({"assignments": {"hw1": ["48h", 0.5]}},
     "c.LateCredit.assignments['hw1'] must be a dict of schedule, after, grace"),
    ({"assignments": {"hw1": {"grace": "-1m"}}}, "c.LateCredit.assignments['hw1']: '-1m' is a negative duration"),
    ({"labels": {"x": {"extra": "soon"}}}, "c.LateCredit.labels['x']: 'soon' is not a duration"),
    ({"labels": {"x": {"stretch": "wide"}}}, "c.LateCredit.labels['x']: could not convert string to float"),
    ({"grace": "1y"}, "c.LateCredit: '1y' is not a duration"),
])
def test_each_bad_setting_is_named_in_one_line(section, problem):
    with pytest.raises(DeadlineError) as raised:
        rules_from(section)
    assert problem in str(raised.value) and "\n" not in str(raised.value)
    assert str(raised.value).startswith("c.LateCredit")


def test_the_rules_defaults_and_nbgraders_own_setting():
    rules = rules_from({})
    assert rules.default == LateSchedule() and rules.schedule("any") == LateSchedule()
    assert rules.label(None) == rules.label("") == Label("") == NO_LABEL
    with pytest.raises(DeadlineError) as raised:
        rules.label("sport")
    assert str(raised.value) == "unknown label 'sport' (c.LateCredit.labels declares: none)"
    two = rules_from({"labels": {"b": {"extra": "1h"}, "a": {"stretch": 2}}})
    assert two.labels == {"a": Label("a", timedelta(0), 2.0), "b": Label("b", timedelta(hours=1), 1.0)}
    with pytest.raises(DeadlineError, match=r"declares: a, b\)$"):
        two.label("c")
    with pytest.raises(DeadlineError) as raised:
        rules_from({"late": 1})
    assert str(raised.value) == ("c.LateCredit.late: unknown setting "
                                 "(known: schedule, after, grace, assignments, labels)")
    # nbgrader's `penalty_method = 'zero'` is "not accepted" after the due date, unless `after` says otherwise.
    assert rules_from({"penalty_method": "zero"}).default == LateSchedule(after="not-accepted")
    assert rules_from({"penalty_method": "none"}).default == LateSchedule()
    assert rules_from({"penalty_method": "zero", "after": "practice"}).default == LateSchedule(after="practice")
    graced = rules_from({"grace": "0", "assignments": {"hw2": {"grace": "0s"}}})
    assert graced.default.grace == graced.schedule("hw2").grace == timedelta(0)


# Pinned to nbgrader where the rule is nbgrader's ---------------------------------------------------------------

moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2199, 1, 1)).map(
    lambda d: d.replace(microsecond=0))
offsets = st.integers(-30 * 86400, 30 * 86400).map(lambda s: timedelta(seconds=s))
extensions = st.none() | st.integers(1, 10 * 86400).map(lambda s: timedelta(seconds=s))


@st.composite
def schedules(draw) -> LateSchedule:
    """Any valid schedule: steps ending later and later, credits going down, a grace, what comes after."""
    ends = sorted(set(draw(st.lists(st.integers(1, 20 * 24), max_size=4))))
    credits = sorted(draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.8, 1.0]), min_size=len(ends),
                                   max_size=len(ends))), reverse=True)
    steps = tuple(Step(timedelta(hours=h), c) for h, c in zip(ends, credits, strict=True))
    after = draw(st.sampled_from(["practice", "not-accepted"])) if steps else draw(st.sampled_from([None, "practice"]))
    return LateSchedule(steps, after, timedelta(minutes=draw(st.integers(0, 30))))


@settings(max_examples=100, deadline=None)
@given(due=moments, offset=offsets, extension=extensions, schedule=schedules())
def test_the_student_due_date_and_lateness_are_nbgraders(due, offset, extension, schedule):
    """nbgrader's `SubmittedAssignment.duedate` (due plus extension) and `total_seconds_late` (never below 0),
    which its late plugins are handed: ours are the same, whatever the schedule."""
    from nbgrader.api import Assignment, SubmittedAssignment

    submitted = due + (extension or timedelta(0)) + offset
    theirs = SubmittedAssignment(assignment=Assignment(name="hw", duedate=due), timestamp=submitted,
                                 extension=extension)
    ours = credit_at(schedule, due, submitted, extension)
    assert ours.due == as_utc(theirs.duedate)
    assert ours.late_by.total_seconds() == theirs.total_seconds_late


# Scores to a thousandth, as cells' points are: `penalty` keeps 6 decimals, so a score of 1.0078125 "not accepted"
# keeps 0.0000005 where nbgrader's 'zero' takes all of it (issue 39, left to the one arithmetic module).
scores = st.integers(0, 100_000).map(lambda n: n / 1000)


@settings(max_examples=100, deadline=None)
@given(due=moments, offset=offsets, score=scores, method=st.sampled_from(["none", "zero"]))
def test_nbgraders_own_penalty_methods_give_nbgraders_penalty(due, offset, score, method):
    """`c.LateSubmissionPlugin.penalty_method` kept its meaning: nbgrader's plugin, asked as its
    AssignLatePenalties asks it (only for late work; None is no penalty), takes what ours takes."""
    from nbgrader.plugins import LateSubmissionPlugin

    credit = credit_at(rules_from({"penalty_method": method}).schedule("hw"), due, due + offset)
    late = max(0.0, offset.total_seconds())
    theirs = LateSubmissionPlugin(penalty_method=method).late_submission_penalty("s", score, late) if late else None
    assert penalty(score, credit) == (theirs or 0.0)


@settings(max_examples=100, deadline=None)
@given(due=moments, first=offsets, second=offsets, extension=extensions, schedule=schedules(),
       stretch=st.sampled_from([1.0, 1.5, 3.0]), score=st.floats(0, 50))
def test_later_work_never_earns_more(due, first, second, extension, schedule, stretch, score):
    """The rule every schedule keeps, whatever the label and extension: of two submissions, the later one earns
    no more credit, loses no less, and the penalty stays between 0 and the score."""
    label = Label("l", timedelta(hours=6), stretch)
    early, late = sorted((first, second))
    a, b = (credit_at(schedule, due, due + t, extension, label) for t in (early, late))
    assert a.credit >= b.credit and a.late_by <= b.late_by and a.due == b.due
    assert (a.outcome is Outcome.ON_TIME) == (a.late_by <= schedule.grace)
    assert 0 <= penalty(score, b) <= score and penalty(score, b) == pytest.approx(score * (1 - b.credit), abs=1e-6)


def test_the_feedback_line_in_every_case():
    """Each outcome's words, a label's extra time only where it moved the date, an extension's always, and the
    line cut short without an arrival or a credit."""
    from autograder.deadlines.student_deadline import StudentDeadline
    from autograder.deadlines.student_line import deadline_line as line

    def words(*args) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", line(*args)))

    rules = rules_from({"schedule": [["1h", 0.25]], "after": "not-accepted",
                        "labels": {"sport": {"stretch": 2}, "extra-time": {"extra": "2h"}}})
    plain = StudentDeadline(DUE, None, None)
    late = DUE + timedelta(minutes=30)
    assert words(plain, late, plain.credit(rules, "hw", late)) == (
        "Due for you: 2026-03-02 23:59:00 UTC. Handed in: 2026-03-03 00:29:00 UTC, 30m late: 25% of the score "
        "counts (the course's late-credit schedule).")
    gone = DUE + timedelta(hours=1, seconds=1)
    assert words(plain, gone, plain.credit(rules, "hw", gone)) == (
        "Due for you: 2026-03-02 23:59:00 UTC. Handed in: 2026-03-03 00:59:01 UTC, 1h1s late: after the last late "
        "deadline, so it is not accepted: the score does not count.")
    stretched = StudentDeadline(DUE, None, "sport")  # a label without extra time leaves the due date alone
    assert words(stretched, late, stretched.credit(rules, "hw", late)).startswith(
        "Due for you: 2026-03-02 23:59:00 UTC. Handed in")
    extra = StudentDeadline(DUE, None, "extra-time")
    assert words(extra, None, extra.credit(rules, "hw", DUE)) == (
        "Due for you: 2026-03-03 01:59:00 UTC (2h of extra time, label extra-time).")
    assert words(extra, DUE, None) == "Due for you: 2026-03-02 23:59:00 UTC."
    extended = StudentDeadline(DUE, timedelta(hours=5), "extra-time")  # the extension replaces the label's time
    assert words(extended, DUE, extended.credit(rules, "hw", DUE)) == (
        "Due for you: 2026-03-03 04:59:00 UTC (an extension of 5h). Handed in: 2026-03-02 23:59:00 UTC, on time: "
        "full credit.")


def test_the_gradebooks_times_and_intervals_as_sqlite_and_a_server_give_them():
    from autograder.deadlines.student_deadline import StudentDeadline, read_interval, read_time

    # SQLite: text, an Interval as a time counted from the epoch; PostgreSQL's driver: datetime and timedelta.
    assert read_time("2026-03-02 23:59:00.000000") == read_time(datetime(2026, 3, 2, 23, 59)) == DUE
    assert read_time(None) is None and read_interval(None) is None
    assert read_interval("1970-01-02 02:00:00.000000") == read_interval(datetime(1970, 1, 2, 2)) == \
        read_interval(timedelta(days=1, hours=2)) == timedelta(days=1, hours=2)
    # An assignment's own schedule is the one its deadline is read with; a label the course dropped is none.
    rules = rules_from({"schedule": [["1h", 0.5]], "after": "practice",
                        "assignments": {"hw2": {"schedule": [["1h", 0.2]]}}})
    dropped = StudentDeadline(DUE, None, "gone")
    assert dropped.credit(rules, "hw2", DUE + timedelta(minutes=30)).credit == 0.2
    assert dropped.credit(rules, "hw", DUE + timedelta(minutes=30)).credit == 0.5
    assert dropped.credit(rules, "hw", DUE + timedelta(minutes=30)).due == DUE


def test_the_feedback_line_of_practice_work():
    from autograder.deadlines.student_deadline import StudentDeadline
    from autograder.deadlines.student_line import deadline_line

    rules = rules_from({"schedule": [["1h", 0.5]], "after": "practice"})
    plain, late = StudentDeadline(DUE, None, None), DUE + timedelta(hours=2)
    assert html.unescape(re.sub(r"<[^>]+>", "", deadline_line(plain, late, plain.credit(rules, "hw", late)))) == (
        "Due for you: 2026-03-02 23:59:00 UTC. Handed in: 2026-03-03 01:59:00 UTC, 2h late: after the last late "
        "deadline, so this is practice: graded, but the score does not count.")
