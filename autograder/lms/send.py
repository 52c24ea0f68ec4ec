"""`autograder push`: plan the grades, then print them (--dry-run) or send them to Canvas or LTI.

A push goes through the outbox (`outbox`) as the sender of `push --follow` does: the gradebook's scores are
queued first where the outbox does not hold them yet, the LTI comment is the outbox's (naming the attempt),
and what the LMS took (or already had) is recorded as sent, what it refused as failed, so `push --status`
and `push --follow` agree with it; the LTI line item is found by the same lookup (`lti.lineitem_for`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from autograder.grades.outbox import FAILED, PENDING, counted_scores, latest, mark_failed, mark_sent, reconcile

from .gradebook import course_rules, open_gradebook, read_gradesheet
from .lms_settings import Settings, load
from .outbox_sender import open_outbox
from .push_plan import PushPlan, PushReport, dry_run_text, plan, report_text
from .retry import policy_from_settings


def prepare(course: Path, assignment: str, to: str, skip_missing: bool) -> tuple[Settings, PushPlan, str]:
    """Settings, what would be sent and a description of where; checks the settings, reads no secret."""
    settings = load(course, required=True)
    if to == "canvas":
        from . import canvas_push as target
        user_field, lms = "lms_user_id", "Canvas"
    else:
        from . import lti as target
        user_field, lms = target.user_field(settings), "the LTI platform"
    where = target.destination(settings, assignment)
    with open_gradebook(course) as gradebook:
        sheet = read_gradesheet(gradebook, [assignment], course_rules(course))
    push_plan = plan(sheet, assignment, user_field, lms, skip_missing)
    if to == "lti":  # the comment the outbox's sender sends: a push and `push --follow` never disagree
        with open_outbox(course) as db:  # and the time of the change, as the sender sends it
            scores, rows = counted_scores(db, assignment), latest(db, assignment)
        push_plan.items = [dataclasses.replace(i, comment=scores[i.student_id].comment,
                                               changed_at=rows[i.student_id].created_at if i.student_id in rows
                                               else None)
                           if i.student_id in scores else i for i in push_plan.items]
    return settings, push_plan, where


def settle(course: Path, push_plan: PushPlan, report: PushReport) -> None:
    """Record in the outbox what the push left in the LMS: each student's newest row sent when the LMS holds
    its score now (sent, or already there), failed when the LMS refused it."""
    scores = {i.student_id: i.score for i in push_plan.items}
    with open_outbox(course) as db:
        rows = latest(db, push_plan.assignment)
        for student in report.sent + report.unchanged:
            row = rows.get(student)
            if row is not None and row.state in (PENDING, FAILED) and abs(row.score - scores[student]) < 1e-9:
                mark_sent(db, row)
        for student, reason in report.failed.items():
            row = rows.get(student)
            if row is not None and row.state == PENDING:
                mark_failed(db, row, reason)
        db.connection.commit()


def run(course: Path, assignment: str, to: str, dry_run: bool = False, skip_missing: bool = False,
        out: Callable[[str], None] = print, sleep: Callable[[float], None] = time.sleep) -> bool:
    """Print the dry run, or push and print the report; True when every grade is in the LMS."""
    if not dry_run:
        with open_outbox(course) as db:  # the gradebook's scores, queued where the outbox lacks them
            reconcile(db, assignment)
            db.connection.commit()
    settings, push_plan, where = prepare(course, assignment, to, skip_missing)
    if dry_run:
        out(dry_run_text(push_plan, where))
        return True
    policy = policy_from_settings(settings, sleep)
    if to == "canvas":
        from . import canvas_push

        token = settings.secret("canvas", "token_env", "token_file", canvas_push.TOKEN_ENV, "Canvas API token")
        report = canvas_push.push(settings, push_plan, token, policy)
    else:
        from . import lti

        key = settings.secret("lti", "private_key_env", "private_key_file", lti.KEY_ENV, "LTI private key")
        report = lti.push(settings, push_plan, key, policy)
    settle(course, push_plan, report)
    out(report_text(push_plan, report, where))
    return report.ok
