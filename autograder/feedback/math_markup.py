"""LaTeX in a markdown cell (`$...$`, `$$...$$`) turned into MathML when the feedback page is made.

The page must read offline and where scripts are blocked (JupyterLab's HTML viewer is a sandboxed iframe), so
MathJax, fetched from a CDN and run in the browser, cannot render it. MathML Core is drawn by the browser itself
(Chromium, Firefox, Safari), so the formulas are converted once, in Python, by `latex2mathml`.
"""

import html
import re
from dataclasses import dataclass

from latex2mathml.converter import convert

# Code (fenced blocks, then inline spans) is left as written: a `$` there is not math.
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?!\s)([^$\n]+?)(?<![\s\\])\$(?!\$)")
_EITHER = re.compile(rf"{_DISPLAY.pattern}|{_INLINE.pattern}", re.S)
# A student's brackets: never a markdown link or image (`[x](javascript:...)`), only the characters.
_NO_LINKS = str.maketrans({"[": "&#91;", "]": "&#93;"})
# Characters markdown would read as emphasis or escapes, should a converter ever emit them as text.
_MARKDOWN_SIGNS = str.maketrans({"*": "&#42;", "_": "&#95;", "\\": "&#92;", "`": "&#96;"})


@dataclass(frozen=True)
class MathResult:
    """A markdown text with its formulas as MathML, and the formulas that would not convert (left as typed)."""

    text: str
    failed: tuple[str, ...] = ()


def mathml(latex: str, display: bool) -> str:
    """One formula as a MathML element (block or inline). Raises `ValueError` when it does not parse."""
    try:
        element = convert(latex.strip(), display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises its own exceptions, and IndexError/KeyError on bad input
        raise ValueError(f"{latex!r}: {error}") from error
    return element.translate(_MARKDOWN_SIGNS)


def with_mathml(markdown: str, escape_html: bool = False) -> MathResult:
    """`markdown` with every `$$...$$` and `$...$` outside code replaced by MathML. `escape_html`: the text is a
    student's (a written answer), so its `<`, `>`, `&` and brackets outside code and math are escaped and read as
    text, never as markup nor a link; code spans markdown escapes itself, and the MathML is latex2mathml's."""
    if escape_html:
        return _escaped_with_mathml(markdown)
    failed: list[str] = []

    def replace(display: bool):
        def one(found: re.Match) -> str:
            try:
                return mathml(found.group(1), display)
            except ValueError:
                failed.append(found.group(0))
                return found.group(0)
        return one

    parts = _CODE.split(markdown)
    for i in range(0, len(parts), 2):  # the odd parts are code
        parts[i] = _INLINE.sub(replace(False), _DISPLAY.sub(replace(True), parts[i]))
    return MathResult("".join(parts), tuple(failed))


def _escaped_with_mathml(markdown: str) -> MathResult:
    failed: list[str] = []
    parts = _CODE.split(markdown)
    for i in range(0, len(parts), 2):  # the odd parts are code
        out, at = [], 0
        for found in _EITHER.finditer(parts[i]):
            out.append(_text(parts[i][at:found.start()]))
            display = found.group(1) is not None
            try:
                out.append(mathml(found.group(1) if display else found.group(2), display))
            except ValueError:
                failed.append(found.group(0))
                out.append(_text(found.group(0)))
            at = found.end()
        out.append(_text(parts[i][at:]))
        parts[i] = "".join(out)
    return MathResult("".join(parts), tuple(failed))


def _text(text: str) -> str:
    return html.escape(text, quote=False).translate(_NO_LINKS)
