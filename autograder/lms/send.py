"""`autograder push`: plan the grades, then print them (--dry-run) or send them to Canvas or LTI."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from .gradebook import open_gradebook, read_gradesheet
from .lms_settings import Settings, load
from .push_plan import PushPlan, dry_run_text, plan, report_text
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
        sheet = read_gradesheet(gradebook, [assignment])
    return settings, plan(sheet, assignment, user_field, lms, skip_missing), where


def run(course: Path, assignment: str, to: str, dry_run: bool = False, skip_missing: bool = False,
        out: Callable[[str], None] = print, sleep: Callable[[float], None] = time.sleep) -> bool:
    """Print the dry run, or push and print the report; True when every grade is in the LMS."""
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
    out(report_text(push_plan, report, where))
    return report.ok
