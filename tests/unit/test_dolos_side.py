"""The benchmark's side of Dolos (`autograder.devtools.dolos_side`): reading what dolos/pairs.mjs prints and
scoring it against the planted pairs. Dolos itself runs only in `make bench-similarity`; the output here is
the shape pairs.mjs writes ([[left path, right path, similarity], ...], see that file)."""

import pytest

from autograder.devtools.dolos_side import DolosError, parse_pairs, score, threshold_for

STUDENTS = {"/tmp/x/ann.py": "ann", "/tmp/x/bob.py": "bob", "/tmp/x/cy.py": "cy", "/tmp/x/di.py": "di"}


def pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def test_parses_pairs_by_student():
    text = '[["/tmp/x/ann.py", "/tmp/x/bob.py", 0.5], ["/tmp/x/di.py", "/tmp/x/cy.py", 1]]'
    assert parse_pairs(text, STUDENTS) == {pair("ann", "bob"): 0.5, pair("cy", "di"): 1.0}


@pytest.mark.parametrize("text", ["", "{\"a\": 1}", '[["/tmp/x/ann.py", "/tmp/elsewhere.py", 0.5]]',
                                  '[["/tmp/x/ann.py", "/tmp/x/bob.py"]]', '[["/tmp/x/ann.py", "/tmp/x/bob.py", null]]'])
def test_unreadable_output_is_one_line_naming_the_script(text):
    with pytest.raises(DolosError) as raised:
        parse_pairs(text, STUDENTS)
    assert "pairs.mjs" in str(raised.value) and "\n" not in str(raised.value)


def test_scores_and_the_threshold_that_matches_a_precision():
    similarity = {pair("ann", "bob"): 0.9, pair("cy", "di"): 0.8, pair("ann", "cy"): 0.8, pair("bob", "di"): 0.7,
                  pair("ann", "di"): 0.2}
    planted = {pair("ann", "bob"), pair("cy", "di"), pair("bob", "di")}
    at = score(similarity, planted, 0.75)
    assert (at.precision, at.recall, at.flagged) == pytest.approx((2 / 3, 2 / 3, 3))
    # 0.9 alone is precise but 0.8 brings an honest pair with a planted one (a tie: both or neither), so the
    # lowest threshold with precision 1 is 0.9; with precision 3/4 it is 0.7 (all three planted pairs)
    assert threshold_for(similarity, planted, 1.0) == 0.9
    assert threshold_for(similarity, planted, 0.75) == 0.7
    assert threshold_for(similarity, {pair("ann", "di")}, 1.0) > 0.9  # none reaches it: nothing flagged
    assert score(similarity, {pair("ann", "di")}, threshold_for(similarity, {pair("ann", "di")}, 1.0)).flagged == 0
