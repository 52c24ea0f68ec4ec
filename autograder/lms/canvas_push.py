"""Send grades to Canvas through its REST API, with `canvasapi`.

Grades go in bulk (`POST /api/v1/courses/:c/assignments/:a/submissions/update_grades`, fields
`grade_data[<user id>][posted_grade]` and `grade_data[<user id>][text_comment]`) in batches, each an
asynchronous Canvas job that is polled until it completes. Before sending, the current submissions
are read: a student whose Canvas score and comment already match is not sent again, so a re-run
changes nothing (posting again would add a duplicate comment). After a failed batch the submissions
are read again, so the report says exactly who has the grade and who does not.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Iterator

import requests
from canvasapi import Canvas
from canvasapi.exceptions import CanvasException, Forbidden, RateLimitExceeded

from .errors import LmsError
from .lms_settings import Settings
from .push_plan import PushItem, PushPlan, PushReport
from .retry import RetryPolicy

TOKEN_ENV = "CANVAS_API_TOKEN"
PROGRESS_TIMEOUT = 120.0  # seconds to wait for one bulk-update job
# How often a bulk-update job is asked after: the retry policy's doubling, from 0.05 s up to 2 s between polls.
PROGRESS_POLLS = RetryPolicy(backoff_seconds=0.05, max_wait=2.0)


def destination(settings: Settings, assignment: str) -> str:
    url = settings.require("canvas", "url")
    course_id = settings.require("canvas", "course_id")
    assignment_id = settings.mapping("canvas", "assignments", assignment, required=True)
    return f"Canvas {url} course {course_id}, assignment {assignment_id}"


def classify(exc: BaseException) -> tuple[bool, float | None]:
    """Retry 429, 5xx, Canvas's throttling 403 ("Rate Limit Exceeded") and network failures."""
    if isinstance(exc, RateLimitExceeded):
        return True, None
    if isinstance(exc, Forbidden) and "rate limit exceeded" in str(exc).lower():
        return True, None
    if type(exc) is CanvasException and re.search(r"status code 5\d\d", str(exc)):
        return True, None
    if isinstance(exc, (requests.ConnectionError, requests.Timeout)):
        return True, None
    return False, None


def describe(exc: BaseException) -> str:
    """A one-line reason; canvasapi messages may hold a whole HTML error page."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


@contextlib.contextmanager
def quiet_canvasapi() -> Iterator[None]:
    """canvasapi logs the last four characters of the token at DEBUG; a secret is never logged, even in part."""
    logger = logging.getLogger("canvasapi")
    previous = logger.level
    logger.setLevel(max(previous, logging.INFO))
    try:
        yield
    finally:
        logger.setLevel(previous)


def _current(assignment, policy: RetryPolicy) -> dict[str, tuple[float | None, list[str]]]:
    """user id -> (score, comment texts) of every submission Canvas has for the assignment."""
    def read() -> dict[str, tuple[float | None, list[str]]]:
        found = {}
        for sub in assignment.get_submissions(include=["submission_comments"], per_page=100):
            comments = [c.get("comment", "") for c in getattr(sub, "submission_comments", None) or []]
            found[str(sub.user_id)] = (getattr(sub, "score", None), comments)
        return found

    return policy.with_retries(read, classify)


def _has(item: PushItem, current: dict[str, tuple[float | None, list[str]]]) -> bool:
    score, comments = current.get(item.lms_user, (None, []))
    return score is not None and abs(float(score) - float(item.posted)) < 0.005 and item.comment in comments


def _wait(progress, policy: RetryPolicy, clock: Callable[[], float]) -> str:
    """Poll a bulk-update job until Canvas says completed or failed; returns the final state."""
    deadline = clock() + PROGRESS_TIMEOUT
    state = getattr(progress, "workflow_state", "queued")
    polls = 0
    while state not in ("completed", "failed"):
        if clock() > deadline:
            return "timed out"
        polls += 1
        policy.sleep(PROGRESS_POLLS.wait(polls))
        progress = policy.with_retries(progress.query, classify)
        state = progress.workflow_state
    return state


def push(settings: Settings, push_plan: PushPlan, token: str, policy: RetryPolicy,
         clock: Callable[[], float] = time.monotonic) -> PushReport:
    url = str(settings.require("canvas", "url")).rstrip("/")
    course_id = settings.require("canvas", "course_id")
    assignment_id = settings.mapping("canvas", "assignments", push_plan.assignment, required=True)
    batch_size = int(settings.get("canvas", "batch_size", 50))
    if batch_size < 1:
        raise LmsError(f"{settings.path}: [canvas] batch_size must be at least 1")
    report = PushReport()
    with quiet_canvasapi():
        try:
            course = policy.with_retries(lambda: Canvas(url, token).get_course(course_id), classify)
            assignment = policy.with_retries(lambda: course.get_assignment(assignment_id), classify)
            current = _current(assignment, policy)
        except Exception as exc:  # nothing was sent: every student is listed as not sent
            report.stopped = f"could not read the assignment from Canvas ({describe(exc)})"
            report.not_attempted = [i.student_id for i in push_plan.items]
            return report
        report.unchanged = [i.student_id for i in push_plan.items if _has(i, current)]
        todo = [i for i in push_plan.items if not _has(i, current)]
        batches = [todo[i:i + batch_size] for i in range(0, len(todo), batch_size)]
        for number, batch in enumerate(batches):
            grade_data = {i.lms_user: {"posted_grade": i.posted, "text_comment": i.comment} for i in batch}
            try:
                progress = policy.with_retries(lambda gd=grade_data: assignment.submissions_bulk_update(grade_data=gd),
                                       classify)
                state = _wait(progress, policy, clock)
                problem = "" if state == "completed" else f"Canvas bulk update job {state}"
            except Exception as exc:
                problem = describe(exc)
            if not problem:
                report.sent += [i.student_id for i in batch]
                continue
            report.stopped = problem
            # Part of a failed job may have been applied: ask Canvas who now has the grade.
            try:
                after = _current(assignment, policy)
                for item in batch:
                    (report.sent if _has(item, after) else report.not_attempted).append(item.student_id)
            except Exception:
                report.unknown = [i.student_id for i in batch]
            report.not_attempted += [i.student_id for later in batches[number + 1:] for i in later]
            break
    return report
