"""Every student's answer to one question, grouped so that an instructor grades a group once.

Three kinds of group:

* mistake (code only, first): the answers whose graders named the same mistakes (the hint ids of
  `grader_support.hints`, as the result file records them: `class_answers.read_code_answers`), whatever their
  text. A grader adjusts for the mistake once; inside the group its texts are listed identical-after-whitespace
  (`AnswerGroup.variants`), the most common first. An answer with other mistakes is in another group, even with
  the same text (the graders judged it otherwise, e.g. beside another wrong function it calls);
* identical: the same text once whitespace is normalised (runs of spaces, tabs and newlines read as one space,
  the ends stripped), so an answer retyped with other line breaks is the same answer: every written answer, and
  code in which the graders named no mistake (right, or wrong in no way they know);
* similar (text only): near-duplicates. The similarity is the Jaccard index of the two answers' sets of word
  shingles (runs of `SHINGLE_WORDS` consecutive lower-cased words; an answer shorter than that is one shingle of
  all its words): |A & B| / |A | B|. A group is led by its first answer, the most common first; another joins
  the first leader it is at least `NEAR_THRESHOLD` similar to. Comparing with the leader only, never with
  any member, keeps a chain of small edits from pulling unlike answers into one group. Only answers sharing a
  shingle are compared (an index of shingles), so a class of thousands costs milliseconds.

Pure: answers in, groups out, nothing read or written.
"""

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

SHINGLE_WORDS = 3
NEAR_THRESHOLD = 0.6  # the similarity at which two written answers are near-duplicates
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Answer:
    """One student's answer to the question: the text as they wrote it, and for code the mistakes named."""

    student: str
    text: str
    mistakes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class AnswerGroup:
    key: str  # the group's name on a page, stable while its leading text (or its mistakes) stays; what a grader
    # applies is kept per student, so a group that changes as answers arrive loses nothing
    kind: str  # "identical", "mistake" or "similar"
    answers: tuple[Answer, ...]
    mistakes: frozenset[str] = frozenset()  # a mistake group's named mistakes

    @property
    def students(self) -> tuple[str, ...]:
        return tuple(answer.student for answer in self.answers)

    @property
    def variants(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each distinct (normalised) text of the group with its students, the most common first."""
        by_text: dict[str, list[str]] = defaultdict(list)
        for answer in self.answers:
            by_text[normalised(answer.text)].append(answer.student)
        return sorted(((text, tuple(students)) for text, students in by_text.items()),
                      key=lambda pair: (-len(pair[1]), pair[0]))


def normalised(text: str) -> str:
    """The text with every run of whitespace read as one space, the ends stripped."""
    return " ".join(text.split())


def shingles(text: str, size: int = SHINGLE_WORDS) -> frozenset[tuple[str, ...]]:
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) <= size:
        return frozenset({tuple(words)}) if words else frozenset()
    return frozenset(tuple(words[i:i + size]) for i in range(len(words) - size + 1))


def jaccard(a: frozenset, b: frozenset) -> float:
    """|a & b| / |a | b|; two empty sets are not alike (an empty answer is identical, never similar)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def group_answers(answers: Iterable[Answer], code: bool, threshold: float = NEAR_THRESHOLD) -> list[AnswerGroup]:
    """The answers grouped (module docstring): the largest group first, then by text. Every answer is in
    exactly one group; a student appears once (a second answer of theirs is refused: ValueError)."""
    answers = list(answers)
    seen: set[str] = set()
    for answer in answers:
        if answer.student in seen:
            raise ValueError(f"student {answer.student!r} has two answers to one question")
        seen.add(answer.student)
    identical: dict[str, list[Answer]] = defaultdict(list)
    for answer in answers:
        identical[normalised(answer.text)].append(answer)
    # The most common text first, so it leads its group; ties by text, so the grouping never depends on order.
    ordered = sorted(identical.items(), key=lambda pair: (-len(pair[1]), pair[0]))
    groups: list[AnswerGroup] = []
    if code:
        # By mistake first, whatever the text; then, among the answers with none named, by text. The texts are
        # walked most common first, so a group's members (and its variants) keep that order.
        by_mistake: dict[frozenset[str], list[Answer]] = defaultdict(list)
        for text, members in ordered:
            unnamed = [a for a in members if not a.mistakes]
            for answer in members:
                if answer.mistakes:
                    by_mistake[answer.mistakes].append(answer)
            if unnamed:
                groups.append(AnswerGroup(_key("text", text), "identical", tuple(unnamed)))
        for named, members in by_mistake.items():
            groups.append(AnswerGroup(_key("mistake", " ".join(sorted(named))), "mistake", tuple(members), named))
    else:
        groups = _near_groups(ordered, threshold)
    return sorted(groups, key=lambda g: (-len(g.answers), normalised(g.answers[0].text), g.key))


def _near_groups(ordered: list[tuple[str, list[Answer]]], threshold: float) -> list[AnswerGroup]:
    leaders: list[tuple[str, frozenset, list[Answer]]] = []  # (text, shingles, members)
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)  # shingle -> the leaders holding it
    for text, members in ordered:
        mine = shingles(text)
        candidates = sorted({i for s in mine for i in index[s]})
        home = next((i for i in candidates if jaccard(mine, leaders[i][1]) >= threshold), None)
        if home is None:
            for s in mine:
                index[s].append(len(leaders))
            leaders.append((text, mine, list(members)))
        else:
            leaders[home][2].extend(members)
    return [AnswerGroup(_key("text", text), "identical" if len({normalised(a.text) for a in members}) == 1
                        else "similar", tuple(members)) for text, _, members in leaders]


def _key(kind: str, text: str) -> str:
    return f"{kind}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
