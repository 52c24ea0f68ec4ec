"""`autograder history ASSIGNMENT [--student ID]`: the audit trail of an assignment's grading runs.

Without --student: every run (`grade`, `watch`, `regrade`) that graded someone, when, by whom, with which
graders, how many students it graded and whose score it changed, then which grader versions the current
scores come from. With --student: that student's score before and after each run that graded them.
"""

from collections import Counter
from pathlib import Path

from rich import box
from rich.table import Table
from rich.text import Text

from autograder.cli import UserError, add_command


def register(subparsers) -> None:
    parser = add_command(subparsers, "history", run, "show who graded an assignment, when, with which graders", __doc__)
    parser.add_argument("assignment")
    parser.add_argument("--student", metavar="ID", help="one student's scores before and after each run")


def run(args) -> int:
    from autograder.course.settings import SettingsError, read_course
    from autograder.display.terminal import make_console, visible
    from autograder.regrade import audit

    try:
        settings = read_course(Path.cwd())
        tables = settings.gradebook_tables()
        if tables is None:
            raise UserError("no gradebook yet: nothing has been graded here")
        if audit.RUN_TABLE not in tables:
            print(visible(f"{args.assignment}: no grading run recorded yet"))
            return 0
        gradebook = settings.open_gradebook()
    except SettingsError as exc:
        raise UserError(str(exc)) from None
    try:
        query = audit.sqlalchemy_query(gradebook)
        runs = audit.runs(query, args.assignment) if query else []
        rows = audit.student_runs(query, args.assignment, args.student) if query else []
        latest = audit.versions_by_student(query, args.assignment) if query else {}
    finally:
        gradebook.close()
    console = make_console()
    if args.student is not None:
        if not rows:
            print(visible(f"{args.assignment}: no recorded run graded {args.student}"))
            return 0
        console.print(student_table(rows, f"{args.assignment}: {args.student}"))
        return 0
    if not runs:
        print(visible(f"{args.assignment}: no grading run recorded yet"))
        return 0
    console.print(run_table(runs, f"{args.assignment}: grading runs"))
    source = settings.path("source", ".", args.assignment)
    now = audit.grader_version(args.assignment, source, list(settings.coursedir.ignore))
    print(visible(versions_line(latest, now)))
    return 0


def versions_line(latest: dict, now: str) -> str:
    """Which grader versions the current scores come from, and whether the class is graded by several."""
    from autograder.regrade.audit import short

    counts = Counter(row.run.version for row in latest.values())
    listed = ", ".join(f"{short(version)} ({n})" for version, n in counts.most_common())
    stale = sum(n for version, n in counts.items() if version != now)
    text = f"current scores come from {len(counts)} grader version(s): {listed}; graders now {short(now)}"
    if len(counts) > 1:
        text += " - MIXED: the class was graded by different graders"
    if stale:
        text += f"; {stale} student(s) graded by other graders than the current ones (`autograder regrade`)"
    return text


def _when(started_at: str) -> str:
    return started_at[:19] + " UTC"


def run_table(runs: list, title: str) -> Table:
    from autograder.display.terminal import cell
    from autograder.regrade.audit import short

    table = Table(title=cell(title), box=box.SIMPLE_HEAD, title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (("when", "left"), ("kind", "left"), ("by", "left"), ("graders", "left"),
                          ("students", "right"), ("changed", "right"), ("options", "left")):
        table.add_column(name, justify=justify, no_wrap=name != "options")
    for run in runs:
        table.add_row(_when(run.started_at), run.kind, cell(run.user), short(run.version), str(run.students),
                      str(run.changed), cell(run.options or "—"))
    return table


def student_table(rows: list, title: str) -> Table:
    from autograder.display.terminal import cell
    from autograder.lms.gradebook import fmt
    from autograder.regrade.audit import short

    table = Table(title=cell(title), box=box.SIMPLE_HEAD, title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (("when", "left"), ("kind", "left"), ("by", "left"), ("graders", "left"),
                          ("before", "right"), ("after", "right"), ("change", "right")):
        table.add_column(name, justify=justify, no_wrap=True)
    for row in rows:
        before = "—" if row.before is None else fmt(row.before)
        after = "—" if row.after is None else fmt(row.after)
        delta = (row.after or 0.0) - (row.before or 0.0)
        change = "first grade" if row.before is None else ("0" if abs(delta) < 1e-9 else f"{delta:+g}")
        style = "green" if row.before is not None and delta > 1e-9 else "red" if delta < -1e-9 else ""
        table.add_row(_when(row.run.started_at), row.run.kind, cell(row.run.user), short(row.run.version),
                      before, after, Text(change, style=style))
    return table
