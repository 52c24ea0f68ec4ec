"""`autograder push ASSIGNMENT --to canvas|lti [--dry-run]`: send the grades to the LMS.
`autograder push --follow`: send each score to the LTI platform as it is made (the outbox).
`autograder push --status ASSIGNMENT`: what the outbox sent, holds and failed to send, and why."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path

from autograder.cli import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "push", run, "send an assignment's grades to Canvas or an LTI 1.3 platform",
                         "Send each submitter's score (late penalty applied) with a per-exercise comment. Grades the "
                         "LMS already has are not sent again. Settings: lms.toml; the Canvas token and the LTI key "
                         "come from the environment or a file outside the course folder.")
    parser.add_argument("assignment", metavar="ASSIGNMENT", nargs="?")
    parser.add_argument("--to", choices=("canvas", "lti"))
    parser.add_argument("--dry-run", action="store_true", help="print what would be sent; send nothing")
    parser.add_argument("--skip-missing", action="store_true",
                        help="leave out students without the LMS identity instead of stopping")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--follow", action="store_true",
                      help="keep running: send each score to the LTI platform as it is made (Ctrl-C stops)")
    mode.add_argument("--status", action="store_true",
                      help="show what is sent, pending and failed for ASSIGNMENT, and why")


def run(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.display.terminal import visible
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import find_course

    try:
        course = find_course(Path.cwd())
        if args.status:
            if not args.assignment:
                raise LmsError("push --status needs the ASSIGNMENT")
            return _status(course, args.assignment)
        if args.follow:
            if args.to == "canvas":
                raise LmsError("push --follow sends to an LTI platform (lms.toml's [lti]); "
                               "Canvas gets `push --to canvas`")
            return _follow(course)
        if not args.assignment or not args.to:
            raise LmsError("push needs ASSIGNMENT and --to canvas|lti (or --follow, or --status ASSIGNMENT)")
        from autograder.lms import send

        complete = send.run(course, args.assignment, args.to, args.dry_run, args.skip_missing)
    except LmsError as exc:
        raise UserError(visible(exc)) from None  # it may name students
    return 0 if complete else 1


def _status(course: Path, assignment: str) -> int:
    from autograder.display.terminal import make_console
    from autograder.grades.outbox import SUPERSEDED, history, reconcile
    from autograder.lms.outbox_sender import open_outbox
    from autograder.lms.outbox_status import status_table

    with open_outbox(course) as db:
        changed = reconcile(db, assignment)  # a score changed since (a formgrader manual grade) shows as pending
        db.connection.commit()
        rows = history(db, assignment)
    newest = {row.student: row for row in rows}
    console = make_console()
    if changed:
        console.print(f"{len(changed)} score(s) changed in the gradebook outside a grading command (a formgrader "
                      "manual grade?) were queued now")
    if not newest:
        console.print(f"{assignment}: nothing queued for the LMS (no graded submission)")
        return 0
    console.print(status_table(assignment, newest, sum(row.state == SUPERSEDED for row in rows)))
    return 0


def _follow(course: Path) -> int:
    from autograder.lms import lti
    from autograder.lms.lms_settings import load
    from autograder.lms.outbox_sender import follow

    settings = load(course, required=True)
    key = settings.secret("lti", "private_key_env", "private_key_file", lti.KEY_ENV, "LTI private key")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    follow(course, settings, key, stop)
    print("stopped")
    return 0
