"""`autograder roster`: the students and their LMS identities, with who left the LMS course.
`autograder roster import FILE [--format canvas|plain]`: students and their LMS identities from a file.
`autograder roster sync`: the LMS course's members by LTI Names and Role Provisioning Services."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli import add_command, first_paragraph


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("roster", description=first_paragraph(__doc__),
                                   help="the students and their LMS identities: list, import, sync")
    parser.set_defaults(run=run_list)
    actions = parser.add_subparsers(dest="action")
    importer = add_command(actions, "import", run, "create or update students in the gradebook from a roster file",
                           "Read a roster and store each student's LMS user id, SIS id, login, email and section in "
                           "the nbgrader gradebook. plain: id,first_name,last_name,email,lms_user_id "
                           "[,sis_user_id,login_id,section,lti_user_id]. canvas: Canvas's gradebook export.")
    importer.add_argument("file", type=Path, metavar="FILE")
    importer.add_argument("--format", choices=("canvas", "plain"), default="plain")
    add_command(actions, "sync", run_sync, "the LMS course's members into the roster (LTI NRPS)",
                "Read the LMS course's members (lms.toml's [lti] memberships_url) and save the learners; students "
                "who left the course are flagged, never removed.")


def run(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.display.terminal import visible
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import find_course, open_gradebook
    from autograder.lms.lms_settings import load
    from autograder.lms.roster_import import CANVAS_ID_COLUMNS, import_roster

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


def run_sync(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.display.terminal import visible
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import find_course
    from autograder.lms.roster_sync import sync_course

    try:
        listed, result = sync_course(find_course(Path.cwd()))
    except LmsError as exc:
        raise UserError(visible(exc)) from None
    print(f"Synced {listed} members of the LMS course: {result.created} new students, {result.updated} "
          f"updated, {result.not_learners} not learners (not graded)")
    if result.left:
        print(visible(f"Left the LMS course (flagged, grades kept): {', '.join(result.left)}"))
    if result.returned:
        print(visible(f"Back in the LMS course: {', '.join(result.returned)}"))
    return 0


def run_list(args: argparse.Namespace) -> int:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from autograder.cli import UserError
    from autograder.display.terminal import cell, make_console, visible
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import find_course, open_gradebook
    from autograder.lms.identity import load_people
    from autograder.lms.roster_sync import LEFT, lms_statuses

    try:
        with open_gradebook(find_course(Path.cwd())) as gradebook:
            people, status = load_people(gradebook), lms_statuses(gradebook)
    except LmsError as exc:
        raise UserError(visible(exc)) from None
    left = sum(state == LEFT for state in status.values())
    table = Table(title=f"{len(people)} students; {left} left the LMS course (grades kept)", box=box.SIMPLE,
                  title_justify="left", show_edge=False, pad_edge=False)
    for name in ("student", "name", "email", "LMS user", "LTI user", "in the LMS course"):
        table.add_column(name)
    for person in people:
        state = status.get(person.id, "")
        table.add_row(cell(person.id), cell(person.sortable_name), cell(person.email), cell(person.lms_user_id),
                      cell(person.lti_user_id), Text(state or "—", style="red bold" if state == LEFT else ""))
    make_console().print(table)
    return 0
