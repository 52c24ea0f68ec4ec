"""`autograder exceptions [ASSIGNMENT] [--history [STUDENT]]`: the extensions, labels and score overrides in
force, or (--history) every change made to them, with who, when and why."""

import argparse
from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "exceptions", run, "list extensions, labels and overrides", __doc__)
    parser.add_argument("assignment", nargs="?")
    parser.add_argument("--history", nargs="?", const="", metavar="STUDENT",
                        help="every change (one student's, when named), oldest first")


def run(args: argparse.Namespace) -> int:
    from autograder.deadlines.exception_store import course_exceptions
    from autograder.deadlines.schedule import DeadlineError, show, show_duration
    from autograder.display.terminal import visible
    from autograder.watch.stale_pages import mark_stale

    lines = []
    try:
        with course_exceptions(Path.cwd(), mark_stale) as exceptions:
            if args.history is not None:
                for e in exceptions.events(args.history or None):
                    if args.assignment in (None, e.assignment):
                        lines.append(f"{e.at[:19]} UTC  {e.user}  {e.kind}  {e.assignment or '(course)'}  "
                                     f"{e.student}: {e.detail}  -- {e.reason}")
            else:
                for assignment, student, due, extension in exceptions.extensions(args.assignment):
                    lines.append(f"extension  {assignment}  {student}: due {show(due)} (+{show_duration(extension)})")
                for student, label in sorted(exceptions.labels().items()):
                    lines.append(f"label      {student}: {label}")
                for assignment, student, _, cell, score in exceptions.overrides(args.assignment):
                    lines.append(f"override   {assignment}  {student}: {cell} = {score:g}")
    except DeadlineError as exc:
        raise UserError(visible(str(exc))) from None
    none = "no change to extensions, labels or overrides recorded" if args.history is not None \
        else "no extensions, labels or overrides"
    for line in lines or [none]:
        print(visible(line))
    return 0
