"""`autograder extend ASSIGNMENT STUDENT... --until DATE | --by DURATION | --revoke --reason "..."`: move (or
move back) the due date of an assignment for some students.

The extension is nbgrader's own (`SubmittedAssignment.extension`), which every grading path reads (`grade`,
`watch`, `regrade`, nbgrader's `autograde`); it replaces any extension the student had, and the audit trail
records who granted it, when and why. `autograder exceptions` lists them.
"""

import argparse
from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "extend", run, "give students more time for an assignment", __doc__)
    parser.add_argument("assignment")
    parser.add_argument("students", nargs="+", metavar="STUDENT")
    when = parser.add_mutually_exclusive_group(required=True)
    when.add_argument("--until", metavar="DATE", help="the new due date, ISO 8601 with its offset "
                                                      "(2026-03-09T23:59:00+01:00)")
    when.add_argument("--by", metavar="DURATION", help="this long after the assignment's due date (3d, 36h)")
    when.add_argument("--revoke", action="store_true", help="take the extension back")
    parser.add_argument("--reason", required=True, help="why (kept in the audit trail)")


def run(args: argparse.Namespace) -> int:
    from autograder.deadlines.exception_store import course_exceptions
    from autograder.deadlines.schedule import DeadlineError, parse_date, parse_duration
    from autograder.display.terminal import visible
    from autograder.watch.stale_pages import mark_stale

    try:
        until = parse_date(args.until) if args.until else None
        by = parse_duration(args.by) if args.by else None
        with course_exceptions(Path.cwd(), mark_stale) as exceptions:
            if args.revoke:
                changes = exceptions.revoke(args.assignment, args.students, args.reason)
            else:
                changes = exceptions.extend(args.assignment, args.students, args.reason, until=until, by=by)
    except DeadlineError as exc:
        raise UserError(visible(str(exc))) from None
    for change in changes:
        print(visible(f"{args.assignment}: {change.student}: {change.text}"))
    return 0
