"""The pages a student fetches: the graded feedback (nbgrader's `generate_feedback`, with this course's
preprocessors, for one student, in this process) and the notices that stand in for it while a submission
waits (over the attempts limit, or a fault on our side).

Times: the page is made on the server, which does not know the student's time zone. Every time is written in
UTC inside a `<time datetime=...>` element, and a few lines of script rewrite it as the reader's local time
("14:05 on 26 Nov (your time; 13:05 UTC)") where scripts run. JupyterLab's HTML viewer runs none, so the UTC
text is always a whole sentence on its own.
"""

import html
import re
from datetime import datetime
from pathlib import Path
from typing import Any


class FeedbackError(Exception):
    """nbgrader could not generate a student's feedback; the message is one line."""


class FeedbackMaker:
    """nbgrader's API, kept for the watcher's lifetime: its configuration is read once."""

    def __init__(self, root: Path, coursedir: Any, config: Any) -> None:
        from nbgrader.apps.api import NbGraderAPI

        from autograder.feedback import with_graders_only

        self.root = root
        self.api = NbGraderAPI(coursedir, config=with_graders_only(config))

    def generate(self, assignment: str, student: str, notebooks: list[str]) -> dict[str, bytes]:
        """Each notebook's feedback page, generated from the gradebook and `autograded/` as `nbgrader
        generate_feedback --student` does (and left in `feedback/<student>/<assignment>/` as it does)."""
        done = self.api.generate_feedback(assignment, student, force=True)
        if not done.get("success"):
            last = (done.get("error") or done.get("log") or "no message").strip().splitlines()[-1:]
            raise FeedbackError(f"nbgrader generate_feedback failed for {student}: {' '.join(last)[:200]}")
        folder = Path(self.api.coursedir.format_path(self.api.coursedir.feedback_directory, student, assignment))
        pages = {}
        for notebook in notebooks:
            path = folder / f"{notebook}.html"
            if not path.is_file():
                raise FeedbackError(f"nbgrader generate_feedback made no {path}")
            pages[notebook] = path.read_bytes()
        return pages


class Markup(str):
    """HTML that is already safe to put in a page (made here, never from a student's text)."""


def markup(*parts: str) -> Markup:
    """`parts` joined, each escaped unless it is `Markup` already."""
    return Markup("".join(p if isinstance(p, Markup) else html.escape(p) for p in parts))


def when(moment: datetime) -> Markup:
    """A time (naive UTC) as the page shows it: UTC always, the reader's local time too where scripts run."""
    return Markup(f'<time class="autograder-time" datetime="{moment:%Y-%m-%dT%H:%M}Z">{when_text(moment)}</time>')


def when_text(moment: datetime) -> str:
    """The same time in a log line."""
    return f"{moment:%Y-%m-%d %H:%M} UTC"


# Where scripts run (a plain browser, the formgrader), each time reads in the reader's zone, UTC beside it.
LOCAL_TIMES = """<script>(() => { for (const t of document.querySelectorAll("time.autograder-time")) {
  const d = new Date(t.getAttribute("datetime")); if (isNaN(d)) continue;
  const local = d.toLocaleString([], {hour: "2-digit", minute: "2-digit", day: "numeric", month: "short"});
  t.textContent = `${local} (your time; ${t.textContent})`; } })();</script>"""
BANNER_CLASS = "autograder-attempt"
BANNER = re.compile(rb'<div class="autograder-attempt"[^>]*>.*?</div><!-- /autograder-attempt -->', re.S)


def banner(lines: list[Markup]) -> bytes:
    return (f'<div class="{BANNER_CLASS}" role="note" style="padding:0.5em 1em;background:#eef">'
            + "".join(f'<p style="margin:0.3em 0">{line}</p>' for line in lines)
            + "</div><!-- /autograder-attempt -->").encode()


def with_banner(page: bytes, lines: list[Markup]) -> bytes:
    """The feedback page with a few lines at its top (how this attempt counts); a page that has them already
    gets these instead (an earlier attempt's page, told which attempt counts now)."""
    if BANNER.search(page):
        return BANNER.sub(lambda _: banner(lines), page, count=1)
    top = banner(lines) + LOCAL_TIMES.encode()
    head, found, rest = page.partition(b"<body")
    if not found:
        return top + page
    tag_end = rest.find(b">") + 1
    return head + found + rest[:tag_end] + top + rest[tag_end:]


NOTICE_CSS = ("body { font: 16px/1.5 system-ui, sans-serif; color: #1f2933; margin: 0; }"
              " main { max-width: 46em; padding: 1em 1.5em; } h1 { font-size: 1.4em; }")


def notice(title: str, lines: list[Markup]) -> bytes:
    """A plain page in place of the feedback."""
    body = "".join(f"<p>{line}</p>" for line in lines)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{NOTICE_CSS}</style></head><body><main><h1>{html.escape(title)}</h1>{body}</main>{LOCAL_TIMES}"
            "</body></html>").encode()
