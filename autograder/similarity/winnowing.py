"""Fingerprints of a piece of Python that survive renamed variables, reformatting, changed comments and
reordered statements: the code is cut into tokens (comments and layout dropped), names the student chose
become one placeholder, and winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003: MOSS's method, also
Dolos's and copydetect's) keeps the smallest hash of every window of k-grams, with where it came from.

Our own, not `copydetect` (PyPI): copydetect works on files on disk, normalises with Pygments and reports one
similarity per file pair; here an answer is a few lines inside a notebook cell, the names worth keeping
are the release's (its parameters and functions, so that a swapped `w_hh`/`w_hx` still differs), and the
class-wide rarity of each fingerprint is what counts, so the index needs the fingerprints themselves.
"""

import builtins
import hashlib
import keyword
import re
from dataclasses import dataclass

K = 5  # tokens a k-gram: `np . hstack ( (` is one; answers here are 10 to 60 tokens
WINDOW = 4  # k-grams a window: any shared run of K + WINDOW - 1 = 8 tokens yields a shared fingerprint
MAX_TOKENS = 5000  # an answer longer than this is cut: a hostile cell cannot make the index grow without bound
NAME = "V"
STRING = "S"

_TOKEN = re.compile(r"""
  (?P<comment>\#[^\n]*)
 |(?P<string>[rRbBuUfF]{0,2}(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
 |(?P<number>(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)
 |(?P<name>[^\W\d]\w*)
 |(?P<op>\*\*=?|//=?|->|<<=?|>>=?|:=|[-+*/%@&|^=<>!]=|[-+*/%@&|^~<>=.,:;()\[\]{}])
""", re.VERBOSE)
_KEPT = frozenset(keyword.kwlist) | frozenset(dir(builtins))


def _hash(texts: list[str]) -> int:
    """The same number for the same tokens in every run (Python's own `hash` of a str changes per process,
    and so would the fingerprints winnowing keeps)."""
    return int.from_bytes(hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True)
class Token:
    text: str  # as normalised
    start: int  # character offsets in the source, for highlighting what two answers share
    end: int


@dataclass(frozen=True)
class Fingerprint:
    value: int
    start: int  # the characters its k-gram covers
    end: int


def tokens(source: str, kept: frozenset[str] = frozenset()) -> list[Token]:
    """The source's tokens without comments or layout: a name that is not a keyword, a builtin, an
    attribute (`.hstack`) or in `kept` becomes `V`, a string `S`. Never raises, whatever the text."""
    found: list[Token] = []
    previous = ""
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup
        if kind == "comment":
            continue
        text = match.group()
        if kind == "string":
            text = STRING
        elif kind == "name" and previous != "." and text not in _KEPT and text not in kept:
            text = NAME
        found.append(Token(text, match.start(), match.end()))
        previous = text
        if len(found) >= MAX_TOKENS:
            break
    return found


def fingerprints(source: str, kept: frozenset[str] = frozenset(), winnow: bool = True) -> list[Fingerprint]:
    """The winnowed fingerprints of `source` (see `tokens`), in order (every k-gram's, without `winnow`); a
    source shorter than K tokens has one, of all its tokens, so that a short answer still counts."""
    found = tokens(source, kept)
    if not found:
        return []
    if len(found) < K:
        return [Fingerprint(_hash([t.text for t in found]), found[0].start, found[-1].end)]
    grams = [Fingerprint(_hash([t.text for t in found[i:i + K]]), found[i].start, found[i + K - 1].end)
             for i in range(len(found) - K + 1)]
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
