"""`autograder similarity` in a small class: 60 students who answer on their own (`devtools.similarity_class`),
planted copies of whole sets of answers (renamed, reformatted, reordered, re-commented, one error fixed,
the whole file), and eight students who write the textbook answer everywhere. In a class this size, counting
how few students hand in a set of answers cannot make a copy stand out (2 of 60 is all it can say); the
chance of its answers together can (`evidence.set_bits`). Written as a course holds it, compared through the
command's reading path, no nbgrader run.
"""

import pytest

from autograder.devtools import similarity_class as sc
from autograder.similarity import compare_class
from autograder.similarity.evidence import set_bits

A = "hidden_state_activation"
TEXTBOOK = [f"tb{i}" for i in range(8)]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    course = tmp_path_factory.mktemp("small-class")
    labelled = sc.plan(A, 52, seed=2, groups=4, rings=1)
    labelled.students += [sc.textbook(A, name) for name in TEXTBOOK]
    sc.write(course, A, labelled, seed=2)
    return labelled, compare_class(course, A)


def test_copies_in_a_class_of_sixty_are_flagged_and_no_honest_pair(small):
    labelled, comparison = small
    assert comparison.compared == 60
    flagged = {frozenset((p.a, p.b)) for p in comparison.pairs}
    assert flagged <= labelled.planted
    # Each planted pair (renamed, reformatted, reordered, re-commented), and the ring's whole-file copy. The
    # ring's copier who fixed one error shares 5 answers that many write: not told apart in a class of 60.
    pairs = [frozenset(group) for group in labelled.groups if len(group) == 2]
    assert len(pairs) == 4 and all(pair in flagged for pair in pairs)
    ring = next(group for group in labelled.groups if len(group) == 3)
    assert frozenset((ring[0], next(name for name in ring if name.endswith("-whole-file")))) in flagged
    renamed = next(pair for pair in pairs if any(name.endswith("-renamed") for name in pair))
    pair = next(p for p in comparison.pairs if frozenset((p.a, p.b)) == renamed)
    assert "that two students working alone would both write about once in" in pair.summary


def test_the_textbook_answers_shared_by_eight_of_sixty_are_no_evidence(small):
    _, comparison = small
    assert not {name for p in comparison.pairs for name in (p.a, p.b)} & set(TEXTBOOK)
    works = comparison.works
    assert works["tb0"].answers == works["tb7"].answers  # they did write the same: it is just common


def test_answers_that_other_students_write_together_are_worth_less_than_apart():
    # Six answers, each written by the pair (students 0 and 1) and 4 others of 100 students.
    apart = [({0, 1} | {2 + 4 * e + i for i in range(4)}, 5 / 99) for e in range(6)]
    # The same five others wrote them, each all but one: a style that the class shows goes together.
    together = [({0, 1} | ({2, 3, 4, 5, 6} - {2 + e % 5}), 5 / 99) for e in range(6)]
    assert set_bits(together, 6) < set_bits(apart, 6) / 2
    # A third student who handed in the whole set (a ring of three) is not taken for a style the class shares.
    ring = [({0, 1, 2} | {3 + 3 * e + i for i in range(3)}, 5 / 99) for e in range(6)]
    assert set_bits(ring, 6) == pytest.approx(set_bits(apart, 6))
    # Some of the exercises answered alike (the pair given): a third student with the same answers is a habit
    # as likely as a ring, and is measured.
    assert set_bits(ring[:3], 64, pair={0, 1}) < set_bits(ring[:3], 64) - 3
