"""`autograder export ASSIGNMENT... --to canvas|moodle|blackboard|brightspace|csv`: an LMS import file."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli import add_command
from autograder.lms.format_names import FORMAT_NAMES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "export", run, "write the grades as a file your LMS imports",
                         "Write the grades of ASSIGNMENT... (late penalties applied, non-submitters blank) in an "
                         "LMS's import format. Run in the course folder; LMS ids come from lms.toml.")
    parser.add_argument("assignments", nargs="+", metavar="ASSIGNMENT")
    parser.add_argument("--to", required=True, choices=FORMAT_NAMES, dest="format")
    parser.add_argument("--output", type=Path, help="file to write (default exports/<format>.csv)")
    parser.add_argument("--skip-missing", action="store_true",
                        help="leave out students without the identity the LMS needs, and list them")


def run(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.display.terminal import visible
    from autograder.lms.errors import LmsError
    from autograder.lms.exports import export
    from autograder.lms.gradebook import find_course

    try:
        course = find_course(Path.cwd())
        path, table = export(course, args.format, args.assignments, args.output, args.skip_missing)
    except LmsError as exc:
        raise UserError(visible(exc)) from None  # it may quote roster names and ids
    shown = path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path
    print(f"Wrote {shown}: {args.format} format, {len(table.students)} students, "
          f"{len(args.assignments)} assignment(s)")
    if table.skipped:
        print(f"Skipped {len(table.skipped)} student(s) without the identity {args.format} needs: "
              f"{', '.join(visible(s) for s in table.skipped)}")
    return 0
