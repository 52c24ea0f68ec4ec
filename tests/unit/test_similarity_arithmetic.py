"""The numbers an accusation rests on (`similarity.evidence`), against values computed by hand: how many students
make a feature common, its bits, a set of answers' bits, the threshold, flagging at it, and the caps."""

import math

import pytest

from autograder.similarity.evidence import (
    best_scores,
    bits,
    common_count,
    compare,
    explain,
    information,
    pair_scores,
    set_bits,
    threshold,
)
from autograder.similarity.notebook_work import StudentWork
from tests.unit.similarity_support import fresh_programs  # noqa: F401 - autouse: each test normalises afresh


def test_common_is_a_tenth_of_the_class_and_at_least_eight():
    assert [common_count(n) for n in (2, 60, 80, 89, 90, 100, 500)] == [8, 8, 8, 8, 9, 10, 50]


def test_bits_by_hand():
    # log2((c - 1) / (df - 1)), c = common_count(n)
    assert bits(2, 60) == pytest.approx(2.807355, abs=1e-6)  # log2(7)
    assert bits(3, 60) == pytest.approx(1.807355, abs=1e-6)  # log2(7 / 2)
    assert bits(7, 60) == pytest.approx(0.222392, abs=1e-6)  # log2(7 / 6)
    assert bits(2, 500) == pytest.approx(5.614710, abs=1e-6)  # log2(49)
    assert bits(49, 500) == pytest.approx(0.029747, abs=1e-6)  # log2(49 / 48)
    assert bits(9, 100) == pytest.approx(0.169925, abs=1e-6)  # log2(9 / 8)
    # One student's feature, and a common one, are no evidence.
    assert [bits(1, 60), bits(8, 60), bits(50, 500), bits(10, 100), bits(0, 60)] == [0.0] * 5


def test_threshold_by_hand():
    assert threshold(60) == pytest.approx(math.log2(1770) + 1.0)  # 60 * 59 / 2 pairs, the 1-bit margin
    assert threshold(60) == pytest.approx(11.789, abs=1e-3)
    assert threshold(500, 0.0) == pytest.approx(16.928, abs=1e-3)  # log2(124750)
    assert threshold(2) == 1.0 and threshold(1) == 1.0


def test_set_bits_by_hand():
    # One answer that the pair and no one else of the 11 who answered wrote: its chance 1/10, log2(10).
    assert set_bits([({0, 1}, 0.1)], 1) == pytest.approx(3.321928, abs=1e-6)
    # Two answers, each the pair and one other (not the same one): 2 x log2(1 / 0.2), less log2(2) tried.
    assert set_bits([({0, 1, 2}, 0.2), ({0, 1, 3}, 0.2)], 2) == pytest.approx(3.643856, abs=1e-6)
    # The same third student wrote both: without `pair`, a ring's member (left out), as apart;
    assert set_bits([({0, 1, 2}, 0.2), ({0, 1, 2}, 0.2)], 2) == pytest.approx(3.643856, abs=1e-6)
    # given the pair, a style: the second's chance is (1 + 2 x 0.2) / (1 + 2) = 0.4667, less log2(4) tried.
    assert set_bits([({0, 1, 2}, 0.2), ({0, 1, 2}, 0.2)], 4, pair={0, 1}) == pytest.approx(1.421464, abs=1e-6)


def _works(n: int, shared: dict) -> list[StudentWork]:
    """`n` students with nothing in common but what students 0 and 1 share (`shared`: StudentWork fields)."""
    works = [StudentWork(f"s{i:02d}", created_ids={f"own{i}": "x"}) for i in range(n)]
    for work in works[:2]:
        for name, value in shared.items():
            setattr(work, name, dict(value))
    return works


def test_a_category_is_capped_and_outputs_count_half():
    n = 20  # common at 8: a feature two students share is worth log2(7)
    unit = math.log2(7)
    ids = _works(n, {"created_ids": {f"id{k}": "cell" for k in range(5)}})
    assert pair_scores(ids).scores[0, 1] == pytest.approx(2 * unit)  # five shared ids, capped at two's worth
    outputs = _works(n, {"outputs": {"out": "(3, 5)"}})
    assert pair_scores(outputs).scores[0, 1] == pytest.approx(0.5 * unit)
    both = _works(n, {"created_ids": {f"id{k}": "cell" for k in range(5)}, "outputs": {"out": "(3, 5)"}})
    assert pair_scores(both).scores[0, 1] == pytest.approx(2.5 * unit)  # the categories add up
    wrong = _works(n, {"wrong": {"sigmoid": "a", "formula_1": "b"}})
    assert pair_scores(wrong).scores[0, 1] == pytest.approx(unit)  # two shared wrong answers, capped at one


def test_a_pair_is_flagged_at_the_threshold_itself():
    works = _works(2, {"created_ids": {"id0": "cell"}})  # one pair: log2(1) = 0, the threshold is the margin
    score = pair_scores(works).scores[0, 1]
    assert score == pytest.approx(math.log2(7))
    assert [(p.a, p.b) for p in compare("a", works, margin=score).pairs] == [("s00", "s01")]
    assert compare("a", works, margin=score + 1e-9).pairs == []


def test_the_evidence_in_words_for_a_pair_sharing_everything():
    code = "    out = np.zeros((3, 2))\n    for j in range(2):\n        out[:, j] = w_hh[:, j] * 2\n    return out"
    shared = {"answers": {"concat_weights": code}, "created_ids": {"4f2a9c1e-x": "w.shape"},
              "executions": {"nb": " ".join(str(k) for k in range(1, 15))}, "outputs": {"d1": "(3, 5)"},
              "markdown": {"d2": "I tried both axes here"}, "wrong": {"sigmoid": "w1"}}
    works = _works(20, shared)
    pair = compare("a", works, margin=-100.0).pairs[0]
    texts = [e.text for e in pair.evidence]
    assert (pair.a, pair.b) == ("s00", "s01")
    assert "concat_weights: 100% of the code they wrote is the same as written (its rarest shared part is in 2 of " \
           "20 students)" in texts
    assert "same wrong answer to sigmoid (the graders found the same failures), given by 2 of 20 students" in texts
    assert "cell id 4f2a9c1e… added by both (“w.shape”), in 2 of 20 notebooks" in texts
    assert "same execution counts in nb (1 2 3 4 5 6 7 8 9 10 11 12 …), in 2 of 20 notebooks" in texts
    assert "same output “(3, 5)”, in 2 of 20 notebooks" in texts
    assert "same markdown line “I tried both axes here”, in 2 of 20 notebooks" in texts
    assert [e.bits for e in pair.evidence] == sorted((e.bits for e in pair.evidence), reverse=True)
    assert pair.score == pytest.approx(round(pair_scores(works).scores[0, 1], 1))


def test_shared_spans_cover_the_shared_statements_of_mine():
    from autograder.similarity.winnowing import shared_spans
    mine = "    z = np.tanh(w_hh @ x_t + b_h)\n    print('mine only, a statement of my own')\n    return z"
    theirs = "    q = np.tanh(w_hh @ x_t + b_h)\n    return q"
    spans = shared_spans(mine, theirs, frozenset({"np", "w_hh", "x_t", "b_h"}))
    assert spans and spans[0][0] == mine.index("np.tanh")  # from the inlined temporary's own value
    assert all(mine[s:e].strip() for s, e in spans)
    apart = "    h = w_hh @ x_t + b_h\n    h = h * 2\n    print('mine only, a statement of my own')"
    spans = shared_spans(apart, "    h = w_hh @ x_t + b_h\n    h = h * 2", frozenset({"w_hh", "x_t", "b_h"}))
    assert spans == [(4, apart.index("\n    print"))]
    assert shared_spans(mine, "    return w_hx", frozenset({"w_hx"})) == []


def test_information_by_hand():
    # log2((n - 1) / (df - 1)): the chance that another student writes an answer df of n students wrote.
    assert information(2, 60) == pytest.approx(math.log2(59))
    assert information(11, 101) == pytest.approx(math.log2(10))
    assert information(1, 60) == pytest.approx(math.log2(59))  # a student's own answer: as rare as the class is


def _set_class(n: int = 20, exercises: int = 3) -> list[StudentWork]:
    """`n` students, each with an answer of their own to every exercise, but students 0 and 1, who hand in the
    same answers: the pair's set of answers is theirs alone."""
    def answer(i: int, e: int) -> str:
        return f"    return np.tanh(w_hh) * {1000 + 37 * i + e}"
    works = [StudentWork(f"s{i:02d}", answers={f"e{e}": answer(max(i, 1), e) for e in range(exercises)})
             for i in range(n)]
    return works


def test_a_shared_set_of_answers_by_hand():
    # Three answers that the pair alone wrote, 20 students: each has the chance 1/19, as a set 3 x log2(19) bits.
    # With style, less log2 of the tries: the whole set is half the sets' share (SETS_TRIED), x 2 as text (TRIES:
    # the text is half the tries), x 4 with style, x 8 loosely. As a program, no sets tried: a student working
    # alone reaches 3 x log2(19) bits only by writing all three, (1/19)^3, less log2(4/3) for the reading (the
    # other, mistakes no one else made, finds none) and log2(8) for the form. The best form: the text.
    works = _set_class()
    whole = 3 * math.log2(19)
    by_form = {form: pair_scores(works, form=form).scores[0, 1] for form in ("text", "style", "loose", "program")}
    assert by_form["text"] == pytest.approx(whole - math.log2(2 * 2))
    assert by_form["style"] == pytest.approx(whole - math.log2(2 * 4))
    assert by_form["loose"] == pytest.approx(whole - math.log2(2 * 8))
    assert by_form["program"] == pytest.approx(whole - math.log2(4 / 3 * 8))
    scores, source = best_scores(works)
    assert scores[0, 1] == pytest.approx(whole - 2) and source[0, 1].form == "text"
    assert set(scores) == {(0, 1)}  # no one else shares anything worth a bit
    # Explained, the pair's score is the one compared, and says what the set is worth.
    pair = explain(works, "s01", "s00")
    assert (pair.a, pair.b, pair.score) == ("s00", "s01", round(whole - 2, 1))
    assert [(e.kind, e.text) for e in pair.evidence] == [("answers", (
        "the same answers to all 3 exercises (names, layout, comments, parentheses around a name and order aside): "
        "a set handed in by 2 of 20 students, that two students working alone would both write about once in "
        "1,715 pairs"))]  # 19^3 / 4
    assert pair.evidence[0].bits == pytest.approx(whole - 2)


def test_a_set_is_worth_less_when_others_write_its_answers():
    # A third student who wrote one of the pair's answers makes it 2/19 likely: log2(19) - log2(19/2) = 1 bit less.
    works = _set_class()
    works[5].answers["e0"] = works[0].answers["e0"]
    assert best_scores(works)[0][0, 1] == pytest.approx(3 * math.log2(19) - 1 - 2)
    # Two of three answers alike only: the set of all but one, a quarter of the sets' share for the 3 such sets,
    # 2 x log2(19) - log2(12 x 2) as text; as a program 2 x log2(19) - log2(4/3 x 8), which counts.
    works = _set_class()
    works[1].answers["e2"] = "    return w_hh"
    assert pair_scores(works, form="text").scores[0, 1] == pytest.approx(2 * math.log2(19) - math.log2(24))
    assert best_scores(works)[0][0, 1] == pytest.approx(2 * math.log2(19) - math.log2(32 / 3))
    aside = "as programs: names, layout, comments, parentheses, dead code, order and NumPy spellings aside"
    assert [e.text for e in explain(works, "s00", "s01").evidence] == [
        f"the same answers to every exercise but e2 ({aside}): a set handed in by 2 of 20 students, that two "
        "students working alone would both write about once in 34 pairs"]  # 19^2 / (32 / 3)


def test_a_sum_of_bits_is_reached_every_way():
    # Student 0's answers, two of them alike with student 1's: e0 (the pair and 2 others of 20: 3/19) and e1
    # (the pair and 4 others: 5/19); e2 the pair's and 9 others' (10/19). The pair shares e0 and e1: log2(19/3) +
    # log2(19/5) = 4.588 bits, which a student working alone reaches by writing e0 and e1 (15/361), or e0 and e2
    # (30/361, log2(361/30) = 3.589 bits: no), or all three: P = 3/19 x 5/19 = 0.04155, log2 = 4.589, as the sum
    # (3/19 x 5/19 x 10/19 is inside it). On the grid of 1/32 bit, each chance's bits rounded up: the same here.
    from autograder.similarity.pair_chance import alone_bits, reach_bits
    assert reach_bits([3 / 19, 5 / 19, 10 / 19], math.log2(19 / 3) + math.log2(19 / 5)) == pytest.approx(
        math.log2(361 / 15), abs=1e-9)
    # Reaching 3.589 bits: e0 and e1, e0 and e2, e1 and e2 (log2(361/50) = 2.852: no), all three: 15/361 +
    # 30/361 - 0 (counted once: P(e0 and (e1 or e2))) = 3/19 x (1 - 14/19 x 9/19) = 0.10371.
    assert reach_bits([3 / 19, 5 / 19, 10 / 19], math.log2(361 / 30)) == pytest.approx(
        -math.log2(3 / 19 * (1 - 14 / 19 * 9 / 19)), abs=1e-9)
    # Answers worth other than their chance's bits: 3.5 bits only with both (1/2 x 1/4); 3 bits with the first,
    # whatever the second; beyond the most they can reach, the most (4 bits: both).
    from autograder.similarity.pair_chance import reach_chance
    assert reach_chance([(0.5, 3.0), (0.25, 1.0)], 3.5) == pytest.approx(0.125)
    assert reach_chance([(0.5, 3.0), (0.25, 1.0)], 3.0) == pytest.approx(0.5)
    assert reach_chance([(0.5, 3.0), (0.25, 1.0)], 9.0) == pytest.approx(0.125)
    # Each answer's bits rounded up to the grid, never more: three answers of 1 bit reach 2 + 1/64 bits only all
    # three (1/8); an answer of chance 0 is left out, not counted as reaching nothing (3 bits: the most, 1/2).
    assert reach_chance([(0.5, 1.0)] * 3, 2 + 1 / 64) == pytest.approx(1 / 8)
    assert reach_chance([(0.0, 5.0), (0.5, 1.0)], 3.0) == pytest.approx(0.5)
    # An answer no one else wrote (chance 0) is never written; nothing to reach is certain.
    assert reach_bits([0.0, 0.5], 1.0) == pytest.approx(1.0) and reach_bits([0.5], 0.0) == 0.0
    # Mistakes no one else made: two exercises, each with 2 such pairs of 190 (20 students): the pair's two at
    # once, (2/190)^2; one of them, 1 - (188/190)^2.
    assert alone_bits([2 / 190, 2 / 190, 0.0], 2) == pytest.approx(2 * math.log2(95))
    assert alone_bits([2 / 190, 2 / 190], 1) == pytest.approx(-math.log2(1 - (188 / 190) ** 2))
    assert alone_bits([2 / 190], 0) == 0.0 and alone_bits([0.0], 1) == 0.0


def _long_answer(i: int, e: int) -> str:
    """Student `i`'s own answer to exercise `e`, long enough to be fingerprinted."""
    u = 1000 + 37 * i + 5 * e
    return f"    a = w_hh * {u}\n    b = a + {u + 1}\n    c = b - {u + 2}\n    return c / {u + 3}"


def _two_alike_in_e0_e1() -> list[StudentWork]:
    """20 students with answers of their own to e0, e1 and e2, but s00 and s01, who wrote e0 and e1 alike."""
    return [StudentWork(f"s{i:02d}", answers={f"e{e}": _long_answer(max(i, 1) if e < 2 else i, e)
                                              for e in range(3)}) for i in range(20)]


def test_exercises_answered_alike_by_hand():
    # Two of three exercises answered alike, long enough to be fingerprinted: each exercise's code is worth
    # log2(7) (every fingerprint the pair's alone); with style, the exercises alike 2 x log2(19) less log2(4 x 2^3
    # x TRIES) (SETS_TRIED). One fact: the code's 2 x log2(7) counts.
    works = _two_alike_in_e0_e1()
    for form, tries in (("text", 2), ("style", 4), ("loose", 8)):
        scored = pair_scores(works, form=form)
        assert scored.alike == {(0, 1): (["e0", "e1"], pytest.approx(2 * math.log2(19) - math.log2(32 * tries)))}
        assert scored.scores == {(0, 1): pytest.approx(2 * math.log2(7))}
    # As a program, the two answers alike are as likely as a student working alone writes both of either one's
    # answers (the third, each one's own, no one else writes): (1/19)^2, less log2(4/3 x 8); the set of all but
    # e2 the same.
    scored = pair_scores(works, form="program")
    assert scored.alike == {(0, 1): (["e0", "e1"], pytest.approx(2 * math.log2(19) - math.log2(4 / 3 * 8)))}
    assert scored.scores == {(0, 1): pytest.approx(2 * math.log2(7))}
    pair = explain(works, "s00", "s01")  # the first form to reach the best score: the program
    aside = "as programs: names, layout, comments, parentheses, dead code, order and NumPy spellings aside"
    assert [(e.kind, e.text) for e in pair.evidence] == [
        ("answers", f"the same answers to every exercise but e2 ({aside}): a set handed in by 2 of 20 students, "
                    "that two students working alone would both write about once in 34 pairs"),  # 19^2 / (32 / 3)
        ("together", f"2 exercises answered alike as a whole (e0, e1; {aside}), answers that two students working "
                     "alone would all write about once in 34 pairs"),
        ("code", "e0: 100% of the code they wrote is the same as written (its rarest shared part is in 2 of 20 "
                 "students)"),
        ("code", "e1: 100% of the code they wrote is the same as written (its rarest shared part is in 2 of 20 "
                 "students)"),
    ]
    assert [e.bits for e in pair.evidence] == pytest.approx(
        [2 * math.log2(19) - math.log2(32 / 3)] * 2 + [math.log2(7)] * 2)
    # A third student with e0's answer: it is no longer uncommon together for the pair alone, and worth less.
    works[7].answers["e0"] = works[0].answers["e0"]
    assert pair_scores(works, form="text").scores[0, 1] == pytest.approx(math.log2(7) + math.log2(7 / 2))
    assert pair_scores(works, form="text").alike == {}


def test_two_mistakes_no_one_else_made_by_hand():
    # 20 students, each with answers of their own, but 0 and 1, who wrote e0 and e1 alike, both wrong alike, and
    # no one else did. Counted by students, 2 x log2(19) (less log2(4/3 x 8) as a program). Read as mistakes no
    # one else made: of the class's 190 pairs, 1 shares such a mistake in e0, 1 in e1: (1/190)^2, 2 x log2(190),
    # less log2(4) for the reading and log2(8) for the form; it counts, and the wrong answers add nothing more
    # (the graders' verdicts on answers weighed as wholes follow from them).
    works = _two_alike_in_e0_e1()
    for work in works[:2]:
        work.wrong = {"e0": "fails test 1", "e1": "fails test 2"}
    scored = pair_scores(works, form="program")
    assert scored.alike == {(0, 1): (["e0", "e1"], pytest.approx(2 * math.log2(190) - 5))}
    assert scored.scores == {(0, 1): pytest.approx(2 * math.log2(190) - 5)}
    # Two more students, 4 and 5, who made another mistake in e0 no one else made: 2 of 190 pairs in e0, 1 in e1,
    # (2/190) x (1/190) for the pair's two.
    alike_too = [StudentWork(w.student, answers=dict(w.answers), wrong=dict(w.wrong)) for w in works]
    for work in alike_too[4:6]:
        work.answers["e0"], work.wrong = _long_answer(4, 0), {"e0": "fails test 3"}
    assert pair_scores(alike_too, form="program").scores[0, 1] == pytest.approx(math.log2(190 * 190 / 2) - 5)
    # The same answers, right: counted by students only, 2 x log2(19) - log2(32 / 3), under the code's 2 x log2(7).
    for work in works[:2]:
        work.wrong = {}
    scored = pair_scores(works, form="program")
    assert scored.alike[0, 1][1] == pytest.approx(2 * math.log2(19) - math.log2(32 / 3))
    assert scored.scores[0, 1] == pytest.approx(2 * math.log2(7))
    for work in works[:2]:
        work.wrong = {"e0": "fails test 1", "e1": "fails test 2"}
    pair = explain(works, "s00", "s01")
    assert pair.score == round(2 * math.log2(190) - 5, 1)
    assert pair.evidence[0].text.endswith(
        "a set handed in by 2 of 20 students; e0 and e1 wrong alike (the graders found the same failures) and "
        "written so by no one else in the class, that two students working alone would both write about once in "
        "1,128 pairs")  # 190^2 / 32


def test_compare_returns_the_flagged_pairs_best_first_with_their_groups():
    # Three pairs sharing created cell ids (worth log2(7) each, capped at two): 2, 1 and 2 ids; s04-s05 joins s00.
    works = [StudentWork(f"s{i:02d}", created_ids={f"own{i}": "x"}) for i in range(20)]
    for i, j, ids in ((0, 1, ["a", "b"]), (2, 3, ["c"]), (0, 4, ["d", "e"])):
        for k in (i, j):
            works[k].created_ids.update({key: "cell" for key in ids})
    comparison = compare("an assignment", works, frozenset({"w_hh"}), ["s99: not a notebook"], margin=-100.0)
    assert (comparison.assignment, comparison.compared, comparison.threshold) == ("an assignment", 20, -92.4)
    assert [(p.a, p.b, p.score) for p in comparison.pairs] == [("s00", "s04", 5.6), ("s00", "s01", 5.6),
                                                              ("s02", "s03", 2.8)]
    assert comparison.groups == [["s00", "s01", "s04"], ["s02", "s03"]]
    assert comparison.refused == ["s99: not a notebook"] and comparison.unparsed == []
    assert comparison.names == frozenset({"w_hh"}) and sorted(comparison.works) == [w.student for w in works]
    assert all(p.evidence for p in comparison.pairs)


def test_a_wrong_answer_counts_beyond_its_code_and_a_long_list_is_cut():
    # The same wrong answer in the same code is one fact: its bits beyond the code's (log2(7) each, here equal),
    # so nothing more; in code not shared, log2(7) more.
    code = "    a = w_hh * 1037\n    b = a + 1038\n    c = b - 1039\n    return c / 1040"
    same = _works(20, {"answers": {"e0": code}, "wrong": {"e0": "w"}})
    assert pair_scores(same).scores[0, 1] == pytest.approx(math.log2(7))
    apart = _works(20, {"wrong": {"e0": "w"}})
    apart[0].answers, apart[1].answers = {"e0": code}, {"e0": code.replace("103", "203")}
    assert pair_scores(apart).scores[0, 1] == pytest.approx(math.log2(7))
    both = _works(20, {"wrong": {"e0": "w", "e1": "v"}})
    both[0].answers, both[1].answers = {"e0": code}, {"e0": code.replace("103", "203")}
    assert pair_scores(both).scores[0, 1] == pytest.approx(math.log2(7))  # wrong answers capped at one's worth
    # Five shared cell ids: the three rarest listed, then one line for the rest, worth nothing on its own.
    ids = _works(20, {"created_ids": {f"id{k}-cell": f"cell {k}" for k in range(5)}})
    pair = compare("a", ids, margin=-100.0).pairs[0]
    listed = [(e.kind, e.bits, e.text) for e in pair.evidence if e.kind == "cell_id"]
    assert [text for _, _, text in listed] == [
        "cell id id0-cell… added by both (“cell 0”), in 2 of 20 notebooks",
        "cell id id1-cell… added by both (“cell 1”), in 2 of 20 notebooks",
        "cell id id2-cell… added by both (“cell 2”), in 2 of 20 notebooks",
        "and 2 more cell id features shared"]
    assert [b for _, b, _ in listed] == pytest.approx([math.log2(7)] * 3 + [0.0])


def test_a_pair_found_as_text_is_explained_as_text():
    # Three long answers alike: the code 3 x log2(7) in every form; the set 3 x log2(19) less log2(2 x 2) as text
    # (fewest tries), more than the code: the text is the form the pair is found in, and the evidence says so. A
    # shared cell id adds its log2(7) to it.
    works = [StudentWork(f"s{i:02d}", answers={f"e{e}": _long_answer(max(i, 1), e) for e in range(3)},
                         created_ids={f"own{i}": "x"}) for i in range(20)]
    works[0].created_ids["both"] = works[1].created_ids["both"] = "w.shape"
    scores, source = best_scores(works)
    assert scores[0, 1] == pytest.approx(3 * math.log2(19) - 2 + math.log2(7)) and source[0, 1].form == "text"
    texts = [e.text for e in explain(works, "s00", "s01").evidence]
    aside = "names, layout, comments, parentheses around a name and order aside"
    assert texts[0] == (f"the same answers to all 3 exercises ({aside}): a set handed in by 2 of 20 students, that "
                        "two students working alone would both write about once in 1,715 pairs")
    assert f"e0: 100% of the code they wrote is the same as text, {aside} (its rarest shared part is in 2 of 20 " \
           "students)" in texts
    assert "cell id both… added by both (“w.shape”), in 2 of 20 notebooks" in texts
    # A pair that shares nothing is explained too: no score, no evidence.
    nothing = explain(works, "s02", "s03")
    assert (nothing.score, nothing.evidence) == (0.0, [])
