"""nbgrader's scoring rules for a grade cell (no nbgrader, no sandbox)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat import NotebookNode

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


# Pinned to nbgrader (issue 39): its IgnorePattern and determine_grade, called on the same cell. -------------------

def nbgrader_cell(chunks: list[tuple[str, str]], result: str | None, points: float) -> NotebookNode:
    """The grade cell nbgrader would score: the streams, then the value the cell ends with."""
    from nbformat.v4 import new_code_cell, new_output

    outputs = [new_output("stream", name=name, text=text) for name, text in chunks]
    if result is not None:
        outputs.append(new_output("execute_result", data={"text/plain": result}, execution_count=1))
    return new_code_cell("check()", outputs=outputs, metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": points, "grade_id": "check"}})


def nbgraders_kept(chunks: list[tuple[str, str]], pattern: str | None) -> list[dict]:
    from nbgrader.preprocessors import IgnorePattern

    cell, _ = IgnorePattern(pattern=pattern or "").preprocess_cell(nbgrader_cell(chunks, None, 1.0), {}, 0)
    return [dict(output) for output in cell.outputs]


@pytest.mark.parametrize(("chunks", "pattern"), [
    # Bug: `re.match` for `re.search`: a warning in the middle of a line is not dropped, and the cell scores 0
    # where nbgrader's autograde gives it full marks.
    ([("stderr", "/lib/numpy/core.py:12: RuntimeWarning: overflow\n")], r"RuntimeWarning"),
    ([("stderr", "line one\nDeprecationWarning: x\n")], r"^DeprecationWarning"),  # no MULTILINE: kept
    # Bug: the pattern applied to stdout too: a student's printed line that matches is the student's to show.
    ([("stdout", "RuntimeWarning is what I print\n"), ("stderr", "RuntimeWarning\n")], r"RuntimeWarning"),
    ([("stderr", "a\n"), ("stderr", "b\n"), ("stdout", "c\n")], r"b"),
    ([("stderr", "anything\n")], None),
    ([("stderr", "anything\n")], ""),  # nbgrader's default pattern: nothing dropped
])
def test_the_streams_kept_are_those_nbgraders_ignore_pattern_keeps(chunks, pattern):
    assert kept_streams(chunks, pattern) == nbgraders_kept(chunks, pattern)


# A kernel sends no empty stream (ipykernel publishes only what was written); nbgrader would zero a cell for one.
streams = st.lists(st.tuples(st.sampled_from(["stdout", "stderr"]),
                             st.text(st.sampled_from("aWx: \n"), min_size=1, max_size=8)), max_size=4)


@settings(max_examples=150, deadline=None)
@given(chunks=streams, pattern=st.sampled_from([None, "", "W", "^W", "W$", "x|a", r"\n", "a: W"]))
def test_any_streams_and_pattern_are_filtered_as_nbgrader_filters_them(chunks, pattern):
    assert kept_streams(chunks, pattern) == nbgraders_kept(chunks, pattern)


def score_here(chunks: list[tuple[str, str]], pattern: str | None, result: str | None, points: float) -> float:
    """A visible-only test cell's score as `grading.notebook_run` puts it together from these rules."""
    return 0.0 if stderr_problem(kept_streams(chunks, pattern)) else visible_test_score(result, points)


def nbgraders_score(chunks: list[tuple[str, str]], pattern: str | None, result: str | None, points: float) -> float:
    from nbgrader.preprocessors import IgnorePattern
    from nbgrader.utils import determine_grade

    cell, _ = IgnorePattern(pattern=pattern or "").preprocess_cell(nbgrader_cell(chunks, result, points), {}, 0)
    return determine_grade(cell)[0]


@settings(max_examples=150, deadline=None)
@given(chunks=streams, pattern=st.sampled_from([None, "W", "^a"]), points=st.sampled_from([1.0, 2.5, 7.0]),
       result=st.none() | st.sampled_from(["'done'", "True", "np.float64(1.0)", "nan", "-1.0", "0", "0.0", "1e-3",
                                           "[1, 2]"]) | st.integers(0, 10).map(lambda n: f"{n / 4}"))
def test_a_visible_test_cell_scores_what_nbgrader_scores(chunks, pattern, points, result):
    """Streams (any stderr left after the pattern: 0), then the value it ends with (a number in [0, points]:
    partial credit; anything else: full marks). Above the cell's points nbgrader fails the whole submission;
    ours gives the points (`visible_test_score`), so that case is compared with the points."""
    try:
        theirs = nbgraders_score(chunks, pattern, result, points)
    except ValueError as refused:
        assert "cannot be greater than maximum points" in str(refused)
        theirs = points
    assert score_here(chunks, pattern, result, points) == theirs


def test_several_stderr_writes_are_reported_together_and_cut_at_300_characters():
    kept = kept_streams([("stderr", "first "), ("stdout", "between "), ("stderr", "second")], None)
    assert stderr_problem(kept) == "the cell wrote to stderr: first second"
    long = "w" * 299 + "xyz"
    assert stderr_problem(kept_streams([("stderr", long)], None)) == f"the cell wrote to stderr: {'w' * 299}x"
    assert stderr_problem([]) is None
