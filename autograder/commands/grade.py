"""`autograder grade ASSIGNMENT [--student ID ...] [--jobs N] [--force]`: grade a class in the course root.

Student code runs sandboxed, one process per submission; the hidden graders run in trusted worker
processes; results land in the gradebook and `autograded/` exactly where `nbgrader autograde` puts them.
With `--cluster ADDRESS` the submissions are graded on the workers of a running Dask cluster
(`autograder.cluster`) instead of local worker processes; the gradebook is written here all the same.
Exit status 0 whenever grading ran, whatever the submissions did; 1 and one line for operational errors.
"""

import os
from pathlib import Path

from autograder.cli import UserError, add_command
from autograder.grading import startup

startup.without_iri_grammar()  # at import: before any command loads jsonschema


def register(subparsers) -> None:
    parser = add_command(subparsers, "grade", run, "grade every submission of an assignment, sandboxed", __doc__)
    parser.add_argument("assignment")
    parser.add_argument("--student", action="append", metavar="ID", help="grade only this student (repeatable)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="submissions graded at once (default: the number of cores)")
    parser.add_argument("--force", action="store_true", help="grade again submissions already autograded")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="grade on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://10.0.0.5:8786) "
                             "instead of local worker processes")


def check_options(args) -> None:
    """`--jobs` and `--student`, as `grade` and `regrade` take them: one line for a user's mistake."""
    from autograder.course.submitted import ID_RULE, shown, valid_student_id

    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    for student in args.student or []:
        if not valid_student_id(student):
            raise UserError(f"--student {shown(student)}: not a valid student id ({ID_RULE})")


def run(args) -> int:
    from autograder.sandbox.launch import launch, reap

    check_options(args)
    root = Path.cwd()
    early = _early_settings(root)
    hide = startup.hidden_paths(root, early.graders)
    if args.cluster:  # the jobs go to a Dask cluster's workers (autograder.cluster), not local ones
        return _grade_on_cluster(args, root, hide, early)
    # The workers' zygotes start first, and boot while this process loads NumPy (until then one core
    # would have nothing to do); each worker takes one over.
    launched = [launch(early.sandbox_level, hide) for _ in range(args.jobs)]
    from autograder.grading.pool import start_pool

    # The workers fork now, from a process that has not loaded nbgrader or the gradebook, and load the
    # graders while this one does.
    pool = start_pool(args.jobs, hide, args.assignment, launched, early.graders, early.sandbox_level)
    try:
        return _grade(args, root, hide, pool)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # grade_class has shut it down unless it failed first
        for zygote in launched:  # each ended with its worker
            reap(zygote.process)


def _grade_on_cluster(args, root: Path, hide: list[str], early) -> int:
    from autograder.cluster.executor import ClusterError, connect

    try:
        pool = connect(args.cluster, hide, [args.assignment], early.graders, early.sandbox_level)
    except ClusterError as exc:
        raise UserError(str(exc)) from None
    args.jobs = pool.jobs
    try:
        return _grade(args, root, hide, pool)
    finally:
        pool.shutdown()


def _early_settings(root: Path):
    """The course's own graders folder and the sandbox level, known before the sandbox starts (it hides the
    graders) and the workers fork (they load them)."""
    from autograder.course.settings import SettingsError, early_settings
    from autograder.graders import use_folder

    try:
        early = early_settings(root)
    except SettingsError as exc:
        raise UserError(str(exc)) from None
    use_folder(early.graders)
    return early


def _grade(args, root: Path, hide: list[str], pool) -> int:
    startup.stand_ins()
    from autograder.course.secrecy import refuse_leaks
    from autograder.course.settings import SettingsError, read_course
    from autograder.grading.assignment import AssignmentError, ensure_assignment
    from autograder.grading.prepare import AssemblyError
    from autograder.grading.scheduler import GradingStopped, grade_class, start_class, students_to_grade
    from autograder.grading.sources import read_sources_early

    try:
        settings = read_course(root, rooted=True)
        refuse_leaks(settings)  # before anyone is graded: the results are what students' feedback is made from
        students = students_to_grade(settings, args.assignment, args.student)
        # From an SQLite gradebook the source notebooks are read at once, and the first submissions run
        # while the rest of this process loads; from another database, once nbgrader's ORM has opened it.
        sources = read_sources_early(settings.db_url, args.assignment)
        run = None
        if sources is not None:
            run = start_class(settings, args.assignment, sources, students, args.force, args.jobs, hide, pool)
    except (SettingsError, AssignmentError, AssemblyError) as exc:
        raise UserError(str(exc)) from None

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from autograder.grading.gradebook_db import GradebookError
    from autograder.grading.writer import GradebookWriter
    from autograder.sandbox.sandbox_errors import SandboxError
    from autograder.watch.stale_pages import mark_stale

    try:
        writer = GradebookWriter(settings.db_url, settings.course_id, config=settings.coursedir.config)
        # A due date or late rule changed since the last command: every grade follows, and its pages say so.
        mark_stale(settings, writer.settle_stale(), "rederived")
    except GradebookError as exc:
        raise UserError(str(exc)) from None
    err = Console(stderr=True, highlight=False)
    try:
        from autograder.regrade import audit  # this run, and each student's score before and after

        options = audit.options_text(force=args.force, students=args.student)
        writer.audit = audit.trail("grade", settings, [args.assignment], options)
        if run is None:
            ensure_assignment(settings, writer, args.assignment)
            run = start_class(settings, args.assignment, writer.source_notebooks(args.assignment),
                              students, args.force, args.jobs, hide, pool)
        run.checked.result()  # an instructor's mistake in the graders is one line, before any progress is shown
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=err, transient=False) as progress:
            summary = grade_class(run, writer, progress)
        mark_stale(settings, writer.changed, "grade")  # a page made before a resubmission was graded says so
        # nbgrader's rule skips a submission already graded, however the graders changed since: say so, with
        # the command that grades them again.
        stale: list[str] = []
        if summary.skipped:
            try:
                stale = audit.graded_by_other_graders(writer.db.rows, writer.db.sqlite, args.assignment,
                                                      writer.audit.versions[args.assignment], students)
            except writer.db.errors:  # only a note: the grades are committed whatever it reads
                pass
    except (AssignmentError, AssemblyError, GradebookError, GradingStopped, SandboxError) as exc:
        raise UserError(str(exc)) from None
    finally:
        writer.close()
    print_summary(summary, args.assignment, err, stale=len(stale))
    return 0


def print_summary(summary, assignment: str, err, stale: int = 0) -> None:
    """The run's summary; `stale`: how many of the skipped students other graders than these scored."""
    from autograder.display.terminal import visible
    from autograder.sandbox import isolation

    done = summary.graded + summary.unreadable
    each = f" ({1000 * summary.seconds / done:.1f} ms each)" if done else ""
    limits = ", ".join(f"{k} {v}" for k, v in sorted(summary.limits.items())) or "none"
    errors = f", NOT GRADED {summary.errors} (internal errors)" if summary.errors else ""
    refused = f"refused {summary.refused} (not a student's own folder, or no usable time), " if summary.refused else ""
    print(visible(f"{assignment}: graded {summary.graded}, failed {summary.unreadable} (unreadable){errors}, "
                  f"skipped {summary.skipped} (already graded), {refused}limits hit: {limits}; "
                  f"{summary.seconds:.1f} s{each}"))
    if stale:
        print(visible(f"  graders changed since these were graded ({stale} of the {summary.skipped} skipped): "
                      f"`autograder regrade {assignment}`"))
    # Each problem names a student (their folder's name) and quotes what their code raised or printed: one
    # line each, escaped, or a student could erase this summary and print a fake one.
    for line in summary.problems[:30]:
        print(f"  {visible(line)}")
    if len(summary.problems) > 30:
        print(visible(f"  ... and {len(summary.problems) - 30} more (see autograded/<student>/{assignment}/"
                      "autograder-result.json)"))
    if summary.sandbox_level:
        if summary.protections_off:
            err.print(f"[bold red]WARNING: sandbox level {summary.sandbox_level!r}: these protections are OFF:[/] "
                      + "; ".join(f"{name} ({isolation.PROTECTIONS[name][1]})" for name in summary.protections_off))
        else:
            print(f"sandbox: {summary.sandbox_level} isolation, all protections on")
        if summary.sandbox_level == "bare":
            print(f"WARNING: {isolation.BARE_WARNING}")
