"""`autograder report ASSIGNMENT [--output DIR]`: write the class report, print where and a short summary.

Run in the course folder; the gradebook is the one its nbgrader_config.py names (gradebook.db by default).
The page goes to `reports/<assignment>.html` unless --output names another folder.
"""

import argparse
from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "report", run, "write the class report (HTML with charts) for an assignment",
                         "Write reports/<assignment>.html: score distribution, pass rate per exercise, "
                         "misconceptions, limits hit, grading time. Run in the course folder.")
    parser.add_argument("assignment", help="the assignment's name, as in the gradebook")
    parser.add_argument("--output", type=Path, default=Path("reports"), metavar="DIR",
                        help="folder for the HTML file (default: reports/)")
    parser.add_argument("--formgrader-url", metavar="URL",
                        help="the formgrader's address, for links to cells waiting for manual grading "
                             "(default: a Jupyter server on this machine, port 8888)")


def run(args: argparse.Namespace) -> int:
    # Imported here, not at the top: the CLI registers every command at start-up, and the report's
    # plotting stack (matplotlib) would otherwise be paid by every `autograder grade` too.
    from autograder.display.terminal import exercise_table, make_console, summary_table, visible
    from autograder.report import ReportError, write_report

    course = Path.cwd()
    try:
        extra = {"formgrader": args.formgrader_url} if args.formgrader_url else {}
        path, data = write_report(course, args.assignment, args.output, **extra)
    except ReportError as exc:
        raise UserError(visible(exc)) from None
    console = make_console()
    rows = []
    for exercise in data.exercises:
        top = data.top_misconception(exercise)
        rows.append((exercise.label, exercise.max_score, data.exercise_mean(exercise), data.pass_rate(exercise),
                     f"{top[0]} ({top[1]})" if top else ""))
    console.print(exercise_table(rows, title=f"{data.assignment}: exercises"))
    unavailable = f"{len(data.without_results)} (no result file)" if data.without_results else "0"
    console.print(summary_table([
        ("graded", f"{len(data.submissions)} of {len(data.roster)} students"),
        ("blank / answered and scored 0", f"{len(data.blank)} / {len(data.failed_attempts)}"),
        ("mean score", f"{data.mean_score:.1f} / {data.max_score:g}"),
        ("need a look", f"{len(data.problems)} submissions, {len(data.manual)} cells to grade by hand"),
        ("no misconception data", unavailable),
        ("grader versions", _versions(data)),
        ("watcher", _watcher(data)),
    ]))
    console.print(visible(f"report: {path}"), soft_wrap=True, markup=False)
    return 0


def _watcher(data) -> str:
    """Whether `autograder watch` runs for the course, and its queue (`autograder status` has the rest)."""
    health = data.watch
    if health is None or health.status is None:
        return "running, starting" if health and health.running else "none has run"
    status = health.status
    queue = f"{len(status.in_hand)} being graded, {status.waiting} waiting"
    if health.running:
        return f"running; {queue}"
    return f"NOT RUNNING (last seen {health.age_seconds:.0f} s ago, with {queue})"


def _versions(data) -> str:
    """Which graders scored the class, from the audit trail."""
    if not data.versions:
        return "not recorded"
    count = len(set(data.versions.values()))
    text = f"{count} (MIXED)" if data.mixed_versions else "1"
    return text + (f"; {len(data.stale)} students scored by other graders than the current ones" if data.stale else "")
