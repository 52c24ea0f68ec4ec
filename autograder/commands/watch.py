"""`autograder watch [ASSIGNMENT ...]`: grade submissions as they arrive in nbgrader's exchange and release
each student's feedback, until Ctrl-C or SIGTERM. Run in the course root, by the instructor (or a service
account), one watcher per course.

Without ASSIGNMENT it watches every assignment of the course's `source/` folder. One line per graded,
deferred or refused submission; exit status 0 after a clean stop, 1 and one line for operational errors.
"""

import os
import signal
import sys
import threading
from datetime import datetime
from pathlib import Path

from autograder.cli import UserError, add_command
from autograder.watch.slots import ASIDE_WORKERS


def register(subparsers) -> None:
    parser = add_command(subparsers, "watch", run, "grade submissions from nbgrader's exchange as they arrive", __doc__)
    parser.add_argument("assignment", nargs="*")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="submissions graded at once (default: the number of cores)")
    parser.add_argument("--aside", type=int, default=ASIDE_WORKERS, metavar="N",
                        help="spare workers for submissions started beside runs that wait or sleep in their cells "
                             f"(using no CPU) past a few seconds (default: {ASIDE_WORKERS}; 0: none)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="grade on the Dask cluster whose scheduler is at ADDRESS instead of local workers")


def log(line: str) -> None:
    print(f"{datetime.now():%Y-%m-%d %H:%M:%S} {line}", flush=True)


def run(args) -> int:
    from autograder.cluster.executor import ClusterError
    from autograder.course.secrecy import refuse_leaks
    from autograder.course.settings import SettingsError, read_course
    from autograder.grading.assignment import AssignmentError, check_graders, ensure_assignment
    from autograder.grading.gradebook_db import GradebookError
    from autograder.grading.pool import sandbox_ready, start_pool, stop_pool
    from autograder.grading.scheduler import GradingStopped
    from autograder.grading.startup import hidden_paths
    from autograder.grading.writer import GradebookWriter
    from autograder.sandbox.isolation import BARE_WARNING
    from autograder.sandbox.sandbox_errors import SandboxError
    from autograder.watch.attempt_policy import PolicyError, read_policy
    from autograder.watch.exchange import Exchange
    from autograder.watch.ledger import Ledger
    from autograder.watch.lock import CourseLock, Locked
    from autograder.watch.stale_pages import mark_stale
    from autograder.watch.watch_status import LEDGER_FILE, LOCK_FILE, STATE_FOLDER
    from autograder.watch.watcher import Watcher

    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    if args.aside < 0:
        raise UserError("--aside must be 0 or more")
    aside = args.aside
    root = Path.cwd()
    try:
        settings = read_course(root, rooted=True)
        refuse_leaks(settings)  # the watcher releases feedback to students
        policy = read_policy(settings.coursedir.config)
        _ = settings.late_rules  # read now: a late rule that makes no sense stops the watcher here, in one line
    except (SettingsError, PolicyError) as exc:
        raise UserError(str(exc)) from None
    assignments = tuple(dict.fromkeys(args.assignment)) or settings.assignments
    if not assignments:
        raise UserError(f"no assignments to watch: none named and none in {settings.path('source', '.', '.')}")
    exchange = Exchange.from_config(settings.coursedir.config, settings.course_id)
    if not exchange.inbound.is_dir():
        raise UserError(f"no exchange inbound folder {exchange.inbound} (c.Exchange.root, course "
                        f"{settings.course_id!r}): release an assignment first (nbgrader release_assignment)")
    lock = CourseLock(root / STATE_FOLDER / LOCK_FILE)
    try:
        lock.acquire()
    except Locked as exc:
        raise UserError(str(exc)) from None

    stop = threading.Event()
    hide = [*hidden_paths(root, settings.graders), str(exchange.root)]
    # The workers inherit "ignore Ctrl-C": the terminal sends it to the whole process group, and a
    # watcher stops cleanly only if its workers are still there to finish the round in progress.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if args.cluster:  # the jobs go to a Dask cluster's workers (autograder.cluster)
            from autograder.cluster.executor import connect

            pool = connect(args.cluster, hide, list(assignments), settings.graders, settings.sandbox_level)
            args.jobs, aside = pool.jobs, 0  # the cluster's workers are its own
        else:
            pool = start_pool(args.jobs, hide, assignments[0], graders=settings.graders, level=settings.sandbox_level)
    except ClusterError as exc:
        lock.release()
        raise UserError(str(exc)) from None
    finally:
        signal.signal(signal.SIGINT, previous)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    ledger = writer = watcher = None
    try:
        writer = GradebookWriter(settings.db_url, settings.course_id, config=settings.coursedir.config)
        # A due date or late rule changed since the last command: every grade follows, and its pages say so.
        mark_stale(settings, writer.settle_stale(), "rederived")
        from autograder.regrade import audit  # each round that grades is a run of the audit trail

        writer.audit = audit.trail("watch", settings, assignments)
        for assignment in assignments:
            ensure_assignment(settings, writer, assignment)
        ledger = Ledger(root / STATE_FOLDER / LEDGER_FILE)
        level = pool.submit(sandbox_ready).result()  # nothing is watched where the sandbox would refuse
        for assignment in assignments:  # an instructor's mistake in the graders is one line, before any student
            pool.submit(check_graders, writer.source_notebooks(assignment)).result()
        watcher = Watcher(settings, assignments, policy, exchange, ledger, writer, pool, args.jobs, hide, log,
                          aside)
        workers = f"the Dask cluster at {args.cluster}" if args.cluster else f"{args.jobs} workers, {aside} spare"
        log(f"watching {', '.join(assignments)} in {exchange.inbound} ({workers}, sandbox level {level}); "
            "Ctrl-C stops")
        if level == "bare":
            log(f"WARNING: {BARE_WARNING}")
        watcher.run(stop)
    except (AssignmentError, GradebookError, GradingStopped, SandboxError) as exc:
        raise UserError(str(exc)) from None
    finally:
        for each in watcher.pools() if watcher else [pool]:
            stop_pool(each, now=bool(watcher and watcher.abandoned))
        if writer:
            writer.close()
        if ledger:
            ledger.close()
        lock.release()
    log("stopped")
    sys.stdout.flush()
    return 0
