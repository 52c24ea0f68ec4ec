"""The lines of the pages a student reads, made on the server as safe HTML: `Markup` (never a student's text
unescaped) and times.

A page is made on the server, which does not know the student's time zone. Every time is written in UTC inside
a `<time datetime=...>` element, and a few lines of script (`LOCAL_TIMES`) rewrite it as the reader's local
time ("14:05 on 26 Nov (your time; 13:05 UTC)") where scripts run. JupyterLab's HTML viewer runs none, so the
UTC text is always a whole sentence on its own.
"""

import html
from datetime import UTC, datetime


class Markup(str):
    """HTML that is already safe to put in a page (made here, never from a student's text)."""

    def __html__(self) -> str:  # Jinja's `e` filter (the feedback page's template) leaves it as it is
        return self


def markup(*parts: str) -> Markup:
    """`parts` joined, each escaped unless it is `Markup` already."""
    return Markup("".join(p if isinstance(p, Markup) else html.escape(p) for p in parts))


def when(moment: datetime, seconds: bool = False) -> Markup:
    """A time (naive or aware; naive is UTC) as the page shows it: UTC always, the reader's local time too where
    scripts run. `seconds`: where a second decides (a due date and the time work arrived)."""
    moment = _naive_utc(moment)
    return Markup(f'<time class="autograder-time" datetime="{moment:%Y-%m-%dT%H:%M:%S}Z">'
                  f"{when_text(moment, seconds)}</time>")


def when_text(moment: datetime, seconds: bool = False) -> str:
    """The same time in a log line."""
    return f"{_naive_utc(moment):%Y-%m-%d %H:%M{':%S' if seconds else ''}} UTC"


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo is not None else moment


# Where scripts run (a plain browser, the formgrader), each time reads in the reader's zone, UTC beside it. The
# watcher's pages bring it (its banner, its notices): nbgrader's feedback page itself runs no script, and its
# deadline line's times are read in the reader's zone when the watcher releases the page.
LOCAL_TIMES = """<script>(() => { for (const t of document.querySelectorAll("time.autograder-time")) {
  const d = new Date(t.getAttribute("datetime")); if (isNaN(d)) continue;
  const local = d.toLocaleString([], {hour: "2-digit", minute: "2-digit", day: "numeric", month: "short"});
  t.textContent = `${local} (your time; ${t.textContent})`; } })();</script>"""
