"""`autograder regrade ASSIGNMENT [--student ID ...] [--dry-run] [--no-decrease]`: grade again, with the graders
as they are now, every student already graded (or those named), and show who gained and who lost.

The scores before are read from the gradebook first; the students are then graded as `autograder grade
--force` grades them (manual scores and comments stay); the table lists each changed student's score
before and after and the exercises and checks that moved, and is written to
`exports/regrade_<assignment>_<time>.csv`. `--dry-run` does all of it on a scratch copy and leaves the
gradebook and `autograded/` as they were; `--no-decrease` keeps the higher auto score per cell of the same
notebook (a notebook collected since its last grading is graded afresh: never a mix of two notebooks).
"""

import contextlib
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.cli import UserError, add_command


def register(subparsers) -> None:
    parser = add_command(subparsers, "regrade", run,
                         "grade a class again with the current graders and show what changed", __doc__)
    parser.add_argument("assignment")
    parser.add_argument("--student", action="append", metavar="ID", help="regrade only this student (repeatable)")
    parser.add_argument("--dry-run", action="store_true",
                        help="show what would change; write nothing to the gradebook or autograded/")
    parser.add_argument("--no-decrease", action="store_true",
                        help="keep the higher auto score of each cell: a regrade never lowers a grade")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="submissions graded at once (default: the number of cores)")


@dataclass
class Regraded:
    diff: Any  # regrade.diff.Diff
    summary: Any  # grading.scheduler.Summary
    version: str
    versions_before: Counter  # grader version (None: graded before the trail) -> students regraded


def run(args) -> int:
    from autograder.commands.grade import check_options
    from autograder.course.secrecy import refuse_leaks
    from autograder.course.settings import SettingsError, read_course
    from autograder.grading.pool import start_pool
    from autograder.grading.startup import hidden_paths
    from autograder.regrade.scratch import ScratchError, scratch_course
    from autograder.sandbox.launch import launch, reap

    check_options(args)
    root = Path.cwd()
    try:
        settings = read_course(root, rooted=True)
        refuse_leaks(settings)  # as grade does: the regraded results are what students' feedback is made from
    except SettingsError as exc:
        raise UserError(str(exc)) from None
    with contextlib.ExitStack() as stack:
        grading, hide = settings, hidden_paths(root, settings.graders)
        if args.dry_run:
            try:
                grading, folder = stack.enter_context(scratch_course(settings))
            except ScratchError as exc:
                raise UserError(str(exc)) from None
            hide.append(str(folder))
        launched = [launch(settings.sandbox_level, hide) for _ in range(args.jobs)]
        pool = start_pool(args.jobs, hide, args.assignment, launched, settings.graders, settings.sandbox_level)
        try:
            done = _regrade(args, settings, grading, hide, pool)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            for zygote in launched:
                reap(zygote.process)
        _show(args, settings, done)
    return 0


def _regrade(args, settings, grading, hide: list[str], pool) -> Regraded:
    """Read the grades before, grade, read them after; `grading` is `settings` or its scratch copy."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from autograder.display.terminal import visible
    from autograder.grading.assignment import AssignmentError
    from autograder.grading.gradebook_db import GradebookError
    from autograder.grading.prepare import AssemblyError
    from autograder.grading.scheduler import grade_class, start_class
    from autograder.grading.score_policy import AS_GRADED, ScorePolicy
    from autograder.grading.writer import GradebookWriter
    from autograder.regrade import audit, diff, snapshot
    from autograder.regrade.no_decrease import NoDecrease
    from autograder.sandbox.sandbox_errors import SandboxError
    from autograder.watch.stale_pages import mark_stale

    assignment = args.assignment
    try:
        writer = GradebookWriter(grading.db_url, grading.course_id, config=grading.coursedir.config)
        # A due date or late rule changed since the last command: every grade follows, and its pages say so.
        mark_stale(grading, writer.settle_stale(), "rederived")  # a dry run's: the scratch copy's pages
    except GradebookError as exc:
        raise UserError(str(exc)) from None
    try:
        sources = writer.source_notebooks(assignment)
        before = snapshot.read(writer.db.rows, assignment)
        if args.student:
            missing = [s for s in args.student if s not in before.cells]
            if missing:
                raise UserError(visible(f"not graded yet in {assignment}: {', '.join(missing)} "
                                        "(`autograder grade` grades a first time)"))
        students = list(dict.fromkeys(args.student)) if args.student else before.students
        if not students:
            raise UserError(f"nobody is graded in {assignment} yet: `autograder grade {assignment}` first")
        latest = (audit.versions_by_student(writer.db.rows, assignment)
                  if audit.has_trail(writer.db.rows, writer.db.sqlite) else {})
        versions_before = Counter(latest[s].run.version if s in latest else None for s in students)
        checks_before = snapshot.results(lambda s: settings.path("autograded", s, assignment), students)
        points = {name: p for source in sources for name, p in source.grade_cells.items()}
        no_decrease: NoDecrease | None = None
        if args.no_decrease:
            notebook_of = {name: source.name for source in sources for name in source.grade_cells}
            graded = snapshot.graded_notebooks(lambda s: settings.path("autograded", s, assignment), students,
                                               [source.name for source in sources])
            no_decrease = NoDecrease(before, points, notebook_of, graded)
        policy: ScorePolicy = no_decrease or AS_GRADED
        options = audit.options_text("--no-decrease" if args.no_decrease else "", students=args.student)
        writer.audit = audit.trail("regrade", settings, [assignment], options)
        run = start_class(grading, assignment, sources, students, True, args.jobs, hide, pool)
        run.checked.result()
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=Console(stderr=True, highlight=False), transient=False) as progress:
            summary = grade_class(run, writer, progress, policy=policy)
        mark_stale(grading, writer.changed, "regrade")
        after = snapshot.read(writer.db.rows, assignment)
        checks_after = snapshot.results(lambda s: grading.path("autograded", s, assignment), students)
    except (AssignmentError, AssemblyError, GradebookError, SandboxError) as exc:
        raise UserError(str(exc)) from None
    finally:
        writer.close()
    order = [name for source in sources for name in source.grade_cells]
    kept = no_decrease.kept if no_decrease else {}
    replaced = no_decrease.changed if no_decrease else {}
    changes = diff.compare(before, after, checks_before, checks_after, students, kept, order, replaced)
    return Regraded(changes, summary, writer.audit.versions[assignment], versions_before)


def _show(args, settings, done: Regraded) -> None:
    from rich.console import Console

    from autograder.commands.grade import print_summary
    from autograder.display.terminal import make_console, visible
    from autograder.grades.stamps import now_text
    from autograder.lms.errors import LmsError
    from autograder.lms.table import write_atomic
    from autograder.regrade import diff
    from autograder.regrade.audit import short

    assignment = args.assignment
    print_summary(done.summary, assignment, Console(stderr=True, highlight=False))
    before = ", ".join(f"{short(v) if v else 'not recorded'} ({n})" for v, n in done.versions_before.most_common())
    print(visible(f"graders now {short(done.version)}; before: {before}"))
    dry = " (dry run: nothing was written)" if args.dry_run else ""
    console = make_console()
    if done.diff.changed:
        console.print(diff.table(done.diff, f"{assignment}: what the regrade changed{dry}"))
    print(visible(f"{assignment}: {diff.summary(done.diff)}{dry}"))
    if args.no_decrease:
        kept = done.diff.kept
        print(visible(f"--no-decrease kept the higher score for {len(kept)} student(s)"
                      + (f": {', '.join(kept)}" if kept else "")))
        replaced = done.diff.replaced
        if replaced:
            print(visible(f"--no-decrease kept nothing for {len(replaced)} student(s) whose notebook is not the one "
                          f"graded before (the new grading stands): {', '.join(replaced)}"))
    if done.diff.disagreements:
        cells = ", ".join(f"{student} {label}" for student, label in done.diff.disagreements)
        print(visible(f"manual scores that now disagree with the graders ({len(done.diff.disagreements)}): {cells} "
                      "(the manual score stands; see the formgrader)"))
    stamp = now_text()[:19].replace("-", "").replace(":", "").replace(" ", "T")
    path = settings.root / "exports" / f"regrade_{assignment}_{stamp}{'_dry-run' if args.dry_run else ''}.csv"
    try:
        write_atomic(path, diff.csv_text(done.diff))
    except (LmsError, OSError) as exc:
        raise UserError(visible(f"the table could not be saved: {exc}")) from None
    shown = path.relative_to(settings.root) if path.is_relative_to(settings.root) else path
    print(visible(f"table saved to {shown}"))
