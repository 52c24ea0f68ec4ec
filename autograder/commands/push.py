"""`autograder push ASSIGNMENT --to canvas|lti [--dry-run]`: send the grades to the LMS."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "push", run, "send an assignment's grades to Canvas or an LTI 1.3 platform",
                         "Send each submitter's score (late penalty applied) with a per-exercise comment. Grades the "
                         "LMS already has are not sent again. Settings: lms.toml; the Canvas token and the LTI key "
                         "come from the environment or a file outside the course folder.")
    parser.add_argument("assignment", metavar="ASSIGNMENT")
    parser.add_argument("--to", required=True, choices=("canvas", "lti"))
    parser.add_argument("--dry-run", action="store_true", help="print what would be sent; send nothing")
    parser.add_argument("--skip-missing", action="store_true",
                        help="leave out students without the LMS identity instead of stopping")


def run(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.lms import send
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import find_course
    from autograder.terminal import visible

    try:
        complete = send.run(find_course(Path.cwd()), args.assignment, args.to, args.dry_run, args.skip_missing)
    except LmsError as exc:
        raise UserError(visible(exc)) from None  # it may name students
    return 0 if complete else 1
