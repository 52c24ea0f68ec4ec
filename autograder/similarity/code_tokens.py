"""Python source cut into tokens without comments or layout, each with where it came from: what `answer_region`
matches against the release, what a copier's renaming works on (`devtools.similarity_class`), and what an
answer that does not parse is compared on (`program_form`). Never raises, whatever the text."""

import builtins
import keyword
import re
from collections.abc import Iterator
from dataclasses import dataclass

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
KEPT = frozenset(keyword.kwlist) | frozenset(dir(builtins))


@dataclass(frozen=True)
class Token:
    text: str  # as normalised
    start: int  # character offsets in the source, for highlighting what two answers share
    end: int


def lexemes(source: str) -> Iterator[tuple[str, str, int, int]]:
    """(kind, text, start, end) of every token of `source`, comments included (kind "comment")."""
    for match in _TOKEN.finditer(source):
        yield match.lastgroup or "", match.group(), match.start(), match.end()


def tokens(source: str, kept: frozenset[str] = frozenset(), offset: int = 0) -> list[Token]:
    """The source's tokens without comments or layout: a name that is not a keyword, a builtin, an
    attribute (`.hstack`) or in `kept` becomes `V`, a string `S`; positions shifted by `offset`."""
    found: list[Token] = []
    previous = ""
    for kind, text, start, end in lexemes(source):
        if kind == "comment":
            continue
        if kind == "string":
            text = STRING
        elif kind == "name" and previous != "." and text not in KEPT and text not in kept:
            text = NAME
        found.append(Token(text, start + offset, end + offset))
        previous = text
        if len(found) >= MAX_TOKENS:
            break
    return found
