"""The pages a student fetches: the graded feedback (nbgrader's `generate_feedback`, with this course's
preprocessors, for one student, in this process) and the notices that stand in for it while a submission
waits (over the attempts limit, or a fault on our side)."""

import html
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


def with_banner(page: bytes, text: str) -> bytes:
    """The feedback page with one line at its top (how this attempt counts), in the page's header landmark
    (its look is the feedback template's: autograder/feedback_template/feedback/feedback.css)."""
    banner = f'<header class="autograder-attempt"><p>{html.escape(text)}</p></header>'
    head, found, rest = page.partition(b"<body")
    if not found:
        return banner.encode() + page
    tag_end = rest.find(b">") + 1
    return head + found + rest[:tag_end] + banner.encode() + rest[tag_end:]


def notice(title: str, lines: list[str]) -> bytes:
    """A plain page in place of the feedback."""
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>").encode()


def when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"
