"""`autograder grade ASSIGNMENT [--student ID ...] [--jobs N] [--force]`: grade a class in the course root.

Student code runs sandboxed, one process per submission; the hidden graders run in trusted worker
processes; results land in the gradebook and `autograded/` exactly where `nbgrader autograde` puts them.
With `--cluster ADDRESS` the submissions are graded on the workers of a running Dask cluster
(`autograder.cluster`) instead of local worker processes; the gradebook is written here all the same.
Exit status 0 whenever grading ran, whatever the submissions did; 1 and one line for operational errors.
"""

import importlib.util
import os
import sys
from pathlib import Path

# jsonschema (under nbformat) imports rfc3987_syntax when it is installed, which builds a grammar for a
# second at import; no notebook schema uses the IRI formats it checks, so it is kept out.
sys.modules.setdefault("rfc3987_syntax", None)

from autograder.cli import UserError  # noqa: E402


def register(subparsers) -> None:
    parser = subparsers.add_parser("grade", help="grade every submission of an assignment, sandboxed",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("assignment")
    parser.add_argument("--student", action="append", metavar="ID", help="grade only this student (repeatable)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="submissions graded at once (default: the number of cores)")
    parser.add_argument("--force", action="store_true", help="grade again submissions already autograded")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="grade on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://10.0.0.5:8786) "
                             "instead of local worker processes")
    parser.set_defaults(run=run)


def hidden_paths(root: Path) -> list[str]:
    """What the sandbox must not show even where it lies inside a runtime path: the course, this package
    (the graders) and the home folder."""
    import autograder

    return [str(root), str(Path(autograder.__file__).resolve().parent), str(Path.home())]


def run(args) -> int:
    from autograder.sandbox.launch import launch, reap, requested_level
    from autograder.submitted import ID_RULE, shown, valid_student_id

    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    for student in args.student or []:
        if not valid_student_id(student):
            raise UserError(f"--student {shown(student)}: not a valid student id ({ID_RULE})")
    root = Path.cwd()
    hide = hidden_paths(root)
    if args.cluster:  # issue 16: the jobs go to a Dask cluster's workers (autograder.cluster), not local ones
        return _grade_on_cluster(args, root, hide)
    # The workers' zygotes start first, and boot while this process loads NumPy (until then one core
    # would have nothing to do); each worker takes one over.
    launched = [launch(requested_level(), hide) for _ in range(args.jobs)]
    from autograder import classgrade

    # The workers fork now, from a process that has not loaded nbgrader or the gradebook, and load the
    # graders while this one does.
    pool = classgrade.start_pool(args.jobs, hide, args.assignment, launched)
    try:
        return _grade(args, root, hide, pool)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # grade_class has shut it down unless it failed first
        for zygote in launched:  # each ended with its worker
            reap(zygote.process)


def _grade_on_cluster(args, root: Path, hide: list[str]) -> int:
    from autograder.classgrade import ClassError
    from autograder.cluster.executor import connect

    try:
        pool = connect(args.cluster, hide, [args.assignment])
    except ClassError as exc:
        raise UserError(str(exc)) from None
    args.jobs = pool.jobs
    try:
        return _grade(args, root, hide, pool)
    finally:
        pool.shutdown()


def _grade(args, root: Path, hide: list[str], pool) -> int:
    _nbgrader_without_server_extensions()
    _nbformat_on_demand()
    _archive_util_on_demand()
    from autograder import classgrade
    from autograder.assemble import AssemblyError
    from autograder.sources import read_sources_early

    try:
        settings = classgrade.load_settings(root)
        students = classgrade.students_to_grade(settings, args.assignment, args.student)
        # From an SQLite gradebook the source notebooks are read at once, and the first submissions run
        # while the rest of this process loads; from another database, once nbgrader's ORM has opened it.
        sources = read_sources_early(settings.db_url, args.assignment)
        run = None
        if sources is not None:
            run = classgrade.start_class(settings, args.assignment, sources, students, args.force, args.jobs, hide,
                                         pool)
    except (classgrade.ClassError, AssemblyError) as exc:
        raise UserError(str(exc)) from None

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from autograder.gradebook import GradebookError, GradebookWriter

    try:
        writer = GradebookWriter(settings.db_url, settings.course_id, config=settings.coursedir.config)
    except GradebookError as exc:
        raise UserError(str(exc)) from None
    err = Console(stderr=True, highlight=False)
    try:
        if run is None:
            classgrade.ensure_assignment(settings, writer, args.assignment)
            run = classgrade.start_class(settings, args.assignment, writer.source_notebooks(args.assignment),
                                         students, args.force, args.jobs, hide, pool)
        run.checked.result()  # an instructor's mistake in the graders is one line, before any progress is shown
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=err, transient=False) as progress:
            summary = classgrade.grade_class(run, writer, progress)
    except (classgrade.ClassError, AssemblyError, GradebookError) as exc:
        raise UserError(str(exc)) from None
    finally:
        writer.close()
    print_summary(summary, args.assignment, err)
    return 0


def _nbgrader_without_server_extensions() -> None:
    """Register the `nbgrader` package without running its `__init__`, which loads the Jupyter server
    extensions (jupyter_server, tornado handlers, the exchange: 0.4 s of CPU); grading imports only its
    modules (`api`, `coursedir`, `utils`, `plugins`, `preprocessors`), which import as usual. Only in this
    command's process: nbgrader itself runs as its own command."""
    if "nbgrader" in sys.modules:
        return
    spec = importlib.util.find_spec("nbgrader")
    if spec is not None:
        sys.modules["nbgrader"] = importlib.util.module_from_spec(spec)


def _nbformat_on_demand() -> None:
    """`nbgrader.utils` imports `nbformat.notebooknode`, and with it nbformat's `__init__`, which loads its
    schema validator and jsonschema (70 ms of CPU); grading reads and writes notebooks as plain JSON and
    needs nbformat's own functions only for an odd notebook. The package is registered with its submodules
    importable as usual; its `__init__` runs the first time one of its names is asked for."""
    if "nbformat" in sys.modules:
        return
    spec = importlib.util.find_spec("nbformat")
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)

    def complete(name: str):
        del module.__getattr__  # before running __init__, whose own `from . import v4` must not come here
        spec.loader.exec_module(module)
        return getattr(module, name)

    module.__getattr__ = complete
    sys.modules["nbformat"] = module


def _archive_util_on_demand() -> None:
    """`nbgrader.utils` imports three functions from `setuptools.archive_util` (for zipped submissions,
    which grading never unpacks); importing setuptools costs 0.1 s. Stand-ins load it when first called."""
    if "setuptools.archive_util" in sys.modules:
        return
    import types

    module = types.ModuleType("setuptools.archive_util")

    def on_demand(name: str):
        def call(*args, **kwargs):
            if sys.modules.get("setuptools.archive_util") is module:
                del sys.modules["setuptools.archive_util"]
            real = importlib.import_module("setuptools.archive_util")
            return getattr(real, name)(*args, **kwargs)
        return call

    for name in ("unpack_archive", "unpack_tarfile", "unpack_zipfile"):
        setattr(module, name, on_demand(name))
    sys.modules["setuptools.archive_util"] = module


def print_summary(summary, assignment: str, err) -> None:
    from autograder.sandbox import isolation
    from autograder.terminal import visible

    done = summary.graded + summary.unreadable
    each = f" ({1000 * summary.seconds / done:.1f} ms each)" if done else ""
    limits = ", ".join(f"{k} {v}" for k, v in sorted(summary.limits.items())) or "none"
    errors = f", NOT GRADED {summary.errors} (internal errors)" if summary.errors else ""
    refused = f"refused {summary.refused} (not a student's own folder), " if summary.refused else ""
    print(visible(f"{assignment}: graded {summary.graded}, failed {summary.unreadable} (unreadable){errors}, "
                  f"skipped {summary.skipped} (already graded), {refused}limits hit: {limits}; "
                  f"{summary.seconds:.1f} s{each}"))
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
