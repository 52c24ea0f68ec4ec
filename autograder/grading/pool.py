"""The worker processes: each takes over a zygote the main process started (or starts its own) and loads
the assignment's graders before the first job, then grades one submission per job."""

import gc
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from autograder.grading.model import Job, Outcome
from autograder.grading.submission import grade_submission
from autograder.sandbox.isolation import PR_SET_PDEATHSIG, prctl
from autograder.sandbox.launch import AUTO, Launched
from autograder.sandbox.zygote_handle import Zygote


class Worker:
    """A worker process's own state: what its sandbox hides, at what level (`sandbox.launch`), and its zygote
    (started again if it died)."""

    def __init__(self, hide: list[str], level: str = AUTO) -> None:
        self.hide = hide
        self.level = level
        self._zygote: Zygote | None = None

    def zygote(self, launched: Launched | None = None) -> Zygote:
        """The worker's zygote, started on first use; `launched`: one the main process started for this worker
        already (see `autograder.sandbox.launch`)."""
        if self._zygote is None or not self._zygote.alive():
            self._zygote = Zygote(self.level, self.hide, launched)
            self._zygote.start()
        elif launched is not None:
            launched.close()
        return self._zygote


# The pool calls `work` with a job only: the initializer leaves the process's one Worker here.
_worker = Worker([])


def _init_worker(hide: list[str], level: str, parent: int, assignment: str | None, launched: list[Launched],
                 tickets: int | None, graders: Path | None) -> None:
    """Take over a zygote the main process started (by a ticket from the `tickets` pipe: one each) or
    start one, and load the assignment's graders meanwhile; if either fails, the first job tries again
    and reports why."""
    if sys.platform == "linux":
        # A worker outlives a main process that ended abruptly (killed, or an error before the pool was
        # shut down) and would hold its output pipes open: it goes with it instead.
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(0)
    _worker.hide, _worker.level = list(hide), level
    mine = None
    if tickets is not None:
        ticket = os.read(tickets, 1)  # a byte read from a pipe is no other worker's
        os.close(tickets)
        for index, zygote in enumerate(launched):
            if ticket and index == ticket[0]:
                mine = zygote
            else:
                zygote.close()  # another worker's: it must end with its owner, not live on through this one
    from autograder.graders import use_folder

    use_folder(graders)  # inherited when forked; a spawned worker is told
    if assignment:
        # The graders' plans: loaded by workers, not the main process.
        from autograder.grading.self_check.callplan import prepare

        try:
            prepare(assignment)
        except Exception:  # noqa: S110 - no such graders: the instructor hears of it from check_graders
            pass
    try:
        _worker.zygote(mine)
    except Exception:
        pass
    # What is loaded now (NumPy, the graders, their plans) lives as long as the worker: the collector's
    # full passes need not walk it again and again.
    gc.freeze()


def _ready() -> None:
    """A first job, so that the pool forks its workers now."""


def start_pool(jobs: int, hide: list[str] | tuple[str, ...] = (), assignment: str | None = None,
               launched: list[Launched] | tuple[Launched, ...] = (), graders: Path | None = None,
               level: str = AUTO) -> ProcessPoolExecutor:
    """The worker processes, started before the gradebook is opened; the assignment's graders load in
    each meanwhile. `launched`: zygotes already started, one for each of the first workers (any other
    worker starts its own); `graders`: the course's own graders folder (None: this package's); `level`: the
    sandbox level asked for (`CourseSettings.sandbox_level`)."""
    context = get_context("fork") if sys.platform == "linux" else get_context("spawn")
    # Only forked workers inherit them; spawned ones start their own, and these end unused.
    handed = list(launched) if context.get_start_method() == "fork" else []
    tickets = None
    if handed:
        tickets, feed = os.pipe()
        os.write(feed, bytes(range(min(len(handed), 256))))
        os.close(feed)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker,
                               initargs=(list(hide), level, os.getpid(), assignment, handed, tickets, graders))
    pool.submit(_ready)  # forks every worker now (the fork context starts them all at once)
    if tickets is not None:
        os.close(tickets)
    for zygote in launched:
        zygote.close()  # the workers hold theirs; this process only reaps them (`launch.reap`)
    return pool


def stop_pool(pool: ProcessPoolExecutor, now: bool = False) -> None:
    """Shut the pool down once its jobs are done, or `now`: its workers (and with them their zygotes and
    sandboxes, which die with their parent) are killed, what they held is dropped unrecorded."""
    if now and isinstance(pool, ProcessPoolExecutor):
        # No public way to stop a busy worker before Python 3.14's `terminate_workers`.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
    pool.shutdown(wait=not now, cancel_futures=True)


def serve(hide: list[str], assignments: list[str], level: str = AUTO) -> Zygote:
    """Make this process a grading worker of another executor's (a Dask worker, `autograder.cluster`): what its
    sandbox hides, the assignments' graders loaded with their plans, and its zygote."""
    from autograder.grading.self_check.callplan import prepare

    _worker.hide, _worker.level = list(hide), level
    for assignment in assignments:
        try:
            prepare(assignment)
        except Exception:  # noqa: S110 - no such graders: the instructor hears of it from check_graders
            pass
    return _worker.zygote()


def sandbox_ready() -> str:
    """In a worker, before any student: its zygote is up at the level asked for, or `SandboxError` says in one
    line why nothing can be graded (the host refuses namespaces and the course does not accept the bare
    level). Returns the level reached."""
    return _worker.zygote().info.level


def work(job: Job) -> Outcome:
    """One job, graded in a worker."""
    return grade_submission(job, _worker.zygote())
