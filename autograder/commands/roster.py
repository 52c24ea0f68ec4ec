"""`autograder roster import FILE [--format canvas|plain]`: students and their LMS identities."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("roster", help="import students with their LMS identities")
    actions = parser.add_subparsers(dest="action", required=True)
    importer = add_command(actions, "import", run, "create or update students in the gradebook from a roster file",
                           "Read a roster and store each student's LMS user id, SIS id, login, email and section in "
                           "the nbgrader gradebook. plain: id,first_name,last_name,email,lms_user_id "
                           "[,sis_user_id,login_id,section,lti_user_id]. canvas: Canvas's gradebook export.")
    importer.add_argument("file", type=Path, metavar="FILE")
    importer.add_argument("--format", choices=("canvas", "plain"), default="plain")


def run(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import find_course, open_gradebook
    from autograder.lms.lms_settings import load
    from autograder.lms.roster_import import CANVAS_ID_COLUMNS, import_roster
    from autograder.terminal import visible

    try:
        course = find_course(Path.cwd())
        id_from = load(course).choice("roster", "canvas_id_from", "sis_login_id", tuple(CANVAS_ID_COLUMNS))
        with open_gradebook(course, must_exist=False) as gradebook:
            result = import_roster(gradebook, args.file, args.format, id_from)
    except LmsError as exc:
        raise UserError(visible(exc)) from None  # it may quote the roster's names and ids
    print(visible(f"Imported {len(result.people)} students from {args.file}: {result.created} new, "
                  f"{result.updated} updated"))
    if result.not_in_roster:
        print(visible(f"In the gradebook but not in {args.file} (kept): {', '.join(result.not_in_roster)}"))
    return 0
