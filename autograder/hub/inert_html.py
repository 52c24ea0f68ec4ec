"""A student's HTML made inert for a staff page: what a notebook's markdown, HTML or SVG outputs hold, kept readable
(headings, paragraphs, lists, tables, code, images, links) without script, event handlers, `javascript:` links,
styles, forms or frames. nh3 (Rust's ammonia): maintained, an allow-list parser; bleach, which nbconvert's own
`clean_html` uses, is deprecated, and nbconvert's list escapes a paragraph or a heading into visible tags."""

import nh3

# ammonia's default tags and attributes, and on any tag the ones that change only how it reads: never `id` (an
# element named as one of the page's own globals clobbers it) nor `style`.
ATTRIBUTES = {**{tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()},
              "*": {"class", "title", "lang", "dir"}}
# `data:` for images a notebook embeds (attachments, plots); a top-level data: navigation is refused by browsers.
URL_SCHEMES = {*nh3.ALLOWED_URL_SCHEMES, "data"}


def inert_html(text: str | bytes) -> str:
    """`text` (HTML) with only what cannot run, reach out of the page or take it over."""
    return nh3.clean(text.decode() if isinstance(text, bytes) else str(text), attributes=ATTRIBUTES,
                     url_schemes=URL_SCHEMES)
