"""Grouping one question's answers (autograder/by_question/answer_groups.py): identical after whitespace, shared
named mistakes for code, near-duplicate written answers by word-shingle Jaccard, every answer in one group."""

import random

import pytest

from autograder.by_question.answer_groups import (
    NEAR_THRESHOLD,
    Answer,
    group_answers,
    jaccard,
    normalised,
    shingles,
)

WHY = "The first n_h columns of W_h meet h and the last n_x columns meet x, so the sum is the same."


def by_students(groups) -> list[tuple[str, set[str]]]:
    return [(g.kind, set(g.students)) for g in groups]


def test_whitespace_alone_never_separates_two_answers():
    answers = [Answer("a", WHY), Answer("b", "  " + WHY.replace(" ", "\n\t ", 3) + "\n\n"), Answer("c", "No idea.")]
    groups = group_answers(answers, code=False)
    assert by_students(groups) == [("identical", {"a", "b"}), ("identical", {"c"})]
    assert normalised(" a \n\t b ") == "a b"


def test_near_duplicates_group_and_an_unlike_answer_stays_apart():
    near = WHY.replace("so the sum is the same", "so the sum is identical")  # one word changed
    far = "Because matrix multiplication is associative and NumPy rounds the same way."
    assert jaccard(shingles(WHY), shingles(near)) >= NEAR_THRESHOLD > jaccard(shingles(WHY), shingles(far))
    groups = group_answers([Answer("a", WHY), Answer("b", WHY), Answer("c", near), Answer("d", far)], code=False)
    assert by_students(groups) == [("similar", {"a", "b", "c"}), ("identical", {"d"})]
    # the most common text leads: its variants come first
    assert groups[0].variants[0] == (normalised(WHY), ("a", "b"))


def test_a_chain_of_small_edits_does_not_pull_unlike_answers_together():
    words = WHY.split()
    chain, text = [], words[:]
    for i in range(0, len(words), 3):  # each step changes three more words: close to the last, far from the first
        text = text[:i] + [f"w{i}", f"v{i}", f"u{i}"] + text[i + 3:]
        chain.append(" ".join(text))
    groups = group_answers([Answer("s0", WHY)] + [Answer(f"s{i + 1}", t) for i, t in enumerate(chain)], code=False)
    lead = next(g for g in groups if "s0" in g.students)
    assert all(jaccard(shingles(WHY), shingles(normalised(a.text))) >= NEAR_THRESHOLD for a in lead.answers)
    assert len(groups) > 1


def test_code_answers_group_by_the_mistake_named_whatever_their_text():
    answers = [Answer("a", "return np.concatenate((a, b), axis=0)", frozenset({"concat_axis"})),
               Answer("b", "return np.vstack((a, b))", frozenset({"concat_axis"})),
               Answer("c", "return np.hstack((a, b))"),
               Answer("d", "return np.hstack((a,  b))"),
               Answer("e", "return a * b", frozenset({"elementwise", "concat_axis"}))]
    groups = group_answers(answers, code=True)
    assert by_students(groups) == [("mistake", {"a", "b"}), ("identical", {"c", "d"}), ("mistake", {"e"})]
    assert groups[0].mistakes == {"concat_axis"}
    # the same words in text are only identical or similar: a mistake groups code alone
    assert all(g.kind != "mistake" for g in group_answers(answers, code=False))


def test_code_groups_by_mistake_first_then_by_text_inside():
    axis = "return np.concatenate((a, b), axis=0)"
    answers = [Answer("a", axis, frozenset({"wrong_axis"})),
               Answer("b", axis.replace(", ", ",\n  "), frozenset({"wrong_axis"})),
               Answer("c", "return np.vstack((a, b))", frozenset({"wrong_axis"})),
               # the same text as a and b, but no mistake named (graded without a result file): by its text alone
               Answer("d", axis),
               # the same text, judged otherwise by the graders (another mistake): the group of that mistake
               Answer("e", axis, frozenset({"block_order"}))]
    groups = group_answers(answers, code=True)
    assert by_students(groups) == [("mistake", {"a", "b", "c"}), ("mistake", {"e"}), ("identical", {"d"})]
    assert groups[0].variants == [(axis, ("a", "b")), ("return np.vstack((a, b))", ("c",))]
    assert groups[0].answers[:2] == tuple(answers[:2])  # the most common text leads the group


def test_every_answer_in_exactly_one_group_whatever_the_order():
    rng = random.Random(4)
    base = [WHY, "It is the block product.", "", "   ", "W_h times the stack splits into two products added."]
    answers = [Answer(f"s{i:03d}", rng.choice(base) + rng.choice(["", " really", "\n"])) for i in range(200)]
    groups = group_answers(answers, code=False)
    students = [s for g in groups for s in g.students]
    assert sorted(students) == sorted(a.student for a in answers)
    shuffled = answers[:]
    rng.shuffle(shuffled)
    assert by_students(group_answers(shuffled, code=False)) == by_students(groups)
    assert [len(g.answers) for g in groups] == sorted((len(g.answers) for g in groups), reverse=True)
    empty = [g for g in groups if normalised(g.answers[0].text) == ""]
    assert len(empty) == 1 and empty[0].kind == "identical"  # blank answers together, never "similar" to others


def test_a_student_with_two_answers_is_refused_in_one_line():
    with pytest.raises(ValueError, match="student 'a' has two answers to one question"):
        group_answers([Answer("a", "x"), Answer("a", "y")], code=False)
