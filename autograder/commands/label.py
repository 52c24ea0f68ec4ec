"""`autograder label STUDENT... --set LABEL | --remove --reason "..."`: a group accommodation (a label that
`c.LateCredit.labels` declares, such as extra-time), set once per student for the whole course.

A label gives its students extra time on every due date and/or every late window stretched; an extension
granted for one assignment replaces the label's extra time there. The audit trail records each change.
"""

import argparse
from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "label", run, "set a student's accommodation label for the course", __doc__)
    parser.add_argument("students", nargs="+", metavar="STUDENT")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--set", metavar="LABEL", dest="label", help="a label declared in c.LateCredit.labels")
    what.add_argument("--remove", action="store_true", help="the student has no label any more")
    parser.add_argument("--reason", required=True, help="why (kept in the audit trail)")


def run(args: argparse.Namespace) -> int:
    from autograder.deadlines.exception_store import course_exceptions
    from autograder.deadlines.schedule import DeadlineError
    from autograder.display.terminal import visible
    from autograder.watch.stale_pages import mark_stale

    try:
        with course_exceptions(Path.cwd(), mark_stale) as exceptions:
            changes = exceptions.label(None if args.remove else args.label, args.students, args.reason)
    except DeadlineError as exc:
        raise UserError(visible(str(exc))) from None
    for change in changes:
        print(visible(f"{change.student}: {change.text}"))
    return 0
