"""The pages a student fetches: the graded feedback (nbgrader's `generate_feedback`, with this course's
preprocessors, for one student, in this process) and the notices that stand in for it while a submission
waits (over the attempts limit, or a fault on our side).

Their lines are `autograder.display.page_markup`'s: safe HTML, with times the reader sees in their own zone.
"""

import html
import re
from pathlib import Path
from typing import Any

from autograder.display.page_markup import LOCAL_TIMES, Markup


class FeedbackError(Exception):
    """nbgrader could not generate a student's feedback; the message is one line."""


class FeedbackMaker:
    """nbgrader's API, kept for the watcher's lifetime: its configuration is read once."""

    def __init__(self, root: Path, coursedir: Any, config: Any) -> None:
        from nbgrader.apps.api import NbGraderAPI

        from autograder.feedback.preprocessors import with_graders_only

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
