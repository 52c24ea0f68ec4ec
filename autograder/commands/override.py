"""`autograder override ASSIGNMENT STUDENT --cell GRADE_ID --score POINTS | --remove --reason "..."`: an
instructor's score for one graded cell (a settled dispute).

It is nbgrader's manual score of that cell: it counts over the graders' score in the gradebook, the
formgrader, exports and the LMS, and no regrade (with or without --no-decrease) nor `nbgrader autograde`
changes it; --remove lets the graders' score count again. The audit trail records each change.
"""

import argparse
from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "override", run, "set a student's score for a cell by hand", __doc__)
    parser.add_argument("assignment")
    parser.add_argument("student")
    parser.add_argument("--cell", required=True, metavar="GRADE_ID", help="the graded cell's nbgrader id")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--score", type=float, metavar="POINTS")
    what.add_argument("--remove", action="store_true", help="the graders' score counts again")
    parser.add_argument("--reason", required=True, help="why (kept in the audit trail)")


def run(args: argparse.Namespace) -> int:
    from autograder.deadlines.exception_store import course_exceptions
    from autograder.deadlines.schedule import DeadlineError
    from autograder.display.terminal import visible
    from autograder.watch.stale_pages import mark_stale

    try:
        with course_exceptions(Path.cwd(), mark_stale) as exceptions:
            change = exceptions.override(args.assignment, args.student, args.cell,
                                         None if args.remove else args.score, args.reason)
    except DeadlineError as exc:
        raise UserError(visible(str(exc))) from None
    print(visible(f"{args.assignment}: {change.student}: {change.text}"))
    return 0
