"""Which pairs of students share more than students who work alone do, and the evidence, in words.

Every feature (a fingerprint of an exercise's answer, a wrong answer, a created cell's id, a run of execution
counts, an output, a markdown line) is weighed by how rare it is in the class: with `c` the number of students
that counts as common (a tenth of the class, at least `MIN_COMMON`), a feature that `df` students have is worth
log2((c - 1) / (df - 1)) bits, and nothing when `df` reaches `c`. What two students alone share is worth the
most; what a tenth of the class shares (the textbook answer, a common mistake) is no evidence. Features go into
an inverted index (feature -> students), and only the students of one posting list are paired, so the work
grows with how often features are shared, not with the square of the class.

Answers that two students both handed in, as wholes (names, layout, comments and order aside), are weighed
otherwise (`set_bits`): each answer's chance is its share of the class, given the answers before it as the
class's other students show them (students who share a style write its answers together), and the pair's
answers alike sum to so many bits. As programs, the chance is that of a student working alone reaching as
many bits with either one's answers, every way (`pair_chance.reach_bits`: the exercises alike are not chosen in
advance, but neither is a charge paid for every way to choose them), and a second reading counts mistakes no one
else made (`pair_chance.alone_bits`, by the share of the class's pairs who share one). With style (the other
forms), a student's style is a habit that no exercise-by-exercise chance measures, so the sets that might be
alike are charged for: E + 1 (every exercise, or all but one) or 2^E (any of them). Counting alone cannot weigh
answers: a set that 2 of 60 students hand in might be 1 in 60 or 1 in a million, and a copy of answers that each
a few students write is the second; counted rarity gives at most log2(c - 1) bits a feature (2.8 among 60)
against a threshold of twice log2 of the class. Weighed: the set of answers to every exercise, or to all but
one, when fewer than `c` students hand it in; and the exercises a pair answered alike, for pairs who both wrote
two uncommon answers.

A pair's score is the sum, in bits, of:
- the answers: the bits of their code (for each exercise, the bits of the fingerprints both answers have, over
  the fingerprints of the longer answer), or of the set, or of the exercises answered alike, whichever is
  most (one fact, counted once);
- wrong answers, beyond the code's bits for that exercise (the graders tell apart answers of one bag of tokens),
  but not of exercises whose answers are weighed as wholes (their verdicts follow from them);
- every other category, its shared features' bits times its weight (`Weights`), capped at `CAPS` times what
  two students alone share.
A pair is flagged when its score reaches log2(pairs in the class) + `MARGIN`: a score in bits is log2 of 1 /
the chance of so much shared by two students working alone, and among all the pairs of a class that chance
must be below 1 / pairs for one pair to stand out (a Bonferroni bound: `MARGIN` bits more, half an honest pair
expected above it were the features independent). The other weights and caps were chosen on labelled
classes, and the answers' weighing was checked on classes whose honest students keep one style in every
exercise (docs, "Academic integrity: similarity"; `make bench-similarity`).
"""

import math
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from autograder.similarity.notebook_work import StudentWork
from autograder.similarity.pair_chance import alone_bits, reach_bits
from autograder.similarity.program_form import FORMS, answer_tokens, program, seen_through
from autograder.similarity.winnowing import fingerprints

# A feature more than this share of the class has is no evidence. Not half: a textbook answer is written alike
# by many students at once (those who write it in one exercise write it in the others), so a tenth of the
# class sharing one thing says nothing about any two of them.
COMMON_SHARE = 0.1
MIN_COMMON = 8  # in a small class, what 8 students share is still common
# Two students who both wrote two answers that at most this share of the class wrote are weighed for every
# exercise they answered alike (`set_bits`): pairs who share only common answers are weighed by their sets.
TOGETHER_SHARE = 0.05
# A category other than code counts at most this many times a feature two students alone share: the tenth
# shared cell id of a copied file says no more than the second, and one mistake in concat_weights makes
# formula_1 and hidden_state wrong alike, so three shared wrong answers may be one coincidence.
CAPS = {"wrong": 1.0, "cell_id": 2.0, "executions": 1.0, "output": 1.0, "markdown": 2.0}
# Bits above log2 of the number of pairs for a pair to be flagged: with scores in bits of chance, half an honest
# pair expected above it in any class, whatever its size. Precision first: an honest student flagged costs a
# conversation that should not happen (docs, "Academic integrity: similarity").
MARGIN = 1.0
# Students' worth of the class-wide share of an answer, added to what the other students who wrote an earlier
# answer show of it (`set_bits`): a conditional chance measured on few students leans on the class's share.
# 1, 2 and 4 flag the same pairs on the benchmark's default classes, and on its one-style classes of 200 find
# 0.61, 0.67 and 0.68 of the copies (precision 0.98-0.99): it steadies a thin measure, little more.
PRIOR = 2.0
MIN_ANSWERED = 3  # exercises answered, for a student's set of answers to count
# A pair's answers are weighed in each form of `program_form.FORMS` and the best counts (`best_scores`): four
# tries, each a share of the chance an honest pair has to reach the threshold (a weighted Bonferroni bound, the
# shares 1/2 + 1/4 + 1/8 + 1/8). The text, the comparison from before disguises were seen through, keeps the
# largest; the style form the next (it finds renamed and parenthesised copies).
TRIES = {"program": 8, "style": 4, "loose": 8, "text": 2}
# And as programs, a pair's answers alike are read two ways (`pair_scores`), each a share of the form's chance
# (3/4 + 1/4): as one student's answers that another writes too, which the copy of a whole notebook reaches
# first; and by the mistakes no one else made, which a pair sharing two rare mistakes and nothing else reaches.
READINGS = {"given": 4 / 3, "alone": 4}
# With style, the sets of answers a pair might share are one family of tries, each a share of the form's chance
# (a weighted Bonferroni bound): every exercise alike, one event, 1/2; all but one, 1/4 shared by the E of them;
# any of the 2^E subsets, 1/4 shared by them. Until 2026-11-28, E + 1 sets and 2^E subsets, the whole notebook
# charged log2(7) for six exercises, not 1 bit.
SETS_TRIED = {"all": 2, "all but one": 4, "alike": 4}


@dataclass(frozen=True)
class Weights:
    """Each category's bits are multiplied by its weight before they are added up."""

    code: float = 1.0
    answers: float = 1.0  # a set of answers, in bits of chance (`set_bits`): already on the threshold's scale
    wrong: float = 1.0
    cell_id: float = 1.0
    executions: float = 1.0
    output: float = 0.5  # outputs follow from the code (already counted): a shared one adds half its bits
    markdown: float = 1.0


KINDS = ("code", "answers", "together", "wrong", "cell_id", "executions", "output", "markdown")


@dataclass
class Evidence:
    kind: str  # one of KINDS
    bits: float
    text: str  # what an instructor reads
    exercise: str | None = None  # for code and wrong answers


@dataclass
class Pair:
    a: str
    b: str
    score: float
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def summary(self) -> str:
        return "; ".join(e.text for e in self.evidence)


@dataclass
class Comparison:
    """The class compared: the pairs at or above the threshold, best first, and their groups."""

    assignment: str
    compared: int  # students whose notebooks were read
    threshold: float
    pairs: list[Pair]
    groups: list[list[str]]  # students joined by flagged pairs: a ring when more than two
    refused: list[str]  # one line per notebook left out, naming it and why
    unparsed: list[str] = field(default_factory=list)  # one line per answer compared in part on its text
    works: dict[str, StudentWork] = field(default_factory=dict, repr=False)
    names: frozenset[str] = frozenset()  # the release's names, kept by the tokeniser
    weights: Weights = field(default_factory=Weights)


def common_count(n: int) -> int:
    """How many of `n` students sharing something make it common: no evidence."""
    return max(MIN_COMMON, int(COMMON_SHARE * n))


def bits(df: int, n: int) -> float:
    """The evidence a feature that `df` of `n` students have gives a pair who share it."""
    common = common_count(n)
    if df < 2 or df >= common:
        return 0.0
    return math.log2((common - 1) / (df - 1))


def information(df: int, n: int) -> float:
    """The self-information of one student's answer that `df` of `n` students wrote, for another student who
    writes on their own: log2 of 1 / the chance that they write it too, (df - 1) / (n - 1)."""
    return math.log2((n - 1) / max(1, df - 1))


def set_bits(parts: list[tuple[set[int], float]], tried: int, pair: set[int] | None = None) -> float:
    """The evidence of answers two students both handed in, each answer given as the students who wrote it and
    its chance that another student writes it too: log2 of 1 / the chance that a student working alone writes
    every one of them, less log2 of `tried`, the sets of answers tried for every pair (a pair has that many
    chances).

    The answers are taken rarest first, each with the chance that a student who wrote an earlier one writes
    it too, as the class's other students show it: students who share a style (`result = ...` before every
    `return`, `np.dot` for `@`) write its answers together, and an answer that comes with an earlier one in the
    class is little news (`PRIOR` students' worth of its own chance added, so that a rare answer, seen
    with few others, keeps about its own). Left out of that measure: the pair itself, and
    without `pair`, whoever else handed in every answer of the set, as a ring's third member would. Given
    `pair`, a third student with these answers counts as a style: a few answers that three students share are
    as likely a habit as a ring, a whole notebook's are not."""
    total = 0.0
    done: list[set[int]] = []
    apart = set.intersection(*(holders for holders, _ in parts)) if pair is None else pair
    for holders, share in sorted(parts, key=lambda part: (len(part[0]), part[1])):
        chance = share
        for before in done:
            others = before - apart
            chance = max(chance, (len(holders & others) + PRIOR * share) / (len(others) + PRIOR))
        total += -math.log2(chance)
        done.append(holders)
    return total - math.log2(tried)


def threshold(n: int, margin: float = MARGIN) -> float:
    return math.log2(max(1, n * (n - 1) // 2)) + margin


def _features(work: StudentWork, names: frozenset[str], form: str
              ) -> tuple[dict[tuple, str], dict[str, int], dict[str, int]]:
    """The student's features as index keys -> their category, each exercise's count of fingerprints, and
    each exercise's answer as a whole (a hash of its set of fingerprints)."""
    found: dict[tuple, str] = {}
    sizes: dict[str, int] = {}
    whole: dict[str, int] = {}
    for exercise, text in work.answers.items():
        values = {f.value for f in fingerprints(text, names, form=form)}
        sizes[exercise] = len(values)
        found.update({("code", exercise, value): "code:" + exercise for value in values})
        if values:
            whole[exercise] = hash(frozenset(values))
    found.update({("wrong", exercise, value): "wrong:" + exercise for exercise, value in work.wrong.items()})
    found.update({("cell_id", key): "cell_id" for key in work.created_ids})
    found.update({("executions", nb, seq): "executions" for nb, seq in work.executions.items()})
    found.update({("output", key): "output" for key in work.outputs})
    found.update({("markdown", key): "markdown" for key in work.markdown})
    return found, sizes, whole


def _bags(work: StudentWork, names: frozenset[str], form: str) -> dict[str, int]:
    """Each answer as the bag of its tokens in `form`: as a program, every disguise `program_form` sets aside
    leaves it as it is; as text, renaming, layout, comments and reordered statements do."""
    return {e: hash(tuple(sorted(t.text for t in answer_tokens(text, names, form))))
            for e, text in work.answers.items() if text.strip()}


def unparsed(works: list[StudentWork], names: frozenset[str] = frozenset()) -> list[str]:
    """One line per answer not compared as a whole program (it does not parse, or its normalisation reached a
    bound), naming the student and the exercise."""
    return [f"{work.student}: {exercise} {problem}" for work in works for exercise, text in sorted(work.answers.items())
            if (problem := program(text, names).problem)]


def _answer_sets(bags: dict[str, int]) -> dict[tuple, tuple]:
    """The student's answers to every exercise at once, and to all exercises but one (for each one), as index
    keys -> the answers they are made of. How many students handed in the same set is measured in the class
    itself, so a group who all write the textbook answers (students who write it once write it everywhere)
    share a common set, not a rare one."""
    if len(bags) < MIN_ANSWERED:
        return {}
    parts = tuple(sorted(bags.items()))
    found = {("answers", hash(parts)): parts}
    for e in bags:
        rest = tuple(item for item in parts if item[0] != e)
        found[("answers-but", e, hash(rest))] = rest
    return found


def _together(whole: dict[str, int], uncommon: set[tuple[str, int]]) -> list[tuple]:
    """Two exercises answered alike at once, each answer uncommon on its own, as keys of an index of their own:
    the students of one key are the pairs weighed for all the exercises they answered alike (`pair_scores`), so
    that a pair is found through what few students share, never by comparing every pair."""
    kept = sorted((e, h) for e, h in whole.items() if (e, h) in uncommon)
    return [("together", e1, h1, e2, h2) for (e1, h1), (e2, h2) in combinations(kept, 2)]


@dataclass
class Scored:
    """The class's pairs scored, and what the evidence in words is read from."""

    scores: dict[tuple[int, int], float]  # (indices into the works) -> score, for every pair sharing anything
    df: dict[tuple, int]  # how many students have each feature
    set_worth: dict[tuple[int, int], tuple[tuple, float]]  # a pair's set of answers (all, all but one) that counts
    alike: dict[tuple[int, int], tuple[list[str], float]]  # the exercises a pair answered alike, and their bits
    form: str = "program"  # what the answers were compared as (`program_form.FORMS`)
    alone: dict[tuple[int, int], list[str]] = field(default_factory=dict)  # exercises answered so by the pair alone


def pair_scores(works: list[StudentWork], names: frozenset[str] = frozenset(), weights: Weights = Weights(),
                form: str = "program") -> Scored:
    """Every pair that shares a feature worth anything, with its score, the answers compared in `form`. Only the
    students of one posting list are paired."""
    n = len(works)
    index: dict[tuple, list[int]] = defaultdict(list)
    category: dict[tuple, str] = {}
    sizes: list[dict[str, int]] = []
    wholes: list[dict[str, int]] = []
    for i, work in enumerate(works):
        found, size, whole = _features(work, names, form)
        sizes.append(size)
        wholes.append(whole)
        for key, kind in found.items():
            index[key].append(i)
            category[key] = kind
    answered: dict[tuple[str, int], int] = defaultdict(int)
    for whole in wholes:
        for item in whole.items():
            answered[item] += 1
    sets: dict[tuple, tuple] = {}
    bags: list[dict[str, int]] = []
    bag_holders: dict[tuple[str, int], set[int]] = defaultdict(set)
    for i, work in enumerate(works):
        bags.append(_bags(work, names, form))
        for item in bags[i].items():
            bag_holders[item].add(i)
        for key, parts in _answer_sets(bags[i]).items():
            index[key].append(i)
            sets[key] = parts
    answering: dict[str, int] = defaultdict(int)  # students who answered each exercise
    alone_share: dict[str, float] = defaultdict(float)  # the share of the class's pairs who alone made a mistake

    def wrong_alone(item: tuple[str, int]) -> bool:  # a wrong answer that two students wrote, and no one else
        verdicts = {works[i].wrong.get(item[0]) for i in bag_holders[item]}
        return len(bag_holders[item]) == 2 and len(verdicts) == 1 and None not in verdicts

    for item, holders in bag_holders.items():
        answering[item[0]] += len(holders)
        alone_share[item[0]] += wrong_alone(item) / max(1, n * (n - 1) // 2)
    exercises = len(answering)

    def share(item: tuple[str, int]) -> float:  # the chance that another student writes this answer too
        return (len(bag_holders[item]) - 1) / max(1, answering[item[0]] - 1)

    def weigh(a: int, b: int, items: list[tuple[str, int]], pair: set[int] | None, tried: int) -> float:
        total = set_bits([(bag_holders[item], share(item)) for item in items], 1, pair)
        if form != "program":
            # With style, a student's style is a habit: answers alike in style do not come exercise by exercise,
            # and a habit can reach the program too (a shape assertion in every exercise), where the class cannot
            # measure it. So the sets of exercises that might be alike are charged for (`tried`), a bound that
            # holds however few exercises are alike, in each form (TRIES: `best_scores` takes the best).
            return total - math.log2(tried * TRIES[form])
        # As programs (style set aside), as likely as a student working alone writes enough of either one's
        # answers for as many bits (`reach_bits`: the exercises alike are not chosen in advance, but neither
        # charged for every way to choose them). And read a second way (READINGS), the better counting: by the
        # mistakes no one else made (`alone_bits`), which a few wrong answers copied reach, and the first reading
        # never (at most log2(n - 1) each, against a threshold of log2(n (n - 1))). Mistakes only: an unusual
        # right answer can be a habit (a shape assertion in every exercise), a mistake no one else made is an
        # accident.
        given = min(reach_bits(map(share, bags[i].items()), total) for i in (a, b))
        alone = alone_bits(alone_share.values(), sum(map(wrong_alone, items)))
        return max(given - math.log2(READINGS["given"]), alone - math.log2(READINGS["alone"])) - math.log2(TRIES[form])

    # A set counts only when few hand it in (the class shows no style or textbook that many share), and then
    # for how unlikely its answers are together, not for how few hand it in: counting alone cannot tell a set
    # that 2 of 60 students hand in from one of 1 in a million. All exercises, and all but each one.
    set_worth: dict[tuple[int, int], tuple[tuple, float]] = {}  # the pair's set that counts, and its bits
    for key, parts in sets.items():
        if bits(len(index[key]), n) > 0:
            for a, b in combinations(index[key], 2):
                worth = weigh(a, b, list(parts), None, SETS_TRIED["all"] if key[0] == "answers"
                              else SETS_TRIED["all but one"] * exercises)
                if worth > set_worth.get((a, b), ((), -math.inf))[1]:
                    set_worth[a, b] = (key, worth)
    uncommon = {item for item, count in answered.items() if 2 <= count <= max(2, TOGETHER_SHARE * n)}
    together: dict[tuple, list[int]] = defaultdict(list)  # two uncommon answers -> who wrote both
    for i, whole in enumerate(wholes):
        for key in _together(whole, uncommon):
            together[key].append(i)
    candidates = {pair for holders in together.values() for pair in combinations(holders, 2)}
    common = common_count(n)
    alike: dict[tuple[int, int], tuple[list[str], float]] = {}
    for a, b in candidates:
        matched = sorted(item for item in bags[a].items() if bags[b].get(item[0]) == item[1])
        if len(matched) >= 2 and len(set.intersection(*(bag_holders[item] for item in matched))) < common:
            alike[a, b] = ([e for e, _ in matched], weigh(a, b, matched, {a, b}, SETS_TRIED["alike"] * 2 ** exercises))
    sums: dict[tuple[int, int, str], float] = defaultdict(float)
    for key, holders in index.items():
        worth = bits(len(holders), n)
        if worth > 0 and key not in sets:
            kind = category[key]
            for a, b in combinations(holders, 2):
                sums[a, b, kind] += worth
    unit = bits(2, n)
    scores: dict[tuple[int, int], float] = defaultdict(float)  # what the notebooks share beyond the answers
    answers: dict[tuple[int, int], float] = defaultdict(float)  # what the answers' code says, one by one
    wrong: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)  # a pair's wrong answers, by exercise
    for (a, b, kind), total in sums.items():
        if kind.startswith("code:"):
            exercise = kind[5:]
            answers[a, b] += weights.code * total / max(sizes[a][exercise], sizes[b][exercise])
        elif kind.startswith("wrong:"):
            # The same wrong answer in the same code is one fact: a wrong answer counts beyond the code's bits.
            code = sums.get((a, b, "code:" + kind[6:]), 0.0)
            code = code and weights.code * code / max(sizes[a][kind[6:]], sizes[b][kind[6:]])
            wrong[a, b][kind[6:]] = max(0.0, weights.wrong * total - code)
        else:
            scores[a, b] += min(CAPS[kind] * unit, getattr(weights, kind) * total)
    for pair in (*alike, *set_worth):
        answers[pair] += 0.0
    for pair, total in answers.items():
        # The code of the answers, the set of them both handed in, and the exercises answered alike are one
        # fact: whichever says most counts. Not the wrong answers of other exercises: two answers of one bag of
        # tokens can differ (`w_hh @ x_t + w_hx @ h_t_prev` is the right one's tokens, swapped), and the graders
        # tell them apart; but the graders' verdict on an answer weighed as a whole follows from it.
        (key, of_set), (listed, of_alike) = set_worth.get(pair, ((), 0.0)), alike.get(pair, ([], 0.0))
        chance = max(of_set, of_alike)
        scores[pair] += max(total, weights.answers * chance)
        if weights.answers * chance > total:
            whole = (listed if of_alike >= of_set else
                     [e for e in bags[pair[0]] if key[0] == "answers" or e != key[1]])
            for exercise in whole:
                wrong.get(pair, {}).pop(exercise, None)
    for pair, by_exercise in wrong.items():
        scores[pair] += min(CAPS["wrong"] * unit, sum(by_exercise.values()))
    alone = {pair: sorted(e for e, h in bags[pair[0]].items() if bag_holders[e, h] == set(pair))
             for pair in (*alike, *set_worth)}
    return Scored(scores, {key: len(holders) for key, holders in index.items()}, set_worth, alike, form,
                  {pair: listed for pair, listed in alone.items() if listed})


def best_scores(works: list[StudentWork], names: frozenset[str] = frozenset(), weights: Weights = Weights()
                ) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], Scored]]:
    """Every pair's score, the answers compared in each of `program_form.FORMS` (each with its own rarity in the
    class), whichever scores higher, and the comparison it came from. As programs, every disguise is seen
    through, but a style honest students share (`result = ...` before `return`, `np.dot` for `@`) is set aside
    with it, and their answers grow commoner; with their style (parentheses, `pass`, docstrings, dead code and
    names set aside), loosely (temporaries and `axis` by position aside too), and as text, such a style still
    tells students apart. A copy is found by whichever says more."""
    scored = [pair_scores(works, names, weights, form) for form in FORMS]
    scores: dict[tuple[int, int], float] = {}
    source: dict[tuple[int, int], Scored] = {}
    for one in scored:
        for pair, score in one.scores.items():
            if score > scores.get(pair, -math.inf):
                scores[pair], source[pair] = score, one
    return scores, source


def compare(assignment: str, works: list[StudentWork], names: frozenset[str] = frozenset(),
            refused: list[str] = (), weights: Weights = Weights(), margin: float = MARGIN) -> Comparison:
    """Every pair of `works` whose score reaches `threshold(n)` (log2 of the pairs + `margin`), with its
    evidence."""
    n = len(works)
    scores, source = best_scores(works, names, weights)
    line = threshold(n, margin)
    flagged = sorted(((score, a, b) for (a, b), score in scores.items() if score >= line), reverse=True)
    pairs = [Pair(works[a].student, works[b].student, round(score, 1),
                  _evidence(works[a], works[b], names, source[a, b], (a, b), n, weights)) for score, a, b in flagged]
    return Comparison(assignment, n, round(line, 1), pairs, groups(pairs), list(refused), unparsed(works, names),
                      {w.student: w for w in works}, names, weights)


def explain(works: list[StudentWork], a: str, b: str, names: frozenset[str] = frozenset(),
            weights: Weights = Weights()) -> Pair:
    """The score and evidence of one pair, flagged or not: what an instructor asks of a pair they know of."""
    n = len(works)
    at = {work.student: i for i, work in enumerate(works)}
    i, j = sorted((at[a], at[b]))
    scores, source = best_scores(works, names, weights)
    scored = source.get((i, j)) or pair_scores(works, names, weights)
    return Pair(works[i].student, works[j].student, round(scores.get((i, j), 0.0), 1),
                _evidence(works[i], works[j], names, scored, (i, j), n, weights))


def groups(pairs: list[Pair]) -> list[list[str]]:
    """The connected components of the flagged pairs, largest first."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for pair in pairs:
        parent[root(pair.a)] = root(pair.b)
    members: dict[str, list[str]] = defaultdict(list)
    for student in parent:
        members[root(student)].append(student)
    return sorted((sorted(group) for group in members.values()), key=lambda g: (-len(g), g))


ASIDE = {"program": "as programs: names, layout, comments, parentheses, dead code, order and NumPy spellings aside",
         "style": "as written but for names, layout, comments, parentheses, pass statements and dead code",
         "loose": "as written but for names, layout, comments, parentheses, pass statements, dead code, temporaries "
                  "and how axis is given",
         "text": "names, layout, comments, parentheses around a name and order aside"}


def set_aside(mine: str, theirs: str, names: frozenset[str] = frozenset()) -> str:
    """Which disguises two answers differ in that the comparison saw through, in words: "once parentheses and
    names are set aside"."""
    seen = seen_through(program(mine, names), program(theirs, names))
    if not seen:
        return "as written"
    return f"once {_listed(seen)} {'is' if len(seen) == 1 and not seen[0].endswith('s') else 'are'} set aside"


def _of(df: int, n: int) -> str:
    return f"{df} of {n} students"


def _evidence(a: StudentWork, b: StudentWork, names: frozenset[str], scored: Scored, at: tuple[int, int],
              n: int, weights: Weights) -> list[Evidence]:
    """The shared features of a flagged pair (`at`: their indices), in words, strongest first."""
    found: list[Evidence] = []
    df, set_worth, form = scored.df, scored.set_worth, scored.form
    aside = ASIDE[form]
    for exercise in sorted(set(a.answers) & set(b.answers)):
        mine = {f.value for f in fingerprints(a.answers[exercise], names, form=form)}
        theirs = {f.value for f in fingerprints(b.answers[exercise], names, form=form)}
        shared = [value for value in mine & theirs if bits(df.get(("code", exercise, value), 0), n)]
        if not shared:
            continue
        worth = sum(bits(df[("code", exercise, v)], n) for v in shared) / max(len(mine), len(theirs))
        rarest = min(df[("code", exercise, v)] for v in shared)
        share = len(mine & theirs) / max(len(mine), len(theirs))
        how = (set_aside(a.answers[exercise], b.answers[exercise], names) if form == "program"
               else ("as text, " if form == "text" else "") + aside)
        found.append(Evidence("code", worth, f"{exercise}: {share:.0%} of the code they wrote is the same {how} (its "
                              f"rarest shared part is in {_of(rarest, n)})", exercise))
    key, worth = set_worth.get(at, ((), 0.0))
    alone = _alone(a, b, scored.alone.get(at, []))
    if worth > 0:
        parts = _answer_sets(_bags(a, names, form))[key]
        which = f"all {len(parts)} exercises" if key[0] == "answers" else f"every exercise but {key[1]}"
        found.append(Evidence("answers", weights.answers * worth, f"the same answers to {which} ({aside})"
                              f": a set handed in by {_of(df[key], n)}{alone}, that two "
                              f"students working alone would both write about once in {2 ** worth:,.0f} "
                              "pairs"))
    alike, worth = scored.alike.get(at, ([], 0.0))
    if worth > 0:
        found.append(Evidence("together", weights.answers * worth, f"{len(alike)} exercises answered alike as a "
                              f"whole ({', '.join(alike)}; {aside}){alone}, answers that "
                              f"two students working alone would all write about once in {2 ** worth:,.0f} pairs"))
    for exercise in sorted(set(a.wrong) & set(b.wrong)):
        if a.wrong[exercise] == b.wrong[exercise]:
            count = df[("wrong", exercise, a.wrong[exercise])]
            if bits(count, n):
                found.append(Evidence("wrong", bits(count, n), f"same wrong answer to {exercise} (the graders "
                                      f"found the same failures), given by {_of(count, n)}", exercise))
    listed = [
        ("cell_id", [(("cell_id", k), f"cell id {k[:8]}… added by both (“{a.created_ids[k]}”)")
                     for k in sorted(set(a.created_ids) & set(b.created_ids))]),
        ("executions", [(("executions", nb, seq), f"same execution counts in {nb} ({_short(seq)})")
                        for nb, seq in sorted(a.executions.items()) if b.executions.get(nb) == seq]),
        ("output", [(("output", k), f"same output “{a.outputs[k]}”") for k in sorted(set(a.outputs) & set(b.outputs))]),
        ("markdown", [(("markdown", k), f"same markdown line “{a.markdown[k]}”")
                      for k in sorted(set(a.markdown) & set(b.markdown))]),
    ]
    for kind, items in listed:
        rare = [(bits(df[key], n), df[key], text) for key, text in items if bits(df[key], n)]
        rare.sort(key=lambda item: -item[0])
        for worth, count, text in rare[:3]:
            found.append(Evidence(kind, worth, f"{text}, in {count} of {n} notebooks"))
        if len(rare) > 3:
            found.append(Evidence(kind, 0.0, f"and {len(rare) - 3} more {kind.replace('_', ' ')} features shared"))
    return sorted(found, key=lambda e: -e.bits)


def _alone(a: StudentWork, b: StudentWork, alone: list[str]) -> str:
    """The answers alike that are wrong alike and that no one else wrote, in words (or nothing)."""
    wrong = [e for e in alone if a.wrong.get(e) is not None and a.wrong.get(e) == b.wrong.get(e)]
    return (f"; {_listed(wrong)} wrong alike (the graders found the same failures) and written so by no one else "
            "in the class" if wrong else "")


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _short(sequence: str) -> str:
    counts = sequence.split()
    return " ".join(counts) if len(counts) <= 12 else " ".join(counts[:12]) + " …"
