"""nbgrader's scoring rules for a grade cell (no nbgrader, no sandbox)."""

import pytest

from autograder.grading.scoring import graders_score, kept_streams, stderr_problem, visible_test_score


def test_stderr_matching_the_ignore_pattern_is_dropped_and_the_rest_kept():
    chunks = [("stdout", "ok\n"), ("stderr", "DeprecationWarning: old\n"), ("stderr", "Traceback: real\n")]
    kept = kept_streams(chunks, r"DeprecationWarning")
    assert [o["text"] for o in kept] == ["ok\n", "Traceback: real\n"]
    assert stderr_problem(kept) == "the cell wrote to stderr: Traceback: real\n"


def test_without_a_pattern_every_stream_is_kept_and_stdout_never_counts_as_stderr():
    chunks = [("stdout", "DeprecationWarning in stdout\n"), ("stderr", "warn\n")]
    kept = kept_streams(chunks, None)
    assert len(kept) == 2 and stderr_problem(kept) == "the cell wrote to stderr: warn\n"
    assert stderr_problem(kept_streams([("stdout", "x")], r"x")) is None  # the pattern applies to stderr only


@pytest.mark.parametrize(("result", "points", "score"), [
    (None, 2.0, 2.0),  # no value: full marks
    ("1.5", 2.0, 1.5),  # a number: partial credit
    ("5", 2.0, 2.0),  # never more than the cell's points
    ("-1", 2.0, 2.0),  # a negative value is not a score: full marks
    ("'done'", 2.0, 2.0),  # not a number: full marks
    ("0", 2.0, 0.0),
])
def test_a_visible_test_scores_full_marks_or_the_number_it_ends_with(result, points, score):
    assert visible_test_score(result, points) == score


@pytest.mark.parametrize(("earned", "graders_max", "points", "score"), [
    (3.0, 4.0, 4.0, 3.0),
    (-1.0, 4.0, 4.0, 0.0),  # never below 0
    (5.0, 4.0, 10.0, 4.0),  # never above what the graders can give
    (5.0, 10.0, 4.0, 4.0),  # nor above the cell's points
])
def test_the_graders_score_is_kept_within_the_cell(earned, graders_max, points, score):
    assert graders_score(earned, graders_max, points) == score
