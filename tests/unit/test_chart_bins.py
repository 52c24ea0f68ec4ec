"""The class report's histograms: where their bins lie, which their text alternatives list."""

from autograder.report.plots import bins, score_edges, time_edges


def test_one_grading_time_is_binned_from_zero_not_around_itself():
    edges = time_edges([0.04])
    assert edges[0] == 0 and 0.04 < edges[-1] < 0.05  # not -0.45..0.55 as matplotlib's default range
    assert [n for _, _, n in bins([0.04], edges)] == [0, 0, 0, 0, 1]


def test_full_marks_land_in_the_last_score_bin_and_every_score_is_counted():
    scores = [0.0, 10.0, 46.0, 46.0]
    found = bins(scores, score_edges(46))
    assert len(found) == 20 and found[-1][2] == 2 and sum(n for _, _, n in found) == len(scores)
