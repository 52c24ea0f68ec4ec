"""The outbox's sender: each pending score to its assignment's LTI line item, the newest only, once.

`autograder push --follow` runs `follow`: a loop in its own process beside `autograder watch` (or as a
JupyterHub service), which polls the outbox every `[push] poll_seconds` (1 s by default) and sends what is
due. A process of its own rather than a thread of the watcher: grading never waits on the LMS and never
holds the LTI private key; either can stop, crash or be restarted alone (the state is the outbox table, in
the gradebook); and a course graded by `grade`, `regrade` or nbgrader's formgrader is sent the same way.

One pass (`LtiSender.send_due`): the due rows, the newest per (student, assignment), oldest change first;
the line item looked up by `lti.lineitem_for` (the lookup `push` uses); a score posted with pylti1p3 as
`push` posts it, its AGS `timestamp` the time the score changed (the row's), so the platform, which keeps
the newest by timestamp, takes a score sent twice (a crash between sending and recording) once, and never
an older over a newer. What the LMS answers decides the row:
  - accepted: sent;
  - 401 (token expired or revoked mid-run): the token is dropped and the score sent again once;
  - 404 (the line item was deleted in the LMS): the line item is looked up (and made) again, sent again once;
  - 429, 5xx, no connection, an answer that is not JSON: pending, the pass stops (the rest would fail the
    same way) and the sender waits (`Retry-After` when given, else doubling from `backoff_seconds`);
  - any other 4xx (a student no longer enrolled, a score refused): failed, with the answer; `push` retries it;
  - a URL on another host than lms.toml's: refused, never followed, the row failed.
Each of these is one log line and shows in `autograder push --status`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem

from autograder.grades.outbox import (
    OutboxRow,
    due,
    iso_utc,
    mark_failed,
    mark_retry,
    mark_sent,
    now_text,
    reconcile,
)

from . import lti
from .errors import LmsError
from .lms_settings import Settings
from .retry import RetryPolicy, policy_from_settings

log = logging.getLogger("autograder.grades.outbox")

POLL_SECONDS = 1.0  # how often `follow` looks for new rows
SCAN_SECONDS = 30.0  # how often it looks for scores changed outside our commands (the formgrader)
SENDER_MAX_WAIT = 300.0  # the longest the sender waits for a platform that keeps failing (it never gives up)


@contextlib.contextmanager
def open_outbox(course: Path) -> Iterator[Any]:
    """The course's gradebook as the writer opens it (`GradebookDatabase`: our tables upgraded first)."""
    from autograder.course.settings import SettingsError, read_course
    from autograder.grading.gradebook_db import GradebookDatabase, GradebookError
    from autograder.grading.writer import lock_seconds_allowed

    try:
        settings = read_course(course)
        db = GradebookDatabase.open(settings.db_url, settings.course_id, lock_seconds_allowed())
    except (SettingsError, GradebookError) as exc:
        raise LmsError(str(exc)) from None
    try:
        yield db
    finally:
        db.close()


def assignment_names(db: Any) -> list[str]:
    return [row[0] for row in db.rows("SELECT name FROM assignment ORDER BY name")]


def reconcile_all(db: Any) -> int:
    """`outbox.reconcile` for every assignment, committed; how many scores were queued."""
    queued = sum(len(reconcile(db, name)) for name in assignment_names(db))
    db.connection.commit()
    return queued


def lms_users(db: Any, field_name: str) -> dict[str, str]:
    """Each student's id in the platform, by the roster field lms.toml names (`[lti] user_id`)."""
    columns = {"student_id": "s.id", "email": "s.email", "lms_user_id": "s.lms_user_id",
               "sis_user_id": "i.sis_user_id", "login_id": "i.login_id", "lti_user_id": "i.lti_user_id"}
    column = columns[field_name]  # one of IDENTITY_CHOICES, checked when lms.toml was read
    rows = db.rows(f"SELECT s.id, {column} FROM student s LEFT JOIN autograder_lms_identity i ON i.student_id = s.id")
    return {student: str(user) for student, user in rows if user}


def outbox_grade(row: OutboxRow, user: str) -> Grade:
    return lti.ags_score(user, row.score, row.max_score, row.comment, iso_utc(row.created_at), row.submitted_at)


@dataclass
class PassReport:
    sent: list[OutboxRow] = field(default_factory=list)
    failed: list[tuple[OutboxRow, str]] = field(default_factory=list)
    waiting: list[tuple[OutboxRow, str]] = field(default_factory=list)  # pending, to be tried again
    pause: float = 0.0  # seconds the sender waits before the next pass (the platform asked, or is down)


class _PlatformDown(Exception):
    def __init__(self, reason: str, wait: float | None) -> None:
        super().__init__(reason)
        self.reason, self.wait = reason, wait


class LtiSender:
    """Sends due outbox rows to the course's LTI platform (lms.toml's `[lti]`), keeping a token and each
    assignment's line item between passes."""

    def __init__(self, settings: Settings, private_pem: str, backoff_seconds: float | None = None,
                 session: requests.Session | None = None) -> None:
        self.settings = settings
        self.connector, self.ags = lti.services(settings, private_pem, session)
        self.user_field = lti.user_field(settings)
        # The one retry policy (`retry`), asked how long to pause after each failing pass.
        self.policy = policy_from_settings(settings, backoff_seconds=backoff_seconds, max_wait=SENDER_MAX_WAIT)
        self.lineitems: dict[str, LineItem] = {}
        self.down = 0  # passes in a row that found the platform failing

    def send_due(self, db: Any, assignment: str | None = None) -> PassReport:
        report = PassReport()
        rows = due(db, now_text(), assignment)
        db.connection.rollback()  # no transaction held open while the platform answers
        if not rows:
            return report
        users = lms_users(db, self.user_field)
        db.connection.rollback()
        try:
            for row in rows:
                self._one(db, row, users.get(row.student), report)
        except _PlatformDown as exc:
            self.down += 1
            report.pause = self.policy.wait(self.down, exc.wait)
            log.warning("the LTI platform failed (%s): %d score(s) wait, next try in %.3g s", exc.reason,
                        len(rows) - len(report.sent) - len(report.failed), report.pause)
            return report
        self.down = 0
        return report

    def _one(self, db: Any, row: OutboxRow, user: str | None, report: PassReport) -> None:
        if not user:
            self._fail(db, row, f"no {self.user_field} in the roster for this student", report)
            return
        retried: set[str] = set()
        while True:
            try:
                lineitem = self._lineitem(row)
                self.ags.put_grade(outbox_grade(row, user), lineitem)
            except (LtiException, requests.RequestException, LmsError) as exc:
                if isinstance(exc, LtiServiceException) and exc.response.status_code == 409:
                    # AGS: the platform keeps a score only when its timestamp is newer than the one it has. Ours
                    # is the time of the change, so a 409 is this very score, sent before (a crash between
                    # sending and recording it): the platform has it.
                    log.info("%s: %s's score was in the platform already (change %d)", row.assignment,
                             row.student, row.seq)
                    break
                action = self._judge(exc, retried)
                if action == "again":
                    continue
                reason = lti.describe(exc)
                if action == "fail":
                    self._fail(db, row, reason, report)
                    return
                _, retry_after = lti.classify(exc)
                mark_retry(db, row, reason, self.policy.wait(self.down + 1, retry_after))  # this pass fails too
                db.connection.commit()
                report.waiting.append((row, reason))
                raise _PlatformDown(reason, retry_after) from None
            log.info("%s: %s's score %.4g sent (change %d)", row.assignment, row.student, row.score, row.seq)
            break
        mark_sent(db, row)
        db.connection.commit()
        report.sent.append(row)

    def _judge(self, exc: BaseException, retried: set[str]) -> str:
        """What to do after `exc`: "again" (once per cause), "fail" this row, or "wait" for the platform."""
        if isinstance(exc, lti.ForeignHost) or isinstance(exc, LmsError):
            return "fail"
        status = exc.response.status_code if isinstance(exc, LtiServiceException) else None
        if status == 401 and "token" not in retried:
            retried.add("token")
            log.warning("the platform refused the access token (expired or revoked): asking for a new one")
            self.connector._tokens.clear()
            return "again"
        if status == 404 and "lineitem" not in retried:
            retried.add("lineitem")
            log.warning("a line item is gone from the platform (deleted in the LMS?): looking it up again")
            self.lineitems.clear()
            return "again"
        transient, _ = lti.classify(exc)
        if transient or status in (401, 404) or status is None:
            return "wait"
        return "fail"

    def _fail(self, db: Any, row: OutboxRow, reason: str, report: PassReport) -> None:
        mark_failed(db, row, reason)
        db.connection.commit()
        report.failed.append((row, reason))
        log.warning("%s: %s's score was refused: %s", row.assignment, row.student, reason)

    def _lineitem(self, row: OutboxRow) -> LineItem:
        if row.assignment not in self.lineitems:
            once = RetryPolicy(attempts=1)  # the sender's own loop retries, with its backoff
            self.lineitems[row.assignment] = lti.lineitem_for(self.settings, row.assignment, row.max_score, self.ags,
                                                              self.connector, once)
        item = self.lineitems[row.assignment]
        if lti.origin(str(item.get_id() or "")) != lti.origin(self.settings.require("lti", "lineitems_url")):
            self.lineitems.pop(row.assignment)
            raise lti.ForeignHost(f"the line item is on another host ({lti.shown_origin(str(item.get_id()))}); refused")
        return item


def follow(course: Path, settings: Settings, private_pem: str, stop: threading.Event,
           poll_seconds: float | None = None, scan_seconds: float | None = None,
           session: requests.Session | None = None, out: Callable[[str], None] = print) -> None:
    """Send the outbox as it fills until `stop` is set; scores changed outside our commands are looked for at
    the start and every `scan_seconds`."""
    poll = float(poll_seconds if poll_seconds is not None else settings.get("push", "poll_seconds", POLL_SECONDS))
    scan = float(scan_seconds if scan_seconds is not None else settings.get("push", "scan_seconds", SCAN_SECONDS))
    sender = LtiSender(settings, private_pem, session=session)
    last_scan = -float("inf")
    with open_outbox(course) as db:
        out(f"sending grades to {settings.require('lti', 'issuer')} as they are made; Ctrl-C stops")
        while not stop.is_set():
            if time.monotonic() - last_scan >= scan:
                queued = reconcile_all(db)
                if queued:
                    out(f"queued {queued} score(s) the LMS has not been sent")
                last_scan = time.monotonic()
            report = sender.send_due(db)
            for row, reason in report.failed:
                out(f"{row.assignment}: {row.student}: refused by the LMS: {reason}")
            wait = report.pause if report.pause else poll
            if not report.pause and report.sent:
                wait = 0.0 if due(db, now_text()) else poll
                db.connection.rollback()
            stop.wait(wait)

