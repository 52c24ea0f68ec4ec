"""Fingerprints of a piece of Python that survive disguises: the answer is normalised at its syntax tree
(`program_form`: parentheses, layout, comments, `pass`, docstrings, dead code, names, keyword and operand order,
NumPy's spellings of one operation, inlined temporaries and reordered statements set aside) and cut into
tokens, and winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003: MOSS's method, also Dolos's and
copydetect's) keeps the smallest hash of every window of k-grams, with where it came from.

Our own, not `copydetect` (PyPI): copydetect works on files on disk, normalises with Pygments and reports one
similarity per file pair; here an answer is a few lines inside a notebook cell, the names worth keeping
are the release's (its functions and parameters, so that a swapped `w_hh`/`w_hx` still differs), and the
class-wide rarity of each fingerprint is what counts, so the index needs the fingerprints themselves.
"""

import hashlib
from dataclasses import dataclass

from autograder.similarity.code_tokens import Token
from autograder.similarity.program_form import answer_tokens

K = 5  # tokens a k-gram: `np . concatenate ( [` is one; answers here are 10 to 60 tokens
WINDOW = 4  # k-grams a window: any shared run of K + WINDOW - 1 = 8 tokens yields a shared fingerprint


def _hash(texts: list[str]) -> int:
    """The same number for the same tokens in every run (Python's own `hash` of a str changes per process,
    and so would the fingerprints winnowing keeps)."""
    return int.from_bytes(hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True)
class Fingerprint:
    value: int
    start: int  # the characters its k-gram covers
    end: int


def fingerprints(source: str, kept: frozenset[str] = frozenset(), winnow: bool = True, form: str = "program"
                 ) -> list[Fingerprint]:
    """The winnowed fingerprints of `source` in `form` (`program_form.answer_tokens`: as `program_form`
    normalises it, or as its text), in order (every k-gram's, without `winnow`); a source shorter than K tokens
    has one, of all its tokens, so that a short answer still counts."""
    return winnowed(answer_tokens(source, kept, form), winnow)


def winnowed(found: list[Token], winnow: bool = True) -> list[Fingerprint]:
    """The winnowed fingerprints of a token list (see `fingerprints`)."""
    if not found:
        return []
    if len(found) < K:
        return [Fingerprint(_hash([t.text for t in found]), found[0].start, found[-1].end)]
    # A normalised answer's tokens need not run in the source's order (reordered statements): a k-gram spans
    # from its first character to its last, wherever they are.
    grams = [Fingerprint(_hash([t.text for t in found[i:i + K]]), min(t.start for t in found[i:i + K]),
                         max(t.end for t in found[i:i + K])) for i in range(len(found) - K + 1)]
    if not winnow:
        return grams
    if len(grams) <= WINDOW:
        return [min(grams, key=lambda g: g.value)]
    chosen: list[Fingerprint] = []
    last = -1
    for i in range(len(grams) - WINDOW + 1):
        # The rightmost smallest hash of the window, as the paper's robust winnowing picks it.
        best = min(range(i, i + WINDOW), key=lambda j: (grams[j].value, -j))
        if best != last:
            chosen.append(grams[best])
            last = best
    return chosen


def shared_spans(mine: str, theirs: str, kept: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """The character ranges of `mine` whose k-grams `theirs` has too, merged: what to highlight (every k-gram,
    not only the winnowed ones, so that a shared run shows whole)."""
    other = {f.value for f in fingerprints(theirs, kept, winnow=False)}
    spans = sorted((f.start, f.end) for f in fingerprints(mine, kept, winnow=False) if f.value in other)
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
