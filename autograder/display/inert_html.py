"""A student's HTML made inert for a page someone else, or the student, reads: what a notebook's markdown, HTML or SVG
outputs hold, kept readable (headings, paragraphs, lists, tables, code, images, links; with `math`, the MathML the
feedback draws formulas in) without script, event handlers, `javascript:` links, styles, forms or frames. nh3 (Rust's
ammonia): maintained, an allow-list parser; bleach, which nbconvert's own `clean_html` uses, is deprecated, and
nbconvert's list escapes a paragraph or a heading into visible tags. Used by the staff pages (hub/staff_pages.py) and
the students' feedback pages (feedback/preprocessors.py, InertMarkdown)."""

import nh3

# ammonia's default tags and attributes, and on any tag the ones that change only how it reads: never `id` (an
# element named as one of the page's own globals clobbers it) nor `style`.
ATTRIBUTES = {**{tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()},
              "*": {"class", "title", "lang", "dir"}}
# `data:` for images a notebook embeds (attachments, plots); a top-level data: navigation is refused by browsers.
URL_SCHEMES = {*nh3.ALLOWED_URL_SCHEMES, "data"}
# MathML Core's elements as latex2mathml writes them (`feedback.math_markup`), and their presentation attributes:
# no `href` (a link), no `style`, no colours; the browser draws them, no script is involved.
MATH_TAGS = {"math", "mrow", "mi", "mn", "mo", "mtext", "mspace", "ms", "mfrac", "msqrt", "mroot", "mstyle", "merror",
             "mpadded", "mphantom", "menclose", "msub", "msup", "msubsup", "munder", "mover", "munderover",
             "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "semantics", "annotation"}
MATH_ATTRIBUTES = {"display", "mathvariant", "stretchy", "fence", "separator", "accent", "accentunder", "lspace",
                   "rspace", "columnalign", "columnspacing", "columnlines", "rowspacing", "rowlines", "displaystyle",
                   "scriptlevel", "minsize", "maxsize", "movablelimits", "width", "height", "depth", "voffset",
                   "linethickness", "largeop", "symmetric", "form", "notation", "mathsize"}
_WITH_MATH = {**ATTRIBUTES, **{tag: MATH_ATTRIBUTES for tag in MATH_TAGS}}


def inert_html(text: str | bytes, math: bool = False) -> str:
    """`text` (HTML) with only what cannot run, reach out of the page or take it over; `math`: MathML kept too."""
    text = text.decode() if isinstance(text, bytes) else str(text)
    if not math:
        return nh3.clean(text, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES)
    return nh3.clean(text, tags={*nh3.ALLOWED_TAGS, *MATH_TAGS}, attributes=_WITH_MATH, url_schemes=URL_SCHEMES)
