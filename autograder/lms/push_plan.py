"""What a push sends and what it reports, whatever the LMS.

A push sends one grade per student who submitted: the score after the late penalty, out of the
assignment's points, with a one-line per-exercise comment. A student who submitted nothing gets
nothing (the LMS keeps them ungraded, not 0). The report says, by name, who was sent, who already
had that grade (nothing sent: re-running a push changes nothing), who failed and who was never tried.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.display.terminal import visible

from .errors import MissingIdentity
from .gradebook import Gradesheet, fmt


@dataclass(frozen=True)
class PushItem:
    student_id: str
    lms_user: str  # the id the LMS knows the student by
    score: float
    max_score: float
    comment: str
    changed_at: str | None = None  # the outbox row's time (`outbox.utc_text`): the LTI score's timestamp

    @property
    def posted(self) -> str:
        """The score as text, rounded the way it is sent (two decimals at most)."""
        return fmt(self.score)


@dataclass
class PushPlan:
    assignment: str
    items: list[PushItem]
    not_submitted: list[str]
    skipped: list[str]  # no LMS identity (--skip-missing)


@dataclass
class PushReport:
    sent: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # student -> reason
    not_attempted: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # sent, but the LMS could not confirm either way
    stopped: str = ""  # why the push stopped early, if it did

    @property
    def ok(self) -> bool:
        return not (self.failed or self.not_attempted or self.unknown or self.stopped)


def plan(sheet: Gradesheet, assignment: str, user_field: str, lms: str, skip_missing: bool) -> PushPlan:
    """The grades to send for `assignment`, keyed by the roster field `user_field`."""
    items, not_submitted, missing = [], [], []
    for person in sheet.people:
        grade = sheet.grade(assignment, person.id)
        if not grade.submitted or grade.score is None:
            not_submitted.append(person.id)
            continue
        user = person.get(user_field)
        if not user:
            missing.append(person.id)
            continue
        items.append(PushItem(person.id, user, grade.score, grade.max_score, grade.summary()))
    if missing and not skip_missing:
        raise MissingIdentity(lms, user_field, missing)
    return PushPlan(assignment, items, not_submitted, missing)


def _names(ids: list[str]) -> str:
    return ", ".join(visible(i) for i in ids) if ids else "-"


def dry_run_text(push_plan: PushPlan, destination: str) -> str:
    """What a push would send, one line per student, without contacting the LMS or reading a secret.

    Both texts here name students by their ids and LMS ids, which come from folder names and rosters:
    every such field is escaped (`visible`), so one cannot rewrite the lines around it on a terminal.
    """
    lines = [f"Dry run: would send {len(push_plan.items)} grade(s) for {push_plan.assignment} to {destination}."
             " Nothing was sent."]
    if push_plan.items:
        rows = [(visible(i.student_id), visible(i.lms_user), f"{i.posted}/{fmt(i.max_score)}", visible(i.comment))
                for i in push_plan.items]
        width_s = max(len("student"), *(len(r[0]) for r in rows))
        width_u = max(len("LMS user"), *(len(r[1]) for r in rows))
        width_g = max(len("score"), *(len(r[2]) for r in rows))
        lines.append(f"  {'student':<{width_s}}  {'LMS user':<{width_u}}  {'score':>{width_g}}  comment")
        for student, user, score, comment in rows:
            lines.append(f"  {student:<{width_s}}  {user:<{width_u}}  {score:>{width_g}}  {comment}")
    if push_plan.not_submitted:
        lines.append(f"Not submitted, nothing sent: {_names(push_plan.not_submitted)}")
    if push_plan.skipped:
        lines.append(f"Skipped, no LMS identity: {_names(push_plan.skipped)}")
    return "\n".join(lines)


def report_text(push_plan: PushPlan, report: PushReport, destination: str) -> str:
    head = "Pushed" if report.ok else "Push INCOMPLETE:"
    lines = [f"{head} {push_plan.assignment} to {destination}"]
    lines.append(f"  sent ({len(report.sent)}): {_names(report.sent)}")
    lines.append(f"  already up to date, not sent again ({len(report.unchanged)}): {_names(report.unchanged)}")
    if push_plan.not_submitted:
        missing = push_plan.not_submitted
        lines.append(f"  not submitted, nothing sent ({len(missing)}): {_names(missing)}")
    if push_plan.skipped:
        lines.append(f"  skipped, no LMS identity ({len(push_plan.skipped)}): {_names(push_plan.skipped)}")
    for student, reason in report.failed.items():  # the reason quotes the LMS's answer
        lines.append(f"  FAILED {visible(student)}: {visible(reason)}")
    if report.unknown:
        lines.append(f"  sent but not confirmed ({len(report.unknown)}): {_names(report.unknown)}")
    if report.not_attempted:
        lines.append(f"  NOT sent ({len(report.not_attempted)}): {_names(report.not_attempted)}")
    if report.stopped:
        lines.append(f"  stopped: {visible(report.stopped)}")
    if not report.ok:
        lines.append("  Re-run the same command to send the rest: grades the LMS already has are not sent again.")
    return "\n".join(lines)
