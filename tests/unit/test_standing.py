"""What a student's feedback page says about their attempts: which one this is, what is left, what counts."""

import re
from datetime import datetime, timedelta

from autograder.display.page_markup import markup, when
from autograder.watch.attempt_policy import Policy
from autograder.watch.ledger import Record
from autograder.watch.pages import notice, with_banner
from autograder.watch.standing import (
    Attempt,
    Hand,
    attempts_of,
    counted,
    graded_lines,
    superseded_lines,
    waiting_lines,
)

T0 = datetime(2026, 11, 26, 12, 0)


def record(minutes: float, score: float) -> Record:
    at = T0 + timedelta(minutes=minutes)
    return Record(f"s{minutes}", "graded", at.isoformat(), "ada", "a1", (at - timedelta(seconds=5)).isoformat(),
                  score, 10.0, feedback=[f"page{minutes}.html"])


def text(lines) -> str:
    return re.sub(r"<[^>]+>", "", " ".join(lines))


def test_the_last_attempt_of_the_window_says_when_the_next_is_possible_and_that_it_counts():
    policy = Policy(attempts=2, window=timedelta(hours=24))
    attempts = attempts_of([record(65, 4), record(0, 9)])  # out of order in the ledger
    assert [a.number for a in attempts] == [1, 2] and attempts[0].score == 9
    said = text(graded_lines(policy, attempts, T0 + timedelta(minutes=65)))
    # The window opens again 24 hours after the first of the two.
    assert ("Graded attempt 2 of 2 in this 24-hour window: none left; your next graded attempt is possible at "
            "2026-11-27 12:00 UTC.") in said
    assert "This attempt counts for your grade (your latest graded attempt counts)." in said


def test_attempts_left_and_an_earlier_window_are_counted_apart():
    policy = Policy(attempts=3, window=timedelta(hours=1))
    attempts = attempts_of([record(0, 1), record(90, 2)])
    said = text(graded_lines(policy, attempts, T0 + timedelta(minutes=90)))
    assert "Graded attempt 2 (1 of 3 in this 1-hour window): 2 more graded attempts possible now." in said


def test_best_policy_names_the_attempt_that_counts():
    policy = Policy(attempts=0, counts="best")
    attempts = attempts_of([record(0, 9), record(5, 4)])
    assert counted(policy, attempts) is attempts[0]
    said = text(graded_lines(policy, attempts, T0 + timedelta(minutes=5)))
    assert said.startswith("Graded attempt 2, submitted 2026-11-26 12:04 UTC.")
    assert "Your best attempt (attempt 1, 9 / 10 points) counts for your grade, not this one (4 / 10 points)" in said
    tie = attempts_of([record(0, 9), record(5, 9)])
    assert counted(policy, tie) is tie[1]  # an equal later score is kept: the watcher restores only a better one
    assert "This attempt counts for your grade: your best so far" in text(graded_lines(policy, tie, T0))
    gone = text(superseded_lines(policy, tie[0]))
    assert "It no longer counts for your grade: a later attempt does (your best graded attempt counts)" in gone


def test_with_a_written_answer_the_attempt_line_says_what_the_total_adds():
    """The page's total is out of the grade's maximum (autograded 10 + a written answer's 2 = 12), the answer
    still to be graded: the attempt's points are named as autograded and the 2 pending are said, as the total
    says them; once graded (or left unanswered), the rest is said to be theirs. Without answers graded by hand:
    unchanged."""
    policy = Policy(attempts=0, counts="best")
    attempts = attempts_of([record(0, 9), record(5, 4)])
    said = text(graded_lines(policy, attempts, T0 + timedelta(minutes=5), Hand(max_score=12, pending=2)))
    assert ("Your best attempt (attempt 1: 9 of the 10 autograded points; 2 more to be graded by your instructor) "
            "counts for your grade, not this one (4 of the 10 autograded points)") in said
    graded = text(graded_lines(policy, attempts, T0 + timedelta(minutes=5), Hand(max_score=12, pending=0)))
    assert "(attempt 1: 9 of the 10 autograded points; the answers graded by hand make up the rest of the 12)" \
        in graded
    alone = text(graded_lines(policy, attempts, T0 + timedelta(minutes=5), Hand(max_score=10, pending=0)))
    assert "(attempt 1, 9 / 10 points) counts for your grade, not this one (4 / 10 points)" in alone
    gone = text(superseded_lines(policy, attempts[0], Hand(max_score=12, pending=2)))
    assert gone.startswith("Graded attempt 1, submitted 2026-11-26 11:59 UTC (9 of the 10 autograded points).")
    late = [*attempts, Attempt(3, T0 + timedelta(minutes=9), T0 + timedelta(minutes=10), 10, 10, practice=True)]
    practice = text(graded_lines(policy, late, T0 + timedelta(minutes=10), Hand(max_score=12, pending=2)))
    assert "Your attempt 1 (submitted 2026-11-26 11:59 UTC: 9 of the 10 autograded points; 2 more to be graded" \
        in practice


def test_a_waiting_submission_says_none_left_until_and_what_counts_meanwhile():
    policy = Policy(attempts=2, window=timedelta(hours=24), counts="best")
    attempts = attempts_of([record(0, 9), record(5, 4)])
    slot = T0 + timedelta(hours=24)
    said = text(waiting_lines(policy, "a1", T0 + timedelta(minutes=9), slot, attempts))
    assert "none left until 2026-11-27 12:00 UTC." in said and "as graded attempt 3" in said
    assert "Until then, attempt 1 (submitted 2026-11-26 11:59 UTC, 9 / 10 points) counts for your grade" in said


def test_times_are_utc_text_in_a_time_element_and_student_text_is_escaped():
    assert when(T0) == '<time class="autograder-time" datetime="2026-11-26T12:00:00Z">2026-11-26 12:00 UTC</time>'
    line = markup("<b>folder</b> at ", when(T0))
    assert line.startswith("&lt;b&gt;folder&lt;/b&gt; at <time ")
    page = notice("Submission not graded", [line]).decode()
    assert "<b>" not in page and "2026-11-26 12:00 UTC</time>" in page


def test_a_banner_is_replaced_not_stacked():
    page = b"<html><body class='x'><p>feedback</p></body></html>"
    once = with_banner(page, [markup("first")])
    twice = with_banner(once, [markup("second")])
    assert twice.count(b"autograder-attempt\"") == 1 and b"second" in twice and b"first" not in twice
    assert twice.index(b"second") < twice.index(b"feedback") and twice.count(b"<script>") == 1
