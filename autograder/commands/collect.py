"""`autograder collect ASSIGNMENT ARCHIVE.zip --from canvas|moodle|blackboard|brightspace`: an LMS's
"download all submissions" archive into `submitted/<student>/ASSIGNMENT/`, reconciled with the roster."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli import add_command

LMSS = ("canvas", "moodle", "blackboard", "brightspace")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "collect", run, "import submissions from an LMS's download-all archive", __doc__)
    parser.add_argument("assignment")
    parser.add_argument("archive", type=Path, metavar="ARCHIVE.zip")
    parser.add_argument("--from", dest="lms", choices=LMSS, required=True, help="the LMS the archive is from")
    parser.add_argument("--timezone", metavar="ZONE",
                        help="the time zone of the times in Blackboard's and Brightspace's names "
                             "(default: this computer's)")
    parser.add_argument("--csv", type=Path, metavar="FILE",
                        help="where to save the reconciliation (default: exports/collect_ASSIGNMENT.csv)")


def _zone(name: str | None):
    from datetime import datetime
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from autograder.cli import UserError

    if name is None:
        return datetime.now().astimezone().tzinfo
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UserError(f"--timezone {name!r}: not a time zone name (such as Europe/Paris or UTC)") from None


def run(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.collect.archive import Archive, ArchiveError
    from autograder.collect.importer import import_archive
    from autograder.collect.layouts import TIMES
    from autograder.collect.reconcile import counts, rich_table, write_csv
    from autograder.display.terminal import make_console, visible
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import find_course, open_gradebook
    from autograder.lms.identity import load_people
    from autograder.lms.lms_settings import IDENTITY_CHOICES, load

    zone = _zone(args.timezone)
    try:
        course = find_course(Path.cwd())
        username = load(course).choice("blackboard", "username", "login_id", IDENTITY_CHOICES)
        with open_gradebook(course) as gradebook:
            known = {a.name: a for a in gradebook.assignments}
            if args.assignment not in known:
                raise UserError(f"{visible(args.assignment)}: not an assignment in the gradebook (known: "
                                f"{', '.join(sorted(known)) or 'none'}; run nbgrader generate_assignment first)")
            notebooks = sorted(n.name for n in known[args.assignment].notebooks)
            people = load_people(gradebook)
    except LmsError as exc:
        raise UserError(visible(exc)) from None
    if not notebooks:
        raise UserError(f"{args.assignment}: the gradebook lists no notebook for it")
    try:
        with Archive(args.archive) as archive:
            outcome = import_archive(course, args.assignment, args.lms, archive, people, notebooks, zone, username)
    except ArchiveError as exc:
        raise UserError(visible(exc)) from None
    csv_path = args.csv or course / "exports" / f"collect_{args.assignment}.csv"
    try:
        write_csv(csv_path, outcome)
    except (LmsError, OSError) as exc:
        raise UserError(visible(f"{csv_path}: cannot write the reconciliation ({exc})")) from None
    console = make_console()
    console.print(rich_table(outcome.rows, f"{args.assignment}: {args.archive.name} from {args.lms}"))
    console.print(visible(f"{counts(outcome)}."))
    console.print(visible(TIMES[args.lms].format(zone=getattr(zone, "key", None) or str(zone)) + "."))
    if outcome.regrade:
        console.print(visible(f"Changed, with no submission time to show they are newer: grade them again with "
                              f"`autograder grade {args.assignment} --force "
                              f"{' '.join('--student ' + s for s in outcome.regrade)}`"))
    console.print(visible(f"Reconciliation saved to {csv_path}"))
    return 0
